package budcore

/*
#include <stdlib.h>
#include <budcore/budcore.h>
*/
import "C"

import (
	"runtime"
	"strings"
)

// Cost over the C ABI (budcore/c/cost.h): contract-5 estimates, spot vs on-demand, the
// cheapest GPU type, metering, reports and forecasts, and the store-backed calls (record
// usage, a job's actual cost, the admission gate). Documents are JSON (price books and budgets
// may be YAML); results are the library's JSON text.

// costCall runs one cost function on a locked OS thread and returns what it wrote to out.
func costCall(call func(out *C.budcore_buf) C.int) (string, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	var out C.budcore_buf
	rc := call(&out)
	if rc != C.BUDCORE_OK {
		return "", lastError(rc)
	}
	defer C.budcore_buf_dispose(&out)
	return C.GoStringN(out.ptr, C.int(out.size)), nil
}

func size(s string) C.size_t { return C.size_t(len(s)) }

// ContractCode is the contract-5 code of an estimator error: "unknown_price",
// "missing_field" or "invalid_value".
func ContractCode(err error) string {
	e, ok := err.(*Error)
	switch {
	case ok && (e.Code == NotFound || strings.HasPrefix(e.Message, "unknown_price")):
		return "unknown_price"
	case ok && strings.HasPrefix(e.Message, "missing_field"):
		return "missing_field"
	default:
		return "invalid_value"
	}
}

// Estimate prices a job document, a pipeline document or a use-case render (contract 5).
func Estimate(prices, spec string) (string, error) {
	return costCall(func(out *C.budcore_buf) C.int {
		return C.budcore_cost_estimate(out, cText(prices), size(prices), cText(spec), size(spec))
	})
}

// CompareTiers prices SPEC on demand and on spot, with the savings.
func CompareTiers(prices, spec string) (string, error) {
	return costCall(func(out *C.budcore_buf) C.int {
		return C.budcore_cost_compare_tiers(out, cText(prices), size(prices), cText(spec), size(spec))
	})
}

// CheapestGPU lists GPU types with enough memory, cheapest first; requirement is
// {"memory_gib": N, "gpu_count": 1, "seconds": 3600, "tier": "on_demand"}.
func CheapestGPU(prices, requirement string) (string, error) {
	return costCall(func(out *C.budcore_buf) C.int {
		return C.budcore_cost_cheapest_gpu(out, cText(prices), size(prices), cText(requirement), size(requirement))
	})
}

// Meter prices one usage interval into a usage record.
func Meter(prices, interval string) (string, error) {
	return costCall(func(out *C.budcore_buf) C.int {
		return C.budcore_cost_meter(out, cText(prices), size(prices), cText(interval), size(interval))
	})
}

// CostReport is a chargeback report (granularity "total", the default) or a rollup over
// usage records; query and prices may be "" (absent).
func CostReport(usage, query, prices string) (string, error) {
	return costCall(func(out *C.budcore_buf) C.int {
		return C.budcore_cost_report(out, cText(usage), size(usage), cText(query), size(query), cText(prices), size(prices))
	})
}

// CostServerlessReport is serverless spend per endpoint per hour over the usage records
// labelled serverless_endpoint; query ({"endpoint", "granularity", "from", "to"}) and prices
// may be "" (absent: every endpoint, per hour).
func CostServerlessReport(usage, query, prices string) (string, error) {
	return costCall(func(out *C.budcore_buf) C.int {
		return C.budcore_cost_serverless_report(out, cText(usage), size(usage), cText(query), size(query), cText(prices), size(prices))
	})
}

// CostForecast is the month-end forecast and daily anomalies as of now (RFC 3339; "": the
// system clock).
func CostForecast(usage, now string) (string, error) {
	return costCall(func(out *C.budcore_buf) C.int {
		return C.budcore_cost_forecast(out, cText(usage), size(usage), cText(now), size(now))
	})
}

// Store is an open store (SQLite or PostgreSQL) for the store-backed cost calls. It may be
// shared by goroutines. Close releases it.
type Store struct {
	handle *C.budcore_store
}

// OpenStore opens "sqlite:///abs/path.db", "sqlite::memory:" or "postgresql://...".
func OpenStore(uri string) (*Store, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	s := &Store{}
	if rc := C.budcore_store_open(&s.handle, cText(uri), size(uri)); rc != C.BUDCORE_OK {
		return nil, lastError(rc)
	}
	return s, nil
}

// Close releases the store; closing twice is a no-op.
func (s *Store) Close() {
	C.budcore_store_free(s.handle)
	s.handle = nil
}

// RecordUsage meters interval and appends it for the interval's tenant; it returns the
// stored record.
func (s *Store) RecordUsage(prices, interval string) (string, error) {
	return costCall(func(out *C.budcore_buf) C.int {
		return C.budcore_cost_record_usage(out, s.handle, cText(prices), size(prices), cText(interval), size(interval))
	})
}

// JobCost is the actual cost of a job from its usage records.
func (s *Store) JobCost(tenant, jobID string) (string, error) {
	return costCall(func(out *C.budcore_buf) C.int {
		return C.budcore_cost_job_cost(out, s.handle, cText(tenant), size(tenant), cText(jobID), size(jobID))
	})
}

