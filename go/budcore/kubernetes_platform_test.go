package budcore

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// The platform on a real Kueue (cluster.backend: kubernetes) from Go: a job admitted by Kueue, a
// second waiting for the single GPU, cancel freeing its quota, an administrator's preemption
// requeued. Needs the Kubernetes test bed (BUDCORE_K8S_STATE_DIR, set by tests/k8s_surfaces.sh
// in `make test`); a plain `go test` skips it.

func k8sJob(name string) string {
	return fmt.Sprintf(`{"name": %q, "job_type": "BATCH", "deployment_type": "DOCKER", "gpu_count": 1,
  "cpu_cores": "1", "memory_gb": 1, "spec": {"image": "busybox:1.36"}}`, name)
}

// The job's status is `status` and its record mentions `also`.
func hasStatus(p *Platform, me Caller, id, status, also string) bool {
	got, err := p.Get(me, id)
	return err == nil && strings.Contains(got, `"status":"`+status+`"`) && strings.Contains(got, also)
}

// The platform's own driver thread follows the cluster (clock: system): poll for up to 60 s.
func waitStatus(p *Platform, me Caller, id, status, also string) bool {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if hasStatus(p, me, id, status, also) {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return hasStatus(p, me, id, status, also)
}

func TestKubernetesPlatformAdmitsCancelsAndRequeues(t *testing.T) {
	state := os.Getenv("BUDCORE_K8S_STATE_DIR")
	if state == "" {
		t.Skip("no Kubernetes test bed (BUDCORE_K8S_STATE_DIR unset)")
	}
	q := fmt.Sprintf("g%x", time.Now().UnixNano()^int64(os.Getpid())<<20)
	config := fmt.Sprintf(`store: "sqlite://%[1]s/k.db"
clock: system
cluster: {backend: kubernetes, kubernetes: {kubeconfig: "%[2]s/kubeconfig"}}
queues: {service: %[3]s, batch: %[3]s, training: %[3]s, usecase: %[3]s, tenant_namespace_prefix: %[3]s-}
quota:
  resource_flavors: [{name: f%[3]s, node_labels: {gpu.type: f%[3]s}}]
  cluster_queues:
    - name: %[3]s
      resource_groups:
        - covered_resources: [cpu, memory, nvidia.com/gpu]
          flavors: [{name: f%[3]s, resources: [{name: cpu, nominal: "8"}, {name: memory, nominal: 64Gi}, {name: nvidia.com/gpu, nominal: "1"}]}]
`, t.TempDir(), state, q)
	p, err := OpenPlatform(config)
	if err != nil {
		t.Fatalf("opening the platform on the test bed: %v", err)
	}
	defer p.Close()
	me := Caller{Tenant: "00000000-0000-4000-8000-0000000000f8"}
	rec, err := p.Submit(me, k8sJob("first"), "")
	if err != nil {
		t.Fatal(err)
	}
	first := jobID(t, rec)
	if !waitStatus(p, me, first, "scheduled", "") {
		t.Fatalf("first never scheduled")
	}
	rec, err = p.Submit(me, k8sJob("second"), "") // one GPU in all: it waits
	if err != nil {
		t.Fatal(err)
	}
	second := jobID(t, rec)
	time.Sleep(1500 * time.Millisecond)
	if !hasStatus(p, me, second, "queued", "") {
		t.Fatalf("second should wait for the GPU")
	}
	got, err := p.Cancel(me, first, "make room")
	if err != nil || !strings.Contains(got, `"status":"cancelled"`) {
		t.Fatalf("cancel: %v %s", err, got)
	}
	if !waitStatus(p, me, second, "scheduled", "") {
		t.Fatalf("second never scheduled after the cancel")
	}
	if _, err := p.Preempt(me, second, "maintenance"); err != nil {
		t.Fatal(err)
	}
	// Preempted (the reason in its history), requeued and admitted again.
	if !waitStatus(p, me, second, "scheduled", "maintenance") {
		got, _ := p.Get(me, second)
		t.Fatalf("second never scheduled again after the preemption: %s", got)
	}
	if err := p.Check(); err != nil {
		t.Error(err)
	}
}
