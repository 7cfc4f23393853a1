// Declarations of include/budcore/budcore.h (C ABI 0.1), written by hand from the headers
// (common.h, error.h, version.h, job.h, pipeline.h, platform.h). Keep in the same order as the headers; the layout
// (common.h, error.h, version.h, job.h, pipeline.h, the store handle of store.h, cost.h). Keep in the same order as the headers; the layout
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
pub const BUDCORE_ERATELIMITED: budcore_status = -14;

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
    pub retry_after_ms: std::os::raw::c_longlong,
}

// budcore/c/pipeline.h
/// A FUNCTION step's callable (see `budcore_step_function` in pipeline.h). It must not unwind.
pub type budcore_step_function = Option<
    unsafe extern "C" fn(
        args_json: *const c_char,
        args_json_len: usize,
        attempt: c_int,
        step_id: *const c_char,
        out: *mut budcore_buf,
        user_data: *mut c_void,
    ) -> c_int,
>;

/// Releases a payload the library kept (`budcore_free_payload` in common.h).
pub type budcore_free_payload = Option<unsafe extern "C" fn(payload: *mut c_void)>;

/// Opaque registry of named FUNCTION callables.
#[repr(C)]
pub struct budcore_function_registry {
    _private: [u8; 0],
}

/// Opaque live schedule timeline (schedule.h).
#[repr(C)]
pub struct budcore_timeline {
    _private: [u8; 0],
}

/// `BUDCORE_SCHEDULE_DETAILS`: wait reasons, warnings and utilization in timeline output.
pub const BUDCORE_SCHEDULE_DETAILS: u32 = 1;
// budcore/c/platform.h
/// Opaque platform handle (thread-safe).
#[repr(C)]
pub struct budcore_platform {
    _private: [u8; 0],
}

/// Who calls: tenant (a UUID), principal and request id, each (pointer, length).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct budcore_caller {
    pub tenant: *const c_char,
    pub tenant_len: usize,
    pub principal: *const c_char,
    pub principal_len: usize,
    pub request_id: *const c_char,
    pub request_id_len: usize,
}

/// One event's JSON; a non-zero return stops the watch (BUDCORE_EUSER). It must not unwind.
pub type budcore_platform_event_cb =
    Option<unsafe extern "C" fn(event_json: *const c_char, event_len: usize, payload: *mut c_void) -> c_int>;

/// Opaque store handle (store.h).
#[repr(C)]
pub struct budcore_store {
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
        errors_out: *mut budcore_buf,
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
        free_user_data: budcore_free_payload,
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

