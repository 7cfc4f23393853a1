// The C side of Platform.Watch and KueueCompanion.Run: budcore calls event_trampoline with the cgo.Handle of the Go
// callback as its payload, and it forwards to the exported Go function.
#include <stdint.h>

#include "_cgo_export.h"

static int event_trampoline(const char *event_json, size_t event_len, void *payload) {
  return budcoreGoEvent((uintptr_t)payload, (char *)event_json, event_len);
}

int budcore_go_platform_watch(int64_t *out_last_seq, const budcore_platform *platform, const budcore_caller *caller,
                              int64_t since, size_t limit, uintptr_t handle) {
  return budcore_platform_watch(out_last_seq, platform, caller, since, limit, event_trampoline, (void *)handle);
}

int budcore_go_kueue_companion_run(budcore_kueue_companion *companion, uintptr_t handle) {
  return budcore_kueue_companion_run(companion, event_trampoline, (void *)handle);
}
