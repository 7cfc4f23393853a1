package budcore

import (
	"fmt"
	"strings"
	"testing"
)

// A serverless endpoint on a platform: its worker is a job the platform admits, a request is
// placed on it warm, and its busy and idle GPU time comes back as usage rows.
func TestServerlessEndpointOnAPlatform(t *testing.T) {
	dir := t.TempDir()
	config := fmt.Sprintf("store: \"sqlite://%s/budcore.db\"\nclock: virtual\ncost:\n  prices: {currency: USD, "+
		"gpu_hour: {nvidia-a100-80gb: {on_demand: \"3.60\"}}, cpu_core_hour: {on_demand: \"0\"}, "+
		"memory_gib_hour: {on_demand: \"0\"}}\n", dir)
	p, err := OpenPlatform(config)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	endpoint := "name: chat\nmodel: llama-3-8b\nconcurrency_per_worker: 1\n" +
		"cold_start: {container_seconds: 2, model_gib: 1, load_gib_per_second: 1, warmup_seconds: 0}\n" +
		"warm_pool: {min_warm_workers: 0, max_warm_workers: 2, target_warm_workers: 0}\n"
	ep, err := p.OpenServerlessEndpoint(Caller{Tenant: "00000000-0000-4000-8000-0000000000f2"}, endpoint, "")
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	mustContain := func(s string, err error, want string) {
		t.Helper()
		if err != nil || !strings.Contains(s, want) {
			t.Fatalf("want %s in %s (%v)", want, s, err)
		}
	}
	s, err := ep.Scale(1)
	mustContain(s, err, `"queued":1`)
	if _, err := p.Run(5); err != nil {
		t.Fatal(err)
	}
	s, err = ep.Scale(-1)
	mustContain(s, err, `"ready":1`)
	s, err = ep.Enqueue(`[{"tenant": "acme", "payload_hash": "h1", "estimated_compute_seconds": 10, "priority": "premium"}]`)
	mustContain(s, err, `"placement":"warm"`)
	if _, err := p.Run(10); err != nil {
		t.Fatal(err)
	}
	s, err = ep.Finish(1, "")
	mustContain(s, err, `"assignments":[]`)
	if _, err := p.Run(10); err != nil {
		t.Fatal(err)
	}
	s, err = ep.Meter()
	mustContain(s, err, `"idle_gpu_seconds":"15"`)
	s, err = ep.Scale(0)
	mustContain(s, err, `"stopped":1`)
}

// The cold start takes 3 s, the warm-up timeout is 2 s: the worker is cancelled and counted.
func TestServerlessWorkerWarmingUpPastItsTimeoutIsCancelled(t *testing.T) {
	p, err := OpenPlatform(fmt.Sprintf("store: \"sqlite://%s/budcore.db\"\nclock: virtual\n", t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	owner := Caller{Tenant: "00000000-0000-4000-8000-0000000000f3"}
	endpoint := "name: chat\nmodel: llama-3-8b\nconcurrency_per_worker: 1\n" +
		"cold_start: {container_seconds: 2, model_gib: 1, load_gib_per_second: 1, warmup_seconds: 0}\n" +
		"warm_pool: {min_warm_workers: 0, max_warm_workers: 2, target_warm_workers: 0, warmup_timeout_seconds: 2}\n"
	ep, err := p.OpenServerlessEndpoint(owner, endpoint, "")
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	s, err := ep.Scale(1)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, found := strings.Cut(s, `"job":"`)
	job, _, _ := strings.Cut(rest, `"`)
	if !found || job == "" {
		t.Fatalf("no worker job in %s", s)
	}
	for _, want := range []string{`"failed_starts":0`, `"failed_starts":1`} {
		if _, err := p.Run(1); err != nil {
			t.Fatal(err)
		}
		if s, err = ep.Scale(-1); err != nil || !strings.Contains(s, want) {
			t.Fatalf("want %s in %s (%v)", want, s, err)
		}
	}
	if m, err := p.Metrics(); err != nil || !strings.Contains(m, `budcore_serverless_failed_starts_total{endpoint=`) {
		t.Fatalf("no failed starts in the metrics: %s (%v)", m, err)
	}
	stored, err := p.Get(owner, job)
	if err != nil || !strings.Contains(stored, `"status":"cancelled"`) || !strings.Contains(stored, "warmup_timeout_seconds") {
		t.Fatalf("the worker's job: %s (%v)", stored, err)
	}
}
