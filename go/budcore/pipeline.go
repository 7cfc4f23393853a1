package budcore

/*
#include <stdint.h>
#include <stdlib.h>
#include <budcore/budcore.h>

int budcore_go_registry_add(budcore_pipeline_function_registry *registry, const char *name, size_t name_len,
                            uintptr_t handle);
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/cgo"
)

// PlanPipeline validates and plans a pipeline document (JSON or YAML) and returns the plan of
// docs/cli.md contract 3 as JSON (order, levels, critical path and its seconds, JOB steps).
// An invalid pipeline returns an *Error (Field: the first problem's path) together with the
// library's report, {"valid": false, "errors": [...]}, listing every problem; the report is
// "" only when the call failed before validating.
func PlanPipeline(document string) (string, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	var out, errors C.budcore_buf
	defer C.budcore_buf_dispose(&out)
	defer C.budcore_buf_dispose(&errors)
	rc := C.budcore_pipeline_plan(&out, &errors, cText(document), C.size_t(len(document)))
	if rc != C.BUDCORE_OK {
		return C.GoStringN(errors.ptr, C.int(errors.size)), lastError(rc)
	}
	return C.GoStringN(out.ptr, C.int(out.size)), nil
}

// Function is a FUNCTION step's callable: it gets the step's resolved `config.args` as a JSON
// object, the attempt (1, then 2 for the first retry, ...) and the step id ("loop-1[2]"
// inside a LOOP). It returns the step's outputs as JSON (an object, or any value, which the
// library wraps as {"result": value}; "" means {}), or an error that fails the attempt with
// its message. A panic fails the attempt too.
type Function func(args string, attempt int, stepID string) (string, error)

// ErrAbortRun, returned by a Function (or wrapped: errors.Is), stops the whole run at once: no
// retry, no further step. RunPipeline then returns an *Error with Code User whose Message is
// the returned error's text and whose Field is the step id.
var ErrAbortRun = errors.New("run aborted by a function")

// Functions holds named Functions for RunPipeline. Add them first; a Functions nobody adds to
// any more may serve concurrent runs. Close releases it.
type Functions struct {
	registry *C.budcore_pipeline_function_registry
	handles  []cgo.Handle
}

// NewFunctions returns an empty registry.
func NewFunctions() (*Functions, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	f := &Functions{}
	if rc := C.budcore_pipeline_function_registry_new(&f.registry); rc != C.BUDCORE_OK {
		return nil, lastError(rc)
	}
	runtime.SetFinalizer(f, (*Functions).Close)
	return f, nil
}

// Add registers fn as the function called name (a FUNCTION step's `config.function`).
// A name already taken is an *Error with Code Exists.
func (f *Functions) Add(name string, fn Function) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	if fn == nil {
		return &Error{Code: Invalid, Field: "fn", Message: "function is nil"}
	}
	h := cgo.NewHandle(fn)
	rc := C.budcore_go_registry_add(f.registry, cText(name), C.size_t(len(name)), C.uintptr_t(h))
	if rc != C.BUDCORE_OK {
		h.Delete()
		return lastError(rc)
	}
	f.handles = append(f.handles, h)
	return nil
}

// Len is the number of registered functions.
func (f *Functions) Len() int {
	return int(C.budcore_pipeline_function_registry_size(f.registry))
}

// Close frees the registry. It must not run while a RunPipeline uses it; calling it twice is
// harmless.
func (f *Functions) Close() {
	if f.registry == nil {
		return
	}
	C.budcore_pipeline_function_registry_free(f.registry)
	f.registry = nil
	for _, h := range f.handles {
		h.Delete()
	}
	f.handles = nil
}

//export budcoreGoStep
func budcoreGoStep(handle C.uintptr_t, args *C.char, argsLen C.size_t, attempt C.int, stepID *C.char,
	out *C.budcore_buf) (rc C.int) {
	fn := cgo.Handle(handle).Value().(Function)
	var text string
	// A panic must not unwind through the library's C++ frames: it fails the attempt.
	defer func() {
		if r := recover(); r != nil {
			text, rc = fmt.Sprintf("function panicked: %v", r), 1
		}
		if C.budcore_buf_set(out, cText(text), C.size_t(len(text))) != C.BUDCORE_OK {
			rc = 1
		}
	}()
	outputs, err := fn(C.GoStringN(args, C.int(argsLen)), int(attempt), C.GoString(stepID))
	if err != nil {
		text = err.Error()
		if errors.Is(err, ErrAbortRun) {
			return C.BUDCORE_EUSER
		}
		return 1
	}
	text = outputs
	return 0
}

// RunPipeline rehearses a run of a pipeline document on a virtual clock, as
// `budcore pipeline run` does: JOB steps, API calls and notifications are simulated and
// FUNCTION steps call functions (nil: none registered). optionsJSON is "" or the options
// object of budcore_pipeline_run ("params", "fail", "slow", "timeout", "reject", "run_id").
// It returns the run's report as JSON; a pipeline that failed is not an error (its "status"
// says so). Functions run on the calling goroutine.
func RunPipeline(document, optionsJSON string, functions *Functions) (string, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	var registry *C.budcore_pipeline_function_registry
	if functions != nil {
		if functions.registry == nil {
			return "", &Error{Code: Invalid, Field: "functions", Message: "functions are closed"}
		}
		registry = functions.registry
	}
	var out C.budcore_buf
	rc := C.budcore_pipeline_run(&out, cText(document), C.size_t(len(document)),
		cText(optionsJSON), C.size_t(len(optionsJSON)), registry)
	runtime.KeepAlive(functions)
	if rc != C.BUDCORE_OK {
		return "", lastError(rc)
	}
	defer C.budcore_buf_dispose(&out)
	return C.GoStringN(out.ptr, C.int(out.size)), nil
}
