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
