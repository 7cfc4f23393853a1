//! Cost over the C ABI (`budcore/c/cost.h`): contract-5 estimates, spot vs on-demand, the
//! cheapest GPU type, metering, reports, forecasts, and the store-backed calls (record usage,
//! a job's actual cost, the admission gate). Documents are JSON (price books and budgets may
//! be YAML); results are the library's JSON text.

use std::os::raw::c_char;
use std::ptr;

use crate::{check, sys, Buf, Error, ErrorCode};

/// (pointer, length) of a borrowed string; the library copies what it keeps.
fn text(s: &str) -> (*const c_char, usize) {
    (s.as_ptr().cast(), s.len())
}

/// (NULL, 0) for None.
fn opt_text(s: Option<&str>) -> (*const c_char, usize) {
    s.map_or((ptr::null(), 0), text)
}

/// Calls `f(out)` and returns the text it wrote.
fn with_out(f: impl FnOnce(*mut sys::budcore_buf) -> i32) -> Result<String, Error> {
    let mut out = Buf::new();
    check(f(out.as_mut_ptr()))?;
    Ok(out.to_string_lossy())
}

/// The contract-5 code of an estimator error: "unknown_price", "missing_field" or "invalid_value".
pub fn contract_code(error: &Error) -> &'static str {
    if error.message.starts_with("unknown_price") || error.code == ErrorCode::NotFound {
        "unknown_price"
    } else if error.message.starts_with("missing_field") {
        "missing_field"
    } else {
        "invalid_value"
    }
}

/// Prices a job document, a pipeline document or a use-case render (contract 5).
pub fn estimate(prices: &str, spec: &str) -> Result<String, Error> {
    let ((p, pl), (s, sl)) = (text(prices), text(spec));
    // SAFETY: live slices for the call; `out` is an empty Buf.
    with_out(|out| unsafe { sys::budcore_cost_estimate(out, p, pl, s, sl) })
}

/// The same SPEC on demand and on spot, with the savings.
pub fn compare_tiers(prices: &str, spec: &str) -> Result<String, Error> {
    let ((p, pl), (s, sl)) = (text(prices), text(spec));
    // SAFETY: as in estimate.
    with_out(|out| unsafe { sys::budcore_cost_compare_tiers(out, p, pl, s, sl) })
}

/// GPU types with enough memory, cheapest first; `requirement` is
/// `{"memory_gib": N, "gpu_count": 1, "seconds": 3600, "tier": "on_demand"}`.
pub fn cheapest_gpu(prices: &str, requirement: &str) -> Result<String, Error> {
    let ((p, pl), (r, rl)) = (text(prices), text(requirement));
    // SAFETY: as in estimate.
    with_out(|out| unsafe { sys::budcore_cost_cheapest_gpu(out, p, pl, r, rl) })
}

/// Prices one usage interval into a usage record.
pub fn meter(prices: &str, interval: &str) -> Result<String, Error> {
    let ((p, pl), (i, il)) = (text(prices), text(interval));
    // SAFETY: as in estimate.
    with_out(|out| unsafe { sys::budcore_cost_meter(out, p, pl, i, il) })
}

/// A chargeback report (granularity "total", the default) or a rollup over usage records.
pub fn report(usage: &str, query: Option<&str>, prices: Option<&str>) -> Result<String, Error> {
    let ((u, ul), (q, ql), (p, pl)) = (text(usage), opt_text(query), opt_text(prices));
    // SAFETY: as in estimate; NULL with 0 is the documented "absent".
    with_out(|out| unsafe { sys::budcore_cost_report(out, u, ul, q, ql, p, pl) })
}

/// Serverless spend per endpoint per hour (query: {"endpoint", "granularity", "from", "to"};
/// None: every endpoint, per hour) over the usage records labelled serverless_endpoint.
pub fn serverless_report(usage: &str, query: Option<&str>, prices: Option<&str>) -> Result<String, Error> {
    let ((u, ul), (q, ql), (p, pl)) = (text(usage), opt_text(query), opt_text(prices));
    // SAFETY: as in report.
    with_out(|out| unsafe { sys::budcore_cost_serverless_report(out, u, ul, q, ql, p, pl) })
}

