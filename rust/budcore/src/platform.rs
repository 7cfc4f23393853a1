//! The platform over the C ABI (`budcore_platform_*`): jobs from submission to completion,
//! the event stream, pipeline runs, metrics and what-if scenarios. Results are the library's
//! JSON (docs/platform.md); the handle is thread-safe, so `Platform` is `Send + Sync`.

use std::os::raw::{c_char, c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::NonNull;

use crate::{check, sys, Buf, Error};

/// Who calls: the tenant (a UUID) and, optionally, the principal and a request id.
#[derive(Debug, Clone, Copy)]
pub struct Caller<'a> {
    pub tenant: &'a str,
    pub principal: &'a str,
    pub request_id: &'a str,
}

impl<'a> Caller<'a> {
    pub fn tenant(tenant: &'a str) -> Self {
        Caller { tenant, principal: "", request_id: "" }
    }
    fn raw(&self) -> sys::budcore_caller {
        sys::budcore_caller {
            version: sys::BUDCORE_CALLER_VERSION,
            tenant: self.tenant.as_ptr().cast(),
            tenant_len: self.tenant.len(),
            principal: self.principal.as_ptr().cast(),
            principal_len: self.principal.len(),
            request_id: self.request_id.as_ptr().cast(),
            request_id_len: self.request_id.len(),
        }
    }
}

/// An open platform (`budcore_platform`); closed on drop.
pub struct Platform {
    raw: NonNull<sys::budcore_platform>,
}

// SAFETY: platform.h documents the handle as thread-safe (the library locks inside).
unsafe impl Send for Platform {}
unsafe impl Sync for Platform {}

fn text(s: &str) -> (*const c_char, usize) {
    (s.as_ptr().cast(), s.len())
}

fn json_out(f: impl FnOnce(*mut sys::budcore_buf) -> c_int) -> Result<String, Error> {
    let mut out = Buf::new();
    check(f(out.as_mut_ptr()))?;
    Ok(out.to_string_lossy())
}

impl Platform {
    /// Opens a platform from a config document (YAML or JSON).
    pub fn open(config: &str) -> Result<Self, Error> {
        let mut raw = std::ptr::null_mut();
        let (p, n) = text(config);
        // SAFETY: out pointer and a live slice; the library copies what it keeps.
        check(unsafe { sys::budcore_platform_open(&mut raw, p, n) })?;
        Ok(Platform { raw: NonNull::new(raw).expect("open returned OK without a handle") })
    }

    /// Opens the embedded platform (SQLite, simulated cluster, virtual clock) in `dir`.
    pub fn open_embedded(dir: &str) -> Result<Self, Error> {
        let mut raw = std::ptr::null_mut();
        let (p, n) = text(dir);
        // SAFETY: as open.
        check(unsafe { sys::budcore_platform_open_embedded(&mut raw, p, n) })?;
        Ok(Platform { raw: NonNull::new(raw).expect("open returned OK without a handle") })
    }

    fn ptr(&self) -> *mut sys::budcore_platform {
        self.raw.as_ptr()
    }

    /// Submits a job document or a batch `{"jobs": [...]}`; returns the stored record(s).
    pub fn submit(&self, caller: &Caller, job_json: &str, idempotency_key: Option<&str>) -> Result<String, Error> {
        let c = caller.raw();
        let (j, jn) = text(job_json);
        let (k, kn) = text(idempotency_key.unwrap_or(""));
        // SAFETY: every pointer is live for the call.
        json_out(|out| unsafe { sys::budcore_platform_submit(out, self.ptr(), &c, j, jn, k, kn) })
    }

    pub fn get(&self, caller: &Caller, id: &str) -> Result<String, Error> {
        let c = caller.raw();
        let (i, n) = text(id);
        // SAFETY: as submit.
        json_out(|out| unsafe { sys::budcore_platform_get(out, self.ptr(), &c, i, n) })
    }

    /// Lists jobs; `query` is the store's query JSON (`{"status": "queued", "limit": 10}`).
    pub fn list(&self, caller: &Caller, query: &str) -> Result<String, Error> {
        let c = caller.raw();
        let (q, n) = text(query);
        // SAFETY: as submit.
        json_out(|out| unsafe { sys::budcore_platform_list(out, self.ptr(), &c, q, n) })
    }