    // schedule.h
    pub fn budcore_schedule_estimate(
        out: *mut budcore_buf,
        scenario_json: *const c_char,
        len: usize,
        flags: u32,
    ) -> c_int;
    pub fn budcore_schedule_replay(
        out: *mut budcore_buf,
        config_json: *const c_char,
        len: usize,
    ) -> c_int;
    pub fn budcore_schedule_render_html(
        out: *mut budcore_buf,
        scenario_json: *const c_char,
        len: usize,
    ) -> c_int;
    pub fn budcore_timeline_new(
        out: *mut *mut budcore_timeline,
        scenario_json: *const c_char,
        len: usize,
    ) -> c_int;
    pub fn budcore_timeline_free(timeline: *mut budcore_timeline);
    pub fn budcore_timeline_result(
        out: *mut budcore_buf,
        timeline: *const budcore_timeline,
        flags: u32,
    ) -> c_int;
    pub fn budcore_timeline_apply(
        timeline: *mut budcore_timeline,
        event_json: *const c_char,
        len: usize,
    ) -> c_int;
    // platform.h
    pub fn budcore_platform_open(out: *mut *mut budcore_platform, config: *const c_char, config_len: usize) -> c_int;
    pub fn budcore_platform_open_embedded(out: *mut *mut budcore_platform, dir: *const c_char, dir_len: usize) -> c_int;
    pub fn budcore_platform_free(platform: *mut budcore_platform);
    pub fn budcore_platform_submit(
        out: *mut budcore_buf,
        platform: *mut budcore_platform,
        caller: *const budcore_caller,
        job_json: *const c_char,
        job_len: usize,
        idempotency_key: *const c_char,
        key_len: usize,
    ) -> c_int;
    pub fn budcore_platform_get(
        out: *mut budcore_buf,
        platform: *const budcore_platform,
        caller: *const budcore_caller,
        id: *const c_char,
        id_len: usize,
    ) -> c_int;
    pub fn budcore_platform_list(
        out: *mut budcore_buf,
        platform: *const budcore_platform,
        caller: *const budcore_caller,
        query_json: *const c_char,
        query_len: usize,
    ) -> c_int;
    pub fn budcore_platform_cancel(
        out: *mut budcore_buf,
        platform: *mut budcore_platform,
        caller: *const budcore_caller,
        id: *const c_char,
        id_len: usize,
        reason: *const c_char,
        reason_len: usize,
    ) -> c_int;
    pub fn budcore_platform_retry(
        out: *mut budcore_buf,
        platform: *mut budcore_platform,
        caller: *const budcore_caller,
        id: *const c_char,
        id_len: usize,
    ) -> c_int;
    pub fn budcore_platform_set_priority(
        out: *mut budcore_buf,
        platform: *mut budcore_platform,
        caller: *const budcore_caller,
        id: *const c_char,
        id_len: usize,
        priority: *const c_char,
        priority_len: usize,
    ) -> c_int;
    pub fn budcore_platform_preempt(
        out: *mut budcore_buf,
        platform: *mut budcore_platform,
        caller: *const budcore_caller,
        id: *const c_char,
        id_len: usize,
        reason: *const c_char,
        reason_len: usize,
    ) -> c_int;
    pub fn budcore_platform_events(
        out: *mut budcore_buf,
        platform: *const budcore_platform,
        caller: *const budcore_caller,
        since: i64,
        limit: usize,
    ) -> c_int;
    pub fn budcore_platform_watch(
        out_last_seq: *mut i64,
        platform: *const budcore_platform,
        caller: *const budcore_caller,
        since: i64,
        limit: usize,
        callback: budcore_platform_event_cb,
        payload: *mut c_void,
    ) -> c_int;
    pub fn budcore_platform_run_pipeline(
        out: *mut budcore_buf,
        platform: *mut budcore_platform,
        caller: *const budcore_caller,
        document_json: *const c_char,
        document_len: usize,
        params_json: *const c_char,
        params_len: usize,
    ) -> c_int;
    pub fn budcore_platform_pipeline_run(
        out: *mut budcore_buf,
        platform: *const budcore_platform,
        caller: *const budcore_caller,
        id: *const c_char,
        id_len: usize,
    ) -> c_int;
    pub fn budcore_platform_cancel_pipeline_run(
        out: *mut budcore_buf,
        platform: *mut budcore_platform,
        caller: *const budcore_caller,
        id: *const c_char,
        id_len: usize,
        reason: *const c_char,
        reason_len: usize,
    ) -> c_int;
    pub fn budcore_platform_pump(platform: *mut budcore_platform) -> c_int;
    pub fn budcore_platform_run(out: *mut budcore_buf, platform: *mut budcore_platform, seconds: f64) -> c_int;
    pub fn budcore_platform_metrics(out: *mut budcore_buf, platform: *const budcore_platform) -> c_int;
    pub fn budcore_platform_cluster(out: *mut budcore_buf, platform: *const budcore_platform) -> c_int;
    pub fn budcore_platform_check(platform: *mut budcore_platform) -> c_int;
    pub fn budcore_platform_simulate(out: *mut budcore_buf, scenario: *const c_char, scenario_len: usize) -> c_int;
    // store.h (the handle the cost functions take)
    pub fn budcore_store_open(
        out: *mut *mut budcore_store,
        uri: *const c_char,
        uri_len: usize,
    ) -> c_int;
    pub fn budcore_store_free(store: *mut budcore_store);

