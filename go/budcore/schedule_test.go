package budcore

import (
	"errors"
	"strings"
	"testing"
)

const scheduleScenario = `{"resource_flavors": [{"name": "on-demand"}],
 "cluster_queues": [{"name": "cq-a", "resource_groups": [{"covered_resources": ["cpu"],
   "flavors": [{"name": "on-demand", "resources": [{"name": "cpu", "nominal": "10"}]}]}]}],
 "local_queues": [{"namespace": "ns", "name": "lq", "cluster_queue": "cq-a"}],
 "workloads": [
  {"name": "w1", "namespace": "ns", "queue": "lq", "creation_seq": 1, "duration_seconds": 600,
   "pod_sets": [{"count": 1, "requests": {"cpu": "6"}}]},
  {"name": "w2", "namespace": "ns", "queue": "lq", "creation_seq": 2, "duration_seconds": 300,
   "pod_sets": [{"count": 1, "requests": {"cpu": "6"}}]}]}`

func TestScheduleEstimate(t *testing.T) {
	out, err := ScheduleEstimate(scheduleScenario, false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"name":"w2","cluster_queue":"cq-a","flavors":{"main":{"cpu":"on-demand"}},"estimated_start":600,"estimated_end":900`) {
		t.Fatalf("unexpected estimate: %s", out)
	}
	bad := strings.Replace(scheduleScenario, `"duration_seconds": 300`, `"duration_seconds": -3`, 1)
	_, err = ScheduleEstimate(bad, false)
	var be *Error
	if !errors.As(err, &be) || be.Field != "workloads[1].duration_seconds" || !errors.Is(err, ErrInvalid) {
		t.Fatalf("want an invalid-input error naming the field, got %v", err)
	}
}

func TestTimelineLiveUpdates(t *testing.T) {
	tl, err := NewTimeline(scheduleScenario)
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	if err := tl.Started("w1", 0, "cq-a", map[string]map[string]string{"main": {"cpu": "on-demand"}}); err != nil {
		t.Fatal(err)
	}
	if err := tl.Finished("w1", 120); err != nil {
		t.Fatal(err)
	}
	out, err := tl.Result(true)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"name":"w2","cluster_queue":"cq-a","flavors":{"main":{"cpu":"on-demand"}},"estimated_start":120`) {
		t.Fatalf("w2 should start when w1 finished: %s", out)
	}
	if err := tl.Finished("w1", 130); !errors.Is(err, ErrConflict) {
		t.Fatalf("finishing twice: want ErrConflict, got %v", err)
	}
	tl.Close()
	if _, err := tl.Result(false); err == nil {
		t.Fatal("a closed timeline must refuse calls")
	}
}

func TestScheduleHTMLAndReplay(t *testing.T) {
	page, err := ScheduleHTML(scheduleScenario)
	if err != nil || !strings.Contains(page, "<svg") {
		t.Fatalf("html: %v", err)
	}
	gen := `{"cohorts": [{"className": "cohort", "count": 1, "queuesSets": [{"className": "cq", "count": 2,
	  "nominalQuota": 4, "workloadsSets": [{"count": 10, "creationIntervalMs": 100,
	  "workloads": [{"className": "small", "runtimeMs": 200, "priority": 50, "request": 1}]}]}]}]}`
	r, err := ScheduleReplay(gen)
	if err != nil || !strings.Contains(r, `"workloads":20`) {
		t.Fatalf("replay: %v %s", err, r)
	}
}