    pub fn cancel(&self, caller: &Caller, id: &str, reason: &str) -> Result<String, Error> {
        let c = caller.raw();
        let (i, n) = text(id);
        let (r, rn) = text(reason);
        // SAFETY: as submit.
        json_out(|out| unsafe { sys::budcore_platform_cancel(out, self.ptr(), &c, i, n, r, rn) })
    }

    pub fn retry(&self, caller: &Caller, id: &str) -> Result<String, Error> {
        let c = caller.raw();
        let (i, n) = text(id);
        // SAFETY: as submit.
        json_out(|out| unsafe { sys::budcore_platform_retry(out, self.ptr(), &c, i, n) })
    }

    pub fn set_priority(&self, caller: &Caller, id: &str, priority: &str) -> Result<String, Error> {
        let c = caller.raw();
        let (i, n) = text(id);
        let (p, pn) = text(priority);
        // SAFETY: as submit.
        json_out(|out| unsafe { sys::budcore_platform_set_priority(out, self.ptr(), &c, i, n, p, pn) })
    }

    pub fn preempt(&self, caller: &Caller, id: &str, reason: &str) -> Result<String, Error> {
        let c = caller.raw();
        let (i, n) = text(id);
        let (r, rn) = text(reason);
        // SAFETY: as submit.
        json_out(|out| unsafe { sys::budcore_platform_preempt(out, self.ptr(), &c, i, n, r, rn) })
    }

    /// The cheapest defragmentation plan for one of the caller's jobs that the quota admitted
    /// and no node of its flavor takes yet (`cluster.placement_policy`): `{"plan", "applied":
    /// false}`, advice only (docs/gpu.md "In the platform").
    pub fn gpu_defrag(&self, caller: &Caller, id: &str) -> Result<String, Error> {
        let c = caller.raw();
        let (i, n) = text(id);
        // SAFETY: as submit.
        json_out(|out| unsafe { sys::budcore_platform_gpu_defrag(out, self.ptr(), &c, i, n) })
    }

    /// Applies the defragmentation plan for one of the caller's jobs that waits for placement:
    /// the runs it moves are evicted and placed where it names (keeping their quota) and the
    /// job starts. `plan` is a document `gpu_defrag` returned (a stale one, made before the
    /// cluster changed, is refused with `ErrorCode::Conflict`), or `""` for the plan made now.
    /// Returns `{"plan", "applied": true}`.
    pub fn gpu_defrag_apply(&self, caller: &Caller, id: &str, plan: &str) -> Result<String, Error> {
        let c = caller.raw();
        let (i, n) = text(id);
        let (pl, pn) = text(plan);
        // SAFETY: as submit.
        json_out(|out| unsafe { sys::budcore_platform_gpu_defrag_apply(out, self.ptr(), &c, i, n, pl, pn) })
    }

    /// When each of the caller's waiting and running jobs is expected to start and end (the
    /// JSON of `budcore schedule estimate --details`; job names are job ids).
    pub fn schedule(&self, caller: &Caller) -> Result<String, Error> {
        let c = caller.raw();
        // SAFETY: as submit.
        json_out(|out| unsafe { sys::budcore_platform_schedule(out, self.ptr(), &c) })
    }

    /// The caller's events after `since`: `{"events": [...], "last_seq"}`.
    pub fn events(&self, caller: &Caller, since: i64, limit: usize) -> Result<String, Error> {
        let c = caller.raw();
        // SAFETY: as submit.
        json_out(|out| unsafe { sys::budcore_platform_events(out, self.ptr(), &c, since, limit) })
    }

