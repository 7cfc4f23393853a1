package budcore

/*
#include <stdint.h>
#include <budcore/budcore.h>
*/
import "C"

import "runtime"

// QuotaEngine is an admission engine with Kueue's semantics that lives across calls: add
// workloads as they arrive, run cycles, finish workloads, read statuses (documents are the
// JSON of docs/cli.md contract 2). It may be shared by goroutines; Close releases it.
type QuotaEngine struct {
	handle *C.budcore_quota_engine
}

// NewQuotaEngine builds an engine from a scenario document: its configuration and fair-sharing
// options; its workloads, if any, are added.
func NewQuotaEngine(scenario string) (*QuotaEngine, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	e := &QuotaEngine{}
	if rc := C.budcore_quota_engine_new(&e.handle, cText(scenario), size(scenario)); rc != C.BUDCORE_OK {
		return nil, lastError(rc)
	}
	return e, nil
}

// Close releases the engine; closing twice is a no-op.
func (e *QuotaEngine) Close() {
	C.budcore_quota_engine_free(e.handle)
	e.handle = nil
}

func (e *QuotaEngine) call(f func() C.int) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if rc := f(); rc != C.BUDCORE_OK {
		return lastError(rc)
	}
	return nil
}

// Add adds one workload (an entry of contract 2's "workloads").
func (e *QuotaEngine) Add(workload string) error {
	return e.call(func() C.int { return C.budcore_quota_engine_add(e.handle, cText(workload), size(workload)) })
}

// Finish ends the workload key ("namespace/name"); its cohort tree's waiting workloads are requeued.
func (e *QuotaEngine) Finish(key string) error {
	return e.call(func() C.int { return C.budcore_quota_engine_finish(e.handle, cText(key), size(key)) })
}

// Cycle runs one scheduling cycle: {"admitted", "preempted", "released", "changed"}.
func (e *QuotaEngine) Cycle() (string, error) {
	return costCall(func(out *C.budcore_buf) C.int { return C.budcore_quota_engine_cycle(out, e.handle) })
}

// Run runs cycles until one changes nothing (at most maxCycles) and returns the number run.
func (e *QuotaEngine) Run(maxCycles int64) (int64, error) {
	var n C.int64_t
	err := e.call(func() C.int { return C.budcore_quota_engine_run(&n, e.handle, C.int64_t(maxCycles)) })
	return int64(n), err
}

// Status is a workload's status; an unknown key is an *Error with Code NotFound.
func (e *QuotaEngine) Status(key string) (string, error) {
	return costCall(func(out *C.budcore_buf) C.int {
		return C.budcore_quota_engine_status(out, e.handle, cText(key), size(key))
	})
}

// Statuses is every workload's status as a JSON list, in the order they were added.
func (e *QuotaEngine) Statuses() (string, error) {
	return costCall(func(out *C.budcore_buf) C.int { return C.budcore_quota_engine_statuses(out, e.handle) })
}
