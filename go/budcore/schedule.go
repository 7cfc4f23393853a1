package budcore

/*
#include <stdlib.h>
#include <budcore/budcore.h>
*/
import "C"

import (
	"encoding/json"
	"errors"
	"runtime"
)

// ScheduleEstimate runs `budcore schedule estimate` on a scenario (docs/cli.md contract 6) and
// returns {"jobs", "never", "makespan"}; details adds wait reasons, warnings and utilization.
// Invalid input returns an *Error whose Field names the path ("workloads[1].duration_seconds").
func ScheduleEstimate(scenario string, details bool) (string, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var out C.budcore_buf
	rc := C.budcore_schedule_estimate(&out, cText(scenario), C.size_t(len(scenario)), scheduleFlags(details))
	return takeBuf(&out, rc)
}

// ScheduleReplay replays Kueue's scheduler-performance configuration ("baseline", or a generator
// config as JSON with Kueue's generator.yaml keys) and returns the checker's metrics as JSON.
func ScheduleReplay(config string) (string, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var out C.budcore_buf
	rc := C.budcore_schedule_replay(&out, cText(config), C.size_t(len(config)))
	return takeBuf(&out, rc)
}

// ScheduleHTML renders the schedule view of a scenario as one self-contained HTML page.
func ScheduleHTML(scenario string) (string, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var out C.budcore_buf
	rc := C.budcore_schedule_render_html(&out, cText(scenario), C.size_t(len(scenario)))
	return takeBuf(&out, rc)
}

// Timeline is a live schedule timeline (budcore_schedule_timeline). Use it from one goroutine at a
// time; Close releases it (a finalizer does too, as a safety net).
type Timeline struct {
	raw *C.budcore_schedule_timeline
}

// NewTimeline builds the timeline of a scenario (as for ScheduleEstimate).
func NewTimeline(scenario string) (*Timeline, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var raw *C.budcore_schedule_timeline
	if rc := C.budcore_schedule_timeline_new(&raw, cText(scenario), C.size_t(len(scenario))); rc != C.BUDCORE_OK {
		return nil, lastError(rc)
	}
	t := &Timeline{raw: raw}
	runtime.SetFinalizer(t, (*Timeline).Close)
	return t, nil
}

// Close releases the timeline; further calls fail.
func (t *Timeline) Close() {
	if t.raw != nil {
		C.budcore_schedule_timeline_free(t.raw)
		t.raw = nil
	}
	runtime.SetFinalizer(t, nil)
}

var errClosed = errors.New("budcore: timeline is closed")

// Result returns the current estimates as JSON.
func (t *Timeline) Result(details bool) (string, error) {
	if t.raw == nil {
		return "", errClosed
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var out C.budcore_buf
	rc := C.budcore_schedule_timeline_result(&out, t.raw, scheduleFlags(details))
	runtime.KeepAlive(t)
	return takeBuf(&out, rc)
}

// Apply records what really happened, e.g. {"type": "finished", "name": "w1", "at": 60}.
func (t *Timeline) Apply(event string) error {
	if t.raw == nil {
		return errClosed
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	rc := C.budcore_schedule_timeline_apply(t.raw, cText(event), C.size_t(len(event)))
	runtime.KeepAlive(t)
	if rc != C.BUDCORE_OK {
		return lastError(rc)
	}
	return nil
}

// Finished records that a job ended at `at` (seconds since the epoch).
func (t *Timeline) Finished(name string, at float64) error {
	ev, _ := json.Marshal(map[string]any{"type": "finished", "name": name, "at": at})
	return t.Apply(string(ev))
}

// Started records that a job was admitted at `at` with this admission.
func (t *Timeline) Started(name string, at float64, clusterQueue string, flavors map[string]map[string]string) error {
	ev, _ := json.Marshal(map[string]any{"type": "started", "name": name, "at": at,
		"admission": map[string]any{"cluster_queue": clusterQueue, "flavors": flavors}})
	return t.Apply(string(ev))
}

func scheduleFlags(details bool) C.uint {
	if details {
		return C.BUDCORE_SCHEDULE_DETAILS
	}
	return 0
}

// takeBuf turns (out, rc) into the text or the error. The caller holds the OS thread.
func takeBuf(out *C.budcore_buf, rc C.int) (string, error) {
	if rc != C.BUDCORE_OK {
		return "", lastError(rc)
	}
	defer C.budcore_buf_dispose(out)
	return C.GoStringN(out.ptr, C.int(out.size)), nil
}
