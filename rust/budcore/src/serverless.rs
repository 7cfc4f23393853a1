//! Serverless endpoints over the C ABI (serverless.h): a request trace replayed through an
//! endpoint under autoscaling policies, as `budcore serverless simulate` does. Documents in,
//! JSON out.

use crate::{check, sys, Buf, Error};

/// Replays `trace_csv` (the Azure LLM inference format) through the endpoint of `endpoint`
/// (JSON or YAML). `options_json` is "" (the queue_depth policy) or the options object of
/// `budcore_serverless_simulate` ("policies"). Returns the document
/// `budcore serverless simulate --format json` prints: `{"reports": [...]}`, one per policy.
pub fn serverless_simulate(endpoint: &str, trace_csv: &str, options_json: &str) -> Result<String, Error> {
    let mut out = Buf::new();
    // SAFETY: every (ptr, len) describes a live slice; out is an empty buf.
    let rc = unsafe {
        sys::budcore_serverless_simulate(
            out.as_mut_ptr(),
            endpoint.as_ptr().cast(),
            endpoint.len(),
            trace_csv.as_ptr().cast(),
            trace_csv.len(),
            options_json.as_ptr().cast(),
            options_json.len(),
        )
    };
    check(rc)?;
    Ok(out.to_string_lossy())
}
