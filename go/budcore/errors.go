package budcore

/*
#include <budcore/budcore.h>
*/
import "C"

import "fmt"

// Code is a budcore_status: 0 or a negative BUDCORE_E* value.
type Code int

const (
	OK          Code = C.BUDCORE_OK
	Internal    Code = C.BUDCORE_ERROR
	Invalid     Code = C.BUDCORE_EINVALID
	NotFound    Code = C.BUDCORE_ENOTFOUND
	Exists      Code = C.BUDCORE_EEXISTS
	Conflict    Code = C.BUDCORE_ECONFLICT
	Quota       Code = C.BUDCORE_EQUOTA
	Budget      Code = C.BUDCORE_EBUDGET
	User        Code = C.BUDCORE_EUSER
	NoMem       Code = C.BUDCORE_ENOMEM
	Overflow    Code = C.BUDCORE_EOVERFLOW
	Security    Code = C.BUDCORE_ESECURITY
	IO          Code = C.BUDCORE_EIO
	Unsupported Code = C.BUDCORE_EUNSUPPORTED
	RateLimited Code = C.BUDCORE_ERATELIMITED
	NotLeader   Code = C.BUDCORE_ENOTLEADER
	Gone        Code = C.BUDCORE_EGONE
)

// String is the library's English name of the code ("invalid input").
func (c Code) String() string { return C.GoString(C.budcore_strerror(C.int(c))) }

// Error is a failed budcore call: what went wrong, where in the input and with which value.
type Error struct {
	Code    Code
	Field   string // path of the offending input ("gpu_count", "spec.args[2]"); "" if none
	Value   string // the offending value as given; "" if none
	Message string
	// RetryAfterMs: for RateLimited, when a retry may succeed (milliseconds from now); 0 otherwise.
	RetryAfterMs int64
	// Others: the input's other problems when it had several (a job document lists every field
	// it cannot accept), in order, each with its own Field; this error is the first. At most 100,
	// the last of which may count those not listed.
	Others []*Error
}

// Problems is every problem: this error (without its list) first, then the others.
func (e *Error) Problems() []*Error {
	first := *e
	first.Others = nil
	return append([]*Error{&first}, e.Others...)
}

func (e *Error) Error() string {
	s := e.Message
	if e.Field != "" {
		s = e.Field + ": " + s
	}
	if e.Value != "" {
		s += fmt.Sprintf(" (value: '%s')", e.Value)
	}
	return s
}

// Is matches the sentinels below by code: errors.Is(err, budcore.ErrInvalid).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Field == "" && t.Value == "" && t.Code == e.Code
}

// Sentinels for errors.Is; they carry only a code.
var (
	ErrInternal    = &Error{Code: Internal, Message: "internal error"}
	ErrInvalid     = &Error{Code: Invalid, Message: "invalid input"}
	ErrNotFound    = &Error{Code: NotFound, Message: "not found"}
	ErrExists      = &Error{Code: Exists, Message: "already exists"}
	ErrConflict    = &Error{Code: Conflict, Message: "conflict"}
	ErrQuota       = &Error{Code: Quota, Message: "quota exceeded"}
	ErrBudget      = &Error{Code: Budget, Message: "budget exceeded"}
	ErrUser        = &Error{Code: User, Message: "aborted by user callback"}
	ErrNoMem       = &Error{Code: NoMem, Message: "out of memory"}
	ErrOverflow    = &Error{Code: Overflow, Message: "arithmetic overflow"}
	ErrSecurity    = &Error{Code: Security, Message: "refused by a security rule"}
	ErrRateLimited = &Error{Code: RateLimited, Message: "rate limited: retry later"}
	ErrNotLeader   = &Error{Code: NotLeader, Message: "not the leader"}
	ErrGone        = &Error{Code: Gone, Message: "gone: removed by retention"}
	ErrIO          = &Error{Code: IO, Message: "I/O failure"}
	ErrUnsupported = &Error{Code: Unsupported, Message: "unsupported"}
)
