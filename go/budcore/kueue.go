package budcore

/*
#include <stdint.h>
#include <stdlib.h>
#include <budcore/budcore.h>

int budcore_go_kueue_companion_run(budcore_kueue_companion *companion, uintptr_t handle);
*/
import "C"

import (
	"runtime"
	"runtime/cgo"
)

// CompanionCheckConfig validates a Kueue companion configuration (YAML or JSON;
// docs/kueue-companion.md) and returns its summary: {"controllers", "cluster_queues",
// "tenants", "budgets", "currency"}. An invalid one returns an *Error whose Field names it
// ("budgets.budgets[0].tenant_id").
func CompanionCheckConfig(config string) (string, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var out C.budcore_buf
	rc := C.budcore_kueue_companion_check_config(&out, cText(config), C.size_t(len(config)))
	return takeBuf(&out, rc)
}

// CompanionDecide decides the companion's budget and window checks for one Workload.
// requestJSON is {"workload": <Workload>, "owner_annotations"?, "spent"?: {"<budget>":
// "12.00 USD"}, "now": RFC 3339}; it returns {"tenant_id"?, "price" | "price_error", "budget":
// <decision>, "window": <decision>}.
func CompanionDecide(config, requestJSON string) (string, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var out C.budcore_buf
	rc := C.budcore_kueue_companion_decide(&out, cText(config), C.size_t(len(config)), cText(requestJSON),
		C.size_t(len(requestJSON)))
	return takeBuf(&out, rc)
}

// KueueCompanion is the Kueue companion controller (budcore_kueue_companion_*) on a cluster with
// a Store, as `budcore kueue companion` runs it. One goroutine drives it at a time; Stop may be
// called from any goroutine.
type KueueCompanion struct {
	raw *C.budcore_kueue_companion
}

// OpenKueueCompanion opens the controller: a companion configuration (YAML or JSON), a
// kubeconfig file ("" for the configuration's, else $KUBECONFIG, ~/.kube/config, in-cluster)
// and a store URI ("" for the configuration's, else sqlite:budcore-companion.db). A bad input
// is an *Error whose Field names it ("kubeconfig_path", "store_uri", or the configuration's
// field) with the value and why.
func OpenKueueCompanion(config, kubeconfigPath, storeURI string) (*KueueCompanion, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c := &KueueCompanion{}
	rc := C.budcore_kueue_companion_open(&c.raw, cText(config), C.size_t(len(config)), cText(kubeconfigPath),
		C.size_t(len(kubeconfigPath)), cText(storeURI), C.size_t(len(storeURI)))
	if rc != C.BUDCORE_OK {
		return nil, lastError(rc)
	}
	runtime.SetFinalizer(c, (*KueueCompanion).Close)
	return c, nil
}

// SyncOnce makes one pass (the command's --once) and returns {"leader", "identity"?,
// "admission_checks", "written", "retrying"}.
func (c *KueueCompanion) SyncOnce() (string, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer runtime.KeepAlive(c)
	var out C.budcore_buf
	rc := C.budcore_kueue_companion_sync_once(&out, c.raw)
	return takeBuf(&out, rc)
}

// Run runs the controller until Stop (from another goroutine) or until fn (may be nil)
// returns false (an *Error with Code User). fn gets each event's JSON ({"event": "decision",
// ...} or {"event": "retrying", "error": {...}}), one call at a time. A panic in fn stops the
// run and is re-raised after it.
func (c *KueueCompanion) Run(fn func(event string) bool) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer runtime.KeepAlive(c)
	if fn == nil {
		fn = func(string) bool { return true }
	}
	w := &watcher{fn: fn}
	h := cgo.NewHandle(w)
	defer h.Delete()
	rc := C.budcore_go_kueue_companion_run(c.raw, C.uintptr_t(h))
	if w.panicked != nil {
		panic(w.panicked)
	}
	if rc != C.BUDCORE_OK {
		return lastError(rc)
	}
	return nil
}

// Stop asks a running Run to return (after its current pass); a later Run returns at once.
func (c *KueueCompanion) Stop() {
	C.budcore_kueue_companion_stop(c.raw)
	runtime.KeepAlive(c)
}

// Close releases the controller (stop and wait for Run first); calling it twice is harmless.
func (c *KueueCompanion) Close() {
	if c.raw != nil {
		C.budcore_kueue_companion_free(c.raw)
		c.raw = nil
	}
	runtime.SetFinalizer(c, nil)
}
