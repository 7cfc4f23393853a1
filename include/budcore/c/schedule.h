/* budcore C ABI — schedule timelines: estimated start and end of every job under the quota
 * rules (docs/cli.md contract 6), live updates, Kueue's scheduler-performance replay and the
 * HTML schedule view. JSON in, JSON out. */
#ifndef BUDCORE_C_SCHEDULE_H
#define BUDCORE_C_SCHEDULE_H

#include "budcore/c/common.h"

BUDCORE_BEGIN_DECL

/* Flags for the calls that write a timeline. */
#define BUDCORE_SCHEDULE_DETAILS 1u /* add wait reasons, warnings and per-queue utilization */

/* Runs `budcore schedule estimate` on a scenario (JSON, docs/cli.md contract 6: a contract-2
 * scenario plus duration_seconds, submit_at, depends_on, started_at, window, deadline per
 * workload and now, horizon_seconds) and writes {"jobs", "never", "makespan"} to `out` (which
 * must be empty: BUDCORE_BUF_INIT). Invalid input (a dependency cycle, a negative duration,
 * an unknown key) is BUDCORE_EINVALID and budcore_error_last()->field names it
 * ("workloads[1].duration_seconds"); `out` is left untouched on failure.
 * Thread-safety: safe from any thread. */
BUDCORE_API int budcore_schedule_estimate(budcore_buf *out, const char *scenario_json, size_t scenario_json_len, unsigned flags);

/* Replays a Kueue scheduler-performance configuration in virtual time: config_json is the
 * text "baseline" (Kueue's configs/baseline) or a generator configuration (Kueue's
 * generator.yaml keys, as JSON). Writes the checker's metrics per ClusterQueue class and
 * workload class, the thresholds and whether they are met.
 * Thread-safety: safe from any thread. */
BUDCORE_API int budcore_schedule_replay(budcore_buf *out, const char *config_json, size_t config_json_len);

/* Writes the schedule view of a scenario (as for budcore_schedule_estimate) as one
 * self-contained HTML page to `out`.
 * Thread-safety: safe from any thread. */
BUDCORE_API int budcore_schedule_render_html(budcore_buf *out, const char *scenario_json, size_t scenario_json_len);

/* A live timeline. Opaque; release with budcore_schedule_timeline_free(). */
typedef struct budcore_schedule_timeline budcore_schedule_timeline;

/* Builds a timeline from a scenario (as for budcore_schedule_estimate). On failure *out is
 * NULL and the status says why.
 * Thread-safety: the handle is single-threaded; calls on different handles may run at once. */
BUDCORE_API int budcore_schedule_timeline_new(budcore_schedule_timeline **out, const char *scenario_json,
                                              size_t scenario_json_len);

/* Releases the timeline. NULL is a no-op.
 * Thread-safety: not with other calls on the same handle. */
BUDCORE_API void budcore_schedule_timeline_free(budcore_schedule_timeline *timeline);

/* Writes the current estimates ({"jobs", "never", "makespan"}, more with
 * BUDCORE_SCHEDULE_DETAILS) to `out`.
 * Thread-safety: read-only; concurrent reads of one handle are safe while nothing applies
 * events to it. */
BUDCORE_API int budcore_schedule_timeline_result(budcore_buf *out, const budcore_schedule_timeline *timeline,
                                                 unsigned flags);

/* Applies what really happened and re-estimates the cohort trees it can affect:
 * {"type": "started" | "finished" | "failed" | "preempted" | "cancelled" | "submitted" |
 *  "advance", "name": "w1", "at": seconds, "admission": {...} (started), "job": {...}
 * (submitted, a contract-6 workload)}. An event before the timeline's now or for an unknown
 * job, or a contradiction (finishing a job that is not running), changes nothing and returns
 * BUDCORE_EINVALID, BUDCORE_ENOTFOUND or BUDCORE_ECONFLICT.
 * Thread-safety: not with other calls on the same handle. */
BUDCORE_API int budcore_schedule_timeline_apply(budcore_schedule_timeline *timeline, const char *event_json,
                                                size_t event_json_len);

/* ---- deprecated names (before the layer prefix), kept for programs built against them ---- */

/* The same type as budcore_schedule_timeline. */
typedef budcore_schedule_timeline budcore_timeline;

/* Deprecated: budcore_schedule_timeline_new. Thread-safety: as budcore_schedule_timeline_new. */
BUDCORE_API int budcore_timeline_new(budcore_timeline **out, const char *scenario_json, size_t scenario_json_len)
    BUDCORE_DEPRECATED("use budcore_schedule_timeline_new");

/* Deprecated: budcore_schedule_timeline_free. Thread-safety: as budcore_schedule_timeline_free. */
BUDCORE_API void budcore_timeline_free(budcore_timeline *timeline)
    BUDCORE_DEPRECATED("use budcore_schedule_timeline_free");

/* Deprecated: budcore_schedule_timeline_result. Thread-safety: as budcore_schedule_timeline_result. */
BUDCORE_API int budcore_timeline_result(budcore_buf *out, const budcore_timeline *timeline, unsigned flags)
    BUDCORE_DEPRECATED("use budcore_schedule_timeline_result");

/* Deprecated: budcore_schedule_timeline_apply. Thread-safety: as budcore_schedule_timeline_apply. */
BUDCORE_API int budcore_timeline_apply(budcore_timeline *timeline, const char *event_json, size_t event_json_len)
    BUDCORE_DEPRECATED("use budcore_schedule_timeline_apply");

BUDCORE_END_DECL

#endif
