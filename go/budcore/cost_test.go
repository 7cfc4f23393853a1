package budcore

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

const costPrices = `currency: USD
gpu_hour:
  nvidia-a100-80gb: {on_demand: "2.49", spot: "1.19"}
cpu_core_hour: {on_demand: "0.04", spot: "0.02"}
memory_gib_hour: {on_demand: "0.005", spot: "0.0025"}
minimum_billable_seconds: 60
`

const (
	costTenant = "0190e6f4-5c3a-7abc-8def-00000000000a"
	costJob    = "0190e6f4-5c3a-7abc-8def-0000000000f1"
)

func TestEstimateIsExactAndErrorsCarryTheContractCode(t *testing.T) {
	job := `{"job_type": "batch", "gpu_type": "nvidia-a100-80gb", "gpu_count": 2, "cpu_cores": 8,
		"memory_gb": 64, "estimated_duration_seconds": 5400}`
	out, err := Estimate(costPrices, job)
	if err != nil || !strings.Contains(out, `"total":"8.430000"`) {
		t.Fatalf("estimate: %v %s", err, out)
	}
	if out, err := CompareTiers(costPrices, job); err != nil || !strings.Contains(out, `"savings":"4.380000"`) {
		t.Fatalf("compare: %v %s", err, out)
	}
	_, err = Estimate(costPrices, `{"job_type": "batch", "gpu_type": "h100", "gpu_count": 1, "estimated_duration_seconds": 1}`)
	var e *Error
	if !errors.As(err, &e) || e.Field != "gpu_type" || !errors.Is(err, ErrNotFound) || ContractCode(err) != "unknown_price" {
		t.Fatalf("unknown price: %v", err)
	}
	if _, err := Estimate(costPrices, `{"job_type": "batch"}`); ContractCode(err) != "missing_field" {
		t.Fatalf("missing field: %v", err)
	}
	if out, err := CheapestGPU(costPrices, `{"memory_gib": 40}`); err != nil || !strings.Contains(out, "nvidia-a100-80gb") {
		t.Fatalf("cheapest: %v %s", err, out)
	}
}

func TestMeterReportForecast(t *testing.T) {
	interval := fmt.Sprintf(`{"tenant_id": %q, "job_id": %q, "gpu_type": "nvidia-a100-80gb", "gpu_count": 1,
		"start": "2026-05-02T00:00:00Z", "end": "2026-05-02T01:00:00Z", "labels": {"team": "x"}}`, costTenant, costJob)
	record, err := Meter(costPrices, interval)
	if err != nil || !strings.Contains(record, `"computed_cost":"2.49"`) {
		t.Fatalf("meter: %v %s", err, record)
	}
	usage := "[" + record + "]"
	if out, err := CostReport(usage, `{"by": ["label:team"]}`, ""); err != nil || !strings.Contains(out, `"label:team":"x"`) {
		t.Fatalf("report: %v %s", err, out)
	}
	if _, err := CostReport("["+interval+"]", "", ""); err == nil || err.(*Error).Field != "usage[0].computed_cost" {
		t.Fatalf("unpriced interval: %v", err)
	}
	if out, err := CostForecast(usage, "2026-05-04T00:00:00Z"); err != nil || !strings.Contains(out, `"month_to_date":"2.49"`) {
		t.Fatalf("forecast: %v %s", err, out)
	}
}

func TestServerlessSpendPerEndpointPerHour(t *testing.T) {
	// One worker's row from 00:30 to 01:30, half of it busy: half in each hour.
	interval := fmt.Sprintf(`{"tenant_id": %q, "job_id": %q, "gpu_type": "nvidia-a100-80gb", "gpu_count": 1,
		"start": "2026-05-02T00:30:00Z", "end": "2026-05-02T01:30:00Z", "gpu_utilization": "0.5",
		"labels": {"serverless_endpoint": "chat"}}`, costTenant, costJob)
	out, err := CostServerlessReport("["+interval+"]", "", costPrices)
	if err != nil || strings.Count(out, `"endpoint":"chat"`) != 2 || !strings.Contains(out, `"bucket":"2026-05-02T01:00:00Z"`) ||
		!strings.Contains(out, `"busy_gpu_seconds":"900"`) {
		t.Fatalf("serverless report: %v %s", err, out)
	}
	if _, err := CostServerlessReport("[]", `{"endpoint": 7}`, ""); err == nil || err.(*Error).Field != "endpoint" {
		t.Fatalf("bad endpoint: %v", err)
	}
}

func TestStoreBackedCostAndTheAdmissionGate(t *testing.T) {
	store, err := OpenStore("sqlite://" + filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	interval := fmt.Sprintf(`{"tenant_id": %q, "job_id": %q, "gpu_type": "nvidia-a100-80gb", "gpu_count": 1,
		"start": "2026-05-02T00:00:00Z", "end": "2026-05-02T02:00:00Z"}`, costTenant, costJob)
	if out, err := store.RecordUsage(costPrices, interval); err != nil || !strings.Contains(out, `"computed_cost":"4.98"`) {
		t.Fatalf("record: %v %s", err, out)
	}
	// Goroutines share the store.
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out, err := store.JobCost(costTenant, costJob); err != nil || !strings.Contains(out, `"total":"4.98"`) {
				t.Errorf("job cost: %v %s", err, out)
			}
		}()
	}
	wg.Wait()
	budgets := fmt.Sprintf("budgets:\n  - {name: b, tenant_id: %s, amount: \"6\", hard_limit: true}\n", costTenant)
	job := func(seconds int) string {
		return fmt.Sprintf(`{"name": "j", "tenant_id": %q, "job_type": "batch", "deployment_type": "docker",
			"gpu_type": "nvidia-a100-80gb", "gpu_count": 1, "cpu_cores": 0, "memory_gb": 0,
			"estimated_duration_seconds": %d}`, costTenant, seconds)
	}
	if out, err := store.AdmitJob(budgets, costPrices, job(0), "2026-05-10T00:00:00Z"); err != nil || !strings.Contains(out, `"allowed":true`) {
		t.Fatalf("admit: %v %s", err, out)
	}
	_, err = store.AdmitJob(budgets, costPrices, job(1800), "2026-05-10T00:00:00Z")
	if !errors.Is(err, ErrBudget) || err.(*Error).Field != "budgets.b" {
		t.Fatalf("deny: %v", err)
	}
	store.Close()
	store.Close()
}
