//! GPU placement over the C ABI (gpu.h): the Alibaba GPU trace replayed with placement
//! policies, as `budcore gpu replay` does, and defragmentation plans, as `budcore gpu defrag`
//! does. CSV or JSON in, JSON out.

use crate::{check, sys, Buf, Error};

/// Replays the trace: tasks drawn from `pods_csv` arrive on the nodes of `nodes_csv` and are
/// placed by each policy. `options_json` is "" (defaults) or the options object of
/// `budcore_gpu_replay` ("policies", "seed", "max_load", "step"). Returns the document
/// `budcore gpu replay --format json` prints: `{"nodes", "gpus", "tasks", "seed", "results"}`.
pub fn gpu_replay(nodes_csv: &str, pods_csv: &str, options_json: &str) -> Result<String, Error> {
    let mut out = Buf::new();
    // SAFETY: every (ptr, len) describes a live slice; out is an empty buf.
    let rc = unsafe {
        sys::budcore_gpu_replay(
            out.as_mut_ptr(),
            nodes_csv.as_ptr().cast(),
            nodes_csv.len(),
            pods_csv.as_ptr().cast(),
            pods_csv.len(),
            options_json.as_ptr().cast(),
            options_json.len(),
        )
    };
    check(rc)?;
    Ok(out.to_string_lossy())
}

/// The cheapest plan that makes a pending request fit, as `budcore gpu defrag` prints it:
/// `problem_json` is the problem document of docs/gpu.md ("nodes", "workloads", "request",
/// "move_overhead_seconds", "apply"); returns `{"plan", "applied"[, "workloads"]}`.
pub fn gpu_defrag(problem_json: &str) -> Result<String, Error> {
    let mut out = Buf::new();
    // SAFETY: (ptr, len) describes a live slice; out is an empty buf.
    let rc = unsafe { sys::budcore_gpu_defrag(out.as_mut_ptr(), problem_json.as_ptr().cast(), problem_json.len()) };
    check(rc)?;
    Ok(out.to_string_lossy())
}

/// Places one instance of the problem's `request.mig_profile` as `budcore gpu place-mig` does:
/// a free instance, else a new one a MIG GPU's layout admits (re-partitioning it).
/// `problem_json` is a problem document as `gpu_defrag` reads it; returns `{"placement":
/// {"node", "gpu", "instance", "repartition", "dropped"} | null, "applied"[, "workloads"]}`.
pub fn gpu_place_mig(problem_json: &str) -> Result<String, Error> {
    let mut out = Buf::new();
    // SAFETY: (ptr, len) describes a live slice; out is an empty buf.
    let rc = unsafe { sys::budcore_gpu_place_mig(out.as_mut_ptr(), problem_json.as_ptr().cast(), problem_json.len()) };
    check(rc)?;
    Ok(out.to_string_lossy())
}
