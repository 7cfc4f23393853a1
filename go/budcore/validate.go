package budcore

/*
#include <budcore/budcore.h>
*/
import "C"

import (
	"encoding/json"
	"runtime"
	"strings"
)

// Problems is a document with one or more problems: every one as an *Error (Field: its path),
// first the first. errors.Is(err, ErrInvalid) and errors.As(err, &e *Error) see through it.
type Problems struct {
	Errors []*Error
	Report string // the library's {"valid": false, "errors": [...]}; "" if it failed before validating
}

func (p *Problems) Error() string {
	parts := make([]string, len(p.Errors))
	for i, e := range p.Errors {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "; ")
}

// Unwrap gives the problems to errors.Is and errors.As (Go 1.20 multi-errors).
func (p *Problems) Unwrap() []error {
	out := make([]error, len(p.Errors))
	for i, e := range p.Errors {
		out[i] = e
	}
	return out
}

// ValidateJobAll is ValidateJob reporting every problem at once, as Kubernetes' API validation
// does: every field that does not decode (unknown key, wrong type, bad enum value or UUID,
// missing required field) and every rule the fields that did decode break. An invalid document
// returns a *Problems whose first error is the one ValidateJob returns.
func ValidateJobAll(document string) (string, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	var out, report C.budcore_buf
	defer C.budcore_buf_dispose(&out)
	defer C.budcore_buf_dispose(&report)
	rc := C.budcore_job_validate_all(&out, &report, cText(document), C.size_t(len(document)))
	if rc == C.BUDCORE_OK {
		return C.GoStringN(out.ptr, C.int(out.size)), nil
	}
	first := lastError(rc)
	text := C.GoStringN(report.ptr, C.int(report.size))
	var parsed struct {
		Errors []struct{ Code, Message, Path, Value string }
	}
	if text == "" || json.Unmarshal([]byte(text), &parsed) != nil || len(parsed.Errors) == 0 {
		return "", first
	}
	p := &Problems{Report: text}
	for _, e := range parsed.Errors {
		p.Errors = append(p.Errors, &Error{Code: Invalid, Field: e.Path, Value: e.Value, Message: e.Message})
	}
	if fe, ok := first.(*Error); ok {
		p.Errors[0] = fe // the first with its exact code
	}
	return "", p
}
