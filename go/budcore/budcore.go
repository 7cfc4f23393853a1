// Package budcore calls libbudcore's C ABI through cgo.
//
// The library is found with pkg-config (budcore.pc); point PKG_CONFIG_PATH at an installed
// prefix and, at run time, LD_LIBRARY_PATH at its lib directory. budcore's errors are
// thread-local, so every call locks its goroutine to the OS thread for the C call and the
// read of the error it left behind (goroutines otherwise migrate between threads).
package budcore

/*
#cgo pkg-config: budcore
#include <stdlib.h>
#include <budcore/budcore.h>

#if BUDCORE_VERSION_MAJOR != 0 || BUDCORE_VERSION_MINOR != 1
#error "this package is written for the budcore 0.1 C ABI"
#endif
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// Version of the loaded library ("0.1.0").
func Version() string {
	return C.GoString(C.budcore_version_string())
}

// VersionNumbers of the loaded library.
func VersionNumbers() (major, minor, patch int) {
	var ma, mi, pa C.int
	C.budcore_version(&ma, &mi, &pa)
	return int(ma), int(mi), int(pa)
}

// ValidateJob validates a job document (JSON, the snake_case Job schema) and
// returns its normalized JSON: defaults filled in, canonical quantities, lower-case enums and
// ids. An invalid document returns an *Error whose Field names the offending key;
// errors.Is(err, ErrInvalid) holds for it.
func ValidateJob(json string) (string, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	var out C.budcore_buf
	// The library copies what it keeps, so the Go string's bytes can be lent for the call.
	rc := C.budcore_job_validate(&out, cText(json), C.size_t(len(json)))
	if rc != C.BUDCORE_OK {
		return "", lastError(rc)
	}
	defer C.budcore_buf_dispose(&out)
	return C.GoStringN(out.ptr, C.int(out.size)), nil
}

// QuotaSimulate runs admission cycles on a quota scenario (contract 2: `budcore quota
// simulate`) and returns the decisions as JSON.
func QuotaSimulate(scenario string) (string, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	var out C.budcore_buf
	defer C.budcore_buf_dispose(&out)
	if rc := C.budcore_quota_simulate(&out, cText(scenario), C.size_t(len(scenario))); rc != C.BUDCORE_OK {
		return "", lastError(rc)
	}
	return C.GoStringN(out.ptr, C.int(out.size)), nil
}

// cText lends s to C without copying; NULL for the empty string (the ABI reads (NULL, 0)
// as "").
func cText(s string) *C.char {
	if len(s) == 0 {
		return nil
	}
	return (*C.char)(unsafe.Pointer(unsafe.StringData(s)))
}

// lastError copies this thread's last error and clears it, so a stale message cannot be
// taken for the next call's. The caller holds the OS thread.
func lastError(rc C.int) error {
	e := C.budcore_error_last()
	code := Code(e.code)
	if code == OK {
		code = Code(rc)
	}
	err := &Error{
		Code:    code,
		Field:   C.GoString(e.field),
		Value:   C.GoString(e.value),
		Message: C.GoString(e.message),

		RetryAfterMs: int64(e.retry_after_ms),
	}
	if err.Message == "" {
		err.Message = C.GoString(C.budcore_strerror(rc))
	}
	for i := C.size_t(1); i < C.budcore_error_problem_count(); i++ {
		if p := C.budcore_error_problem(i); p != nil {
			err.Others = append(err.Others, &Error{Code: Code(p.code), Field: C.GoString(p.field),
				Value: C.GoString(p.value), Message: C.GoString(p.message)})
		}
	}
	C.budcore_error_clear()
	return err
}
