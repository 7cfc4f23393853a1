// libFuzzer: job documents. Job::from_json must never crash; an error names what is wrong; a
// job that parses must write out and read back to an equal job, and normalizing is idempotent.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "budcore/job/job.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using budcore::job::Job;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto job = Job::from_json(text);
  if (!job) {
    if (job.error().message.empty()) std::abort();
    return 0;
  }
  std::string once = job->to_json();
  auto again = Job::from_json(once);
  if (!again || !(*again == *job)) std::abort();
  if (again->to_json() != once) std::abort();
  return 0;
}
