package budcore

import (
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

const goTenant = "00000000-0000-4000-8000-0000000000f1"

const goJob = `{"name": "go-train", "job_type": "BATCH", "deployment_type": "DOCKER",
  "gpu_type": "nvidia-a100-80gb", "gpu_count": 2, "estimated_duration_seconds": 600}`

func jobID(t *testing.T, record string) string {
	t.Helper()
	var doc struct {
		Job struct {
			ID string `json:"id"`
		} `json:"job"`
	}
	if err := json.Unmarshal([]byte(record), &doc); err != nil || doc.Job.ID == "" {
		t.Fatalf("not a job record: %v\n%s", err, record)
	}
	return doc.Job.ID
}

func TestPlatformRunsAJob(t *testing.T) {
	p, err := OpenEmbedded(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	me := Caller{Tenant: goTenant, Principal: "user:go"}
	rec, err := p.Submit(me, goJob, "k1")
	if err != nil {
		t.Fatal(err)
	}
	id := jobID(t, rec)
	if tl, err := p.Schedule(me); err != nil || !strings.Contains(tl, `"name":"`+id+`"`) || !strings.Contains(tl, `"estimated_end":`) {
		t.Fatalf("schedule: %v %s", err, tl)
	}
	if tl, err := p.Schedule(Caller{Tenant: "00000000-0000-4000-8000-0000000000f2"}); err != nil || !strings.Contains(tl, `"jobs":[]`) {
		t.Fatalf("another tenant's schedule: %v %s", err, tl)
	}
	if now, err := p.Run(-1); err != nil || !strings.Contains(now, "2026-01-01T00:10:00Z") {
		t.Fatalf("run: %v %s", err, now)
	}
	got, err := p.Get(me, id)
	if err != nil || !strings.Contains(got, `"status":"completed"`) {
		t.Fatalf("get: %v %s", err, got)
	}
	var seen []string
	last, err := p.Watch(me, 0, 100, func(e string) bool { seen = append(seen, e); return true })
	if err != nil || last <= 0 || len(seen) < 4 {
		t.Fatalf("watch: %v last=%d seen=%d", err, last, len(seen))
	}
	if _, err := p.Watch(me, 0, 100, func(string) bool { return false }); !errors.Is(err, ErrUser) {
		t.Errorf("a stopped watch: %v", err)
	}
	if _, err := p.Cancel(me, id, "late"); !errors.Is(err, ErrConflict) {
		t.Errorf("cancel of a completed job: %v", err)
	}
	if _, err := p.Get(Caller{Tenant: "00000000-0000-4000-8000-0000000000f2"}, id); !errors.Is(err, ErrNotFound) {
		t.Errorf("another tenant's job: %v", err)
	}
	_, err = p.Submit(me, `{"name": "x", "job_type": "BATCH", "deployment_type": "DOCKER", "gpu_count": -1}`, "")
	var be *Error
	if !errors.As(err, &be) || be.Field != "gpu_count" {
		t.Errorf("bad job: %v", err)
	}
	if m, err := p.Metrics(); err != nil || !strings.Contains(m, "job_state_transitions_total") {
		t.Errorf("metrics: %v", err)
	}
	if s, err := p.HaStatus(); err != nil || !strings.Contains(s, `"role":"single"`) {
		t.Errorf("ha status: %q %v", s, err)
	}
	if err := p.Check(); err != nil {
		t.Error(err)
	}
}

func TestPlatformPipelinesScenariosAndGoroutines(t *testing.T) {
	dir := t.TempDir()
	p, err := OpenEmbedded(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	me := Caller{Tenant: goTenant}
	run, err := p.RunPipeline(me, `{"pipeline": {"id": "p", "name": "go-pipe"}, "steps": [{"id": "a", "name": "a",
	  "step_type": "JOB", "depends_on": [], "config": {"job_type": "BATCH", "deployment_type": "DOCKER",
	  "estimated_duration_seconds": 30}}]}`, "")
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal([]byte(run), &r)
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if _, err := p.Submit(me, `{"name": "g`+string(rune('a'+i))+`", "job_type": "BATCH", "deployment_type": "DOCKER"}`, ""); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	if _, err := p.Run(7200); err != nil {
		t.Fatal(err)
	}
	if out, err := p.PipelineRun(me, r.ID); err != nil || !strings.Contains(out, `"status":"completed"`) {
		t.Fatalf("pipeline run: %v %s", err, out)
	}
	if list, err := p.List(me, `{"status": "completed"}`); err != nil || strings.Count(list, `"status":"completed"`) != 5 {
		t.Fatalf("list: %v %s", err, list)
	}
	out, err := Simulate("jobs: [{at: 10, job: {name: w, job_type: BATCH, deployment_type: DOCKER, estimated_duration_seconds: 60}}]")
	if err != nil || !strings.Contains(out, `"ended_at":70`) {
		t.Fatalf("simulate: %v %s", err, out)
	}
	if _, err := Simulate("jobs: [{at: -1}]"); !errors.Is(err, ErrInvalid) {
		t.Errorf("bad scenario: %v", err)
	}
	if _, err := OpenPlatform("store: x\nclock: sundial\n"); !errors.Is(err, ErrInvalid) {
		t.Errorf("bad config: %v", err)
	}
	_ = os.RemoveAll(dir)
}

func TestCompactionCutsTheEventLogAndAnOldWatchIsGone(t *testing.T) {
	p, err := OpenPlatform("store: sqlite://" + t.TempDir() + "/r.db\nretention: {events: {max_count: 2}}\n")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	me := Caller{Tenant: goTenant, Principal: "user:go"}
	if _, err := p.Submit(me, goJob, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(-1); err != nil {
		t.Fatal(err)
	}
	if report, err := p.Compact(me); err != nil || !strings.Contains(report, `"log":"events"`) {
		t.Fatalf("compact: %v %s", err, report)
	}
	_, err = p.Events(me, 0, 100)
	var gone *Error
	if !errors.As(err, &gone) || !errors.Is(err, ErrGone) || gone.Field != "since" || gone.Value == "" {
		t.Fatalf("an old watch: %v", err)
	}
	resume, perr := strconv.ParseInt(gone.Value, 10, 64)
	if perr != nil || resume <= 0 {
		t.Fatalf("Gone names where to resume: %q", gone.Value)
	}
	if page, err := p.Events(me, resume, 100); err != nil || !strings.Contains(page, `"events":[`) {
		t.Fatalf("resume after the checkpoint: %v %s", err, page)
	}
}

func TestPlatformPlansForAGangWaitingForPlacement(t *testing.T) {
	// Two A100 nodes of 4 GPUs under worst_fit: a and b take one GPU on each node, so c (4 GPUs),
	// which the quota admits, waits for placement; moving a (1 GPU x (0 + 60) s) frees it.
	config := "store: sqlite://" + t.TempDir() + "/gpu.db\nclock: virtual\ncluster:\n  placement_policy: worst_fit\n" +
		"  inventory:\n    - {name: a100, flavor: a100-80gb, nodes: 2, gpu_type: nvidia-a100-80gb, gpus_per_node: 4," +
		" cpu_per_node: \"96\", memory_per_node: 1Ti}\n"
	p, err := OpenPlatform(config)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	me := Caller{Tenant: goTenant, Principal: "user:go"}
	job := func(name string, gpus, seconds int) string {
		return `{"name": "` + name + `", "job_type": "BATCH", "deployment_type": "DOCKER", "gpu_type": "nvidia-a100-80gb",` +
			` "gpu_count": ` + strconv.Itoa(gpus) + `, "estimated_duration_seconds": ` + strconv.Itoa(seconds) + `}`
	}
	ids := map[string]string{}
	for _, j := range []struct {
		name          string
		gpus, seconds int
	}{{"a", 1, 300}, {"b", 1, 600}, {"c", 4, 600}} {
		rec, err := p.Submit(me, job(j.name, j.gpus, j.seconds), "")
		if err != nil {
			t.Fatal(err)
		}
		ids[j.name] = jobID(t, rec)
	}
	if err := p.Pump(); err != nil {
		t.Fatal(err)
	}
	plan, err := p.GPUDefrag(me, ids["c"])
	if err != nil || !strings.Contains(plan, `"kind":"move"`) || !strings.Contains(plan, `"applied":false`) ||
		!strings.Contains(plan, `"workload":"`+ids["a"]+`"`) {
		t.Fatalf("plan: %v %s", err, plan)
	}
	_, err = p.GPUDefrag(me, ids["a"])
	var be *Error
	if !errors.As(err, &be) || be.Field != "job" || !errors.Is(err, ErrInvalid) {
		t.Fatalf("a job that does not wait: want an invalid-input error naming job, got %v", err)
	}
	if _, err := p.GPUDefrag(Caller{Tenant: "00000000-0000-4000-8000-0000000000f2"}, ids["c"]); !errors.Is(err, ErrNotFound) {
		t.Fatalf("another tenant: want ErrNotFound, got %v", err)
	}
	// A plan the cluster no longer gives is refused naming where; the plan above is applied.
	_, err = p.GPUDefragApply(me, ids["c"], strings.Replace(plan, `"node":"a100-0"`, `"node":"a100-1"`, 1))
	if !errors.As(err, &be) || !errors.Is(err, ErrConflict) || be.Field != "plan.node" {
		t.Fatalf("a stale plan: want ErrConflict naming plan.node, got %v", err)
	}
	applied, err := p.GPUDefragApply(me, ids["c"], plan)
	if err != nil || !strings.Contains(applied, `"applied":true`) {
		t.Fatalf("apply: %v %s", err, applied)
	}
	if rec, err := p.Get(me, ids["c"]); err != nil || !strings.Contains(rec, `"status":"running"`) {
		t.Fatalf("the gang after the plan: %v %s", err, rec)
	}
}
