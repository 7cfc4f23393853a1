package budcore

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// A platform config's cost section: actual_cost on ended jobs, the job-level budget_limit
// stopping a running job, a hard-limit budget refusing admission, a bad section's path.
const goCost = `cost:
  prices:
    currency: USD
    gpu_hour: {nvidia-a100-80gb: {on_demand: "2.00"}}
    cpu_core_hour: {on_demand: "0"}
    memory_gib_hour: {on_demand: "0"}
  budgets:
    - {name: go-team, tenant_id: 00000000-0000-4000-8000-0000000000f1, amount: "2.50", hard_limit: true}
`

func platformCostJob(name string, seconds int, extra string) string {
	return fmt.Sprintf(`{"name": %q, "job_type": "BATCH", "deployment_type": "DOCKER", "gpu_type": "nvidia-a100-80gb",
  "gpu_count": 1, "estimated_duration_seconds": %d%s}`, name, seconds, extra)
}

func TestPlatformCostSection(t *testing.T) {
	store := fmt.Sprintf("store: \"sqlite://%s/budcore.db\"\n", t.TempDir())
	_, err := OpenPlatform(store + "cost: {budgets: []}\n")
	var be *Error
	if !errors.As(err, &be) || be.Code != Invalid || be.Field != "cost.prices" {
		t.Fatalf("budgets without prices: %v", err)
	}
	p, err := OpenPlatform(store + goCost)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	me := Caller{Tenant: goTenant}
	rec, err := p.Submit(me, platformCostJob("capped", 3600, `, "budget_limit": "1.00"`), "")
	if err != nil {
		t.Fatal(err)
	}
	capped := jobID(t, rec)
	rec, err = p.Submit(me, platformCostJob("twenty-minutes", 1200, ""), "")
	if err != nil {
		t.Fatal(err)
	}
	short := jobID(t, rec)
	if _, err := p.Run(-1); err != nil {
		t.Fatal(err)
	}
	got, err := p.Get(me, capped)
	if err != nil || !strings.Contains(got, `"status":"failed"`) || !strings.Contains(got, "BudgetExceeded") ||
		!strings.Contains(got, `"actual_cost":"1.000555555556"`) {
		t.Errorf("the capped job: %v %s", err, got)
	}
	got, err = p.Get(me, short)
	if err != nil || !strings.Contains(got, `"status":"completed"`) || !strings.Contains(got, `"actual_cost":"0.666666666667"`) {
		t.Errorf("the short job: %v %s", err, got)
	}
	_, err = p.Submit(me, platformCostJob("one-more-hour", 3600, ""), "")
	if !errors.Is(err, ErrBudget) || !strings.Contains(err.Error(), "go-team") {
		t.Errorf("past the budget: %v", err)
	}
	if err := p.Check(); err != nil {
		t.Error(err)
	}
}
