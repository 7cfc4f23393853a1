//! Pipelines over the C ABI: planning (`budcore_pipeline_plan`) and rehearsed runs
//! (`budcore_pipeline_run`) whose FUNCTION steps call Rust closures.

use std::os::raw::{c_char, c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::{check, sys, Buf, Error, Invalid};

/// A plan that did not come out: the error (its `field` is the first problem's path) and the
/// library's full report, `{"valid": false, "errors": [...]}` listing every problem.
pub type PlanError = Invalid;

/// Validates and plans a pipeline document (JSON or YAML) and returns the plan of docs/cli.md
/// contract 3 as JSON: order, levels, critical path and its seconds, JOB steps.
pub fn plan_pipeline(document: &str) -> Result<String, PlanError> {
    let mut out = Buf::new();
    let mut errors = Buf::new();
    // SAFETY: (ptr, len) describe a live slice; the library copies what it keeps.
    let rc = unsafe {
        sys::budcore_pipeline_plan(
            out.as_mut_ptr(),
            errors.as_mut_ptr(),
            document.as_ptr().cast(),
            document.len(),
        )
    };
    match check(rc) {
        Ok(()) => Ok(out.to_string_lossy()),
        Err(error) => Err(Invalid {
            error,
            report: errors.to_string_lossy(),
        }),
    }
}

/// Why a FUNCTION closure did not return outputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StepError {
    /// The attempt failed with this message; the step's retry policy decides what follows.
    Fail(String),
    /// Stop the whole run at once (no retry, no further step): [`run_pipeline`] returns an
    /// `ErrorCode::User` error with this message.
    Abort(String),
}

impl From<String> for StepError {
    fn from(message: String) -> Self {
        StepError::Fail(message)
    }
}

impl From<&str> for StepError {
    fn from(message: &str) -> Self {
        StepError::Fail(message.to_string())
    }
}

/// What a FUNCTION closure returns: the step's outputs as JSON text (an object, or any value,
/// which the library wraps as {"result": value}), or a [`StepError`] (a `String` or `&str`
/// converts into a failed attempt).
pub type FunctionResult = Result<String, StepError>;

/// A FUNCTION step's callable: (resolved `config.args` as JSON, attempt from 1, step id).
type Callable = dyn Fn(&str, i32, &str) -> FunctionResult + Send + Sync;

/// Named closures for FUNCTION steps. Add them, then lend the registry to any number of
/// concurrent [`run_pipeline`] calls. The registry owns each closure and drops it when the
/// registry is freed (the library's `free_payload`).
pub struct Functions {
    raw: *mut sys::budcore_pipeline_function_registry,
}

// SAFETY: the registry is only modified through &mut self; the library allows concurrent runs
// over a registry nobody modifies, and every closure is Send + Sync.
unsafe impl Send for Functions {}
unsafe impl Sync for Functions {}

impl Functions {
    pub fn new() -> Result<Self, Error> {
        let mut raw = std::ptr::null_mut();
        // SAFETY: raw is a valid out-pointer.
        check(unsafe { sys::budcore_pipeline_function_registry_new(&mut raw) })?;
        Ok(Functions { raw })
    }

    /// Registers `f` as the function called `name` (a FUNCTION step's `config.function`).
    /// A name already taken is an `ErrorCode::Exists` error.
    pub fn add<F>(&mut self, name: &str, f: F) -> Result<(), Error>
    where
        F: Fn(&str, i32, &str) -> FunctionResult + Send + Sync + 'static,
    {
        // Boxed twice so the closure has a thin address to hand the library as payload (a fat
        // dyn pointer cannot be void*).
        let boxed: *mut Box<Callable> = Box::into_raw(Box::new(Box::new(f)));
        // SAFETY: on success the registry owns `boxed` and drops it through drop_closure when
        // it is freed; on failure it keeps nothing, so the box is taken back here.
        let rc = unsafe {
            sys::budcore_pipeline_function_registry_add(
                self.raw,
                name.as_ptr().cast(),
                name.len(),
                Some(trampoline),
                boxed.cast(),
                Some(drop_closure),
            )
        };
        if let Err(e) = check(rc) {
            // SAFETY: the library did not keep the pointer.
            drop(unsafe { Box::from_raw(boxed) });
            return Err(e);
        }
        Ok(())
    }

    pub fn len(&self) -> usize {
        // SAFETY: raw is a live registry.
        unsafe { sys::budcore_pipeline_function_registry_size(self.raw) }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Drop for Functions {
    fn drop(&mut self) {
        // SAFETY: raw came from budcore_pipeline_function_registry_new; freeing it drops the closures.
        unsafe { sys::budcore_pipeline_function_registry_free(self.raw) }
    }
}

/// The registry's free_payload: drops a closure [`Functions::add`] boxed.
unsafe extern "C" fn drop_closure(payload: *mut c_void) {
    if !payload.is_null() {
        drop(Box::from_raw(payload as *mut Box<Callable>));
    }
}

/// Copies `text` into the library-owned `out`.
unsafe fn set_buf(out: *mut sys::budcore_buf, text: &str) -> c_int {
    sys::budcore_buf_set(out, text.as_ptr().cast(), text.len())
}

unsafe extern "C" fn trampoline(
    args_json: *const c_char,
    args_len: usize,
    attempt: c_int,
    step_id: *const c_char,
    out: *mut sys::budcore_buf,
    payload: *mut c_void,
) -> c_int {
    let f = &*(payload as *const Box<Callable>);
    let args =
        String::from_utf8_lossy(std::slice::from_raw_parts(args_json.cast::<u8>(), args_len));
    let step = std::ffi::CStr::from_ptr(step_id).to_string_lossy();
    // Unwinding into C is undefined: a panic fails the attempt with its message instead.
    let result = catch_unwind(AssertUnwindSafe(|| f(&args, attempt, &step)));
    let (text, rc) = match result {
        Ok(Ok(outputs)) => (outputs, 0),
        Ok(Err(StepError::Fail(message))) => (message, 1),
        Ok(Err(StepError::Abort(message))) => (message, sys::BUDCORE_EUSER),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            (format!("function panicked: {what}"), 1)
        }
    };
    if set_buf(out, &text) != sys::BUDCORE_OK {
        return 1;
    }
    rc
}

/// Rehearses a run of a pipeline document on a virtual clock, as `budcore pipeline run` does
/// (JOB steps, API calls and notifications simulated; FUNCTION steps call `functions`).
/// `options_json` is "" or the options object of `budcore_pipeline_run` ("params", "fail",
/// "slow", "timeout", "reject", "run_id"). Returns the run's report as JSON; a pipeline that
/// failed is still `Ok` (its "status" says so).
pub fn run_pipeline(
    document: &str,
    options_json: &str,
    functions: Option<&Functions>,
) -> Result<String, Error> {
    let mut out = Buf::new();
    let registry = functions.map_or(std::ptr::null(), |f| f.raw.cast_const());
    // SAFETY: every slice is live for the call; the registry outlives it.
    let rc = unsafe {
        sys::budcore_pipeline_run(
            out.as_mut_ptr(),
            document.as_ptr().cast(),
            document.len(),
            options_json.as_ptr().cast(),
            options_json.len(),
            registry,
        )
    };
    check(rc)?;
    Ok(out.to_string_lossy())
}
