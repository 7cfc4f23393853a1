package budcore

/*
#include <stdlib.h>
#include <budcore/budcore.h>
*/
import "C"

import (
	"runtime"
	"sync"
)

// UsecaseRegistry holds use-case components and templates: the ones that ship with budcore
// and/or your own. Render resolves a template with parameters into its components and the
// pipeline that deploys them (docs/cli.md contract 4). Results are the library's JSON. A
// registry may be used from several goroutines; changes wait for running reads.
type UsecaseRegistry struct {
	mu sync.RWMutex
	r  *C.budcore_usecase_registry
}

// NewUsecaseRegistry returns an empty registry, or (builtin) one holding the system
// components and templates (simple-rag-v1, enterprise-rag-v1, simple-chatbot-v1,
// chatbot-memory-v1, simple-agent-v1). Close releases it.
func NewUsecaseRegistry(builtin bool) (*UsecaseRegistry, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	with := C.int(0)
	if builtin {
		with = 1
	}
	u := &UsecaseRegistry{}
	if rc := C.budcore_usecase_registry_new(&u.r, with); rc != C.BUDCORE_OK {
		return nil, lastError(rc)
	}
	runtime.SetFinalizer(u, (*UsecaseRegistry).Close)
	return u, nil
}

// Close frees the registry; calling it twice is harmless.
func (u *UsecaseRegistry) Close() {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.r != nil {
		C.budcore_usecase_registry_free(u.r)
		u.r = nil
	}
	runtime.SetFinalizer(u, nil)
}

var errRegistryClosed = &Error{Code: Invalid, Field: "registry", Message: "the registry is closed"}

// change runs a call that modifies the registry, alone.
func (u *UsecaseRegistry) change(call func(r *C.budcore_usecase_registry) C.int) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.r == nil {
		return errRegistryClosed
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if rc := call(u.r); rc != C.BUDCORE_OK {
		return lastError(rc)
	}
	return nil
}

// read runs a read-only call that fills a buf, alongside other reads.
func (u *UsecaseRegistry) read(call func(r *C.budcore_usecase_registry, out *C.budcore_buf) C.int) (string, error) {
	u.mu.RLock()
	defer u.mu.RUnlock()
	if u.r == nil {
		return "", errRegistryClosed
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var out C.budcore_buf
	if rc := call(u.r, &out); rc != C.BUDCORE_OK {
		return "", lastError(rc)
	}
	defer C.budcore_buf_dispose(&out)
	return C.GoStringN(out.ptr, C.int(out.size)), nil
}

// AddComponents adds one component or a list of them (YAML or JSON); all or nothing. An id
// already in the registry is an *Error with Code Exists.
func (u *UsecaseRegistry) AddComponents(document string) error {
	return u.change(func(r *C.budcore_usecase_registry) C.int {
		return C.budcore_usecase_registry_add_components(r, cText(document), C.size_t(len(document)))
	})
}

// AddTemplate adds a template (YAML or JSON), replacing one of the same id.
func (u *UsecaseRegistry) AddTemplate(document string) error {
	return u.change(func(r *C.budcore_usecase_registry) C.int {
		return C.budcore_usecase_registry_add_template(r, cText(document), C.size_t(len(document)))
	})
}

// Load adds the component files under componentsPath and the template files under
// templatesPath (a file or a directory each; "" for none); all or nothing.
func (u *UsecaseRegistry) Load(componentsPath, templatesPath string) error {
	return u.change(func(r *C.budcore_usecase_registry) C.int {
		return C.budcore_usecase_registry_load(r, cText(componentsPath), C.size_t(len(componentsPath)),
			cText(templatesPath), C.size_t(len(templatesPath)))
	})
}

// List returns {"templates": [{"id", "name", "version", "category", ...}, ...]}.
func (u *UsecaseRegistry) List() (string, error) {
	return u.read(func(r *C.budcore_usecase_registry, out *C.budcore_buf) C.int {
		return C.budcore_usecase_list(out, r)
	})
}

// Show returns the template id as JSON; errors.Is(err, ErrNotFound) when there is none.
func (u *UsecaseRegistry) Show(id string) (string, error) {
	return u.read(func(r *C.budcore_usecase_registry, out *C.budcore_buf) C.int {
		return C.budcore_usecase_show(out, r, cText(id), C.size_t(len(id)))
	})
}

// Components returns {"components": [...]}.
func (u *UsecaseRegistry) Components() (string, error) {
	return u.read(func(r *C.budcore_usecase_registry, out *C.budcore_buf) C.int {
		return C.budcore_usecase_components(out, r)
	})
}

// Render resolves the template templateID. requestJSON is "" or {"parameters": {...},
// "overrides": {...}, "name": "..."}. It returns contract 4's output. An invalid template or
// parameters return an *Error (Field: the first problem's path) together with the library's
// report, {"valid": false, "errors": [...]}, listing every problem ("" when the call failed
// before resolving).
func (u *UsecaseRegistry) Render(templateID, requestJSON string) (string, error) {
	u.mu.RLock()
	defer u.mu.RUnlock()
	if u.r == nil {
		return "", errRegistryClosed
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var out, report C.budcore_buf
	defer C.budcore_buf_dispose(&out)
	defer C.budcore_buf_dispose(&report)
	rc := C.budcore_usecase_render(&out, &report, u.r, cText(templateID), C.size_t(len(templateID)),
		cText(requestJSON), C.size_t(len(requestJSON)))
	if rc != C.BUDCORE_OK {
		return C.GoStringN(report.ptr, C.int(report.size)), lastError(rc)
	}
	return C.GoStringN(out.ptr, C.int(out.size)), nil
}
