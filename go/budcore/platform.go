package budcore

/*
#include <stdint.h>
#include <stdlib.h>
#include <budcore/budcore.h>

int budcore_go_platform_watch(int64_t *out_last_seq, const budcore_platform *platform, const budcore_caller *caller,
                              int64_t since, size_t limit, uintptr_t handle);
*/
import "C"

import (
	"fmt"
	"runtime"
	"runtime/cgo"
	"unsafe"
)

// Caller says who calls a Platform: the tenant (a UUID) and, optionally, the principal and a
// request id.
type Caller struct {
	Tenant    string
	Principal string
	RequestID string
}

// Platform is an open budcore platform (budcore_platform): jobs from submission to
// completion, the event stream, pipeline runs, metrics. Its methods return the library's JSON
// (docs/platform.md). Safe for concurrent use; Close releases it.
type Platform struct {
	raw *C.budcore_platform
}

// OpenPlatform opens a platform from a config document (YAML or JSON).
func OpenPlatform(config string) (*Platform, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p := &Platform{}
	if rc := C.budcore_platform_open(&p.raw, cText(config), C.size_t(len(config))); rc != C.BUDCORE_OK {
		return nil, lastError(rc)
	}
	runtime.SetFinalizer(p, (*Platform).Close)
	return p, nil
}

// OpenEmbedded opens the embedded platform (SQLite, simulated cluster, virtual clock) in dir.
func OpenEmbedded(dir string) (*Platform, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p := &Platform{}
	if rc := C.budcore_platform_open_embedded(&p.raw, cText(dir), C.size_t(len(dir))); rc != C.BUDCORE_OK {
		return nil, lastError(rc)
	}
	runtime.SetFinalizer(p, (*Platform).Close)
	return p, nil
}

// Close releases the platform; calling it twice is harmless.
func (p *Platform) Close() {
	if p.raw != nil {
		C.budcore_platform_free(p.raw)
		p.raw = nil
	}
	runtime.SetFinalizer(p, nil)
}

// cCaller copies the caller into C memory (a C struct must not hold Go pointers); free it.
type cCaller struct {
	c     *C.budcore_caller
	texts []*C.char
}

func newCaller(c Caller) cCaller {
	cc := cCaller{c: (*C.budcore_caller)(C.malloc(C.size_t(unsafe.Sizeof(C.budcore_caller{}))))}
	put := func(s string) (*C.char, C.size_t) {
		t := C.CString(s)
		cc.texts = append(cc.texts, t)
		return t, C.size_t(len(s))
	}
	cc.c.version = C.BUDCORE_CALLER_VERSION
	cc.c.tenant, cc.c.tenant_len = put(c.Tenant)
	cc.c.principal, cc.c.principal_len = put(c.Principal)
	cc.c.request_id, cc.c.request_id_len = put(c.RequestID)
	return cc
}

func (c cCaller) free() {
	for _, t := range c.texts {
		C.free(unsafe.Pointer(t))
	}
	C.free(unsafe.Pointer(c.c))
}

// call runs one C function that fills a buf, on a locked OS thread (errors are thread-local).
func (p *Platform) call(caller *Caller, f func(out *C.budcore_buf, c *C.budcore_caller) C.int) (string, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer runtime.KeepAlive(p)
	var cc cCaller
	var c *C.budcore_caller
	if caller != nil {
		cc = newCaller(*caller)
		defer cc.free()
		c = cc.c
	}
	var out C.budcore_buf
	if rc := f(&out, c); rc != C.BUDCORE_OK {
		return "", lastError(rc)
	}
	defer C.budcore_buf_dispose(&out)
	return C.GoStringN(out.ptr, C.int(out.size)), nil
}

// Submit submits a job document, or a batch {"jobs": [...]}, and returns the stored record(s).
func (p *Platform) Submit(c Caller, jobJSON, idempotencyKey string) (string, error) {
	return p.call(&c, func(out *C.budcore_buf, cc *C.budcore_caller) C.int {
		return C.budcore_platform_submit(out, p.raw, cc, cText(jobJSON), C.size_t(len(jobJSON)),
			cText(idempotencyKey), C.size_t(len(idempotencyKey)))
	})
}

// Get returns a job record; another tenant's job is ErrNotFound.
func (p *Platform) Get(c Caller, id string) (string, error) {
	return p.call(&c, func(out *C.budcore_buf, cc *C.budcore_caller) C.int {
		return C.budcore_platform_get(out, p.raw, cc, cText(id), C.size_t(len(id)))
	})
}

