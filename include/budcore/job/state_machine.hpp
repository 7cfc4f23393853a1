// The job status state machine: an explicit table of legal transitions, and the one function
// that moves a job along it, stamping times from a Clock and recording the move.
//
//   PENDING -> QUEUED -> SCHEDULED -> RUNNING -> COMPLETED | FAILED | CANCELLED | PREEMPTED
//   PENDING/QUEUED/SCHEDULED -> FAILED      (rejected before running: budget, image, deadline)
//   SCHEDULED -> PREEMPTED                  (evicted after admission, before the pod ran)
//   PREEMPTED -> QUEUED                     (requeue; retry_count unchanged)
//   FAILED -> PENDING | QUEUED              (retry while retry_count < max_retries; +1)
//   any status but COMPLETED/CANCELLED/FAILED -> CANCELLED
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "budcore/core/clock.hpp"
#include "budcore/core/result.hpp"
#include "budcore/export.h"
#include "budcore/job/job.hpp"
#include "budcore/job/job_status.hpp"

namespace budcore::job {

enum class TransitionKind : std::uint8_t {
  Advance,  // the normal forward path
  Fail,     // the run (or its admission) failed
  Cancel,   // stopped by a user
  Preempt,  // evicted for a higher-priority job
  Requeue,  // back to the queue after preemption
  Retry,    // a new attempt after failure; needs retry budget, increments retry_count
};

struct TransitionRule {
  JobStatus from;
  JobStatus to;
  TransitionKind kind;
};

inline constexpr std::array<TransitionRule, 18> kTransitionTable{{
    {JobStatus::Pending, JobStatus::Queued, TransitionKind::Advance},
    {JobStatus::Pending, JobStatus::Failed, TransitionKind::Fail},
    {JobStatus::Pending, JobStatus::Cancelled, TransitionKind::Cancel},
    {JobStatus::Queued, JobStatus::Scheduled, TransitionKind::Advance},
    {JobStatus::Queued, JobStatus::Failed, TransitionKind::Fail},
    {JobStatus::Queued, JobStatus::Cancelled, TransitionKind::Cancel},
    {JobStatus::Scheduled, JobStatus::Running, TransitionKind::Advance},
    {JobStatus::Scheduled, JobStatus::Failed, TransitionKind::Fail},
    {JobStatus::Scheduled, JobStatus::Cancelled, TransitionKind::Cancel},
    {JobStatus::Scheduled, JobStatus::Preempted, TransitionKind::Preempt},
    {JobStatus::Running, JobStatus::Completed, TransitionKind::Advance},
    {JobStatus::Running, JobStatus::Failed, TransitionKind::Fail},
    {JobStatus::Running, JobStatus::Cancelled, TransitionKind::Cancel},
    {JobStatus::Running, JobStatus::Preempted, TransitionKind::Preempt},
    {JobStatus::Preempted, JobStatus::Queued, TransitionKind::Requeue},
    {JobStatus::Preempted, JobStatus::Cancelled, TransitionKind::Cancel},
    {JobStatus::Failed, JobStatus::Pending, TransitionKind::Retry},
    {JobStatus::Failed, JobStatus::Queued, TransitionKind::Retry},
}};

// The kind of the from -> to move, or nullopt when the table has no such rule.
constexpr std::optional<TransitionKind> find_transition(JobStatus from, JobStatus to) noexcept {
  for (const auto& r : kTransitionTable) {
    if (r.from == from && r.to == to) return r.kind;
  }
  return std::nullopt;
}

// Legal by the table alone (a Retry also needs retry budget, see transition()).
constexpr bool is_legal_transition(JobStatus from, JobStatus to) noexcept {
  return find_transition(from, to).has_value();
}

BUDCORE_API std::string_view to_string(TransitionKind k) noexcept;

// Moves `job` to `to` at clock.now():
// - illegal from -> to: ErrorCode::Conflict, field "status", value = to, message names both;
// - a Retry with retry_count >= max_retries: ErrorCode::Conflict (retry budget exhausted);
// - otherwise: status = to; status_message = message (or cleared when empty); updated_at =
//   now; actual_start = now on entering RUNNING; actual_end = now on entering a terminal
//   status, cleared when a new run starts (retry / requeue); retry_count + 1 on Retry; the
//   move is appended to status_history (trimmed to Job::kMaxHistory).
// On error the job is left unchanged.
BUDCORE_API core::Status transition(Job& job, JobStatus to, const core::Clock& clock,
                                    std::string_view message = {});

}  // namespace budcore::job
