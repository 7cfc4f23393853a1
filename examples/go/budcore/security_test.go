package budcore

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// Security from Go: RBAC with a bootstrap admin, refusals as Code Security naming the
// principal, a rate-limited submit with RetryAfterMs, bindings, and the audit log.
func TestSecurityRolesLimitsAndAudit(t *testing.T) {
	config := fmt.Sprintf("store: 'sqlite://%s/p.db'\nsecurity:\n  rbac: true\n  platform_admins: ['user:root']\n"+
		"  tenants:\n    '*': {submits_per_second: 1, submit_burst: 1}\n", t.TempDir())
	p, err := OpenPlatform(config)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	root := Caller{Tenant: goTenant, Principal: "user:root"}
	erin := Caller{Tenant: goTenant, Principal: "user:erin"}
	job := `{"name": "go-sec", "job_type": "BATCH", "deployment_type": "DOCKER", "gpu_count": 0}`

	_, err = p.Submit(erin, job, "")
	var e *Error
	if !errors.As(err, &e) || e.Code != Security || e.Field != "principal" || e.Value != "user:erin" {
		t.Fatalf("want a refusal naming user:erin, got %v", err)
	}
	if !errors.Is(err, ErrSecurity) {
		t.Fatalf("errors.Is(ErrSecurity) failed: %v", err)
	}
	binding := `{"principal": "user:erin", "role": "editor"}`
	if rec, err := p.BindRole(root, binding); err != nil || !strings.Contains(rec, `"created_by":"user:root"`) {
		t.Fatalf("bind: %v %s", err, rec)
	}
	if list, err := p.RoleBindings(root, ""); err != nil || !strings.Contains(list, `"user:erin"`) {
		t.Fatalf("bindings: %v %s", err, list)
	}
	if _, err := p.Submit(erin, job, ""); err != nil {
		t.Fatal(err)
	}
	_, err = p.Submit(erin, job, "")
	if !errors.As(err, &e) || e.Code != RateLimited || e.RetryAfterMs != 1000 || !errors.Is(err, ErrRateLimited) {
		t.Fatalf("want rate limited with a retry-after, got %#v", err)
	}
	if log, err := p.Audit(root, `{"actor": "user:erin"}`); err != nil || !strings.Contains(log, `"outcome":"denied"`) {
		t.Fatalf("audit: %v %s", err, log)
	}
	if rep, err := p.AuditVerify(root); err != nil || !strings.Contains(rep, `"ok":true`) {
		t.Fatalf("verify: %v %s", err, rep)
	}
	if _, err := p.AuditVerify(erin); !errors.Is(err, ErrSecurity) {
		t.Fatalf("a non-admin verified the chain: %v", err)
	}
	if err := p.UnbindRole(root, binding); err != nil {
		t.Fatal(err)
	}
	if err := p.UnbindRole(root, binding); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unbinding twice: %v", err)
	}
}

// Tenant B guessing tenant A's job id gets the error of an id that exists nowhere, and its own
// list and events hold nothing of A's; A's idempotency key replayed by B makes B a job of its own.
func TestTenantBSeesNothingOfTenantA(t *testing.T) {
	p, err := OpenEmbedded(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	a := Caller{Tenant: goTenant, Principal: "user:a"}
	b := Caller{Tenant: "00000000-0000-4000-8000-0000000000f9", Principal: "user:b"}
	rec, err := p.Submit(a, goJob, "shared")
	if err != nil {
		t.Fatal(err)
	}
	id := jobID(t, rec)
	for _, probe := range []func(string) (string, error){
		func(i string) (string, error) { return p.Get(b, i) },
		func(i string) (string, error) { return p.Cancel(b, i, "") },
		func(i string) (string, error) { return p.Retry(b, i) },
		func(i string) (string, error) { return p.SetPriority(b, i, "critical") },
		func(i string) (string, error) { return p.Preempt(b, i, "") },
	} {
		_, onA := probe(id)
		_, onNone := probe("00000000-0000-4000-8000-00000000dead")
		if !errors.Is(onA, ErrNotFound) || !errors.Is(onNone, ErrNotFound) {
			t.Fatalf("want not found for both, got %v / %v", onA, onNone)
		}
	}
	replay, err := p.Submit(b, goJob, "shared")
	if err != nil || !strings.Contains(replay, `"created":true`) || jobID(t, replay) == id {
		t.Fatalf("a replayed key: %v %s", err, replay)
	}
	list, _ := p.List(b, "")
	events, _ := p.Events(b, 0, 1000)
	if strings.Contains(list+events, id) || strings.Contains(list+events, goTenant) {
		t.Fatalf("tenant B sees tenant A: %s %s", list, events)
	}
}