// List lists jobs; query is the store's query JSON ("" for defaults).
func (p *Platform) List(c Caller, query string) (string, error) {
	return p.call(&c, func(out *C.budcore_buf, cc *C.budcore_caller) C.int {
		return C.budcore_platform_list(out, p.raw, cc, cText(query), C.size_t(len(query)))
	})
}

// Cancel cancels a job that has not ended (ErrConflict otherwise).
func (p *Platform) Cancel(c Caller, id, reason string) (string, error) {
	return p.call(&c, func(out *C.budcore_buf, cc *C.budcore_caller) C.int {
		return C.budcore_platform_cancel(out, p.raw, cc, cText(id), C.size_t(len(id)), cText(reason), C.size_t(len(reason)))
	})
}

// Retry starts another run of a failed job.
func (p *Platform) Retry(c Caller, id string) (string, error) {
	return p.call(&c, func(out *C.budcore_buf, cc *C.budcore_caller) C.int {
		return C.budcore_platform_retry(out, p.raw, cc, cText(id), C.size_t(len(id)))
	})
}

// SetPriority sets a job's priority ("critical", "high", "normal", "low", "spot").
func (p *Platform) SetPriority(c Caller, id, priority string) (string, error) {
	return p.call(&c, func(out *C.budcore_buf, cc *C.budcore_caller) C.int {
		return C.budcore_platform_set_priority(out, p.raw, cc, cText(id), C.size_t(len(id)), cText(priority),
			C.size_t(len(priority)))
	})
}

// Preempt preempts a scheduled or running job; it goes back to the queue.
func (p *Platform) Preempt(c Caller, id, reason string) (string, error) {
	return p.call(&c, func(out *C.budcore_buf, cc *C.budcore_caller) C.int {
		return C.budcore_platform_preempt(out, p.raw, cc, cText(id), C.size_t(len(id)), cText(reason), C.size_t(len(reason)))
	})
}

// GPUDefrag returns the cheapest defragmentation plan for one of the caller's jobs that the quota
// admitted and no node of its flavor takes yet (cluster.placement_policy): {"plan", "applied":
// false}, advice only (docs/gpu.md "In the platform").
func (p *Platform) GPUDefrag(c Caller, id string) (string, error) {
	return p.call(&c, func(out *C.budcore_buf, cc *C.budcore_caller) C.int {
		return C.budcore_platform_gpu_defrag(out, p.raw, cc, cText(id), C.size_t(len(id)))
	})
}

// GPUDefragApply applies the defragmentation plan for one of the caller's jobs that waits for
// placement: the runs it moves are evicted and placed where it names (keeping their quota) and
// the job starts. plan is a document GPUDefrag returned (refused with ErrConflict when stale:
// the cluster changed since), or "" for the plan made now. It returns {"plan", "applied": true}.
func (p *Platform) GPUDefragApply(c Caller, id, plan string) (string, error) {
	return p.call(&c, func(out *C.budcore_buf, cc *C.budcore_caller) C.int {
		return C.budcore_platform_gpu_defrag_apply(out, p.raw, cc, cText(id), C.size_t(len(id)), cText(plan), C.size_t(len(plan)))
	})
}

// Schedule returns when each of the caller's waiting and running jobs is expected to start and
// end (the JSON of `budcore schedule estimate --details`; job names are job ids).
func (p *Platform) Schedule(c Caller) (string, error) {
	return p.call(&c, func(out *C.budcore_buf, cc *C.budcore_caller) C.int {
		return C.budcore_platform_schedule(out, p.raw, cc)
	})
}

// Events returns the caller's events after since: {"events": [...], "last_seq"}.
func (p *Platform) Events(c Caller, since int64, limit int) (string, error) {
	return p.call(&c, func(out *C.budcore_buf, cc *C.budcore_caller) C.int {
		return C.budcore_platform_events(out, p.raw, cc, C.int64_t(since), C.size_t(limit))
	})
}

// Watch calls fn with each event's JSON after since, in order; fn returning false stops it
// (an error with Code User). It returns the last seq delivered. A panic in fn stops the watch
// and is re-raised after the call.
func (p *Platform) Watch(c Caller, since int64, limit int, fn func(event string) bool) (int64, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer runtime.KeepAlive(p)
	cc := newCaller(c)
	defer cc.free()
	w := &watcher{fn: fn}
	h := cgo.NewHandle(w)
	defer h.Delete()
	var last C.int64_t
	rc := C.budcore_go_platform_watch(&last, p.raw, cc.c, C.int64_t(since), C.size_t(limit), C.uintptr_t(h))
	if w.panicked != nil {
		panic(w.panicked)
	}
	if rc != C.BUDCORE_OK {
		return int64(last), lastError(rc)
	}
	return int64(last), nil
}

