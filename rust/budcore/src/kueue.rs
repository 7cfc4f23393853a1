//! The Kueue companion over the C ABI (kueue.h): its configuration checked, its budget and
//! window checks decided for one Workload, and the controller run on a cluster with a Store
//! (docs/kueue-companion.md). JSON in, JSON out.

use std::marker::PhantomData;
use std::os::raw::{c_char, c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::{self, NonNull};

use crate::{check, sys, Buf, Error};

/// Validates a companion configuration (YAML or JSON) and returns its summary:
/// `{"controllers", "cluster_queues", "tenants", "budgets", "currency"}`. An invalid one is an
/// `Error` whose `field` names it (`budgets.budgets[0].tenant_id`).
pub fn companion_check_config(config: &str) -> Result<String, Error> {
    let mut out = Buf::new();
    // SAFETY: (ptr, len) describes a live slice; out is an empty buf.
    let rc = unsafe { sys::budcore_kueue_companion_check_config(out.as_mut_ptr(), config.as_ptr().cast(), config.len()) };
    check(rc)?;
    Ok(out.to_string_lossy())
}

/// Decides the budget and window checks for one Workload. `request_json` is
/// `{"workload": <Workload>, "owner_annotations"?, "spent"?: {"<budget>": "12.00 USD"}, "now": RFC 3339}`;
/// returns `{"tenant_id"?, "price" | "price_error", "budget": <decision>, "window": <decision>}`.
pub fn companion_decide(config: &str, request_json: &str) -> Result<String, Error> {
    let mut out = Buf::new();
    // SAFETY: every (ptr, len) describes a live slice; out is an empty buf.
    let rc = unsafe {
        sys::budcore_kueue_companion_decide(
            out.as_mut_ptr(),
            config.as_ptr().cast(),
            config.len(),
            request_json.as_ptr().cast(),
            request_json.len(),
        )
    };
    check(rc)?;
    Ok(out.to_string_lossy())
}

/// The Kueue companion controller (`budcore_kueue_companion_*`) on a cluster with a Store, as
/// `budcore kueue companion` runs it; closed on drop. One thread drives it at a time (`Send`,
/// not `Sync`); a [`CompanionStopper`] stops a [`Companion::run`] from another thread.
pub struct Companion {
    raw: NonNull<sys::budcore_kueue_companion>,
}

// SAFETY: the handle may move between threads; calls on it are made by one thread at a time.
unsafe impl Send for Companion {}

/// Stops a running [`Companion::run`] from any thread (borrowing the companion, so it cannot
/// outlive it).
#[derive(Clone, Copy)]
pub struct CompanionStopper<'c> {
    raw: NonNull<sys::budcore_kueue_companion>,
    _companion: PhantomData<&'c Companion>,
}

// SAFETY: budcore_kueue_companion_stop is safe from any thread (it only stores to atomics).
unsafe impl Send for CompanionStopper<'_> {}
unsafe impl Sync for CompanionStopper<'_> {}

impl CompanionStopper<'_> {
    /// Asks the run to return after its current pass; a later run returns at once.
    pub fn stop(&self) {
        // SAFETY: the borrow keeps the handle alive.
        unsafe { sys::budcore_kueue_companion_stop(self.raw.as_ptr()) }
    }
}

fn opt_text(s: Option<&str>) -> (*const c_char, usize) {
    s.map_or((ptr::null(), 0), |s| (s.as_ptr().cast(), s.len()))
}

impl Companion {
    /// Opens the controller: a companion configuration (YAML or JSON), a kubeconfig file (None:
    /// the configuration's, else `$KUBECONFIG`, `~/.kube/config`, in-cluster) and a store URI
    /// (None: the configuration's, else `sqlite:budcore-companion.db`). A bad input is an
    /// `Error` whose `field` names it (`kubeconfig_path`, `store_uri`, or the configuration's
    /// field) with the value and why.
    pub fn open(config: &str, kubeconfig_path: Option<&str>, store_uri: Option<&str>) -> Result<Self, Error> {
        let mut raw = ptr::null_mut();
        let (k, kn) = opt_text(kubeconfig_path);
        let (s, sn) = opt_text(store_uri);
        // SAFETY: out pointer and live slices; the library copies what it keeps.
        check(unsafe { sys::budcore_kueue_companion_open(&mut raw, config.as_ptr().cast(), config.len(), k, kn, s, sn) })?;
        Ok(Companion { raw: NonNull::new(raw).expect("open returned OK without a handle") })
    }

    /// One pass (the command's `--once`): `{"leader", "identity"?, "admission_checks",
    /// "written", "retrying"}`.
    pub fn sync_once(&self) -> Result<String, Error> {
        let mut out = Buf::new();
        // SAFETY: a live handle and an empty buf.
        check(unsafe { sys::budcore_kueue_companion_sync_once(out.as_mut_ptr(), self.raw.as_ptr()) })?;
        Ok(out.to_string_lossy())
    }

    /// Runs the controller until a [`CompanionStopper`] stops it or `f` returns false (an
    /// `ErrorCode::User` error). `f` gets each event's JSON (`{"event": "decision", ...}` or
    /// `{"event": "retrying", "error": {...}}`), one call at a time, on this thread or the
    /// Lease renewer's. A panic in `f` stops the run and is re-raised after it.
    pub fn run<F: FnMut(&str) -> bool + Send>(&self, mut f: F) -> Result<(), Error> {
        struct Payload<'f> {
            f: &'f mut (dyn FnMut(&str) -> bool + Send),
            panicked: bool,
        }
        unsafe extern "C" fn trampoline(json: *const c_char, len: usize, payload: *mut c_void) -> c_int {
            // SAFETY: payload is the Payload below, alive for the run; calls never overlap.
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
        let mut payload = Payload { f: &mut f, panicked: false };
        // SAFETY: the payload outlives the call, which returns only after its last callback.
        let rc = unsafe {
            sys::budcore_kueue_companion_run(self.raw.as_ptr(), Some(trampoline), (&mut payload as *mut Payload).cast())
        };
        if payload.panicked {
            panic!("the companion's event callback panicked");
        }
        check(rc)
    }

    /// A handle that stops [`Companion::run`] from another thread.
    pub fn stopper(&self) -> CompanionStopper<'_> {
        CompanionStopper { raw: self.raw, _companion: PhantomData }
    }
}

impl Drop for Companion {
    fn drop(&mut self) {
        // SAFETY: the handle came from open and is freed once.
        unsafe { sys::budcore_kueue_companion_free(self.raw.as_ptr()) }
    }
}
