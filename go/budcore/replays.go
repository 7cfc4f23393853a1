package budcore

/*
#include <stdlib.h>
#include <budcore/budcore.h>
*/
import "C"

import "runtime"

// GPUReplay replays the Alibaba GPU trace as `budcore gpu replay` does: tasks drawn from
// podsCSV arrive on the nodes of nodesCSV and are placed by each policy. optionsJSON is ""
// (defaults) or the options object of budcore_gpu_replay ("policies", "seed", "max_load",
// "step"). It returns the document `budcore gpu replay --format json` prints: {"nodes",
// "gpus", "tasks", "seed", "results"}. Invalid input returns an *Error whose Field names it
// ("pods_csv:3.cpu_milli", "options.policies").
func GPUReplay(nodesCSV, podsCSV, optionsJSON string) (string, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var out C.budcore_buf
	rc := C.budcore_gpu_replay(&out, cText(nodesCSV), C.size_t(len(nodesCSV)), cText(podsCSV), C.size_t(len(podsCSV)),
		cText(optionsJSON), C.size_t(len(optionsJSON)))
	return takeBuf(&out, rc)
}

// GPUDefrag returns the cheapest plan that makes a pending request fit, as `budcore gpu defrag`
// prints it: problemJSON is the problem document of docs/gpu.md ("nodes", "workloads",
// "request", "move_overhead_seconds", "apply"); the result is {"plan", "applied"[,
// "workloads"]}. Invalid input returns an *Error whose Field names it ("workloads[1].gpus[0]").
func GPUDefrag(problemJSON string) (string, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var out C.budcore_buf
	rc := C.budcore_gpu_defrag(&out, cText(problemJSON), C.size_t(len(problemJSON)))
	return takeBuf(&out, rc)
}

// GPUPlaceMIG places one instance of the problem's request.mig_profile as `budcore gpu
// place-mig` does: a free instance, else a new one a MIG GPU's layout admits (re-partitioning
// it). problemJSON is a problem document as GPUDefrag reads it; the result is {"placement":
// {"node", "gpu", "instance", "repartition", "dropped"} | null, "applied"[, "workloads"]}.
func GPUPlaceMIG(problemJSON string) (string, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var out C.budcore_buf
	rc := C.budcore_gpu_place_mig(&out, cText(problemJSON), C.size_t(len(problemJSON)))
	return takeBuf(&out, rc)
}

// ServerlessSimulate replays traceCSV (the Azure LLM inference format) through the endpoint
// of endpoint (JSON or YAML) as `budcore serverless simulate` does. optionsJSON is "" (the
// queue_depth policy) or the options object of budcore_serverless_simulate ("policies"). It
// returns the document `budcore serverless simulate --format json` prints: {"reports": [...]},
// one per policy. Invalid input returns an *Error whose Field names it
// ("concurrency_per_worker", "trace_csv:3.ContextTokens", "options.policies").
func ServerlessSimulate(endpoint, traceCSV, optionsJSON string) (string, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var out C.budcore_buf
	rc := C.budcore_serverless_simulate(&out, cText(endpoint), C.size_t(len(endpoint)), cText(traceCSV),
		C.size_t(len(traceCSV)), cText(optionsJSON), C.size_t(len(optionsJSON)))
	return takeBuf(&out, rc)
}
