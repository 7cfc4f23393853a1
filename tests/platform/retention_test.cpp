// A platform's retention (docs/platform.md "Retention"), on SQLite and a real PostgreSQL: the
// leader compacts every interval of its clock, compact() does it now, a watch from before the
// cut is Gone and resumes after the checkpoint, the audit chains still verify, and the config's
// `retention` section is checked key by key.
#include <gtest/gtest.h>

#include "platform/platform_fixture.hpp"

namespace budcore::testing {
namespace {

using core::Duration;
using core::ErrorCode;

class PlatformRetention : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    target_ = std::make_unique<PlatformTarget>(GetParam());
    BUDCORE_SKIP_UNLESS_READY(*target_);
    platform::RetentionConfig r;
    r.policy.event_max_count = 5;
    r.policy.audit_max_count = 3;
    r.interval = Duration::hours(1);
    target_->config.retention = r;
  }
  // n short jobs of tenant A, run to the end: 4 events each (queued, scheduled, running, completed).
  void run_jobs(platform::Platform& p, int n) {
    for (int i = 0; i < n; ++i) ASSERT_TRUE(p.submit(ctx_a(), gpu_job("j" + std::to_string(i), 1, 60)));
    ASSERT_TRUE(p.run_until_idle());
  }
  std::unique_ptr<PlatformTarget> target_;
};

TEST_P(PlatformRetention, CompactCutsTheLogAndAWatchFromBeforeItIsGone) {
  auto p = target_->open();
  ASSERT_TRUE(p);
  run_jobs(*p, 3);
  auto before = p->watch(ctx_a(), 0, 1000);
  ASSERT_TRUE(before) << before.error().describe();
  const std::int64_t head = before->last_seq;
  ASSERT_GT(head, 5);

  auto r = p->compact(ctx_a());
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(r->events_removed, head - 5);
  auto gone = p->watch(ctx_a(), 0, 1000);
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().code, ErrorCode::Gone);
  EXPECT_EQ(gone.error().value, std::to_string(head - 5));
  auto rest = p->watch(ctx_a(), head - 5, 1000);
  ASSERT_TRUE(rest) << rest.error().describe();
  EXPECT_EQ(rest->events.size(), 5u);
  EXPECT_EQ(rest->last_seq, head);
  // Jobs, their results and the audit chains are untouched by it.
  EXPECT_EQ(p->list_jobs(ctx_a(), {})->items.size(), 3u);
  auto verified = p->verify_audit(ctx_a());
  ASSERT_TRUE(verified);
  EXPECT_TRUE(verified->ok) << (verified->problems.empty() ? "" : verified->problems.front());
  EXPECT_TRUE(p->check_invariants());
  EXPECT_NE(p->metrics().find("budcore_retention_removed_total{log=\"events\"}"), std::string::npos);
}

TEST_P(PlatformRetention, TheLeaderCompactsEveryIntervalOfItsClock) {
  auto p = target_->open();
  ASSERT_TRUE(p);
  run_jobs(*p, 3);  // within the first interval: nothing removed yet
  auto head = p->watch(ctx_a(), 0, 1000);
  ASSERT_TRUE(head) << "nothing to cut before the jobs ran";
  ASSERT_TRUE(p->run_until(p->now() + Duration::hours(2)));
  auto gone = p->watch(ctx_a(), 0, 1000);
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().code, ErrorCode::Gone);
  // Reopened, it resumes at the checkpoint like any reader.
  p.reset();
  auto again = target_->open();
  ASSERT_TRUE(again);
  auto rest = again->watch(ctx_a(), head->last_seq - 5, 1000);
  ASSERT_TRUE(rest) << rest.error().describe();
}

TEST_P(PlatformRetention, CompactNeedsARetentionSectionAndAPlatformAdmin) {
  target_->config.retention.reset();
  auto p = target_->open();
  ASSERT_TRUE(p);
  auto none = p->compact(ctx_a());
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, ErrorCode::Invalid);
  EXPECT_EQ(none.error().field, "retention");
}

INSTANTIATE_TEST_SUITE_P(Stores, PlatformRetention, ::testing::Values("sqlite_file", "postgres"),
                         [](const auto& info) { return info.param; });

TEST(PlatformRetentionConfig, EachKeyIsCheckedAndNamed) {
  auto ok = platform::PlatformConfig::parse(
      "store: s\nretention: {events: {max_age_days: 7, max_count: 1000}, audit: {max_age_days: 400},"
      " usage: {max_age_days: 92}, interval_seconds: 600}\n");
  ASSERT_TRUE(ok) << ok.error().describe();
  ASSERT_TRUE(ok->retention);
  EXPECT_EQ(ok->retention->policy.event_max_age, Duration::hours(24 * 7));
  EXPECT_EQ(ok->retention->policy.event_max_count, 1000);
  EXPECT_EQ(ok->retention->policy.audit_max_age, Duration::hours(24 * 400));
  EXPECT_FALSE(ok->retention->policy.audit_max_count);
  EXPECT_EQ(ok->retention->interval, Duration::seconds(600));
  struct Bad {
    const char* yaml;
    const char* field;
  };
  for (const Bad& b : {Bad{"retention: {usage: {max_age_days: 30}}", "retention.usage.max_age_days"},
                       Bad{"retention: {usage: {max_count: 30}}", "retention.usage.max_count"},
                       Bad{"retention: {events: {}}", "retention.events"},
                       Bad{"retention: {events: {max_count: 0}}", "retention.events.max_count"},
                       Bad{"retention: {events: {max_age_days: -1}}", "retention.events.max_age_days"},
                       Bad{"retention: {audit: {max_age_days: .nan}}", "retention.audit.max_age_days"},
                       Bad{"retention: {interval_seconds: 0}", "retention.interval_seconds"},
                       Bad{"retention: {logs: {}}", "retention.logs"},
                       Bad{"retention: []", "retention"}}) {
    auto c = platform::PlatformConfig::parse(std::string("store: s\n") + b.yaml + "\n");
    ASSERT_FALSE(c) << b.yaml;
    EXPECT_EQ(c.error().code, ErrorCode::Invalid) << b.yaml;
    EXPECT_EQ(c.error().field, b.field) << b.yaml << ": " << c.error().describe();
  }
}

}  // namespace
}  // namespace budcore::testing
