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
	out, err := exec.Command("bash", "../../tests/backends/pg_fixture.sh", "schema", state, schema).Output()
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
	clusterB := must(p.ClusterView(b))
	if !strings.Contains(clusterB, "[hidden ") {
		t.Fatalf("tenant B's cluster view shows no hidden run: %s", clusterB)
	}
	if !strings.Contains(must(p.Cluster()), jobIDA) || !strings.Contains(must(p.ClusterView(a)), jobIDA) {
		t.Fatalf("tenant A's run is missing from the operator's or A's view")
	}
	seen := must(p.List(b, "")) + must(p.Events(b, 0, 1000)) + must(p.Audit(b, "")) + must(p.Deployments(b)) + clusterB
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

// ---- The tenant boundary, class by class (docs/security.md), generated from tables ----------
// Tenant B is a legitimate user of its own tenant. For every way an identifier enters (a
// document's id, each field only the platform writes, an idempotency key, a secret name) B tries
// tenant A's identifiers and a fresh one: each is refused with the expected code and field, and
// the refusal for A's identifier is the fresh one's once the identifier itself is replaced. A's
// objects are untouched; B's event and audit numbers are 1, 2, ... with a chain of its own.

const (
	boundaryB     = "00000000-0000-4000-8000-0000000000f9"
	boundaryFresh = "00000000-0000-4000-8000-00000000f00d"
	boundaryJob   = `"name": "b-claims", "job_type": "BATCH", "deployment_type": "DOCKER", "gpu_count": 0, "estimated_duration_seconds": 600`
	boundaryTrain = `{"pipeline": {"id": "p", "name": "a-train-pipe"}, "steps": [
  {"id": "wait", "name": "wait", "step_type": "WAIT", "depends_on": [], "config": {"duration_seconds": 600}},
  {"id": "train", "name": "train", "step_type": "JOB", "depends_on": ["wait"], "config": {"job_type": "BATCH",
   "deployment_type": "DOCKER", "gpu_type": "nvidia-a100-80gb", "gpu_count": 1, "estimated_duration_seconds": 600,
   "sim": {"outputs": {"model_url": "s3://a/model"}}}}]}`
)

// Every way an identifier enters a submitted document (<job>: a job's fields, @: the
// identifier) and the field its refusal names. A document without `source` has it read from its
// pipeline_id or usecase_deployment_id, and a step without its pipeline fails the document's own
// checks, so the bare spellings name `source` or `pipeline_id`.
var boundaryWays = []struct{ doc, field string }{
	{`{<job>, "id": "@"}`, "id"},
	{`{"jobs": [{<job>, "id": "@"}, {<job>}]}`, "jobs[0].id"},
	{`{"jobs": [{<job>}, {<job>}, {"job": {<job>, "id": "@"}, "idempotency_key": "k"}]}`, "jobs[2].id"},
	{`[{<job>}, {<job>, "id": "@"}]`, "jobs[1].id"},
	{`{<job>, "source": "direct", "pipeline_id": "@"}`, "pipeline_id"},
	{`{<job>, "source": "direct", "pipeline_id": "@", "pipeline_step_id": "@"}`, "pipeline_id"},
	{`{<job>, "source": "direct", "usecase_deployment_id": "@"}`, "usecase_deployment_id"},
	{`{<job>, "source": "pipeline", "pipeline_id": "@"}`, "source"},
	{`{<job>, "source": "pipeline", "pipeline_id": "@", "pipeline_step_id": "@", "source_id": "@"}`, "source"},
	{`{<job>, "source": "usecase", "usecase_deployment_id": "@", "source_id": "@"}`, "source"},
	{`{<job>, "source_id": "@"}`, "source_id"},
	{`{<job>, "pipeline_id": "@"}`, "source"},
	{`{<job>, "usecase_deployment_id": "@"}`, "source"},
	{`{<job>, "pipeline_step_id": "@"}`, "pipeline_id"},
	{`{<job>, "outputs": {"model_url": "s3://@"}}`, "outputs"},
	{`{<job>, "actual_cost": "12.50"}`, "actual_cost"},
	{`{"jobs": [{<job>}, {<job>, "source": "direct", "pipeline_id": "@"}]}`, "jobs[1].pipeline_id"},
}

