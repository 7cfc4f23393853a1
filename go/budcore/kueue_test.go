package budcore

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

const companionConfig = `controllers: [{name: budcore.io/budget, checks: [budget, window]}]
tenants: [{namespace: team-a, tenant_id: 0190e6f4-0000-7000-8000-00000000000a}]
price_book: {currency: USD, gpu_hour: {a100: {on_demand: "2.00"}}}
budgets: {budgets: [{name: team-a, tenant_id: 0190e6f4-0000-7000-8000-00000000000a, amount: "100", hard_limit: true}]}
soft_limit_percent: 80
`

// One pod with 2 GPUs on flavor a100 for 5 h: 20.00 USD.
const companionWorkload = `{"metadata": {"name": "wl", "namespace": "team-a", "uid": "u1",
  "annotations": {"budcore.io/expected-duration": "5h"}},
 "spec": {"podSets": [{"name": "main", "count": 1, "template": {"spec": {"containers":
  [{"name": "c", "resources": {"requests": {"nvidia.com/gpu": "2"}}}]}}}]},
 "status": {"admission": {"clusterQueue": "cq", "podSetAssignments": [{"name": "main",
  "flavors": {"nvidia.com/gpu": "a100"}}]}}}`

func TestCompanionCheckConfig(t *testing.T) {
	out, err := CompanionCheckConfig(companionConfig)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"budgets":["team-a"]`) || !strings.Contains(out, `"estimates":{"enabled":false,"refresh_seconds":5,"writers":8}`) {
		t.Fatalf("summary: %s", out)
	}
	_, err = CompanionCheckConfig("controllers: []\n")
	var e *Error
	if !errors.As(err, &e) || e.Field != "controllers" {
		t.Fatalf("want an *Error naming controllers, got %v", err)
	}
}

func TestCompanionDecide(t *testing.T) {
	cases := map[string]string{"50.00 USD": `"state":"Ready"`, "70.00 USD": `"state":"Retry"`, "90.00 USD": `"state":"Rejected"`}
	for spent, want := range cases {
		req := `{"workload": ` + companionWorkload + `, "spent": {"team-a": "` + spent + `"}, "now": "2026-11-28T12:00:00Z"}`
		out, err := CompanionDecide(companionConfig, req)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, `"total":"20.00 USD"`) || !strings.Contains(out, `"budget":{"check":"budget",`+want) {
			t.Fatalf("spent %s: want %s in %s", spent, want, out)
		}
	}
}

func TestKueueCompanionRefusesABadKubeconfig(t *testing.T) {
	c, err := OpenKueueCompanion(companionConfig, "/nonexistent/budcore/kubeconfig", "")
	var e *Error
	if c != nil || !errors.As(err, &e) || e.Code != Invalid || e.Field != "kubeconfig_path" ||
		e.Value != "/nonexistent/budcore/kubeconfig" {
		t.Fatalf("want an *Error naming kubeconfig_path and its value, got %v", err)
	}
	_, err = OpenKueueCompanion("controllers: []\n", "", "")
	if !errors.As(err, &e) || e.Field != "controllers" {
		t.Fatalf("want an *Error naming controllers, got %v", err)
	}
}

// One pass and a run stopped from another goroutine on the test bed (tests/k8s_surfaces.sh);
// a plain `go test` skips it.
func TestKueueCompanionOnTheTestbed(t *testing.T) {
	state := os.Getenv("BUDCORE_K8S_STATE_DIR")
	if state == "" {
		t.Skip("no Kubernetes test bed (BUDCORE_K8S_STATE_DIR unset)")
	}
	id := fmt.Sprintf("go-%x", time.Now().UnixNano())
	config := fmt.Sprintf("controllers: [{name: budcore.io/%s, checks: [budget]}]\n"+
		"price_book: {currency: USD}\nbudgets: {budgets: []}\n"+
		"leader_election: {lease_name: %s, namespace: default, identity: %s}\n", id, id, id)
	c, err := OpenKueueCompanion(config, state+"/kubeconfig", "sqlite:"+t.TempDir()+"/companion.db")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pass, err := c.SyncOnce()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(pass, `"leader":true`) || !strings.Contains(pass, `"identity":"`+id+`"`) ||
		!strings.Contains(pass, `"written":[]`) {
		t.Fatalf("pass: %s", pass)
	}
	done := make(chan error, 1)
	go func() { done <- c.Run(nil) }()
	time.Sleep(1500 * time.Millisecond)
	c.Stop()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after Stop")
	}
}