/// Month-end forecast and daily anomalies as of `now` (RFC 3339; None: the system clock).
pub fn forecast(usage: &str, now: Option<&str>) -> Result<String, Error> {
    let ((u, ul), (n, nl)) = (text(usage), opt_text(now));
    // SAFETY: as in report.
    with_out(|out| unsafe { sys::budcore_cost_forecast(out, u, ul, n, nl) })
}

/// An open store (SQLite or PostgreSQL) for the store-backed cost calls. Shareable by threads.
pub struct Store(*mut sys::budcore_store);

// SAFETY: the C handle is documented thread-safe (calls are serialized inside).
unsafe impl Send for Store {}
unsafe impl Sync for Store {}

impl Store {
    /// Opens "sqlite:///abs/path.db", "sqlite::memory:" or "postgresql://...".
    pub fn open(uri: &str) -> Result<Store, Error> {
        let mut raw = ptr::null_mut();
        let (u, ul) = text(uri);
        // SAFETY: `raw` is a valid out pointer; the uri slice lives for the call.
        check(unsafe { sys::budcore_store_open(&mut raw, u, ul) })?;
        Ok(Store(raw))
    }

    /// Meters `interval` and appends it for the interval's tenant; returns the stored record.
    pub fn record_usage(&self, prices: &str, interval: &str) -> Result<String, Error> {
        let ((p, pl), (i, il)) = (text(prices), text(interval));
        // SAFETY: self.0 is a live handle.
        with_out(|out| unsafe { sys::budcore_cost_record_usage(out, self.0, p, pl, i, il) })
    }

    /// The actual cost of a job from its usage records.
    pub fn job_cost(&self, tenant: &str, job_id: &str) -> Result<String, Error> {
        let ((t, tl), (j, jl)) = (text(tenant), text(job_id));
        // SAFETY: as in record_usage.
        with_out(|out| unsafe { sys::budcore_cost_job_cost(out, self.0, t, tl, j, jl) })
    }

    /// Submits a job (JSON, the Job schema) for `tenant`; a repeated non-empty
    /// `idempotency_key` returns the first job ("created": false).
    pub fn job_submit(&self, tenant: &str, job: &str, idempotency_key: &str) -> Result<String, Error> {
        let ((t, tl), (j, jl), (k, kl)) = (text(tenant), text(job), text(idempotency_key));
        // SAFETY: as in record_usage.
        with_out(|out| unsafe { sys::budcore_store_job_submit(out, self.0, t, tl, j, jl, k, kl) })
    }

    /// The job record {"version", "idempotency_key", "job"}; another tenant's job is NotFound.
    pub fn job_get(&self, tenant: &str, id: &str) -> Result<String, Error> {
        let ((t, tl), (i, il)) = (text(tenant), text(id));
        // SAFETY: as in record_usage.
        with_out(|out| unsafe { sys::budcore_store_job_get(out, self.0, t, tl, i, il) })
    }

    /// Moves job `id` to status `to` ("queued", "running", ...) along the job state machine as a
    /// compare-and-set on `expected_version` (the "version" of the record read): the new
    /// record, or `Conflict` when the version moved on or the move is not legal.
    pub fn job_transition(
        &self,
        tenant: &str,
        id: &str,
        expected_version: i64,
        to: &str,
        message: Option<&str>,
    ) -> Result<String, Error> {
        let ((t, tl), (i, il), (s, sl), (m, ml)) = (text(tenant), text(id), text(to), opt_text(message));
        // SAFETY: as in record_usage; NULL with 0 is the documented "no message".
        with_out(|out| unsafe { sys::budcore_store_job_transition(out, self.0, t, tl, i, il, expected_version, s, sl, m, ml) })
    }

    /// A page of `tenant`'s jobs, newest first: {"items", "next_cursor"} (`query` as in
    /// budcore_store_job_list; None for the defaults).
    pub fn job_list(&self, tenant: &str, query: Option<&str>) -> Result<String, Error> {
        let ((t, tl), (q, ql)) = (text(tenant), opt_text(query));
        // SAFETY: as in record_usage; NULL with 0 is the documented "absent".
        with_out(|out| unsafe { sys::budcore_store_job_list(out, self.0, t, tl, q, ql) })
    }

