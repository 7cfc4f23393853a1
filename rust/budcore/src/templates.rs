//! Jinja2-compatible templates over the C ABI: one-shot renders and compiled templates, with a
//! failure's Jinja2 kind, line and column as fields.

use std::ptr;

use crate::{owned, sys, Buf, Error};

/// A template that did not compile or render: the library's error plus its Jinja2 kind
/// ("UndefinedError", "TemplateSyntaxError", ...; empty when not a template failure, for
/// instance a context that is not a JSON object) and 1-based line and column (0 unknown).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateError {
    pub error: Error,
    pub kind: String,
    pub line: i32,
    pub column: i32,
}

impl std::fmt::Display for TemplateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for TemplateError {}

/// Reads the template details of the error, then the error (which clears it).
fn template_error(rc: i32) -> TemplateError {
    // SAFETY: never NULL; its string is valid until the next budcore call on this thread and
    // is copied before Error::last makes one.
    let (kind, line, column) = unsafe {
        let e = &*sys::budcore_error_last();
        (owned(e.kind), e.line, e.column)
    };
    TemplateError {
        error: Error::last(rc),
        kind,
        line,
        column,
    }
}

fn result(rc: i32, out: Buf) -> Result<String, TemplateError> {
    if rc == sys::BUDCORE_OK {
        Ok(out.to_string_lossy())
    } else {
        Err(template_error(rc))
    }
}

/// Renders `text` against the JSON object `context_json` ("" for none). `native`: the JSON
/// of the value Jinja2's NativeEnvironment returns instead of text.
pub fn render_template(text: &str, context_json: &str, native: bool) -> Result<String, TemplateError> {
    let mut out = Buf::new();
    // SAFETY: (ptr, len) pairs describe live slices; the library copies what it keeps.
    let rc = unsafe {
        sys::budcore_template_render(
            out.as_mut_ptr(),
            text.as_ptr().cast(),
            text.len(),
            context_json.as_ptr().cast(),
            context_json.len(),
            native as i32,
        )
    };
    result(rc, out)
}

/// A compiled template: compile once, render many times, from any number of threads.
pub struct Template {
    raw: *mut sys::budcore_template,
}

// SAFETY: a compiled template is immutable; the library renders it from many threads at once.
unsafe impl Send for Template {}
unsafe impl Sync for Template {}

impl Template {
    pub fn compile(text: &str) -> Result<Self, TemplateError> {
        let mut raw = ptr::null_mut();
        // SAFETY: raw is a valid out-pointer; (ptr, len) describe a live slice.
        let rc = unsafe { sys::budcore_template_compile(&mut raw, text.as_ptr().cast(), text.len()) };
        if rc != sys::BUDCORE_OK {
            return Err(template_error(rc));
        }
        Ok(Template { raw })
    }

    pub fn render(&self, context_json: &str, native: bool) -> Result<String, TemplateError> {
        let mut out = Buf::new();
        // SAFETY: raw is a live template; the context slice outlives the call.
        let rc = unsafe {
            sys::budcore_template_render_compiled(
                out.as_mut_ptr(),
                self.raw,
                context_json.as_ptr().cast(),
                context_json.len(),
                native as i32,
            )
        };
        result(rc, out)
    }
}

impl Drop for Template {
    fn drop(&mut self) {
        // SAFETY: raw came from budcore_template_compile and is freed once.
        unsafe { sys::budcore_template_free(self.raw) }
    }
}
