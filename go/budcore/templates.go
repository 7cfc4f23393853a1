package budcore

/*
#include <stdlib.h>
#include <budcore/budcore.h>
*/
import "C"

import (
	"runtime"
)

// TemplateError is a template that did not compile or render: the library's *Error plus its
// Jinja2 kind ("UndefinedError", "TemplateSyntaxError", ...; "" when the failure is not in
// the template, for instance a context that is not a JSON object) and 1-based Line and
// Column (0 when unknown). errors.As finds the *Error inside (Err).
type TemplateError struct {
	Err          *Error
	Kind         string
	Line, Column int
}

func (e *TemplateError) Error() string { return e.Err.Error() }
func (e *TemplateError) Unwrap() error { return e.Err }

// templateError reads the template details of the error, then the error (which clears it).
// The caller holds the OS thread.
func templateError(rc C.int) error {
	e := C.budcore_error_last()
	kind, line, column := C.GoString(e.kind), int(e.line), int(e.column)
	return &TemplateError{Err: lastError(rc).(*Error), Kind: kind, Line: line, Column: column}
}

func cBool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// RenderTemplate renders text against the JSON object contextJSON ("" for none). native: the
// JSON of the value Jinja2's NativeEnvironment returns instead of text.
func RenderTemplate(text, contextJSON string, native bool) (string, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	var out C.budcore_buf
	defer C.budcore_buf_dispose(&out)
	rc := C.budcore_template_render(&out, cText(text), C.size_t(len(text)), cText(contextJSON),
		C.size_t(len(contextJSON)), cBool(native))
	if rc != C.BUDCORE_OK {
		return "", templateError(rc)
	}
	return C.GoStringN(out.ptr, C.int(out.size)), nil
}

// Template is a compiled template: compile once, render many times from any goroutines.
// Close releases it.
type Template struct {
	raw *C.budcore_template
}

// CompileTemplate compiles text; a failure is a *TemplateError.
func CompileTemplate(text string) (*Template, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	t := &Template{}
	if rc := C.budcore_template_compile(&t.raw, cText(text), C.size_t(len(text))); rc != C.BUDCORE_OK {
		return nil, templateError(rc)
	}
	runtime.SetFinalizer(t, (*Template).Close)
	return t, nil
}

// Render renders the template against contextJSON as RenderTemplate does.
func (t *Template) Render(contextJSON string, native bool) (string, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	var out C.budcore_buf
	defer C.budcore_buf_dispose(&out)
	rc := C.budcore_template_render_compiled(&out, t.raw, cText(contextJSON), C.size_t(len(contextJSON)), cBool(native))
	runtime.KeepAlive(t)
	if rc != C.BUDCORE_OK {
		return "", templateError(rc)
	}
	return C.GoStringN(out.ptr, C.int(out.size)), nil
}

// Close frees the template; calling it again does nothing.
func (t *Template) Close() {
	if t.raw != nil {
		C.budcore_template_free(t.raw)
		t.raw = nil
	}
}