// Every spelling of the key A's pipeline step will use (@: A's run id), and A's own key.
var boundaryKeys = []string{"@/train/1", "budcore:pipeline/@/train/1", "budcore:@/train/1", "budcore:pipeline/@/train/2",
	"BUDCORE:pipeline/@/train/1", " budcore:pipeline/@/train/1", "Budcore:pipeline/@/train/1", "budcore:",
	"budcore:pipeline/", "a-key"}

type refusalOf struct {
	Code                  Code
	Field, Value, Message string
}

// refused is what a refused call says, blind replaced by <id>.
func refused(t *testing.T, err error, blind string) refusalOf {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("want a refusal, got %v", err)
	}
	r := strings.NewReplacer(blind, "<id>")
	return refusalOf{e.Code, r.Replace(e.Field), r.Replace(e.Value), r.Replace(e.Message)}
}

func tenantHex(tenant string) string { return strings.ToUpper(strings.ReplaceAll(tenant, "-", "")) }

// Every way B could name A's secret `api-token` (env) or `db-pass` (file).
func secretSpellings() []string {
	hex := tenantHex(goTenant)
	out := []string{"api-token", "API_TOKEN", "api_token", "db-pass", goTenant, "..", ".", "BUDCORE_SECRET_API_TOKEN",
		hex, "BUDCORE_SECRET_" + hex + "_API_TOKEN", "BUDCORE_SECRET_" + hex + "_api-token"}
	for _, form := range []string{goTenant, strings.ReplaceAll(goTenant, "-", ""), hex, strings.ToUpper(goTenant)} {
		for _, sep := range []string{"_", "-", "."} {
			for _, name := range []string{"api-token", "API_TOKEN", "api.token", "api_token", "db-pass"} {
				out = append(out, form+sep+name)
			}
		}
	}
	return out
}

