// The C side of Go FUNCTION callbacks: budcore calls step_trampoline with the cgo.Handle of
// the Go function as payload, and it forwards to the exported Go function. Kept in C so the
// handle travels as an integer and never as a Go-made pointer.
#include <stdint.h>

#include "_cgo_export.h"

static int step_trampoline(const char *args_json, size_t args_json_len, int attempt, const char *step_id,
                           budcore_buf *out, void *payload) {
  return budcoreGoStep((uintptr_t)payload, (char *)args_json, args_json_len, attempt, (char *)step_id, out);
}

int budcore_go_registry_add(budcore_pipeline_function_registry *registry, const char *name, size_t name_len,
                            uintptr_t handle) {
  /* The Go side deletes the handles itself (Functions.Close), so no free_payload here. */
  return budcore_pipeline_function_registry_add(registry, name, name_len, step_trampoline, (void *)handle, NULL);
}
