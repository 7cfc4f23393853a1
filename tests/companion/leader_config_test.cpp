// The companion config's leader_election section: defaults, every key, and errors naming the
// field, the value and why; micro_time and read_lease.
#include <gtest/gtest.h>

#include "budcore/companion/companion.hpp"
#include "budcore/companion/leader.hpp"
#include "budcore/core/json.hpp"

namespace budcore::companion {
namespace {

const char* kBase =
    "controllers: [{name: budcore.io/window, checks: [window]}]\n";

core::Result<CompanionConfig> with(const std::string& section) {
  return CompanionConfig::from_text(std::string(kBase) + section);
}

TEST(LeaderElectionConfigTest, AbsentMeansNoElection) {
  auto c = with("");
  ASSERT_TRUE(c) << c.error().describe();
  EXPECT_FALSE(c->leader_election.has_value());
}

TEST(LeaderElectionConfigTest, EmptySectionTakesKubernetesDefaults) {
  auto c = with("leader_election: {}\n");
  ASSERT_TRUE(c) << c.error().describe();
  ASSERT_TRUE(c->leader_election.has_value());
  const auto& le = *c->leader_election;
  EXPECT_EQ(le.lease_name, "budcore-kueue-companion");
  EXPECT_EQ(le.namespace_, "");
  EXPECT_EQ(le.identity, "");
  EXPECT_EQ(le.lease_duration, core::Duration::seconds(15));
  EXPECT_EQ(le.renew_deadline, core::Duration::seconds(10));
  EXPECT_EQ(le.retry_period, core::Duration::seconds(2));
}

TEST(LeaderElectionConfigTest, EveryKeyRead) {
  auto c = with(
      "leader_election:\n"
      "  lease_name: companion.budcore.io\n"
      "  namespace: budcore-system\n"
      "  identity: replica-a\n"
      "  lease_duration: 30s\n"
      "  renew_deadline: 20\n"
      "  retry_period: 500ms\n");
  ASSERT_TRUE(c) << c.error().describe();
  const auto& le = *c->leader_election;
  EXPECT_EQ(le.lease_name, "companion.budcore.io");
  EXPECT_EQ(le.namespace_, "budcore-system");
  EXPECT_EQ(le.identity, "replica-a");
  EXPECT_EQ(le.lease_duration, core::Duration::seconds(30));
  EXPECT_EQ(le.renew_deadline, core::Duration::seconds(20));
  EXPECT_EQ(le.retry_period, core::Duration::milliseconds(500));
}

void expect_invalid(const std::string& section, const std::string& field, const std::string& why) {
  auto c = with(section);
  ASSERT_FALSE(c) << section;
  EXPECT_EQ(c.error().code, core::ErrorCode::Invalid);
  EXPECT_EQ(c.error().field, field) << c.error().describe();
  EXPECT_NE(c.error().describe().find(why), std::string::npos) << c.error().describe();
}

TEST(LeaderElectionConfigTest, ErrorsNameTheFieldAndWhy) {
  expect_invalid("leader_election: yes\n", "leader_election", "expected {lease_name");
  expect_invalid("leader_election: {lease: x}\n", "leader_election.lease", "");
  expect_invalid("leader_election: {lease_name: Companion_A}\n", "leader_election.lease_name", "DNS subdomain");
  expect_invalid("leader_election: {lease_name: \"\"}\n", "leader_election.lease_name", "non-empty");
  expect_invalid("leader_election: {namespace: budcore.system}\n", "leader_election.namespace", "DNS label");
  expect_invalid("leader_election: {identity: 7}\n", "leader_election.identity", "non-empty string");
  expect_invalid("leader_election: {lease_duration: 0}\n", "leader_election.lease_duration", "positive");
  expect_invalid("leader_election: {lease_duration: soon}\n", "leader_election.lease_duration", "soon");
  expect_invalid("leader_election: {lease_duration: 1500ms, renew_deadline: 1s, retry_period: 100ms}\n",
                 "leader_election.lease_duration", "whole number of seconds");
  expect_invalid("leader_election: {lease_duration: 10s}\n", "leader_election.renew_deadline",
                 "shorter than lease_duration");
  expect_invalid("leader_election: {renew_deadline: 2s}\n", "leader_election.renew_deadline", "1.2 x retry_period");
  expect_invalid("leader_election: {retry_period: -1s}\n", "leader_election.retry_period", "");
}

TEST(LeaderElectionConfigTest, ValidateAcceptsTheDefaults) { EXPECT_TRUE(validate(LeaderElectionConfig{})); }

TEST(LeaderElectionTest, MicroTimeHasSixFractionalDigits) {
  auto t = core::Timestamp::from_unix_nanos(1'767'225'600'123'456'789);
  EXPECT_EQ(micro_time(t), "2026-01-01T00:00:00.123456Z");
  EXPECT_EQ(micro_time(core::Timestamp::from_unix_seconds(1'767'225'600)), "2026-01-01T00:00:00.000000Z");
  auto back = core::Timestamp::parse(micro_time(t));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->unix_nanos(), 1'767'225'600'123'456'000);
}

TEST(LeaderElectionTest, ReadLeaseReadsTheSpec) {
  auto lease = core::parse_json(
      R"({"spec":{"holderIdentity":"a","leaseDurationSeconds":15,"acquireTime":"2026-01-01T00:00:00.000000Z",
          "renewTime":"2026-01-01T00:00:10.500000Z","leaseTransitions":3}})");
  ASSERT_TRUE(lease);
  LeaseRecord r = read_lease(*lease);
  EXPECT_EQ(r.holder, "a");
  EXPECT_EQ(r.lease_duration_seconds, 15);
  EXPECT_EQ(r.transitions, 3);
  ASSERT_TRUE(r.renew_time);
  EXPECT_EQ(r.renew_time->unix_nanos(), 1'767'225'610'500'000'000);
  EXPECT_EQ(read_lease(core::Map{}).holder, "");
}

TEST(LeaderElectionTest, DefaultIdentityIsUniquePerCall) {
  EXPECT_NE(default_identity(), default_identity());
  EXPECT_NE(default_identity().find('_'), std::string::npos);
}

}  // namespace
}  // namespace budcore::companion

namespace budcore::companion {
namespace {

TEST(LeaderElectionConfigTest, TheDeployExampleConfigLoads) {
  auto c = CompanionConfig::load_file(BUDCORE_SOURCE_DIR "/deploy/companion/config.yaml");
  ASSERT_TRUE(c) << c.error().describe();
  ASSERT_TRUE(c->leader_election.has_value());
  EXPECT_EQ(c->leader_election->namespace_, "budcore-system");
}

}  // namespace
}  // namespace budcore::companion
