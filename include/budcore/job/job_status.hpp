// budcore::job::JobStatus — where a job is in its life. The legal moves between statuses are
// in state_machine.hpp.
//
// JSON: lower-case values ("pending", "queued", ...) are written; on input
// any letter case is accepted ("RUNNING", "Running").
#pragma once

#include <cstdint>
#include <string_view>

#include "budcore/core/result.hpp"
#include "budcore/export.h"

namespace budcore::job {

enum class JobStatus : std::uint8_t {
  Pending,    // created, not yet handed to the queue
  Queued,     // waiting in the queue (Kueue) for resources
  Scheduled,  // admitted: resources reserved, starting
  Running,    // executing
  Completed,  // finished successfully
  Failed,     // finished with an error (may be retried)
  Cancelled,  // stopped by a user
  Preempted,  // stopped to make room for a higher-priority job (may be requeued)
};

inline constexpr JobStatus kAllJobStatuses[] = {
    JobStatus::Pending,   JobStatus::Queued, JobStatus::Scheduled, JobStatus::Running,
    JobStatus::Completed, JobStatus::Failed, JobStatus::Cancelled, JobStatus::Preempted};

// The run has ended (actual_end is stamped on entry): Completed, Failed, Cancelled, Preempted.
// Failed and Preempted may still be retried / requeued, which starts a new run.
constexpr bool is_terminal(JobStatus s) noexcept {
  return s == JobStatus::Completed || s == JobStatus::Failed || s == JobStatus::Cancelled ||
         s == JobStatus::Preempted;
}

// No transition leaves this status: Completed, Cancelled.
constexpr bool is_final(JobStatus s) noexcept {
  return s == JobStatus::Completed || s == JobStatus::Cancelled;
}

// The job holds (or is about to hold) cluster resources: Scheduled, Running.
constexpr bool holds_resources(JobStatus s) noexcept {
  return s == JobStatus::Scheduled || s == JobStatus::Running;
}

BUDCORE_API std::string_view to_string(JobStatus s) noexcept;
// Accepts "queued" / "QUEUED" / any case. Error: Invalid, value = text, message lists the values.
BUDCORE_API core::Result<JobStatus> parse_job_status(std::string_view text);

}  // namespace budcore::job