// JobSubmit submits a job (JSON, the Job schema) for tenant; a repeated non-empty
// idempotencyKey returns the first job ("created": false).
func (s *Store) JobSubmit(tenant, job, idempotencyKey string) (string, error) {
	return costCall(func(out *C.budcore_buf) C.int {
		return C.budcore_store_job_submit(out, s.handle, cText(tenant), size(tenant), cText(job), size(job),
			cText(idempotencyKey), size(idempotencyKey))
	})
}

// JobGet returns the job record {"version", "idempotency_key", "job"}; another tenant's job
// is an *Error with Code NotFound.
func (s *Store) JobGet(tenant, id string) (string, error) {
	return costCall(func(out *C.budcore_buf) C.int {
		return C.budcore_store_job_get(out, s.handle, cText(tenant), size(tenant), cText(id), size(id))
	})
}

// JobTransition moves job id to status to ("queued", "running", ...) along the job state
// machine as a compare-and-set on expectedVersion (the "version" of the record read); message
// ("" for none) becomes its status_message. A lost race or an illegal move is an *Error with
// Code Conflict.
func (s *Store) JobTransition(tenant, id string, expectedVersion int64, to, message string) (string, error) {
	return costCall(func(out *C.budcore_buf) C.int {
		return C.budcore_store_job_transition(out, s.handle, cText(tenant), size(tenant), cText(id), size(id),
			C.int64_t(expectedVersion), cText(to), size(to), cText(message), size(message))
	})
}

// JobList returns a page of tenant's jobs, newest first: {"items", "next_cursor"}; query is
// the JSON of budcore_store_job_list ("" for the defaults).
func (s *Store) JobList(tenant, query string) (string, error) {
	return costCall(func(out *C.budcore_buf) C.int {
		return C.budcore_store_job_list(out, s.handle, cText(tenant), size(tenant), cText(query), size(query))
	})
}

// AdmitJob is the admission gate: the decision JSON when the job's budgets allow it, an
// *Error with Code Budget (errors.Is(err, ErrBudget)) naming "budgets.<name>" when one denies
// it. now "" means the system clock.
func (s *Store) AdmitJob(budgets, prices, job, now string) (string, error) {
	return costCall(func(out *C.budcore_buf) C.int {
		return C.budcore_cost_admit_job(out, s.handle, cText(budgets), size(budgets), cText(prices), size(prices),
			cText(job), size(job), cText(now), size(now))
	})
}

// ServerlessQueueEnqueue admits, scores and stores submissionsJSON (a list of {"tenant",
// "payload_hash", "payload_size_bytes", "estimated_compute_seconds", "priority"}) for the
// endpoint document endpoint (JSON or YAML), owned by tenant (a UUID), in one transaction:
// {"results": [...]}, one per submission (docs/serverless.md "Durable queue").
func (s *Store) ServerlessQueueEnqueue(tenant, endpoint, submissionsJSON string) (string, error) {
	return costCall(func(out *C.budcore_buf) C.int {
		return C.budcore_serverless_queue_enqueue(out, s.handle, cText(tenant), size(tenant), cText(endpoint),
			size(endpoint), cText(submissionsJSON), size(submissionsJSON))
	})
}

// ServerlessQueueClaim claims up to max pending requests of the endpoint named endpoint for
// worker, each leased for leaseSeconds: {"requests": [...]} (report with each one's "claim").
func (s *Store) ServerlessQueueClaim(tenant, endpoint, worker string, max int64, leaseSeconds float64) (string, error) {
	return costCall(func(out *C.budcore_buf) C.int {
		return C.budcore_serverless_queue_claim(out, s.handle, cText(tenant), size(tenant), cText(endpoint),
			size(endpoint), cText(worker), size(worker), C.int64_t(max), C.double(leaseSeconds))
	})
}

// ServerlessQueueFinish applies reportsJSON ([{"id", "claim", "outcome", "reason",
// "lease_seconds"}]) in one transaction: {"results": [{"id", "ok", "status"}]}.
func (s *Store) ServerlessQueueFinish(tenant, reportsJSON string) (string, error) {
	return costCall(func(out *C.budcore_buf) C.int {
		return C.budcore_serverless_queue_finish(out, s.handle, cText(tenant), size(tenant), cText(reportsJSON),
			size(reportsJSON))
	})
}

// ServerlessQueueStatus returns the endpoint's counts by status.
func (s *Store) ServerlessQueueStatus(tenant, endpoint string) (string, error) {
	return costCall(func(out *C.budcore_buf) C.int {
		return C.budcore_serverless_queue_status(out, s.handle, cText(tenant), size(tenant), cText(endpoint),
			size(endpoint))
	})
}

// ServerlessQueueList returns the endpoint's requests by id; options is the JSON of
// budcore_serverless_queue_list ("" for the defaults).
func (s *Store) ServerlessQueueList(tenant, endpoint, options string) (string, error) {
	return costCall(func(out *C.budcore_buf) C.int {
		return C.budcore_serverless_queue_list(out, s.handle, cText(tenant), size(tenant), cText(endpoint),
			size(endpoint), cText(options), size(options))
	})
}
