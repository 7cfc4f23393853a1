// The status state machine: all 64 (from, to) pairs against an independently written list of
// legal moves, the retry budget, timestamps from a virtual clock and the transition history.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

#include "budcore/core/clock.hpp"
#include "budcore/job/state_machine.hpp"

namespace budcore::job {
namespace {

using core::Duration;
using core::ErrorCode;
using S = JobStatus;

// Written out by hand from the design (not derived from kTransitionTable).
const std::set<std::pair<std::string, std::string>> kLegal = {
    {"pending", "queued"},      {"pending", "failed"},     {"pending", "cancelled"},
    {"queued", "scheduled"},    {"queued", "failed"},      {"queued", "cancelled"},
    {"scheduled", "running"},   {"scheduled", "failed"},   {"scheduled", "cancelled"},
    {"scheduled", "preempted"}, {"running", "completed"},  {"running", "failed"},
    {"running", "cancelled"},   {"running", "preempted"},  {"preempted", "queued"},
    {"preempted", "cancelled"}, {"failed", "pending"},     {"failed", "queued"},
};

Job job_in(JobStatus s) {
  Job j;
  j.name = "j";
  j.status = s;
  return j;
}

TEST(StateMachineTest, EveryPairMatchesTheDesign) {
  core::VirtualClock clock;
  int legal = 0;
  for (S from : kAllJobStatuses) {
    for (S to : kAllJobStatuses) {
      const bool expected = kLegal.count({std::string(to_string(from)), std::string(to_string(to))}) == 1;
      EXPECT_EQ(is_legal_transition(from, to), expected) << to_string(from) << " -> " << to_string(to);
      Job j = job_in(from);
      const Job before = j;
      auto st = transition(j, to, clock, "why");
      if (expected) {
        ++legal;
        ASSERT_TRUE(st.has_value()) << st.error().describe();
        EXPECT_EQ(j.status, to);
      } else {
        ASSERT_FALSE(st.has_value()) << to_string(from) << " -> " << to_string(to);
        EXPECT_EQ(st.error().code, ErrorCode::Conflict);
        EXPECT_EQ(st.error().field, "status");
        EXPECT_EQ(st.error().value, to_string(to));
        const std::string named = std::string(to_string(from)) + " -> " + std::string(to_string(to));
        EXPECT_NE(st.error().message.find(named), std::string::npos) << st.error().message;
        EXPECT_EQ(j, before);  // unchanged on error
      }
    }
  }
  EXPECT_EQ(legal, static_cast<int>(kLegal.size()));
  EXPECT_EQ(kTransitionTable.size(), kLegal.size());
}

TEST(StateMachineTest, TableIsUsableAtCompileTime) {
  static_assert(is_legal_transition(S::Pending, S::Queued));
  static_assert(!is_legal_transition(S::Completed, S::Queued));
  static_assert(find_transition(S::Failed, S::Queued) == TransitionKind::Retry);
  static_assert(find_transition(S::Preempted, S::Queued) == TransitionKind::Requeue);
  SUCCEED();
}

TEST(StateMachineTest, FinalStatusesHaveNoWayOut) {
  for (S from : kAllJobStatuses) {
    bool any = false;
    for (S to : kAllJobStatuses) any = any || is_legal_transition(from, to);
    EXPECT_EQ(any, !is_final(from)) << to_string(from);
  }
  Job j = job_in(S::Completed);
  core::VirtualClock clock;
  auto st = transition(j, S::Cancelled, clock);
  ASSERT_FALSE(st.has_value());
  EXPECT_NE(st.error().message.find("completed is final"), std::string::npos);
}

TEST(StateMachineTest, CancelFromEveryNonTerminalStatus) {
  core::VirtualClock clock;
  for (S from : {S::Pending, S::Queued, S::Scheduled, S::Running, S::Preempted}) {
    Job j = job_in(from);
    ASSERT_TRUE(transition(j, S::Cancelled, clock, "user request").has_value()) << to_string(from);
    EXPECT_EQ(j.actual_end, clock.now());
    EXPECT_EQ(j.status_message, "user request");
  }
}

TEST(StateMachineTest, LifecycleStampsTimesFromTheClock) {
  core::VirtualClock clock;
  const auto t0 = clock.now();
  Job j = job_in(S::Pending);
  j.created_at = t0;

  ASSERT_TRUE(transition(j, S::Queued, clock).has_value());
  EXPECT_EQ(j.updated_at, t0);
  clock.advance(Duration::seconds(30));
  ASSERT_TRUE(transition(j, S::Scheduled, clock, "admitted by cq-a").has_value());
  EXPECT_EQ(j.status_message, "admitted by cq-a");
  EXPECT_FALSE(j.actual_start.has_value());
  clock.advance(Duration::seconds(5));
  ASSERT_TRUE(transition(j, S::Running, clock).has_value());
  EXPECT_EQ(j.actual_start, t0 + Duration::seconds(35));
  EXPECT_FALSE(j.status_message.has_value());  // the old message no longer applies
  EXPECT_FALSE(j.actual_end.has_value());
  clock.advance(Duration::minutes(10));
  ASSERT_TRUE(transition(j, S::Completed, clock, "exit 0").has_value());
  EXPECT_EQ(j.actual_end, t0 + Duration::seconds(635));
  EXPECT_EQ(j.updated_at, j.actual_end);

  ASSERT_EQ(j.status_history.size(), 4u);
  EXPECT_EQ(j.status_history[0], (StatusTransition{S::Pending, S::Queued, t0, ""}));
  EXPECT_EQ(j.status_history[1], (StatusTransition{S::Queued, S::Scheduled, t0 + Duration::seconds(30),
                                                   "admitted by cq-a"}));
  EXPECT_EQ(j.status_history[3].to, S::Completed);
  EXPECT_EQ(j.status_history[3].message, "exit 0");
  EXPECT_TRUE(j.validate().has_value()) << j.validate().error().describe();

  // The recorded job survives JSON.
  auto back = Job::from_json(j.to_json());
  ASSERT_TRUE(back.has_value()) << back.error().describe();
  EXPECT_EQ(*back, j);
}

TEST(StateMachineTest, RetryConsumesTheBudgetAndStartsANewRun) {
  core::VirtualClock clock;
  Job j = job_in(S::Running);
  j.max_retries = 2;
  j.actual_start = clock.now();
  for (int attempt = 1; attempt <= 2; ++attempt) {
    clock.advance(Duration::seconds(10));
    ASSERT_TRUE(transition(j, S::Failed, clock, "exit 1").has_value());
    EXPECT_EQ(j.actual_end, clock.now());
    S target = attempt == 1 ? S::Pending : S::Queued;  // both retry targets work
    ASSERT_TRUE(transition(j, target, clock).has_value());
    EXPECT_EQ(j.retry_count, attempt);
    EXPECT_FALSE(j.actual_end.has_value());
    if (target == S::Pending) ASSERT_TRUE(transition(j, S::Queued, clock).has_value());
    ASSERT_TRUE(transition(j, S::Scheduled, clock).has_value());
    ASSERT_TRUE(transition(j, S::Running, clock).has_value());
    EXPECT_EQ(j.actual_start, clock.now());  // the latest run
  }
  ASSERT_TRUE(transition(j, S::Failed, clock).has_value());
  const Job before = j;
  auto st = transition(j, S::Queued, clock);
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().code, ErrorCode::Conflict);
  EXPECT_EQ(st.error().field, "retry_count");
  EXPECT_EQ(st.error().value, "2");
  EXPECT_NE(st.error().message.find("retry budget exhausted"), std::string::npos);
  EXPECT_EQ(j, before);
}

TEST(StateMachineTest, RequeueAfterPreemptionKeepsTheRetryCount) {
  core::VirtualClock clock;
  Job j = job_in(S::Running);
  ASSERT_TRUE(transition(j, S::Preempted, clock, "preempted by deploy-llm").has_value());
  EXPECT_EQ(j.actual_end, clock.now());
  clock.advance(Duration::seconds(1));
  ASSERT_TRUE(transition(j, S::Queued, clock).has_value());
  EXPECT_EQ(j.retry_count, 0);
  EXPECT_FALSE(j.actual_end.has_value());
  EXPECT_EQ(j.status_history.back().from, S::Preempted);
}

TEST(StateMachineTest, HistoryKeepsTheMostRecentEntries) {
  core::VirtualClock clock;
  Job j = job_in(S::Queued);
  for (std::size_t i = 0; i < Job::kMaxHistory + 10; ++i) {
    clock.advance(Duration::seconds(1));
    ASSERT_TRUE(transition(j, S::Scheduled, clock).has_value());
    ASSERT_TRUE(transition(j, S::Preempted, clock).has_value());
    ASSERT_TRUE(transition(j, S::Queued, clock).has_value());
  }
  ASSERT_EQ(j.status_history.size(), Job::kMaxHistory);
  EXPECT_EQ(j.status_history.back().to, S::Queued);
  EXPECT_EQ(j.status_history.back().at, clock.now());
  EXPECT_TRUE(j.validate().has_value());
}

TEST(StateMachineTest, StatusHelpers) {
  EXPECT_TRUE(is_terminal(S::Preempted));
  EXPECT_FALSE(is_final(S::Preempted));
  EXPECT_TRUE(is_terminal(S::Failed));
  EXPECT_FALSE(is_final(S::Failed));
  EXPECT_TRUE(is_final(S::Completed));
  EXPECT_FALSE(is_terminal(S::Running));
  EXPECT_TRUE(holds_resources(S::Scheduled));
  EXPECT_FALSE(holds_resources(S::Queued));
  EXPECT_EQ(to_string(TransitionKind::Retry), "retry");
}

}  // namespace
}  // namespace budcore::job
