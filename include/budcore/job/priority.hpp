// budcore::job::JobPriority — CRITICAL > HIGH > NORMAL > LOW > SPOT.
//
// JSON: lower-case values ("high") are written; any letter case is accepted ("HIGH", as
// pipeline documents often write it).
#pragma once

#include <cstdint>
#include <string_view>

#include "budcore/core/result.hpp"
#include "budcore/export.h"

namespace budcore::job {

enum class JobPriority : std::uint8_t {
  Critical,  // never preempted, highest
  High,      // production workloads
  Normal,    // the default
  Low,       // background work
  Spot,      // preemptible / spot capacity, lowest cost; always preemptible
};

inline constexpr JobPriority kAllJobPriorities[] = {JobPriority::Critical, JobPriority::High,
                                                    JobPriority::Normal, JobPriority::Low,
                                                    JobPriority::Spot};

// Larger is more important: Critical 4 ... Spot 0.
constexpr int rank(JobPriority p) noexcept { return 4 - static_cast<int>(p); }
constexpr bool outranks(JobPriority a, JobPriority b) noexcept { return rank(a) > rank(b); }

// The value of the matching Kueue WorkloadPriorityClass (int32; Kueue's default is 0, so
// Normal maps to 0 and a job without a class sorts like a Normal one).
constexpr std::int32_t kueue_priority_value(JobPriority p) noexcept {
  switch (p) {
    case JobPriority::Critical: return 1000;
    case JobPriority::High: return 100;
    case JobPriority::Normal: return 0;
    case JobPriority::Low: return -100;
    case JobPriority::Spot: return -1000;
  }
  return 0;
}

BUDCORE_API std::string_view to_string(JobPriority p) noexcept;
BUDCORE_API core::Result<JobPriority> parse_job_priority(std::string_view text);

}  // namespace budcore::job
