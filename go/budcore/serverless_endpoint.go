package budcore

/*
#include <stdint.h>
#include <stdlib.h>
#include <budcore/budcore.h>
*/
import "C"

import (
	"runtime"
)

// ServerlessEndpoint is a serverless endpoint whose warm workers are SERVICE jobs on a
// Platform (budcore_serverless_endpoint_*, docs/serverless.md "On a platform"). Its methods
// return the library's JSON. The Platform must outlive it; one goroutine drives it at a time.
// Close releases it (its worker jobs keep running: Scale(0) first to end them).
type ServerlessEndpoint struct {
	raw      *C.budcore_serverless_endpoint
	platform *Platform
}

// OpenServerlessEndpoint opens an endpoint (JSON or YAML) owned by the caller's tenant;
// optionsJSON as in budcore_serverless_endpoint_open ("" for the defaults).
func (p *Platform) OpenServerlessEndpoint(owner Caller, endpoint, optionsJSON string) (*ServerlessEndpoint, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer runtime.KeepAlive(p)
	cc := newCaller(owner)
	defer cc.free()
	e := &ServerlessEndpoint{platform: p}
	if rc := C.budcore_serverless_endpoint_open(&e.raw, p.raw, cc.c, cText(endpoint), C.size_t(len(endpoint)),
		cText(optionsJSON), C.size_t(len(optionsJSON))); rc != C.BUDCORE_OK {
		return nil, lastError(rc)
	}
	runtime.SetFinalizer(e, (*ServerlessEndpoint).Close)
	return e, nil
}

// Close releases the handle.
func (e *ServerlessEndpoint) Close() {
	if e.raw != nil {
		C.budcore_serverless_endpoint_free(e.raw)
		e.raw = nil
	}
	runtime.SetFinalizer(e, nil)
}

func (e *ServerlessEndpoint) call(f func(out *C.budcore_buf) C.int) (string, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer runtime.KeepAlive(e)
	var out C.budcore_buf
	if rc := f(&out); rc != C.BUDCORE_OK {
		return "", lastError(rc)
	}
	defer C.budcore_buf_dispose(&out)
	return C.GoStringN(out.ptr, C.int(out.size)), nil
}

// Scale reads the workers' jobs, then grows or shrinks the pool to desired (negative: only
// reads); returns the status JSON.
func (e *ServerlessEndpoint) Scale(desired int64) (string, error) {
	return e.call(func(out *C.budcore_buf) C.int {
		return C.budcore_serverless_endpoint_scale(out, e.raw, C.int64_t(desired))
	})
}

// Enqueue admits a JSON list of submissions and places what can run now.
func (e *ServerlessEndpoint) Enqueue(submissionsJSON string) (string, error) {
	return e.call(func(out *C.budcore_buf) C.int {
		return C.budcore_serverless_endpoint_enqueue(out, e.raw, cText(submissionsJSON), C.size_t(len(submissionsJSON)))
	})
}

// Finish ends a request: completed (reason "") or a failed attempt.
func (e *ServerlessEndpoint) Finish(request uint64, reason string) (string, error) {
	return e.call(func(out *C.budcore_buf) C.int {
		return C.budcore_serverless_endpoint_finish(out, e.raw, C.uint64_t(request), cText(reason), C.size_t(len(reason)))
	})
}

// Meter writes the workers' GPU time since their last rows as usage rows: {"usage": [...]}.
func (e *ServerlessEndpoint) Meter() (string, error) {
	return e.call(func(out *C.budcore_buf) C.int {
		return C.budcore_serverless_endpoint_meter(out, e.raw)
	})
}
