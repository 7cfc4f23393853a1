package budcore

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
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

// postgresStore is a fresh schema on the PostgreSQL server `make go-tests` starts
// (tests/backends/pg_fixture.sh; BUDCORE_PG_STATE_DIR names it); "" outside make.
func postgresStore(t *testing.T, name string) string {
	state := os.Getenv("BUDCORE_PG_STATE_DIR")
	if state == "" {
		return ""
	}
	schema := fmt.Sprintf("%s_%d", name, os.Getpid())
	out, err := exec.Command("bash", "../../../tests/backends/pg_fixture.sh", "schema", state, schema).Output()
	if err != nil {
		t.Fatalf("pg_fixture.sh schema: %v", err)
	}
	return strings.TrimSpace(string(out))
}

func idIn(t *testing.T, record string) string {
	t.Helper()
	var doc struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(record), &doc); err != nil || doc.ID == "" {
		t.Fatalf("no id: %v\n%s", err, record)
	}
	return doc.ID
}

// The cross-tenant matrix (docs/security.md): tenant A owns a job (SQL metacharacters in its
// spec and key), a pipeline run and a deployment; every call by tenant B on their ids fails as
// on an id that exists nowhere; B's lists, events, audit and deployments name nothing of A's;
// A's keys make B jobs of its own; a document claiming A's tenant is refused; A's job is intact.
func tenantBSeesNothingOfTenantA(t *testing.T, p *Platform) {
	a := Caller{Tenant: goTenant, Principal: "user:a", RequestID: "req x'); DROP TABLE audit_log; --"}
	b := Caller{Tenant: "00000000-0000-4000-8000-0000000000f9", Principal: "user:b"}
	const evilKey = "k'; DELETE FROM jobs; --"
	const evilJob = `{"name": "a-train", "job_type": "BATCH", "deployment_type": "DOCKER", "gpu_count": 0,
	  "estimated_duration_seconds": 3600, "spec": {"note": "x'); DROP TABLE jobs; --", "x' OR '1'='1": "a key too"}}`
	must := func(s string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	jobIDA := jobID(t, must(p.Submit(a, evilJob, evilKey)))
	must(p.Submit(a, goJob, "shared"))
	runID := idIn(t, must(p.RunPipeline(a, `{"pipeline": {"id": "p", "name": "a-pipe"}, "steps": [{"id": "s", "name": "s",
	  "step_type": "WAIT", "depends_on": [], "config": {"duration_seconds": 3600}}]}`, "")))
	depID := idIn(t, must(p.DeployUsecase(a, "simple-chatbot-v1",
		`{"model_id": "meta-llama/Llama-3.1-8B-Instruct", "gpu_type": "nvidia-a100-80gb"}`)))
	must(p.Run(60))
	before := must(p.Get(a, jobIDA))
	const unknown = "00000000-0000-4000-8000-00000000dead"
	type probe struct {
		name string
		id   string
		call func(string) (string, error)
	}
	for _, pr := range []probe{
		{"get", jobIDA, func(i string) (string, error) { return p.Get(b, i) }},
		{"cancel", jobIDA, func(i string) (string, error) { return p.Cancel(b, i, "") }},
		{"retry", jobIDA, func(i string) (string, error) { return p.Retry(b, i) }},
		{"priority", jobIDA, func(i string) (string, error) { return p.SetPriority(b, i, "critical") }},
		{"preempt", jobIDA, func(i string) (string, error) { return p.Preempt(b, i, "") }},
		{"run", runID, func(i string) (string, error) { return p.PipelineRun(b, i) }},
		{"run cancel", runID, func(i string) (string, error) { return p.CancelPipelineRun(b, i, "") }},
		{"deployment", depID, func(i string) (string, error) { return p.Deployment(b, i) }},
		{"teardown", depID, func(i string) (string, error) { return p.TeardownDeployment(b, i) }},
	} {
		_, onA := pr.call(pr.id)
		_, onNone := pr.call(unknown)
		if !errors.Is(onA, ErrNotFound) || !errors.Is(onNone, ErrNotFound) {
			t.Fatalf("%s: want not found for both, got %v / %v", pr.name, onA, onNone)
		}
		said := strings.ReplaceAll(onA.Error(), pr.id, "<id>")
		if said != strings.ReplaceAll(onNone.Error(), unknown, "<id>") || strings.Contains(said, "a-") {
			t.Fatalf("%s: A's id is told apart: %q vs %q", pr.name, onA, onNone)
		}
	}
	for _, key := range []string{"shared", evilKey} {
		replay := must(p.Submit(b, goJob, key))
		if !strings.Contains(replay, `"created":true`) || jobID(t, replay) == jobIDA || strings.Contains(replay, goTenant) {
			t.Fatalf("a replayed key: %s", replay)
		}
	}
	seen := must(p.List(b, "")) + must(p.Events(b, 0, 1000)) + must(p.Audit(b, "")) + must(p.Deployments(b))
	for _, ofA := range []string{jobIDA, runID, depID, "a-train", "a-pipe", goTenant, "DROP TABLE"} {
		if strings.Contains(seen, ofA) {
			t.Fatalf("tenant B sees %q of tenant A", ofA)
		}
	}
	forged := strings.Replace(goJob, "{", `{"tenant_id": "`+goTenant+`", `, 1)
	var refused *Error
	if _, err := p.Submit(b, forged, ""); !errors.As(err, &refused) || refused.Field != "tenant_id" {
		t.Fatalf("a document claiming A's tenant: %v", err)
	}
	if after := must(p.Get(a, jobIDA)); after != before {
		t.Fatalf("A's job changed:\n%s\n%s", before, after)
	}
	if run := must(p.PipelineRun(a, runID)); !strings.Contains(run, `"status":"running"`) {
		t.Fatalf("A's run: %s", run)
	}
	if log := must(p.Audit(a, `{"limit": 1}`)); !strings.Contains(log, "DROP TABLE audit_log") {
		t.Fatalf("A's audit: %s", log)
	}
}

func TestTenantIsolationOnSQLite(t *testing.T) {
	p, err := OpenEmbedded(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	tenantBSeesNothingOfTenantA(t, p)
}

func TestTenantIsolationOnPostgres(t *testing.T) {
	uri := postgresStore(t, "go_iso")
	if uri == "" {
		t.Skip("no BUDCORE_PG_STATE_DIR (make go-tests starts a server)")
	}
	p, err := OpenPlatform("store: '" + uri + "'\n")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	tenantBSeesNothingOfTenantA(t, p)
}
