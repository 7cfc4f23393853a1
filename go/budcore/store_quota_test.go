package budcore

import (
	"errors"
	"strings"
	"testing"
)

const (
	tenantA  = "11111111-1111-4111-8111-111111111111"
	tenantB  = "22222222-2222-4222-8222-222222222222"
	storeJob = `{"name": "train", "job_type": "batch", "deployment_type": "docker"}`
)

func idOf(t *testing.T, record string) string {
	at := strings.Index(record, `"id":"`)
	if at < 0 {
		t.Fatalf("no id in %s", record)
	}
	return record[at+6 : at+6+36]
}

func TestStoreJobsArePerTenantAndIdempotent(t *testing.T) {
	s, err := OpenStore("sqlite::memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	first, err := s.JobSubmit(tenantA, storeJob, "key-1")
	if err != nil || !strings.Contains(first, `"created":true`) {
		t.Fatalf("submit: %s, %v", first, err)
	}
	again, err := s.JobSubmit(tenantA, storeJob, "key-1")
	if err != nil || !strings.Contains(again, `"created":false`) || idOf(t, again) != idOf(t, first) {
		t.Fatalf("a repeated key returns the first job: %s, %v", again, err)
	}
	_, err = s.JobSubmit(tenantA, strings.Replace(storeJob, `"train"`, `"train-2"`, 1), "key-1")
	var reused *Error
	if !errors.As(err, &reused) || reused.Code != Invalid || reused.Field != "idempotency_key" {
		t.Fatalf("the key with another document is refused: %v", err)
	}
	if got, err := s.JobGet(tenantA, idOf(t, first)); err != nil || !strings.Contains(got, `"name":"train"`) {
		t.Fatalf("get: %s, %v", got, err)
	}
	_, err = s.JobGet(tenantB, idOf(t, first))
	var be *Error
	if !errors.As(err, &be) || be.Code != NotFound {
		t.Fatalf("another tenant's job is not found: %v", err)
	}
	if page, err := s.JobList(tenantB, ""); err != nil || !strings.Contains(page, `"items":[]`) {
		t.Fatalf("tenant B sees nothing: %s, %v", page, err)
	}
	if _, err := s.JobSubmit(tenantA, storeJob, ""); err != nil {
		t.Fatal(err)
	}
	if page, err := s.JobList(tenantA, `{"limit": 1}`); err != nil || strings.Contains(page, `"next_cursor":""`) {
		t.Fatalf("a one-job page of two has a cursor: %s, %v", page, err)
	}
}

func TestQuotaSimulate(t *testing.T) {
	scenario := `{"cycles": "until_quiescent", "resource_flavors": [{"name": "default"}],
	  "cluster_queues": [{"name": "cq", "resource_groups": [{"covered_resources": ["cpu"],
	    "flavors": [{"name": "default", "resources": [{"name": "cpu", "nominal": "4"}]}]}]}],
	  "local_queues": [{"namespace": "ns", "name": "lq", "cluster_queue": "cq"}],
	  "workloads": [
	    {"name": "a", "namespace": "ns", "queue": "lq", "creation_seq": 1, "pod_sets": [{"name": "main", "count": 1, "requests": {"cpu": "3"}}]},
	    {"name": "b", "namespace": "ns", "queue": "lq", "creation_seq": 2, "pod_sets": [{"name": "main", "count": 1, "requests": {"cpu": "3"}}]}]}`
	out, err := QuotaSimulate(scenario)
	if err != nil || !strings.Contains(out, `"a":{`) || !strings.Contains(out, `"pending":{"b":`) {
		t.Fatalf("simulate: %s, %v", out, err)
	}
	_, err = QuotaSimulate(`{"bogus": 1}`)
	var be *Error
	if !errors.As(err, &be) || be.Code != Invalid || be.Field != "bogus" {
		t.Fatalf("unknown key: %v", err)
	}
}

func TestStoreJobTransition(t *testing.T) {
	s, err := OpenStore("sqlite::memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const tenant = "00000000-0000-4000-8000-0000000000a9"
	rec, err := s.JobSubmit(tenant, `{"name": "t", "job_type": "batch", "deployment_type": "docker"}`, "")
	if err != nil {
		t.Fatal(err)
	}
	id := jobID(t, rec)
	if out, err := s.JobTransition(tenant, id, 1, "queued", "in line"); err != nil || !strings.Contains(out, `"version":2`) {
		t.Fatalf("queued: %s %v", out, err)
	}
	if _, err := s.JobTransition(tenant, id, 1, "scheduled", ""); !errors.Is(err, ErrConflict) {
		t.Fatalf("a lost compare-and-set: %v", err)
	}
	var be *Error
	if _, err := s.JobTransition(tenant, id, 2, "finished", ""); !errors.As(err, &be) || be.Field != "to" {
		t.Fatalf("an unknown status: %v", err)
	}
}

func TestQuotaEngineLivesAcrossCalls(t *testing.T) {
	e, err := NewQuotaEngine(`{"resource_flavors": [{"name": "default"}],
	  "cluster_queues": [{"name": "cq", "resource_groups": [{"covered_resources": ["cpu"],
	    "flavors": [{"name": "default", "resources": [{"name": "cpu", "nominal": "4"}]}]}]}],
	  "local_queues": [{"namespace": "ns", "name": "lq", "cluster_queue": "cq"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	w := func(name string) string {
		return `{"name": "` + name + `", "namespace": "ns", "queue": "lq", "pod_sets": [{"name": "main", "count": 1, "requests": {"cpu": "3"}}]}`
	}
	if e.Add(w("a")) != nil || e.Add(w("b")) != nil {
		t.Fatal("add")
	}
	if out, err := e.Cycle(); err != nil || !strings.Contains(out, `"admitted":["ns/a"]`) {
		t.Fatalf("cycle: %s %v", out, err)
	}
	if _, err := e.Run(100); err != nil {
		t.Fatal(err)
	}
	if err := e.Finish("ns/a"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(100); err != nil {
		t.Fatal(err)
	}
	if out, err := e.Status("ns/b"); err != nil || !strings.Contains(out, `"state":"admitted"`) {
		t.Fatalf("b after a finished: %s %v", out, err)
	}
	if _, err := e.Status("ns/zzz"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown key: %v", err)
	}
	var be *Error
	if err := e.Add(`{"name": "c", "queue": "lq", "pod_sets": [{"count": -1}]}`); !errors.As(err, &be) || !strings.HasPrefix(be.Field, "workload.pod_sets[0]") {
		t.Fatalf("a bad workload: %v", err)
	}
	if out, err := e.Statuses(); err != nil || !strings.HasPrefix(out, "[") {
		t.Fatalf("statuses: %s %v", out, err)
	}
}

func TestServerlessQueueClaimAndCompleteOnce(t *testing.T) {
	s, err := OpenStore("sqlite::memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const endpoint = `{"name": "chat", "model": "m"}`
	if out, err := s.ServerlessQueueEnqueue(tenantA, endpoint, `[{"tenant": "acme"}]`); err != nil ||
		!strings.Contains(out, `"deduplicated":false`) {
		t.Fatalf("enqueue: %s, %v", out, err)
	}
	if out, err := s.ServerlessQueueClaim(tenantA, "chat", "w1", 10, 30); err != nil || !strings.Contains(out, `"claim":1`) {
		t.Fatalf("claim: %s, %v", out, err)
	}
	report := `[{"id": 1, "claim": 1, "outcome": "complete"}]`
	if out, err := s.ServerlessQueueFinish(tenantA, report); err != nil || !strings.Contains(out, `"ok":true`) {
		t.Fatalf("complete: %s, %v", out, err)
	}
	if out, err := s.ServerlessQueueFinish(tenantA, report); err != nil || !strings.Contains(out, `"ok":false`) {
		t.Fatalf("second complete: %s, %v", out, err)
	}
	_, err = s.ServerlessQueueEnqueue(tenantA, endpoint, `[{"tenant": ""}]`)
	var e *Error
	if !errors.As(err, &e) || e.Field != "submissions[0].tenant" {
		t.Fatalf("bad input: %v", err)
	}
}