    /// The admission gate: Ok(decision JSON) when the job's budgets allow it, Err with
    /// [`ErrorCode::Budget`] and the reason (field "budgets.<name>") when one denies it.
    pub fn admit_job(
        &self,
        budgets: &str,
        prices: &str,
        job: &str,
        now: Option<&str>,
    ) -> Result<String, Error> {
        let ((b, bl), (p, pl), (j, jl), (n, nl)) =
            (text(budgets), text(prices), text(job), opt_text(now));
        // SAFETY: as in record_usage.
        with_out(|out| unsafe {
            sys::budcore_cost_admit_job(out, self.0, b, bl, p, pl, j, jl, n, nl)
        })
    }
}

/// The durable serverless request queue of an endpoint in the store (serverless.h,
/// docs/serverless.md "Durable queue"). `tenant` is the UUID owning the endpoint; documents in,
/// JSON out.
impl Store {
    /// Admits, scores and stores `submissions_json` (a list of {"tenant", "payload_hash",
    /// "payload_size_bytes", "estimated_compute_seconds", "priority"}) for the endpoint
    /// document `endpoint` (JSON or YAML): {"results": [...]}, one per submission.
    pub fn serverless_queue_enqueue(&self, tenant: &str, endpoint: &str, submissions_json: &str) -> Result<String, Error> {
        let ((t, tl), (e, el), (s, sl)) = (text(tenant), text(endpoint), text(submissions_json));
        // SAFETY: as in record_usage.
        with_out(|out| unsafe { sys::budcore_serverless_queue_enqueue(out, self.0, t, tl, e, el, s, sl) })
    }

    /// Claims up to `max` pending requests of the endpoint named `endpoint` for `worker`, each
    /// leased for `lease_seconds`: {"requests": [...]} (report with each one's "claim").
    pub fn serverless_queue_claim(
        &self,
        tenant: &str,
        endpoint: &str,
        worker: &str,
        max: i64,
        lease_seconds: f64,
    ) -> Result<String, Error> {
        let ((t, tl), (e, el), (w, wl)) = (text(tenant), text(endpoint), text(worker));
        // SAFETY: as in record_usage.
        with_out(|out| unsafe { sys::budcore_serverless_queue_claim(out, self.0, t, tl, e, el, w, wl, max, lease_seconds) })
    }

    /// Applies `reports_json` ([{"id", "claim", "outcome", "reason", "lease_seconds"}]) in one
    /// transaction: {"results": [{"id", "ok", "status"}]}.
    pub fn serverless_queue_finish(&self, tenant: &str, reports_json: &str) -> Result<String, Error> {
        let ((t, tl), (r, rl)) = (text(tenant), text(reports_json));
        // SAFETY: as in record_usage.
        with_out(|out| unsafe { sys::budcore_serverless_queue_finish(out, self.0, t, tl, r, rl) })
    }

    /// The endpoint's counts by status.
    pub fn serverless_queue_status(&self, tenant: &str, endpoint: &str) -> Result<String, Error> {
        let ((t, tl), (e, el)) = (text(tenant), text(endpoint));
        // SAFETY: as in record_usage.
        with_out(|out| unsafe { sys::budcore_serverless_queue_status(out, self.0, t, tl, e, el) })
    }

    /// The endpoint's requests by id (`options` as in budcore_serverless_queue_list; None:
    /// defaults).
    pub fn serverless_queue_list(&self, tenant: &str, endpoint: &str, options: Option<&str>) -> Result<String, Error> {
        let ((t, tl), (e, el), (o, ol)) = (text(tenant), text(endpoint), opt_text(options));
        // SAFETY: as in record_usage; NULL with 0 is the documented "defaults".
        with_out(|out| unsafe { sys::budcore_serverless_queue_list(out, self.0, t, tl, e, el, o, ol) })
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        // SAFETY: the handle came from budcore_store_open and is freed once.
        unsafe { sys::budcore_store_free(self.0) }
    }
}