    // cost.h
    pub fn budcore_cost_estimate(
        out: *mut budcore_buf,
        prices: *const c_char,
        prices_len: usize,
        spec: *const c_char,
        spec_len: usize,
    ) -> c_int;
    pub fn budcore_cost_compare_tiers(
        out: *mut budcore_buf,
        prices: *const c_char,
        prices_len: usize,
        spec: *const c_char,
        spec_len: usize,
    ) -> c_int;
    pub fn budcore_cost_cheapest_gpu(
        out: *mut budcore_buf,
        prices: *const c_char,
        prices_len: usize,
        requirement_json: *const c_char,
        requirement_len: usize,
    ) -> c_int;
    pub fn budcore_cost_meter(
        out: *mut budcore_buf,
        prices: *const c_char,
        prices_len: usize,
        interval_json: *const c_char,
        interval_len: usize,
    ) -> c_int;
    pub fn budcore_cost_report(
        out: *mut budcore_buf,
        usage_json: *const c_char,
        usage_len: usize,
        query_json: *const c_char,
        query_len: usize,
        prices: *const c_char,
        prices_len: usize,
    ) -> c_int;
    pub fn budcore_cost_forecast(
        out: *mut budcore_buf,
        usage_json: *const c_char,
        usage_len: usize,
        now: *const c_char,
        now_len: usize,
    ) -> c_int;
    pub fn budcore_cost_record_usage(
        out: *mut budcore_buf,
        store: *mut budcore_store,
        prices: *const c_char,
        prices_len: usize,
        interval_json: *const c_char,
        interval_len: usize,
    ) -> c_int;
    pub fn budcore_cost_job_cost(
        out: *mut budcore_buf,
        store: *const budcore_store,
        tenant: *const c_char,
        tenant_len: usize,
        job_id: *const c_char,
        job_id_len: usize,
    ) -> c_int;
    pub fn budcore_cost_admit_job(
        out: *mut budcore_buf,
        store: *mut budcore_store,
        budgets: *const c_char,
        budgets_len: usize,
        prices: *const c_char,
        prices_len: usize,
        job_json: *const c_char,
        job_len: usize,
        now: *const c_char,
        now_len: usize,
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

// ---- use-case deployments on the platform (include/budcore/c/platform.h) ----
extern "C" {
    pub fn budcore_platform_deploy_usecase(
        out: *mut budcore_buf,
        platform: *mut budcore_platform,
        caller: *const budcore_caller,
        template_ref: *const c_char,
        template_ref_len: usize,
        params_json: *const c_char,
        params_len: usize,
    ) -> c_int;
    pub fn budcore_platform_deployment(
        out: *mut budcore_buf,
        platform: *const budcore_platform,
        caller: *const budcore_caller,
        id: *const c_char,
        id_len: usize,
    ) -> c_int;
    pub fn budcore_platform_deployments(
        out: *mut budcore_buf,
        platform: *const budcore_platform,
        caller: *const budcore_caller,
    ) -> c_int;
    pub fn budcore_platform_teardown_deployment(
        out: *mut budcore_buf,
        platform: *mut budcore_platform,
        caller: *const budcore_caller,
        id: *const c_char,
        id_len: usize,
    ) -> c_int;
    // platform.h: security
    pub fn budcore_platform_bind_role(
        out: *mut budcore_buf,
        platform: *mut budcore_platform,
        caller: *const budcore_caller,
        binding_json: *const c_char,
        binding_json_len: usize,
    ) -> c_int;
    pub fn budcore_platform_unbind_role(
        platform: *mut budcore_platform,
        caller: *const budcore_caller,
        binding_json: *const c_char,
        binding_json_len: usize,
    ) -> c_int;
    pub fn budcore_platform_role_bindings(
        out: *mut budcore_buf,
        platform: *const budcore_platform,
        caller: *const budcore_caller,
        principal: *const c_char,
        principal_len: usize,
    ) -> c_int;
    pub fn budcore_platform_audit(
        out: *mut budcore_buf,
        platform: *const budcore_platform,
        caller: *const budcore_caller,
        query_json: *const c_char,
        query_json_len: usize,
    ) -> c_int;
    pub fn budcore_platform_audit_verify(
        out: *mut budcore_buf,
        platform: *const budcore_platform,
        caller: *const budcore_caller,
    ) -> c_int;
}

// budcore/c/template.h
/// Opaque compiled template.
#[repr(C)]
pub struct budcore_template {
    _private: [u8; 0],
}

/// The template details of this thread's last error.
#[repr(C)]
pub struct budcore_template_error {
    pub kind: *const c_char,
    pub line: c_int,
    pub column: c_int,
}

extern "C" {
    pub fn budcore_template_render(
        out: *mut budcore_buf,
        tmpl: *const c_char,
        tmpl_len: usize,
        context_json: *const c_char,
        context_json_len: usize,
        native: c_int,
    ) -> c_int;
    pub fn budcore_template_compile(
        out: *mut *mut budcore_template,
        text: *const c_char,
        text_len: usize,
    ) -> c_int;
    pub fn budcore_template_render_compiled(
        out: *mut budcore_buf,
        tmpl: *const budcore_template,
        context_json: *const c_char,
        context_json_len: usize,
        native: c_int,
    ) -> c_int;
    pub fn budcore_template_free(tmpl: *mut budcore_template);
    pub fn budcore_template_error_last() -> *const budcore_template_error;
}

// budcore/c/store.h (jobs) and budcore/c/quota.h
extern "C" {
    pub fn budcore_store_job_submit(
        out: *mut budcore_buf,
        store: *mut budcore_store,
        tenant: *const c_char,
        tenant_len: usize,
        job_json: *const c_char,
        job_json_len: usize,
        idempotency_key: *const c_char,
        idempotency_key_len: usize,
    ) -> c_int;
    pub fn budcore_store_job_get(
        out: *mut budcore_buf,
        store: *const budcore_store,
        tenant: *const c_char,
        tenant_len: usize,
        id: *const c_char,
        id_len: usize,
    ) -> c_int;
    pub fn budcore_store_job_list(
        out: *mut budcore_buf,
        store: *const budcore_store,
        tenant: *const c_char,
        tenant_len: usize,
        query_json: *const c_char,
        query_json_len: usize,
    ) -> c_int;
    pub fn budcore_quota_simulate(
        out: *mut budcore_buf,
        scenario_json: *const c_char,
        scenario_json_len: usize,
    ) -> c_int;
}
