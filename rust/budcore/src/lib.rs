//! Safe Rust API over libbudcore's C ABI.
//!
//! Every call returns `Result<_, Error>`; an [`Error`] carries the library's code, the path
//! of the offending input (`field`), the offending value and a message. Errors are
//! thread-local in the C library, so each call reads (and clears) the error on the thread
//! that made the call; library-owned text comes back in a [`Buf`] that frees itself.

use std::ffi::CStr;
use std::fmt;
use std::os::raw::{c_char, c_int};

pub use budcore_sys as sys;

mod pipeline;
pub use pipeline::{plan_pipeline, run_pipeline, FunctionResult, Functions, PlanError, StepError};
mod schedule;
pub use schedule::{schedule_estimate, schedule_html, schedule_replay, Timeline};
mod platform;
pub use platform::{simulate, Caller, Platform, ServerlessEndpoint};

pub mod cost;

mod usecase;
pub use usecase::{RenderError, UsecaseRegistry};
mod templates;
mod quota;
pub use quota::QuotaEngine;
mod gpu;
pub use gpu::{gpu_defrag, gpu_place_mig, gpu_replay};
mod serverless;
pub use serverless::serverless_simulate;
pub mod kueue;
pub use templates::{render_template, Template, TemplateError};

/// The C ABI's status codes (`BUDCORE_E*`), as a Rust enum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// `BUDCORE_ERROR`: an internal failure (a bug).
    Internal,
    Invalid,
    NotFound,
    Exists,
    Conflict,
    Quota,
    Budget,
    User,
    NoMem,
    Overflow,
    Security,
    Io,
    Unsupported,
    /// `BUDCORE_ERATELIMITED`: too many requests now; `Error::retry_after_ms` says when to retry.
    RateLimited,
    /// `BUDCORE_ENOTLEADER`: a leader-only write by a replica that no longer leads.
    NotLeader,
    /// `BUDCORE_EGONE`: removed by retention (a watch cursor before the event log's start).
    Gone,
    /// A code this crate does not know (a newer library).
    Other(i32),
}

impl ErrorCode {
    pub fn from_raw(code: c_int) -> Self {
        match code {
            sys::BUDCORE_ERROR => Self::Internal,
            sys::BUDCORE_EINVALID => Self::Invalid,
            sys::BUDCORE_ENOTFOUND => Self::NotFound,
            sys::BUDCORE_EEXISTS => Self::Exists,
            sys::BUDCORE_ECONFLICT => Self::Conflict,
            sys::BUDCORE_EQUOTA => Self::Quota,
            sys::BUDCORE_EBUDGET => Self::Budget,
            sys::BUDCORE_EUSER => Self::User,
            sys::BUDCORE_ENOMEM => Self::NoMem,
            sys::BUDCORE_EOVERFLOW => Self::Overflow,
            sys::BUDCORE_ESECURITY => Self::Security,
            sys::BUDCORE_EIO => Self::Io,
            sys::BUDCORE_EUNSUPPORTED => Self::Unsupported,
            sys::BUDCORE_ERATELIMITED => Self::RateLimited,
            sys::BUDCORE_ENOTLEADER => Self::NotLeader,
            sys::BUDCORE_EGONE => Self::Gone,
            other => Self::Other(other),
        }
    }

    pub fn raw(self) -> c_int {
        match self {
            Self::Internal => sys::BUDCORE_ERROR,
            Self::Invalid => sys::BUDCORE_EINVALID,
            Self::NotFound => sys::BUDCORE_ENOTFOUND,
            Self::Exists => sys::BUDCORE_EEXISTS,
            Self::Conflict => sys::BUDCORE_ECONFLICT,
            Self::Quota => sys::BUDCORE_EQUOTA,
            Self::Budget => sys::BUDCORE_EBUDGET,
            Self::User => sys::BUDCORE_EUSER,
            Self::NoMem => sys::BUDCORE_ENOMEM,
            Self::Overflow => sys::BUDCORE_EOVERFLOW,
            Self::Security => sys::BUDCORE_ESECURITY,
            Self::Io => sys::BUDCORE_EIO,
            Self::Unsupported => sys::BUDCORE_EUNSUPPORTED,
            Self::RateLimited => sys::BUDCORE_ERATELIMITED,
            Self::NotLeader => sys::BUDCORE_ENOTLEADER,
            Self::Gone => sys::BUDCORE_EGONE,
            Self::Other(c) => c,
        }
    }
}

/// A failed budcore call: what went wrong, where in the input and with which value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub code: ErrorCode,
    /// Path of the offending input ("gpu_count", "spec.args[2]"); empty if none.
    pub field: String,
    /// The offending value as given; empty if none.
    pub value: String,
    pub message: String,
    /// `RateLimited`: retry after this many milliseconds (0 otherwise).
    pub retry_after_ms: i64,
    /// The input's other problems when it had several (a job document lists every field it
    /// cannot accept), in order, each with its own `field`; this error is the first. At most
    /// 100, the last of which may count those not listed.
    pub others: Vec<Error>,
}

/// Copies a C string the library owns; NULL reads as "".
pub(crate) unsafe fn owned(p: *const c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        CStr::from_ptr(p).to_string_lossy().into_owned()
    }
}

impl Error {
    /// Reads this thread's last error for a call that returned `rc`, then clears it so a stale
    /// message cannot be mistaken for the next call's.
    pub fn last(rc: c_int) -> Self {
        // SAFETY: budcore_error_last never returns NULL and its strings are valid until the
        // next budcore call on this thread; they are copied before budcore_error_clear.
        unsafe {
            let e = &*sys::budcore_error_last();
            let mut err = Error::copy(e, rc);
            if err.message.is_empty() {
                err.message = owned(sys::budcore_strerror(rc));
            }
            for i in 1..sys::budcore_error_problem_count() {
                let p = sys::budcore_error_problem(i);
                if !p.is_null() {
                    err.others.push(Error::copy(&*p, rc));
                }
            }
            sys::budcore_error_clear();
            err
        }
    }

