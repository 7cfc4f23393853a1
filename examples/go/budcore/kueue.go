package budcore

/*
#include <stdlib.h>
#include <budcore/budcore.h>
*/
import "C"

import "runtime"

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
