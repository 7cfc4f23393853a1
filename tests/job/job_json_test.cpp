// The store's compact job document (job::detail::compact_json) is exactly to_json(to_value())
// without null members, for every kind of job.
#include <gtest/gtest.h>

#include "budcore/core/clock.hpp"
#include "budcore/core/json.hpp"
#include "budcore/job/state_machine.hpp"
#include "job/job_json.hpp"

namespace budcore::job {
namespace {

std::string slow_path(const Job& j) {
  core::Map compact;
  const core::Value doc = j.to_value();
  for (const auto& [k, v] : doc.as_map())
    if (!v.is_null()) compact.set(k, v);
  return core::to_json(core::Value(std::move(compact)));
}

TEST(JobCompactJsonTest, MatchesTheValuePathForBareAndFullJobs) {
  Job bare;
  EXPECT_EQ(detail::compact_json(bare), slow_path(bare));
  Job full;
  full.id = core::Id::generate();
  full.name = "llm-endpoint";
  full.tenant_id = core::Id::generate();
  full.pipeline_id = core::Id::generate();
  full.pipeline_step_id = core::Id::generate();
  full.source = JobSource::Pipeline;
  full.source_id = full.pipeline_id;
  full.job_type = JobType::Service;
  full.spec = core::Value::map({{"env", core::Value::map({{"K", "v \"quoted\" \\ é \n"}})}, {"n", 1.5}});
  full.gpu_type = "nvidia-a100-80gb";
  full.gpu_count = 2;
  full.cpu_cores = core::Quantity::parse("500m").value();
  full.memory_gb = core::Quantity::from_int(16);
  full.storage_gb = 100;
  full.estimated_duration_seconds = 3600;
  full.max_duration_seconds = 7200;
  full.time_window = core::TimeWindow{core::TimeOfDay::parse("22:00").value(), core::TimeOfDay::parse("06:30:15").value()};
  full.priority = JobPriority::High;
  full.preempts_others = true;
  full.status_message = "tab\there, ünïcödé";
  full.estimated_cost = core::Money::parse("12.5", "USD").value();
  full.outputs = core::Value::map({{"url", "http://x"}});
  core::VirtualClock clock;
  full.created_at = clock.now();
  ASSERT_TRUE(transition(full, JobStatus::Queued, clock, "queued \"now\""));
  clock.advance(core::Duration::milliseconds(1500));
  ASSERT_TRUE(transition(full, JobStatus::Scheduled, clock, "admitted"));
  EXPECT_EQ(detail::compact_json(full), slow_path(full));
  auto back = Job::from_json(detail::compact_json(full));
  ASSERT_TRUE(back) << back.error().describe();
  EXPECT_EQ(*back, full);
}

}  // namespace
}  // namespace budcore::job
