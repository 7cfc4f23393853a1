//! Use-case templates over the C ABI (`budcore/c/usecase.h`): a registry of components and
//! templates (the shipped ones and/or your own) and `render`, which resolves a template with
//! parameters into its components and the pipeline that deploys them (docs/cli.md contract 4).
//! Results are the library's JSON text.

use std::path::Path;
use std::ptr::NonNull;

use crate::{check, sys, Buf, Error, Invalid};

/// A render that did not come out: the first problem (`error.field` is its path) and the
/// library's report, `{"valid": false, "errors": [...]}`, listing every problem (empty when
/// the call failed before resolving: an unknown template id, a bad request).
pub type RenderError = Invalid;

/// Components and use-case templates in memory. Adding takes `&mut self`; reading and
/// rendering take `&self` and may run on several threads at once.
pub struct UsecaseRegistry {
    raw: NonNull<sys::budcore_usecase_registry>,
}

// SAFETY: the header allows concurrent read-only calls on a registry and forbids a change
// concurrent with anything; `&mut self` on every change gives exactly that.
unsafe impl Send for UsecaseRegistry {}
unsafe impl Sync for UsecaseRegistry {}

impl UsecaseRegistry {
    fn create(with_builtin: bool) -> Result<Self, Error> {
        let mut raw = std::ptr::null_mut();
        // SAFETY: raw is a valid out-pointer.
        check(unsafe { sys::budcore_usecase_registry_new(&mut raw, i32::from(with_builtin)) })?;
        NonNull::new(raw)
            .map(|raw| UsecaseRegistry { raw })
            .ok_or_else(|| Error::last(sys::BUDCORE_ERROR))
    }

    /// An empty registry.
    pub fn new() -> Result<Self, Error> {
        Self::create(false)
    }

    /// The system components and templates that ship with budcore (simple-rag-v1,
    /// enterprise-rag-v1, simple-chatbot-v1, chatbot-memory-v1, simple-agent-v1).
    pub fn builtin() -> Result<Self, Error> {
        Self::create(true)
    }

    /// Adds one component or a list of them (YAML or JSON); all or nothing.
    pub fn add_components(&mut self, document: &str) -> Result<(), Error> {
        // SAFETY: the registry is live and exclusively borrowed; the slice lives for the call.
        check(unsafe {
            sys::budcore_usecase_registry_add_components(
                self.raw.as_ptr(),
                document.as_ptr().cast(),
                document.len(),
            )
        })
    }

    /// Adds a template (YAML or JSON), replacing one of the same id.
    pub fn add_template(&mut self, document: &str) -> Result<(), Error> {
        // SAFETY: as in add_components.
        check(unsafe {
            sys::budcore_usecase_registry_add_template(
                self.raw.as_ptr(),
                document.as_ptr().cast(),
                document.len(),
            )
        })
    }

    /// Adds the component files under `components` and the template files under `templates`
    /// (a file or a directory each); all or nothing.
    pub fn load(
        &mut self,
        components: Option<&Path>,
        templates: Option<&Path>,
    ) -> Result<(), Error> {
        let c = components
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        let t = templates
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        // SAFETY: as in add_components.
        check(unsafe {
            sys::budcore_usecase_registry_load(
                self.raw.as_ptr(),
                c.as_ptr().cast(),
                c.len(),
                t.as_ptr().cast(),
                t.len(),
            )
        })
    }

    /// `{"templates": [{"id", "name", "version", "category", ...}, ...]}`.
    pub fn list(&self) -> Result<String, Error> {
        let mut out = Buf::new();
        // SAFETY: the registry is live; out is an empty buf.
        check(unsafe { sys::budcore_usecase_list(out.as_mut_ptr(), self.raw.as_ptr()) })?;
        Ok(out.to_string_lossy())
    }

    /// The template `id` as JSON; `ErrorCode::NotFound` when the registry has none.
    pub fn show(&self, id: &str) -> Result<String, Error> {
        let mut out = Buf::new();
        // SAFETY: as in list; the id slice lives for the call.
        check(unsafe {
            sys::budcore_usecase_show(
                out.as_mut_ptr(),
                self.raw.as_ptr(),
                id.as_ptr().cast(),
                id.len(),
            )
        })?;
        Ok(out.to_string_lossy())
    }

    /// `{"components": [...]}`.
    pub fn components(&self) -> Result<String, Error> {
        let mut out = Buf::new();
        // SAFETY: as in list.
        check(unsafe { sys::budcore_usecase_components(out.as_mut_ptr(), self.raw.as_ptr()) })?;
        Ok(out.to_string_lossy())
    }

    /// Resolves the template `template_id`. `request_json` is "" or
    /// `{"parameters": {...}, "overrides": {...}, "name": "..."}`. Returns contract 4's output.
    pub fn render(&self, template_id: &str, request_json: &str) -> Result<String, RenderError> {
        let mut out = Buf::new();
        let mut report = Buf::new();
        // SAFETY: the registry is live; both bufs are empty; slices live for the call.
        let rc = unsafe {
            sys::budcore_usecase_render(
                out.as_mut_ptr(),
                report.as_mut_ptr(),
                self.raw.as_ptr(),
                template_id.as_ptr().cast(),
                template_id.len(),
                request_json.as_ptr().cast(),
                request_json.len(),
            )
        };
        match check(rc) {
            Ok(()) => Ok(out.to_string_lossy()),
            Err(error) => Err(Invalid {
                error,
                report: report.to_string_lossy(),
            }),
        }
    }
}

impl Drop for UsecaseRegistry {
    fn drop(&mut self) {
        // SAFETY: raw came from budcore_usecase_registry_new and is freed once.
        unsafe { sys::budcore_usecase_registry_free(self.raw.as_ptr()) }
    }
}
