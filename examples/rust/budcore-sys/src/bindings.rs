// Declarations of include/budcore/budcore.h (C ABI 0.1), written by hand from the headers
// (common.h, error.h, version.h, job.h, pipeline.h, usecase.h). Keep in the same order as the headers; the layout
// tests in lib.rs check the structs.
#![allow(non_camel_case_types)]

use std::os::raw::{c_char, c_int, c_void};

// budcore/c/version.h
pub const BUDCORE_VERSION_MAJOR: c_int = 0;
pub const BUDCORE_VERSION_MINOR: c_int = 1;
pub const BUDCORE_VERSION_PATCH: c_int = 0;
pub const BUDCORE_VERSION_STRING: &str = "0.1.0";
pub const BUDCORE_SOVERSION: &str = "0.1";

// budcore/c/common.h: enum budcore_status
pub type budcore_status = c_int;
pub const BUDCORE_OK: budcore_status = 0;
pub const BUDCORE_ERROR: budcore_status = -1;
pub const BUDCORE_EINVALID: budcore_status = -2;
pub const BUDCORE_ENOTFOUND: budcore_status = -3;
pub const BUDCORE_EEXISTS: budcore_status = -4;
pub const BUDCORE_ECONFLICT: budcore_status = -5;
pub const BUDCORE_EQUOTA: budcore_status = -6;
pub const BUDCORE_EBUDGET: budcore_status = -7;
pub const BUDCORE_EUSER: budcore_status = -8;
pub const BUDCORE_ENOMEM: budcore_status = -9;
pub const BUDCORE_EOVERFLOW: budcore_status = -10;
pub const BUDCORE_ESECURITY: budcore_status = -11;
pub const BUDCORE_EIO: budcore_status = -12;
pub const BUDCORE_EUNSUPPORTED: budcore_status = -13;

/// Text the library allocated for the caller; NUL-terminated (`ptr[size] == 0`).
/// Release with `budcore_buf_dispose`.
#[repr(C)]
#[derive(Debug)]
pub struct budcore_buf {
    pub ptr: *mut c_char,
    pub size: usize,
}

/// `BUDCORE_BUF_INIT`.
pub const BUDCORE_BUF_INIT: budcore_buf = budcore_buf {
    ptr: std::ptr::null_mut(),
    size: 0,
};

// budcore/c/error.h
/// The calling thread's last error; strings are never NULL ("" when absent) and stay valid
/// until the next budcore call on the same thread.
#[repr(C)]
#[derive(Debug)]
pub struct budcore_error {
    pub code: c_int,
    pub message: *const c_char,
    pub field: *const c_char,
    pub value: *const c_char,
}

// budcore/c/pipeline.h
/// A FUNCTION step's callable (see `budcore_step_function` in pipeline.h). It must not unwind.
pub type budcore_step_function = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        args_json: *const c_char,
        args_len: usize,
        attempt: c_int,
        step_id: *const c_char,
        out: *mut budcore_buf,
    ) -> c_int,
>;

/// Opaque registry of named FUNCTION callables.
#[repr(C)]
pub struct budcore_function_registry {
    _private: [u8; 0],
}

// budcore/c/usecase.h
/// Opaque registry of use-case components and templates.
#[repr(C)]
pub struct budcore_usecase_registry {
    _private: [u8; 0],
}

extern "C" {
    // common.h
    pub fn budcore_buf_dispose(buf: *mut budcore_buf);
    pub fn budcore_free(ptr: *mut c_void);
    pub fn budcore_strerror(code: c_int) -> *const c_char;

    // error.h
    pub fn budcore_error_last() -> *const budcore_error;
    pub fn budcore_error_clear();

    // version.h
    pub fn budcore_version(major: *mut c_int, minor: *mut c_int, patch: *mut c_int) -> c_int;
    pub fn budcore_version_string() -> *const c_char;

    // job.h
    pub fn budcore_job_validate(
        out: *mut budcore_buf,
        json: *const c_char,
        json_len: usize,
    ) -> c_int;

    // pipeline.h
    pub fn budcore_pipeline_plan(
        out: *mut budcore_buf,
        document: *const c_char,
        document_len: usize,
    ) -> c_int;
    pub fn budcore_buf_set(buf: *mut budcore_buf, text: *const c_char, len: usize) -> c_int;
    pub fn budcore_function_registry_new(out: *mut *mut budcore_function_registry) -> c_int;
    pub fn budcore_function_registry_free(registry: *mut budcore_function_registry);
    pub fn budcore_function_registry_add(
        registry: *mut budcore_function_registry,
        name: *const c_char,
        name_len: usize,
        callback: budcore_step_function,
        user_data: *mut c_void,
    ) -> c_int;
    pub fn budcore_function_registry_size(registry: *const budcore_function_registry) -> usize;
    pub fn budcore_pipeline_run(
        out: *mut budcore_buf,
        document: *const c_char,
        document_len: usize,
        options_json: *const c_char,
        options_len: usize,
        functions: *const budcore_function_registry,
    ) -> c_int;

    // usecase.h
    pub fn budcore_usecase_registry_new(
        out: *mut *mut budcore_usecase_registry,
        with_builtin: c_int,
    ) -> c_int;
    pub fn budcore_usecase_registry_free(registry: *mut budcore_usecase_registry);
    pub fn budcore_usecase_registry_add_components(
        registry: *mut budcore_usecase_registry,
        document: *const c_char,
        document_len: usize,
    ) -> c_int;
    pub fn budcore_usecase_registry_add_template(
        registry: *mut budcore_usecase_registry,
        document: *const c_char,
        document_len: usize,
    ) -> c_int;
    pub fn budcore_usecase_registry_load(
        registry: *mut budcore_usecase_registry,
        components_path: *const c_char,
        components_len: usize,
        templates_path: *const c_char,
        templates_len: usize,
    ) -> c_int;
    pub fn budcore_usecase_list(
        out: *mut budcore_buf,
        registry: *const budcore_usecase_registry,
    ) -> c_int;
    pub fn budcore_usecase_show(
        out: *mut budcore_buf,
        registry: *const budcore_usecase_registry,
        id: *const c_char,
        id_len: usize,
    ) -> c_int;
    pub fn budcore_usecase_components(
        out: *mut budcore_buf,
        registry: *const budcore_usecase_registry,
    ) -> c_int;
    pub fn budcore_usecase_render(
        out: *mut budcore_buf,
        errors_out: *mut budcore_buf,
        registry: *const budcore_usecase_registry,
        template_id: *const c_char,
        template_id_len: usize,
        request_json: *const c_char,
        request_len: usize,
    ) -> c_int;
}
