// Platform::schedule(): the timeline of the live jobs, the estimated_start / estimated_end that
// get_job() fills from it, and what one tenant may see of it.
#include <gtest/gtest.h>

#include <map>

#include "budcore/core/json.hpp"
#include "budcore/schedule/estimate.hpp"
#include "platform/platform_fixture.hpp"

namespace budcore::testing {
namespace {

using job::JobStatus;

// Jobs of 8 GPUs for 600 s: more than the A100 quota holds at once, so some wait.
std::vector<core::Id> submit_wave(platform::Platform& p, const platform::CallContext& who, const std::string& prefix, int n) {
  std::vector<core::Id> ids;
  for (int i = 0; i < n; ++i) {
    auto r = p.submit(who, gpu_job(prefix + std::to_string(i), 8, 600));
    EXPECT_TRUE(r) << r.error().describe();
    if (r) ids.push_back(r->record.job.id);
  }
  return ids;
}

TEST(PlatformScheduleTest, EstimatesAreWhatTheClusterThenDoes) {
  PlatformTarget t;
  auto p = t.open();
  ASSERT_TRUE(p);
  const core::Timestamp t0 = p->now();
  auto a = submit_wave(*p, ctx_a(), "a", 4);
  auto b = submit_wave(*p, ctx_b(), "b", 2);
  ASSERT_EQ(a.size(), 4u);
  ASSERT_TRUE(p->pump());  // the cluster admits what fits now

  auto s = p->schedule(ctx_a());
  ASSERT_TRUE(s) << s.error().describe();
  ASSERT_EQ(s->jobs.size(), 4u) << schedule::to_json(*s, {2, true});  // tenant A's jobs only
  EXPECT_TRUE(s->never.empty());
  std::map<core::Id, std::pair<core::Timestamp, core::Timestamp>> estimated;
  bool someone_waits = false;
  for (const auto& id : a) {
    auto rec = p->get_job(ctx_a(), id);
    ASSERT_TRUE(rec);
    ASSERT_TRUE(rec->job.estimated_start && rec->job.estimated_end) << id.to_string();
    EXPECT_EQ(*rec->job.estimated_end - *rec->job.estimated_start, core::Duration::seconds(600));
    someone_waits = someone_waits || *rec->job.estimated_start > t0;
    estimated[id] = {*rec->job.estimated_start, *rec->job.estimated_end};
    const schedule::JobEstimate* e = nullptr;
    for (const auto& j : s->jobs)
      if (j.name == id.to_string()) e = &j;
    ASSERT_NE(e, nullptr) << id.to_string();
    EXPECT_EQ(e->start, *rec->job.estimated_start);
    EXPECT_EQ(e->key, id.to_string());  // the tenant's namespace is not shown
  }
  EXPECT_TRUE(someone_waits) << "the wave should not fit at once";

  // The simulated cluster admits by the same rules: every job starts and ends when estimated.
  ASSERT_TRUE(p->run_until_idle());
  for (const auto& id : a) {
    auto rec = p->get_job(ctx_a(), id);
    ASSERT_TRUE(rec);
    EXPECT_EQ(rec->job.status, JobStatus::Completed);
    ASSERT_TRUE(rec->job.actual_start && rec->job.actual_end);
    EXPECT_EQ(*rec->job.actual_start, estimated[id].first) << id.to_string();
    EXPECT_EQ(*rec->job.actual_end, estimated[id].second) << id.to_string();
  }
  auto done = p->schedule(ctx_a());
  ASSERT_TRUE(done);
  EXPECT_TRUE(done->jobs.empty());  // ended jobs are not on the timeline
  EXPECT_EQ(done->makespan, core::Duration());
  (void)b;
}

// A rebuild reuses what it read of each unchanged job's document; a job whose document changed
// (here its priority) is read again, and a cancelled one leaves the timeline.
TEST(PlatformScheduleTest, EstimatesMoveWhenTheStateChanges) {
  PlatformTarget t;
  auto p = t.open();
  ASSERT_TRUE(p);
  auto a = submit_wave(*p, ctx_a(), "a", 5);
  ASSERT_EQ(a.size(), 5u);
  ASSERT_TRUE(p->pump());
  auto start_of = [&](const core::Id& id) {
    auto rec = p->get_job(ctx_a(), id);
    EXPECT_TRUE(rec && rec->job.estimated_start) << id.to_string();
    return rec && rec->job.estimated_start ? *rec->job.estimated_start : core::Timestamp();
  };
  const core::Timestamp before = start_of(a.back());
  EXPECT_EQ(start_of(a.back()), before);  // read again: the same timeline
  // The first of the waiting jobs starts when the running ones leave room; the last starts last.
  core::Timestamp first_waiting = before;
  for (const auto& id : a)
    if (const core::Timestamp s = start_of(id); s > p->now()) first_waiting = std::min(first_waiting, s);
  ASSERT_LT(first_waiting, before) << "more than one job should wait";
  ASSERT_TRUE(p->set_priority(ctx_a(), a.back(), job::JobPriority::High));
  const core::Timestamp raised = start_of(a.back());
  EXPECT_EQ(raised, first_waiting) << "the job now first in line goes first";
  // Cancelling the running jobs frees their quota: the last job's estimate moves earlier.
  for (std::size_t i = 0; i + 1 < a.size(); ++i) ASSERT_TRUE(p->cancel_job(ctx_a(), a[i]));
  ASSERT_TRUE(p->pump());
  EXPECT_LT(start_of(a.back()), raised);
  auto rec = p->get_job(ctx_a(), a.front());
  ASSERT_TRUE(rec);
  EXPECT_FALSE(rec->job.estimated_start.has_value());  // a cancelled job has no estimate
}

TEST(PlatformScheduleTest, ATenantSeesNothingOfAnother) {
  PlatformTarget t;
  auto p = t.open();
  ASSERT_TRUE(p);
  // B's jobs go first and hold the quota, so A's wait on them: A's reasons must not name them.
  auto b = submit_wave(*p, ctx_b(), "b", 3);
  auto a = submit_wave(*p, ctx_a(), "a", 2);
  ASSERT_TRUE(p->pump());
  auto s = p->schedule(ctx_a());
  ASSERT_TRUE(s) << s.error().describe();
  EXPECT_EQ(s->jobs.size(), 2u);
  const std::string text = schedule::to_json(*s, {2, true});
  EXPECT_EQ(text.find(tenant_b().to_string()), std::string::npos) << text;
  for (const auto& id : b) EXPECT_EQ(text.find(id.to_string()), std::string::npos) << text;
  for (const auto& id : a) EXPECT_NE(text.find(id.to_string()), std::string::npos) << text;
  // B's own view has its three jobs.
  auto sb = p->schedule(ctx_b());
  ASSERT_TRUE(sb);
  EXPECT_EQ(sb->jobs.size(), 3u);
}

TEST(PlatformScheduleTest, AReasonNamingAnotherTenantsJobHidesIt) {
  // One StrictFIFO queue for every tenant: B's job, first in line, can never fit, so A's job
  // behind it can never run, and the reason names the job it is blocked behind.
  PlatformTarget t;
  auto quota = platform::quota_config_from_value(core::parse_json(R"({
    "resource_flavors": [{"name": "default-cpu"}],
    "cluster_queues": [{"name": "batch-jobs", "queueing_strategy": "StrictFIFO", "resource_groups": [
      {"covered_resources": ["cpu", "memory"], "flavors": [{"name": "default-cpu", "resources": [
        {"name": "cpu", "nominal": "4"}, {"name": "memory", "nominal": "64Gi"}]}]}]}]})").value(),
                                                 "quota");
  ASSERT_TRUE(quota) << quota.error().describe();
  t.config.cluster.quota = *quota;
  t.config.cluster.inventory.clear();
  auto p = t.open();
  ASSERT_TRUE(p);
  job::Job big = gpu_job("too-big", 0, 600);
  big.cpu_cores = core::Quantity::from_int(16);
  auto b = p->submit(ctx_b(), big);
  ASSERT_TRUE(b) << b.error().describe();
  auto a = p->submit(ctx_a(), gpu_job("small", 0, 600));
  ASSERT_TRUE(a) << a.error().describe();
  ASSERT_TRUE(p->pump());