// auditChain checks a tenant's audit page: seq 1, 2, ..., the first prev_hash 64 zeros, each
// prev_hash the hash before it; it returns how many entries there are.
func auditChain(t *testing.T, page string) int {
	t.Helper()
	var doc struct {
		Items []struct {
			Seq      int    `json:"seq"`
			PrevHash string `json:"prev_hash"`
			Hash     string `json:"hash"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(page), &doc); err != nil {
		t.Fatal(err)
	}
	prev := strings.Repeat("0", 64)
	for i, e := range doc.Items {
		if e.Seq != i+1 || e.PrevHash != prev {
			t.Fatalf("audit entry %d: seq %d, prev_hash %s (want %s)", i+1, e.Seq, e.PrevHash, prev)
		}
		prev = e.Hash
	}
	return len(doc.Items)
}

// openWithSecrets opens a platform on store with A's secrets: an env variable and a file of A's
// namespace, and the platform's own variables (shared-hook shared, API_TOKEN not).
func openWithSecrets(t *testing.T, store, files string) *Platform {
	if err := os.MkdirAll(files+"/"+goTenant, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(files+"/"+goTenant+"/db-pass", []byte("a-file-secret-2f9c41"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BUDCORE_SECRET_"+tenantHex(goTenant)+"_API_TOKEN", "a-env-secret-77b1e0")
	t.Setenv("BUDCORE_SECRET_API_TOKEN", "platform-secret-5d0a93")
	t.Setenv("BUDCORE_SECRET_SHARED_HOOK", "platform-secret-5d0a93")
	p, err := OpenPlatform(fmt.Sprintf("store: '%s'\nsecurity:\n  secrets: [env, {file: '%s'}]\n  shared_secrets: [shared-hook]\n",
		store, files))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func noIdentifierOfBReachesTenantA(t *testing.T, p *Platform, files string) {
	a := Caller{Tenant: goTenant, Principal: "user:a", RequestID: "r-a"}
	b := Caller{Tenant: boundaryB, Principal: "user:b", RequestID: "r-b"}
	must := func(s string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	job := func(doc string) string { return strings.ReplaceAll(doc, "<job>", boundaryJob) }
	jobA := jobID(t, must(p.Submit(a, `{"name": "a-running", "job_type": "BATCH", "deployment_type": "DOCKER", "gpu_count": 0,
	  "estimated_duration_seconds": 7200}`, "a-key")))
	runA := idIn(t, must(p.RunPipeline(a, boundaryTrain, "")))
	depA := idIn(t, must(p.DeployUsecase(a, "simple-chatbot-v1",
		`{"model_id": "meta-llama/Llama-3.1-8B-Instruct", "gpu_type": "nvidia-a100-80gb"}`)))
	must(p.Run(30))
	must(p.Submit(a, job(`{<job>, "spec": {"env": {"T": "secret://api-token", "P": "secret://db-pass"}}}`), ""))
	holds := func() string {
		return must(p.Get(a, jobA)) + "\n" + must(p.List(a, "")) + "\n" + must(p.PipelineRun(a, runA)) + "\n" +
			must(p.Deployment(a, depA))
	}
	before := holds()
	if !strings.Contains(before, `"status":"running"`) {
		t.Fatalf("A's job should run: %s", before)
	}
	idsOfA := []string{jobA, runA, depA}
	bWrites := 0

	// Class 1 and 2: every way in, with each of A's ids and a fresh one; A may not either.
	for _, w := range boundaryWays {
		doc := func(ident string) string { return strings.ReplaceAll(job(w.doc), "@", ident) }
		_, err := p.Submit(b, doc(boundaryFresh), "")
		fresh := refused(t, err, boundaryFresh)
		if fresh.Code != Invalid || fresh.Field != w.field {
			t.Fatalf("%s: %+v", w.doc, fresh)
		}
		if w.field == "id" && fresh.Message != "is assigned by the platform: submit without an id (an idempotency key makes a submit safe to repeat)" {
			t.Fatalf("%s: %+v", w.doc, fresh)
		}
		if _, err := p.Submit(a, doc(boundaryFresh), ""); refused(t, err, boundaryFresh) != fresh {
			t.Fatalf("%s by A: %v", w.doc, err)
		}
		for _, ident := range idsOfA {
			if _, err := p.Submit(b, doc(ident), ""); refused(t, err, ident) != fresh {
				t.Fatalf("%s with A's %s: %+v vs %+v", w.doc, ident, refused(t, err, ident), fresh)
			}
		}
	}

	// Idempotency keys: the platform's namespace is refused alike for A's run and a fresh one (and
	// for A); any other key is B's own, in B's tenant.
	for _, key := range boundaryKeys {
		withA, withFresh := strings.ReplaceAll(key, "@", runA), strings.ReplaceAll(key, "@", boundaryFresh)
		if strings.HasPrefix(key, "budcore:") {
			_, err := p.Submit(b, job("{<job>}"), withFresh)
			fresh := refused(t, err, boundaryFresh)
			if fresh.Code != Invalid || fresh.Field != "idempotency_key" || fresh.Value != strings.ReplaceAll(key, "@", "<id>") {
				t.Fatalf("%q: %+v", key, fresh)
			}
			_, byB := p.Submit(b, job("{<job>}"), withA)
			_, byA := p.Submit(a, job("{<job>}"), withA)
			if refused(t, byB, runA) != fresh || refused(t, byA, runA) != fresh {
				t.Fatalf("%q: %v / %v vs %+v", key, byB, byA, fresh)
			}
			continue
		}
		keys := []string{withA}
		if withFresh != withA { // "a-key" holds no id: once
			keys = append(keys, withFresh)
		}
		for _, k := range keys {
			made := must(p.Submit(b, job("{<job>}"), k))
			if !strings.Contains(made, `"created":true`) || !strings.Contains(made, boundaryB) || strings.Contains(made, goTenant) {
				t.Fatalf("%q: %s", k, made)
			}
			for _, id := range idsOfA {
				if jobID(t, made) == id {
					t.Fatalf("%q gave B A's %s", k, id)
				}
			}
			bWrites++
		}
	}

	// Class 3: every spelling of A's secret names is B's not-found, the one any name gets; the
	// shared name falls back to the platform's.
	uses := func(who Caller, ref string) error {
		_, err := p.Submit(who, job(`{<job>, "spec": {"env": {"TOKEN": "secret://`+ref+`"}}}`), "")
		return err
	}
	if err := uses(b, "shared-hook"); err != nil {
		t.Fatal(err)
	}
	bWrites++
	unknown := refused(t, uses(b, "no-such-secret"), "secret://no-such-secret")
	if unknown.Code != NotFound || unknown.Field != "spec.env.TOKEN" {
		t.Fatalf("unknown secret: %+v", unknown)
	}
	spellings := secretSpellings()
	if len(spellings) != 71 {
		t.Fatalf("%d spellings", len(spellings))
	}
	for _, ref := range spellings {
		said := refused(t, uses(b, ref), "secret://"+ref)
		if said != unknown || strings.Contains(said.Message, "BUDCORE_SECRET") || strings.Contains(said.Message, files) {
			t.Fatalf("secret://%s: %+v vs %+v", ref, said, unknown)
		}
	}

	// A holds what it held, byte for byte; its step takes the platform's key in A's tenant.
	if after := holds(); after != before {
		t.Fatalf("A's objects changed:\n%s\n%s", before, after)
	}
	must(p.Run(3 * 3600))
	if done := must(p.PipelineRun(a, runA)); !strings.Contains(done, `"status":"completed"`) || !strings.Contains(done, "s3://a/model") {
		t.Fatalf("A's run: %s", done)
	}
	byRun := `{"pipeline_id": "` + runA + `"}`
	if list := must(p.List(a, byRun)); !strings.Contains(list, `"idempotency_key":"budcore:pipeline/`+runA+`/train/1"`) {
		t.Fatalf("A's step: %s", list)
	}
	if list := must(p.List(b, byRun)); !strings.Contains(list, `"items":[]`) {
		t.Fatalf("B lists A's step: %s", list)
	}

	// Class 6: B's numbers count B's own.
	next := int64(1)
	last, err := p.Watch(b, 0, 10000, func(event string) bool {
		var e struct {
			Seq int64 `json:"seq"`
		}
		if json.Unmarshal([]byte(event), &e) != nil || e.Seq != next {
			t.Errorf("event %d: %s", next, event)
		}
		next++
		return true
	})
	if err != nil || last == 0 || last != next-1 {
		t.Fatalf("watch: %v, last %d of %d", err, last, next-1)
	}
	bAudit := must(p.Audit(b, `{"limit": 1000}`))
	if n := auditChain(t, bAudit); n != bWrites || strings.Contains(bAudit, goTenant) || strings.Contains(bAudit, jobA) {
		t.Fatalf("B's audit: %d entries for %d writes\n%s", n, bWrites, bAudit)
	}
	if n := auditChain(t, must(p.Audit(a, `{"limit": 1000}`))); n < 4 {
		t.Fatalf("A's audit: %d entries", n)
	}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestTenantIsolationBoundaryOnSQLite(t *testing.T) {
	dir := t.TempDir()
	p := openWithSecrets(t, "sqlite://"+dir+"/p.db", dir+"/secrets")
	defer p.Close()
	noIdentifierOfBReachesTenantA(t, p, dir+"/secrets")
}

func TestTenantIsolationBoundaryOnPostgres(t *testing.T) {
	uri := postgresStore(t, "go_boundary")
	if uri == "" {
		t.Skip("no BUDCORE_PG_STATE_DIR (make go-tests starts a server)")
	}
	dir := t.TempDir()
	p := openWithSecrets(t, uri, dir+"/secrets")
	defer p.Close()
	noIdentifierOfBReachesTenantA(t, p, dir+"/secrets")
}
