// The one place a job's status changes.
#include "budcore/job/state_machine.hpp"

#include <string>

namespace budcore::job {

core::Status transition(Job& job, JobStatus to, const core::Clock& clock, std::string_view message) {
  const JobStatus from = job.status;
  const std::optional<TransitionKind> kind = find_transition(from, to);
  if (!kind) {
    std::string why = "illegal status transition ";
    why += to_string(from);
    why += " -> ";
    why += to_string(to);
    if (is_final(from)) {
      why += ": ";
      why += to_string(from);
      why += " is final";
    }
    return core::Error{core::ErrorCode::Conflict, std::move(why), "status", std::string(to_string(to))};
  }
  if (*kind == TransitionKind::Retry && job.retry_count >= job.max_retries) {
    return core::Error{core::ErrorCode::Conflict,
                       "retry budget exhausted: retry_count " + std::to_string(job.retry_count) + " of max_retries " +
                           std::to_string(job.max_retries),
                       "retry_count", std::to_string(job.retry_count)};
  }

  const core::Timestamp now = clock.now();
  job.status = to;
  if (message.empty()) {
    job.status_message.reset();
  } else {
    job.status_message = std::string(message);
  }
  job.updated_at = now;
  if (*kind == TransitionKind::Retry) ++job.retry_count;
  if (*kind == TransitionKind::Retry || *kind == TransitionKind::Requeue) {
    job.actual_end.reset();  // a new run begins
  }
  if (to == JobStatus::Running) {
    job.actual_start = now;
    job.actual_end.reset();
  }
  if (is_terminal(to)) job.actual_end = now;

  if (job.status_history.size() >= Job::kMaxHistory) {
    job.status_history.erase(job.status_history.begin(),
                             job.status_history.begin() +
                                 static_cast<std::ptrdiff_t>(job.status_history.size() - Job::kMaxHistory + 1));
  }
  job.status_history.push_back(StatusTransition{from, to, now, std::string(message)});
  return {};
}

}  // namespace budcore::job
