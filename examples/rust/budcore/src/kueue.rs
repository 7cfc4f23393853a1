//! The Kueue companion over the C ABI (kueue.h): its configuration checked, and its budget and
//! window checks decided for one Workload (docs/kueue-companion.md). JSON in, JSON out.

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
