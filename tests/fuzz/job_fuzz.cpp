// libFuzzer: job documents. Job::from_json must never crash; an error names what is wrong; a
// job that parses must write out and read back to an equal job, and normalizing is idempotent.
// Job::check_json, the collecting decoder, agrees with it: it accepts exactly what from_json
// accepts, with the same job, and otherwise lists from_json's error first, the problem decode_json
// or validate() stops at; from_json's error carries that list, never more than
// JobCheck::kMaxListed problems beside the first.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "budcore/job/job.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using budcore::job::Job;
  using budcore::job::JobCheck;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto job = Job::from_json(text);
  auto check = Job::check_json(text);
  if (check.ok() != job.has_value() || check.job.has_value() != check.ok()) std::abort();
  // Its first problem is the one decode_json or validate() stops at.
  if (auto decoded = Job::decode_json(text); !decoded) {
    if (check.ok() || !(check.errors.front() == decoded.error())) std::abort();
  } else if (auto st = decoded->validate(); st.has_value() != check.ok()) {
    std::abort();
  } else if (!st && !(check.errors.front() == st.error())) {
    std::abort();
  }
  if (!job) {
    if (job.error().message.empty()) std::abort();
    if (!(check.errors.front() == job.error())) std::abort();
    // The error carries check_json's list (bounded: the cap plus one entry counting the rest).
    if (job.error().others.size() > JobCheck::kMaxListed) std::abort();
    if (job.error().all_problems() != check.errors) std::abort();
    for (const auto& e : check.errors) {
      if (e.message.empty()) std::abort();
    }
    return 0;
  }
  if (!(*check.job == *job)) std::abort();
  std::string once = job->to_json();
  auto again = Job::from_json(once);
  if (!again || !(*again == *job)) std::abort();
  if (again->to_json() != once) std::abort();
  return 0;
}