    /// Copies one problem the library owns (its strings are copied at once).
    unsafe fn copy(e: &sys::budcore_error, rc: c_int) -> Self {
        Error {
            code: ErrorCode::from_raw(if e.code != sys::BUDCORE_OK { e.code } else { rc }),
            field: owned(e.field),
            value: owned(e.value),
            message: owned(e.message),
            retry_after_ms: e.retry_after_ms as i64,
            others: Vec::new(),
        }
    }

    /// Every problem: this error (without its list) first, then the others.
    pub fn problems(&self) -> Vec<Error> {
        let mut first = self.clone();
        first.others.clear();
        std::iter::once(first).chain(self.others.iter().cloned()).collect()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.field.is_empty() {
            write!(f, "{}: ", self.field)?;
        }
        f.write_str(&self.message)?;
        if !self.value.is_empty() {
            write!(f, " (value: '{}')", self.value)?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

pub(crate) fn check(rc: c_int) -> Result<(), Error> {
    if rc == sys::BUDCORE_OK {
        Ok(())
    } else {
        Err(Error::last(rc))
    }
}

/// Library-owned text; `budcore_buf_dispose` runs on drop.
pub struct Buf(sys::budcore_buf);

impl Buf {
    pub fn new() -> Self {
        Buf(sys::BUDCORE_BUF_INIT)
    }
    pub fn as_mut_ptr(&mut self) -> *mut sys::budcore_buf {
        &mut self.0
    }
    pub fn as_bytes(&self) -> &[u8] {
        if self.0.ptr.is_null() {
            &[]
        } else {
            // SAFETY: the library filled ptr with `size` bytes (plus a NUL) it owns until dispose.
            unsafe { std::slice::from_raw_parts(self.0.ptr.cast::<u8>(), self.0.size) }
        }
    }
    /// The text as a String (the library writes UTF-8; anything else is replaced).
    pub fn to_string_lossy(&self) -> String {
        String::from_utf8_lossy(self.as_bytes()).into_owned()
    }
}

impl Default for Buf {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for Buf {
    fn drop(&mut self) {
        // SAFETY: ptr is NULL or was allocated by the library for this buf.
        unsafe { sys::budcore_buf_dispose(&mut self.0) }
    }
}

/// Runs admission cycles on a quota scenario (contract 2: `budcore quota simulate`) and
/// returns the decisions as JSON.
pub fn quota_simulate(scenario_json: &str) -> Result<String, Error> {
    let mut out = Buf::new();
    // SAFETY: (ptr, len) describe a live slice; the library copies what it keeps.
    check(unsafe {
        sys::budcore_quota_simulate(out.as_mut_ptr(), scenario_json.as_ptr().cast(), scenario_json.len())
    })?;
    Ok(out.to_string_lossy())
}

/// Version of the loaded library as numbers (major, minor, patch).
pub fn version_numbers() -> (i32, i32, i32) {
    let (mut major, mut minor, mut patch) = (0, 0, 0);
    // SAFETY: three valid out-pointers.
    unsafe { sys::budcore_version(&mut major, &mut minor, &mut patch) };
    (major, minor, patch)
}

/// Version of the loaded library, "0.1.0".
pub fn version() -> String {
    // SAFETY: a static NUL-terminated string.
    unsafe { owned(sys::budcore_version_string()) }
}

/// Validates a job document (JSON, the snake_case Job schema) and returns its
/// normalized JSON (defaults filled in, canonical quantities, lower-case enums and ids).
pub fn validate_job(json: &str) -> Result<String, Error> {
    validate_job_bytes(json.as_bytes())
}

/// A document with problems: the first as an [`Error`] (its `field` is the problem's path)
/// and the library's full report, `{"valid": false, "errors": [{"code", "message", "path",
/// "value"}]}`, listing every one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    pub error: Error,
    /// Empty when the call failed before validating (for instance out of memory).
    pub report: String,
}

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for Invalid {}

/// As [`validate_job`], but every problem at once, as Kubernetes' API validation reports them:
/// every field that does not decode (unknown key, wrong type, bad enum value or UUID, missing
/// required field) and every rule the fields that did decode break. [`Invalid::report`] lists
/// each problem with its path, the first being [`Invalid::error`] (what [`validate_job`] returns).
pub fn validate_job_all(json: &str) -> Result<String, Invalid> {
    let mut out = Buf::new();
    let mut errors = Buf::new();
    // SAFETY: (ptr, len) describe a live slice; the library copies what it keeps.
    let rc = unsafe {
        sys::budcore_job_validate_all(out.as_mut_ptr(), errors.as_mut_ptr(), json.as_ptr().cast(), json.len())
    };
    match check(rc) {
        Ok(()) => Ok(out.to_string_lossy()),
        Err(error) => Err(Invalid { error, report: errors.to_string_lossy() }),
    }
}

/// As [`validate_job`], for bytes that may not be UTF-8 (the library rejects those with
/// field "json", the argument, and the offending byte offset in the message).
pub fn validate_job_bytes(json: &[u8]) -> Result<String, Error> {
    let mut out = Buf::new();
    // SAFETY: (ptr, len) describe a live slice; the library copies what it keeps.
    let rc =
        unsafe { sys::budcore_job_validate(out.as_mut_ptr(), json.as_ptr().cast(), json.len()) };
    check(rc)?;
    Ok(out.to_string_lossy())
}