    /// Calls `f` with each event's JSON after `since`; `f` returning false stops the watch
    /// (an `ErrorCode::User` error). Returns the last seq delivered.
    pub fn watch<F: FnMut(&str) -> bool>(&self, caller: &Caller, since: i64, limit: usize, mut f: F) -> Result<i64, Error> {
        struct Payload<'f> {
            f: &'f mut dyn FnMut(&str) -> bool,
            panicked: bool,
        }
        unsafe extern "C" fn trampoline(json: *const c_char, len: usize, payload: *mut c_void) -> c_int {
            // SAFETY: payload is the Payload below, alive for the call; json is len bytes.
            let p = &mut *(payload as *mut Payload);
            let bytes = std::slice::from_raw_parts(json.cast::<u8>(), len);
            let s = String::from_utf8_lossy(bytes);
            match catch_unwind(AssertUnwindSafe(|| (p.f)(&s))) {
                Ok(true) => 0,
                Ok(false) => 1,
                Err(_) => {
                    p.panicked = true;
                    1
                }
            }
        }
        let c = caller.raw();
        let mut payload = Payload { f: &mut f, panicked: false };
        let mut last = since;
        // SAFETY: the trampoline's payload outlives the call.
        let rc = unsafe {
            sys::budcore_platform_watch(
                &mut last,
                self.ptr(),
                &c,
                since,
                limit,
                Some(trampoline),
                (&mut payload as *mut Payload).cast(),
            )
        };
        if payload.panicked {
            panic!("the watch callback panicked");
        }
        check(rc)?;
        Ok(last)
    }

    /// Starts a pipeline run; returns the run's JSON.
    pub fn run_pipeline(&self, caller: &Caller, document: &str, params: Option<&str>) -> Result<String, Error> {
        let c = caller.raw();
        let (d, dn) = text(document);
        let (p, pn) = text(params.unwrap_or(""));
        // SAFETY: as submit.
        json_out(|out| unsafe { sys::budcore_platform_run_pipeline(out, self.ptr(), &c, d, dn, p, pn) })
    }

    pub fn pipeline_run(&self, caller: &Caller, id: &str) -> Result<String, Error> {
        let c = caller.raw();
        let (i, n) = text(id);
        // SAFETY: as submit.
        json_out(|out| unsafe { sys::budcore_platform_pipeline_run(out, self.ptr(), &c, i, n) })
    }

    pub fn cancel_pipeline_run(&self, caller: &Caller, id: &str, reason: &str) -> Result<String, Error> {
        let c = caller.raw();
        let (i, n) = text(id);
        let (r, rn) = text(reason);
        // SAFETY: as submit.
        json_out(|out| unsafe { sys::budcore_platform_cancel_pipeline_run(out, self.ptr(), &c, i, n, r, rn) })
    }

    pub fn pump(&self) -> Result<(), Error> {
        // SAFETY: a live handle.
        check(unsafe { sys::budcore_platform_pump(self.ptr()) })
    }

    /// Runs a virtual clock `seconds` forward, or (None) until nothing is scheduled; returns
    /// `{"now": ...}`.
    pub fn run(&self, seconds: Option<f64>) -> Result<String, Error> {
        let s = seconds.unwrap_or(-1.0);
        // SAFETY: a live handle.
        json_out(|out| unsafe { sys::budcore_platform_run(out, self.ptr(), s) })
    }

    /// Prometheus text exposition.
    pub fn metrics(&self) -> Result<String, Error> {
        // SAFETY: a live handle.
        json_out(|out| unsafe { sys::budcore_platform_metrics(out, self.ptr()) })
    }

    /// This replica's view of the election (docs/ha.md): `{"role", "replica", "epoch", "lease", "replicas"}`.
    pub fn ha_status(&self) -> Result<String, Error> {
        // SAFETY: a live handle.
        json_out(|out| unsafe { sys::budcore_platform_ha_status(out, self.ptr()) })
    }

    pub fn cluster(&self) -> Result<String, Error> {
        // SAFETY: a live handle.
        json_out(|out| unsafe { sys::budcore_platform_cluster(out, self.ptr()) })
    }

    /// The cluster as the caller sees it: its tenant's runs by id, other tenants' runs named
    /// `[hidden <token>]` with no tenant and no message (a platform admin sees every run).
    pub fn cluster_view(&self, caller: &Caller) -> Result<String, Error> {
        let c = caller.raw();
        // SAFETY: as submit.
        json_out(|out| unsafe { sys::budcore_platform_cluster_view(out, self.ptr(), &c) })
    }

    /// Checks the crash-safety invariants.
    pub fn check(&self) -> Result<(), Error> {
        // SAFETY: a live handle.
        check(unsafe { sys::budcore_platform_check(self.ptr()) })
    }
}

/// Use-case deployments (docs/usecases.md "Deploying"): records are the library's JSON
/// (`{"id", "template_id", "status", "pipeline_run_id", "components": [...], ...}`).
impl Platform {
    /// Deploys a template ("<id>" or "<id>@<version>": the tenant's catalog, else a shipped
    /// one) with `params` (a JSON/YAML map or None); returns the deployment record.
    pub fn deploy_usecase(&self, caller: &Caller, template: &str, params: Option<&str>) -> Result<String, Error> {
        let c = caller.raw();
        let (t, tn) = text(template);
        let (p, pn) = text(params.unwrap_or(""));
        // SAFETY: a live handle and slices the library copies.
        json_out(|out| unsafe { sys::budcore_platform_deploy_usecase(out, self.ptr(), &c, t, tn, p, pn) })
    }