type watcher struct {
	fn       func(string) bool
	panicked any
}

//export budcoreGoEvent
func budcoreGoEvent(handle C.uintptr_t, event *C.char, eventLen C.size_t) (rc C.int) {
	w := cgo.Handle(handle).Value().(*watcher)
	// A panic must not unwind through the library's C++ frames: it stops the watch.
	defer func() {
		if r := recover(); r != nil {
			w.panicked, rc = fmt.Sprintf("watch callback panicked: %v", r), 1
		}
	}()
	if w.fn(C.GoStringN(event, C.int(eventLen))) {
		return 0
	}
	return 1
}

// RunPipeline starts a pipeline run (paramsJSON "" for none) and returns the run's JSON.
func (p *Platform) RunPipeline(c Caller, document, paramsJSON string) (string, error) {
	return p.call(&c, func(out *C.budcore_buf, cc *C.budcore_caller) C.int {
		return C.budcore_platform_run_pipeline(out, p.raw, cc, cText(document), C.size_t(len(document)),
			cText(paramsJSON), C.size_t(len(paramsJSON)))
	})
}

// PipelineRun returns a pipeline run.
func (p *Platform) PipelineRun(c Caller, id string) (string, error) {
	return p.call(&c, func(out *C.budcore_buf, cc *C.budcore_caller) C.int {
		return C.budcore_platform_pipeline_run(out, p.raw, cc, cText(id), C.size_t(len(id)))
	})
}

// CancelPipelineRun cancels a pipeline run and its running jobs.
func (p *Platform) CancelPipelineRun(c Caller, id, reason string) (string, error) {
	return p.call(&c, func(out *C.budcore_buf, cc *C.budcore_caller) C.int {
		return C.budcore_platform_cancel_pipeline_run(out, p.raw, cc, cText(id), C.size_t(len(id)), cText(reason),
			C.size_t(len(reason)))
	})
}

// Pump acts on everything due now.
func (p *Platform) Pump() error {
	_, err := p.call(nil, func(out *C.budcore_buf, _ *C.budcore_caller) C.int { return C.budcore_platform_pump(p.raw) })
	return err
}

// Run moves a virtual clock seconds forward (a negative value: until nothing is scheduled) and
// returns {"now": ...}.
func (p *Platform) Run(seconds float64) (string, error) {
	return p.call(nil, func(out *C.budcore_buf, _ *C.budcore_caller) C.int {
		return C.budcore_platform_run(out, p.raw, C.double(seconds))
	})
}

// HaStatus returns this replica's view of the election (docs/ha.md): {"role", "replica",
// "epoch", "lease", "replicas"}.
func (p *Platform) HaStatus() (string, error) {
	return p.call(nil, func(out *C.budcore_buf, _ *C.budcore_caller) C.int { return C.budcore_platform_ha_status(out, p.raw) })
}

// Metrics returns the Prometheus text exposition of the platform's metrics.
func (p *Platform) Metrics() (string, error) {
	return p.call(nil, func(out *C.budcore_buf, _ *C.budcore_caller) C.int { return C.budcore_platform_metrics(out, p.raw) })
}

// Cluster returns what the cluster holds and the quota it uses.
func (p *Platform) Cluster() (string, error) {
	return p.call(nil, func(out *C.budcore_buf, _ *C.budcore_caller) C.int { return C.budcore_platform_cluster(out, p.raw) })
}

// ClusterView is the cluster as the caller sees it: its tenant's runs by id, other tenants'
// runs named "[hidden <token>]" with no tenant and no message (a platform admin sees every run).
func (p *Platform) ClusterView(c Caller) (string, error) {
	return p.call(&c, func(out *C.budcore_buf, cc *C.budcore_caller) C.int {
		return C.budcore_platform_cluster_view(out, p.raw, cc)
	})
}

// Check checks the crash-safety invariants.
func (p *Platform) Check() error {
	_, err := p.call(nil, func(out *C.budcore_buf, _ *C.budcore_caller) C.int { return C.budcore_platform_check(p.raw) })
	return err
}

// Simulate runs a what-if scenario (YAML/JSON) and returns the outcome JSON.
func Simulate(scenario string) (string, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var out C.budcore_buf
	if rc := C.budcore_platform_simulate(&out, cText(scenario), C.size_t(len(scenario))); rc != C.BUDCORE_OK {
		return "", lastError(rc)
	}
	defer C.budcore_buf_dispose(&out)
	return C.GoStringN(out.ptr, C.int(out.size)), nil
}