  auto sb = p->schedule(ctx_b());
  ASSERT_TRUE(sb);
  ASSERT_EQ(sb->never.count(b->record.job.id.to_string()), 1u) << schedule::to_json(*sb, {2, true});
  auto s = p->schedule(ctx_a());
  ASSERT_TRUE(s) << s.error().describe();
  const std::string mine = a->record.job.id.to_string();
  ASSERT_EQ(s->never.count(mine), 1u) << schedule::to_json(*s, {2, true});
  EXPECT_EQ(s->never.at(mine), "blocked behind [hidden] in StrictFIFO ClusterQueue batch-jobs ([hidden] can never be admitted)");
  const std::string text = schedule::to_json(*s, {2, true});
  EXPECT_EQ(text.find(b->record.job.id.to_string()), std::string::npos) << text;
  EXPECT_EQ(text.find(tenant_b().to_string()), std::string::npos) << text;
  auto rec = p->get_job(ctx_a(), a->record.job.id);
  ASSERT_TRUE(rec);
  EXPECT_FALSE(rec->job.estimated_start.has_value());  // it can never run: no estimate
}

TEST(PlatformScheduleTest, AJobWithoutADurationIsAssumedAnHourWithAWarning) {
  PlatformTarget t;
  auto p = t.open();
  ASSERT_TRUE(p);
  job::Job j = gpu_job("open-ended", 1, 600);
  j.estimated_duration_seconds.reset();
  auto r = p->submit(ctx_a(), j);
  ASSERT_TRUE(r) << r.error().describe();
  auto s = p->schedule(ctx_a());
  ASSERT_TRUE(s) << s.error().describe();
  ASSERT_EQ(s->jobs.size(), 1u);
  EXPECT_EQ(s->jobs[0].end - s->jobs[0].start, core::Duration::seconds(3600));
  ASSERT_EQ(s->warnings.size(), 1u);
  EXPECT_NE(s->warnings[0].find("assumed 3600 s"), std::string::npos);
}

TEST(PlatformScheduleTest, NeedsAViewerRoleUnderRbac) {
  PlatformTarget t;
  t.config.security.rbac = true;
  t.config.security.platform_admins = {"user:root"};
  auto p = t.open();
  ASSERT_TRUE(p);
  auto denied = p->schedule(ctx_a());  // alice holds no role
  ASSERT_FALSE(denied);
  EXPECT_EQ(denied.error().code, core::ErrorCode::Security);
  auto root = platform::CallContext::for_tenant(tenant_a(), "user:root");
  ASSERT_TRUE(p->bind_role(root, {"user:alice", platform::Role::Viewer, std::nullopt}));
  EXPECT_TRUE(p->schedule(ctx_a()));
}

}  // namespace
}  // namespace budcore::testing