    /// A deployment record with its jobs' statuses now.
    pub fn deployment(&self, caller: &Caller, id: &str) -> Result<String, Error> {
        let c = caller.raw();
        let (i, n) = text(id);
        // SAFETY: as deploy_usecase.
        json_out(|out| unsafe { sys::budcore_platform_deployment(out, self.ptr(), &c, i, n) })
    }

    /// The tenant's deployment records as a JSON list, oldest first.
    pub fn deployments(&self, caller: &Caller) -> Result<String, Error> {
        let c = caller.raw();
        // SAFETY: as deploy_usecase.
        json_out(|out| unsafe { sys::budcore_platform_deployments(out, self.ptr(), &c) })
    }

    /// Cancels the deployment's jobs, dependents first; again on a torn-down one is a no-op.
    pub fn teardown_deployment(&self, caller: &Caller, id: &str) -> Result<String, Error> {
        let c = caller.raw();
        let (i, n) = text(id);
        // SAFETY: as deploy_usecase.
        json_out(|out| unsafe { sys::budcore_platform_teardown_deployment(out, self.ptr(), &c, i, n) })
    }
}

/// Security (docs/security.md): role bindings and the audit log. With `security.rbac: true`
/// every call is checked against the caller's roles; a refusal is `ErrorCode::Security` naming
/// the principal, a submit over the tenant's limits `ErrorCode::RateLimited` with
/// `Error::retry_after_ms`.
impl Platform {
    /// Grants a role: `{"principal": "user:erin", "role": "editor", "project_id": null}`;
    /// returns the binding record.
    pub fn bind_role(&self, caller: &Caller, binding_json: &str) -> Result<String, Error> {
        let c = caller.raw();
        let (b, n) = text(binding_json);
        // SAFETY: a live handle and slices the library copies.
        json_out(|out| unsafe { sys::budcore_platform_bind_role(out, self.ptr(), &c, b, n) })
    }

    /// Revokes a role (the same document).
    pub fn unbind_role(&self, caller: &Caller, binding_json: &str) -> Result<(), Error> {
        let c = caller.raw();
        let (b, n) = text(binding_json);
        // SAFETY: as bind_role.
        check(unsafe { sys::budcore_platform_unbind_role(self.ptr(), &c, b, n) })
    }

    /// The tenant's role bindings `{"items": [...]}`, of one principal when given.
    pub fn role_bindings(&self, caller: &Caller, principal: Option<&str>) -> Result<String, Error> {
        let c = caller.raw();
        let (p, n) = text(principal.unwrap_or(""));
        // SAFETY: as bind_role.
        json_out(|out| unsafe { sys::budcore_platform_role_bindings(out, self.ptr(), &c, p, n) })
    }

    /// A page of the tenant's audit log; `query` as `{"object_id": "...", "limit": 100}` or "".
    pub fn audit(&self, caller: &Caller, query: &str) -> Result<String, Error> {
        let c = caller.raw();
        let (q, n) = text(query);
        // SAFETY: as bind_role.
        json_out(|out| unsafe { sys::budcore_platform_audit(out, self.ptr(), &c, q, n) })
    }

    /// Checks every tenant's audit chain: `{"ok", "entries", "head_hash", "heads", "problems", ...}`.
    pub fn audit_verify(&self, caller: &Caller) -> Result<String, Error> {
        let c = caller.raw();
        // SAFETY: as bind_role.
        json_out(|out| unsafe { sys::budcore_platform_audit_verify(out, self.ptr(), &c) })
    }

    /// The same, with anchors: `anchors` is a JSON list of entry hashes kept outside the store
    /// (heads published earlier); each must still be chained.
    pub fn audit_verify_anchored(&self, caller: &Caller, anchors: &str) -> Result<String, Error> {
        let c = caller.raw();
        let (a, n) = text(anchors);
        // SAFETY: as bind_role.
        json_out(|out| unsafe { sys::budcore_platform_audit_verify_anchored(out, self.ptr(), &c, a, n) })
    }

    /// Compacts the store now by the config's `retention` (platform admins):
    /// `{"events_removed", "audit_removed", "usage_removed", "checkpoints"}`. A watch from before
    /// a tenant's event checkpoint then fails with `ErrorCode::Gone`.
    pub fn compact(&self, caller: &Caller) -> Result<String, Error> {
        let c = caller.raw();
        // SAFETY: as bind_role.
        json_out(|out| unsafe { sys::budcore_platform_compact(out, self.ptr(), &c) })
    }
}

impl Drop for Platform {
    fn drop(&mut self) {
        // SAFETY: the handle came from open and is freed once.
        unsafe { sys::budcore_platform_free(self.raw.as_ptr()) }
    }
}

/// A serverless endpoint whose warm workers are SERVICE jobs on a platform
/// (`budcore_serverless_endpoint_*`, docs/serverless.md "On a platform"). It borrows the
/// platform, which so outlives it; one thread drives it at a time (not `Sync`).
pub struct ServerlessEndpoint<'p> {
    raw: NonNull<sys::budcore_serverless_endpoint>,
    _platform: std::marker::PhantomData<&'p Platform>,
}

// SAFETY: the handle may move between threads; the C header asks only that one thread use it
// at a time, which `&mut self` on every call ensures.
unsafe impl Send for ServerlessEndpoint<'_> {}

impl<'p> ServerlessEndpoint<'p> {
    /// Opens the endpoint (JSON or YAML) for `owner`'s tenant; `options` as in
    /// budcore_serverless_endpoint_open (None: defaults).
    pub fn open(platform: &'p Platform, owner: &Caller, endpoint: &str, options: Option<&str>) -> Result<Self, Error> {
        let mut raw = std::ptr::null_mut();
        let c = owner.raw();
        let (e, el) = text(endpoint);
        let (o, ol) = options.map(text).unwrap_or((std::ptr::null(), 0));
        // SAFETY: out pointer, a live platform handle and live slices; the library copies them.
        check(unsafe { sys::budcore_serverless_endpoint_open(&mut raw, platform.ptr(), &c, e, el, o, ol) })?;
        let raw = NonNull::new(raw).expect("open returned OK without a handle");
        Ok(ServerlessEndpoint { raw, _platform: std::marker::PhantomData })
    }

    /// Reads the workers' jobs, then scales to `desired` (None: only reads); the status JSON.
    pub fn scale(&mut self, desired: Option<i64>) -> Result<String, Error> {
        let d = desired.unwrap_or(-1);
        // SAFETY: a live handle, used by this thread only (&mut self).
        json_out(|out| unsafe { sys::budcore_serverless_endpoint_scale(out, self.raw.as_ptr(), d) })
    }

    /// Admits a JSON list of submissions and places what can run now.
    pub fn enqueue(&mut self, submissions: &str) -> Result<String, Error> {
        let (s, sl) = text(submissions);
        // SAFETY: as in scale; a live slice.
        json_out(|out| unsafe { sys::budcore_serverless_endpoint_enqueue(out, self.raw.as_ptr(), s, sl) })
    }

    /// Ends a request: completed (`reason` None) or a failed attempt.
    pub fn finish(&mut self, request: u64, reason: Option<&str>) -> Result<String, Error> {
        let (r, rl) = reason.map(text).unwrap_or((std::ptr::null(), 0));
        // SAFETY: as in scale; NULL with 0 is the documented "completed".
        json_out(|out| unsafe { sys::budcore_serverless_endpoint_finish(out, self.raw.as_ptr(), request, r, rl) })
    }

    /// Writes the workers' GPU time since their last rows as usage rows: `{"usage": [...]}`.
    pub fn meter(&mut self) -> Result<String, Error> {
        // SAFETY: as in scale.
        json_out(|out| unsafe { sys::budcore_serverless_endpoint_meter(out, self.raw.as_ptr()) })
    }
}

impl Drop for ServerlessEndpoint<'_> {
    fn drop(&mut self) {
        // SAFETY: the handle came from open and is freed once.
        unsafe { sys::budcore_serverless_endpoint_free(self.raw.as_ptr()) }
    }
}

/// Runs a what-if scenario (YAML/JSON) on an in-memory platform; returns the outcome JSON.
pub fn simulate(scenario: &str) -> Result<String, Error> {
    let (s, n) = text(scenario);
    // SAFETY: a live slice.
    json_out(|out| unsafe { sys::budcore_platform_simulate(out, s, n) })
}
