// Replicas of one platform on one store (docs/ha.md), in one process on SQLite and on a real
// PostgreSQL server: one leads, a follower takes requests the leader carries out, a replica id
// in use is refused, a graceful close hands the lease over at once, and the config's `ha`
// section is checked field by field. (tests/ha/chaos.py kills and pauses real processes.)
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "budcore/backend/store.hpp"
#include "platform/platform_fixture.hpp"

namespace budcore::testing {
namespace {

using core::ErrorCode;
using job::JobStatus;

class PlatformHa : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    target_ = std::make_unique<PlatformTarget>(GetParam());
    BUDCORE_SKIP_UNLESS_READY(*target_);
    target_->config.clock = platform::ClockKind::System;
  }
  std::unique_ptr<platform::Platform> replica(const std::string& id, std::int64_t lease_ms = 1000) {
    return replica_with(id, lease_ms, 250, 100);
  }
  std::unique_ptr<platform::Platform> replica_with(const std::string& id, std::int64_t lease_ms, std::int64_t renew_ms,
                                                   std::int64_t retry_ms) {
    platform::PlatformConfig c = target_->config;
    c.ha = platform::HaConfig{id, core::Duration::milliseconds(lease_ms), core::Duration::milliseconds(renew_ms),
                              core::Duration::milliseconds(retry_ms), true};
    auto p = platform::Platform::open(c);
    EXPECT_TRUE(p) << (p ? "" : p.error().describe());
    return p ? std::move(*p) : nullptr;
  }
  // Polls until pred() holds or `seconds` pass.
  template <class Pred>
  static bool eventually(Pred pred, double seconds = 10) {
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<int>(seconds * 1000));
    while (std::chrono::steady_clock::now() < end) {
      if (pred()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return pred();
  }
  std::unique_ptr<PlatformTarget> target_;
};

TEST_P(PlatformHa, AFollowerTakesRequestsTheLeaderCarriesOut) {
  auto r1 = replica("r1");
  ASSERT_TRUE(r1);
  auto r2 = replica("r2");
  ASSERT_TRUE(r2);
  EXPECT_EQ(r1->ha_status()->role, "leader");
  EXPECT_EQ(r2->ha_status()->role, "follower");
  auto status = r2->ha_status();
  ASSERT_TRUE(status);
  EXPECT_EQ(status->lease.epoch, 1);
  EXPECT_EQ(status->lease.holder.rfind("r1#", 0), 0u) << status->lease.holder;
  // Each replica's role and the leader's election are metrics.
  const std::string leader_metrics = r1->metrics(), follower_metrics = r2->metrics();
  EXPECT_NE(leader_metrics.find("budcore_ha_leader{replica=\"r1\"} 1\n"), std::string::npos) << leader_metrics;
  EXPECT_NE(leader_metrics.find("budcore_ha_leader_changes_total 1\n"), std::string::npos);
  EXPECT_NE(leader_metrics.find("budcore_ha_renewal_seconds_count "), std::string::npos);
  EXPECT_NE(follower_metrics.find("budcore_ha_leader{replica=\"r2\"} 0\n"), std::string::npos) << follower_metrics;

  // A submit on the follower is durable at once and run by the leader.
  auto job = r2->submit(ctx_a(), gpu_job("via-follower", 1, 1), "k1");
  ASSERT_TRUE(job) << job.error().describe();
  const core::Id id = job->record.job.id;
  EXPECT_TRUE(eventually([&] { return r2->get_job(ctx_a(), id)->job.status == JobStatus::Completed; }));
  // The same key on either replica names the same job.
  EXPECT_EQ(r1->submit(ctx_a(), gpu_job("via-follower", 1, 1), "k1")->record.job.id, id);
  // A cancel on the follower is a request the leader carries out.
  auto longer = r2->submit(ctx_a(), gpu_job("long", 1, 3600));
  ASSERT_TRUE(longer);
  ASSERT_TRUE(eventually([&] { return r2->get_job(ctx_a(), longer->record.job.id)->job.status == JobStatus::Running; }));
  ASSERT_TRUE(r2->cancel_job(ctx_a(), longer->record.job.id));
  EXPECT_TRUE(eventually([&] { return r1->get_job(ctx_a(), longer->record.job.id)->job.status == JobStatus::Cancelled; }));
  // A request the leader refuses when it carries it out (here a priority change queued behind
  // the cancel that ends the job) is in the audit log, since its caller was already answered.
  auto doomed = r2->submit(ctx_a(), gpu_job("doomed", 1, 3600));
  ASSERT_TRUE(doomed);
  const core::Id doomed_id = doomed->record.job.id;
  ASSERT_TRUE(eventually([&] { return r2->get_job(ctx_a(), doomed_id)->job.status == JobStatus::Running; }));
  ASSERT_TRUE(r2->cancel_job(ctx_a(), doomed_id));
  ASSERT_TRUE(r2->set_priority(ctx_a(), doomed_id, job::JobPriority::High));
  backend::AuditQuery q;
  q.object_id = doomed_id.to_string();
  EXPECT_TRUE(eventually([&] {
    auto page = r1->list_audit(ctx_a(), q, {});
    if (!page) return false;
    for (const auto& e : page->items)
      if (e.action == "jobs.update" && e.detail.find("outcome") && e.detail.find("outcome")->as_string() == "denied")
        return e.detail.find("reason")->as_string().find("refused when the leader carried out the request") != std::string::npos;
    return false;
  }));
  // A follower's schedule reads the live jobs from the store.
  ASSERT_TRUE(r2->schedule(ctx_a()));

  // An id a live process uses is refused.
  platform::PlatformConfig dup = target_->config;
  dup.ha = platform::HaConfig{"r1", core::Duration::milliseconds(1000), core::Duration::milliseconds(250),
                              core::Duration::milliseconds(100), true};
  auto twin = platform::Platform::open(dup);
  ASSERT_FALSE(twin);
  EXPECT_EQ(twin.error().code, ErrorCode::AlreadyExists);
  EXPECT_EQ(twin.error().field, "ha.replica");

  // A graceful close resigns: the follower leads within a second, at the next epoch.
  const auto t0 = std::chrono::steady_clock::now();
  r1.reset();
  ASSERT_TRUE(eventually([&] { return r2->ha_status()->role == "leader"; }, 3));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
  EXPECT_EQ(r2->ha_status()->epoch, 2);
  auto after = r2->submit(ctx_a(), gpu_job("after", 1, 1));
  ASSERT_TRUE(after);
  EXPECT_TRUE(eventually([&] { return r2->get_job(ctx_a(), after->record.job.id)->job.status == JobStatus::Completed; }));
}

// With Kueue's periods (lease 15 s, renew 10 s, retry 2 s) a follower still takes a lease given
// up gracefully within a fraction of a second: it looks for that between its attempts.
TEST_P(PlatformHa, AGracefulHandoverTakesLessThanTheRetryPeriod) {
  auto open = [&](const std::string& id) { return replica_with(id, 15'000, 10'000, 2'000); };
  auto r1 = open("r1");
  ASSERT_TRUE(r1);
  ASSERT_TRUE(eventually([&] { return r1->ha_status()->role == "leader"; }, 5));
  auto r2 = open("r2");
  ASSERT_TRUE(r2);
  for (int i = 0; i < 3; ++i) {
    // Each handover at a different point of the follower's retry period.
    std::this_thread::sleep_for(std::chrono::milliseconds(300 + 500 * i));
    const auto t0 = std::chrono::steady_clock::now();
    r1.reset();
    ASSERT_TRUE(eventually([&] { return r2->ha_status()->role == "leader"; }, 5));
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(800)) << "handover " << i;
    std::swap(r1, r2);
    r2 = open(i % 2 == 0 ? "r1" : "r2");
    ASSERT_TRUE(r2);
  }
}

// A follower reports at each attempt; with a retry period as long as the lease, its report
// would be a lease old before the next, and another process could take its id while it lives.
// It attempts at least three times a lease instead.
TEST_P(PlatformHa, AFollowersReportIsNeverALeaseOldWhenTheRetryPeriodIsTheLease) {
  auto open = [&](const std::string& id) { return replica_with(id, 1500, 500, 1500); };
  auto r1 = open("r1");
  ASSERT_TRUE(r1);
  ASSERT_TRUE(eventually([&] { return r1->ha_status()->role == "leader"; }, 5));
  auto r2 = open("r2");
  ASSERT_TRUE(r2);
  std::vector<core::Timestamp> seen;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(3200);
  while (std::chrono::steady_clock::now() < until) {
    auto st = r1->ha_status();
    ASSERT_TRUE(st) << st.error().describe();
    for (const auto& r : st->replicas)
      if (r.replica == "r2" && (seen.empty() || r.seen != seen.back())) seen.push_back(r.seen);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_GE(seen.size(), 5u) << "the follower reported " << seen.size() << " times in 3.2 s";
  for (std::size_t i = 1; i < seen.size(); ++i)
    EXPECT_LT((seen[i] - seen[i - 1]).count_ns(), 1'000'000'000) << "between reports " << i - 1 << " and " << i;
  EXPECT_EQ(r2->ha_status()->role, "follower");
}

// A batch submitted on a follower under one key is idempotent as a whole: each job without a
// key of its own is keyed "<key>/<i>", so a retry (a client that lost the answer) returns the
// same jobs. The replicas view shows a closed replica as stopped, never as a leader, and a
// follower refuses to check invariants of jobs it does not drive.
TEST_P(PlatformHa, ABatchUnderOneKeyIsIdempotentAndTheViewShowsRolesAsTheyStand) {
  auto r1 = replica("r1");
  ASSERT_TRUE(r1);
  auto r2 = replica("r2");
  ASSERT_TRUE(r2);
  auto doc = core::Value::map({{"jobs", core::Value::list({gpu_job("a", 1, 1).to_value(),
                                                           core::Value::map({{"job", gpu_job("b", 1, 1).to_value()},
                                                                             {"idempotency_key", "own"}})})}});
  auto first = r2->submit_batch_document(ctx_a(), doc, "batch-1");
  ASSERT_TRUE(first) << first.error().describe();
  auto again = r1->submit_batch_document(ctx_a(), doc, "batch-1");
  ASSERT_TRUE(again) << again.error().describe();
  ASSERT_EQ(first->size(), 2u);
  ASSERT_EQ(again->size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_TRUE((*first)[i].created);
    EXPECT_FALSE((*again)[i].created);
    EXPECT_EQ((*first)[i].record.job.id, (*again)[i].record.job.id);
  }
  EXPECT_EQ((*first)[0].record.idempotency_key, "batch-1/0");
  EXPECT_EQ((*first)[1].record.idempotency_key, "own");
  backend::JobFilter all;
  EXPECT_EQ(r1->list_jobs(ctx_a(), all)->items.size(), 2u);

  auto check = r2->check_invariants();
  ASSERT_FALSE(check);
  EXPECT_EQ(check.error().code, ErrorCode::NotLeader) << check.error().describe();
  EXPECT_TRUE(r1->check_invariants()) << r1->check_invariants().error().describe();
  // The simulated cluster's runs are in the leader's memory: a follower does not show an empty one.
  auto follower_view = r2->cluster(ctx_a());
  ASSERT_FALSE(follower_view);
  EXPECT_EQ(follower_view.error().code, ErrorCode::NotLeader) << follower_view.error().describe();
  EXPECT_TRUE(r1->cluster(ctx_a())) << r1->cluster(ctx_a()).error().describe();

  r1.reset();
  ASSERT_TRUE(eventually([&] { return r2->ha_status()->role == "leader"; }, 3));
  auto view = r2->ha_status();
  ASSERT_TRUE(view);
  for (const auto& r : view->replicas) {
    if (r.replica == "r1") EXPECT_EQ(r.role, "stopped");
    if (r.replica == "r2") EXPECT_EQ(r.role, "leader");
  }
}

// A follower's batch is one transaction of jobs and requests; the leader hands every job to
// the cluster and deletes the requests it carried out (a batch of them in one transaction). The
// backlog takes the leader longer than its 3 s lease (on PostgreSQL; a round of it, a group
// commit, less): it renews between rounds and keeps leading.
TEST_P(PlatformHa, AFollowersBatchIsCarriedOutAndItsRequestsDeleted) {
  // Commits of at most 256 events: each piece of work stays well inside the lease on a loaded
  // machine, so what is tested is that the leader renews between them.
  target_->config.max_events_per_commit = 256;
  auto r1 = replica("r1", 3000);
  ASSERT_TRUE(r1);
  auto r2 = replica("r2", 3000);
  ASSERT_TRUE(r2);
  ASSERT_EQ(r2->ha_status()->role, "follower");
  std::vector<platform::SubmitRequest> jobs;
  for (int i = 0; i < 3000; ++i) {
    job::Job j = gpu_job("batch-" + std::to_string(i), 0, 1);
    set_sim(j, core::Value::map({{"duration_seconds", 0}}));
    jobs.push_back({std::move(j), "b" + std::to_string(i)});
  }
  auto submitted = r2->submit_batch(ctx_a(), std::move(jobs));
  ASSERT_TRUE(submitted) << submitted.error().describe();
  ASSERT_EQ(submitted->size(), 3000u);
  EXPECT_TRUE(eventually([&] {
    for (const auto& s : *submitted)
      if (r2->get_job(ctx_a(), s.record.job.id)->job.status != JobStatus::Completed) return false;
    return true;
  }, 120));
  EXPECT_TRUE(eventually([&] { return r1->store().list_requests(0, 100)->empty(); }));
  EXPECT_EQ(r1->ha_status()->role, "leader");
  EXPECT_EQ(r1->ha_status()->epoch, 1);
  ASSERT_TRUE(r1->check_invariants());
}

// The value of a metric line ("name value") in a text exposition; -1 when absent.
double metric_value(const std::string& text, const std::string& name) {
  const std::string key = "\n" + name + " ";
  auto at = ("\n" + text).find(key);
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at - 1 + key.size()));
}

// The renewer keeps the lease on a thread and a store handle of its own: a leader whose driving
// thread is blocked for three leases (a FUNCTION step that takes 3 s, run under the platform's
// lock, so the driver waits too) keeps leading at the same epoch, and the follower never takes
// over. The renewals go on meanwhile and show in the metrics.
TEST_P(PlatformHa, ALeaderBlockedPastItsLeaseKeepsItThroughItsRenewer) {
  auto r1 = replica("r1", 1000);
  ASSERT_TRUE(r1);
  auto r2 = replica("r2", 1000);
  ASSERT_TRUE(r2);
  ASSERT_EQ(r1->ha_status()->role, "leader");
  std::atomic<int> calls{0};
  ASSERT_TRUE(r1->register_function("slow", [&](const core::Value&, const pipeline::FunctionCall&) -> core::Result<core::Value> {
    ++calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(3000));
    return core::Value::map({{"done", true}});
  }));
  const double renewals_before = metric_value(r1->metrics(), "budcore_ha_renewal_seconds_count");
  const core::Value doc = core::Value::map(
      {{"pipeline", core::Value::map({{"id", "slow"}, {"name", "slow"}})},
       {"steps", core::Value::list({core::Value::map({{"id", "f"}, {"name", "f"}, {"step_type", "FUNCTION"},
                                                      {"depends_on", core::Value::list({})},
                                                      {"config", core::Value::map({{"function", "slow"}, {"args", core::Value::map({})}})}})})}});
  const auto t0 = std::chrono::steady_clock::now();
  auto run = r1->run_pipeline(ctx_a(), doc);
  ASSERT_TRUE(run) << run.error().describe();
  ASSERT_TRUE(eventually([&] {
    auto r = r2->get_pipeline_run(ctx_a(), run->id);
    return r && r->status == pipeline::PipelineStatus::Completed;
  }));
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(3000));
  EXPECT_EQ(calls.load(), 1);
  auto s1 = r1->ha_status();
  ASSERT_TRUE(s1);
  EXPECT_EQ(s1->role, "leader");
  EXPECT_EQ(s1->epoch, 1);
  EXPECT_EQ(s1->lease.epoch, 1);
  EXPECT_EQ(r2->ha_status()->role, "follower");
  const std::string m = r1->metrics();
  EXPECT_EQ(metric_value(m, "budcore_ha_leader_changes_total"), 1) << m;
  EXPECT_EQ(metric_value(m, "budcore_ha_stepped_down_total"), -1) << m;
  // A renewal every 250 ms through the 3 s the driving thread was blocked.
  EXPECT_GE(metric_value(m, "budcore_ha_renewal_seconds_count"), renewals_before + 6) << m;
  // The renewer reports the leader's renewals in the replicas' view.
  for (const auto& r : s1->replicas)
    if (r.replica == "r1") EXPECT_EQ(r.role, "leader");
}

// A renewer that finds another holder (here one forced in after the leader's lease was made to
// expire) deposes its leader, which has no work and so no fenced write that would find out:
// it steps down within a renewal period, counts it, and leads again (at a new epoch) once the
// other holder's lease is given up.
TEST_P(PlatformHa, ALeaderWhoseRenewerLosesTheLeaseStepsDown) {
  auto r1 = replica("r1", 1000);
  ASSERT_TRUE(r1);
  auto s = r1->ha_status();
  ASSERT_TRUE(s);
  ASSERT_EQ(s->role, "leader");
  auto other = backend::open_store(target_->config.store_uri);
  ASSERT_TRUE(other) << other.error().describe();
  bool forced = false;
  for (int i = 0; i < 20 && !forced; ++i) {
    ASSERT_TRUE((*other)->release_lease("platform", s->lease.holder, s->lease.epoch));
    auto taken = (*other)->acquire_lease("platform", "intruder#0", core::Duration::seconds(60));
    ASSERT_TRUE(taken) << taken.error().describe();
    forced = taken->held_by("intruder#0");  // else r1's renewer took it back in between
  }
  ASSERT_TRUE(forced);
  EXPECT_TRUE(eventually([&] { return r1->ha_status()->role == "follower"; }, 3));
  std::string m = r1->metrics();
  EXPECT_EQ(metric_value(m, "budcore_ha_stepped_down_total"), 1) << m;
  EXPECT_NE(m.find("budcore_ha_leader{replica=\"r1\"} 0\n"), std::string::npos) << m;
  // It stays a follower while the other holds the lease, and leads again once it is given up.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(r1->ha_status()->role, "follower");
  ASSERT_TRUE((*other)->release_lease("platform", "intruder#0", s->lease.epoch + 1));
  EXPECT_TRUE(eventually([&] { return r1->ha_status()->role == "leader"; }, 3));
  EXPECT_EQ(r1->ha_status()->epoch, s->lease.epoch + 2);
  m = r1->metrics();
  EXPECT_EQ(metric_value(m, "budcore_ha_leader_changes_total"), 2) << m;
  auto job = r1->submit(ctx_a(), gpu_job("after-loss", 1, 1));
  ASSERT_TRUE(job) << job.error().describe();
  EXPECT_TRUE(eventually([&] { return r1->get_job(ctx_a(), job->record.job.id)->job.status == JobStatus::Completed; }));
}

// A replica restarted under its id after a crash (its row still fresh) waits for a lease of
// silence and takes the id over; a process whose id another took over while it was silent
// (paused past its lease) finds its next report refused, steps down and takes no further part,
// and its close leaves the new owner's row alone.
TEST_P(PlatformHa, ARestartedReplicaWaitsForItsPredecessorAndAReplacedOneStops) {
  auto store = backend::open_store(target_->config.store_uri);
  ASSERT_TRUE(store) << store.error().describe();
  backend::ReplicaRecord crashed;
  crashed.replica = "r1";
  crashed.instance = "crashed";
  crashed.role = "leader";
  crashed.epoch = 1;
  ASSERT_TRUE((*store)->report_replica("platform", crashed));
  const auto t0 = std::chrono::steady_clock::now();
  auto r1 = replica("r1");  // a lease of 1 s
  ASSERT_TRUE(r1);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(700)) << "it waited for the lease";
  EXPECT_EQ(r1->ha_status()->role, "leader");
  auto r2 = replica("r2");
  ASSERT_TRUE(r2);

  backend::ReplicaRecord intruder = crashed;
  intruder.instance = "intruder";
  intruder.role = "follower";
  ASSERT_TRUE((*store)->report_replica("platform", intruder));
  ASSERT_TRUE(eventually([&] {
    auto s = r1->ha_status();
    return !s && s.error().code == ErrorCode::AlreadyExists;
  }, 5));
  EXPECT_EQ(r1->ha_status().error().field, "ha.replica");
  ASSERT_TRUE(eventually([&] { return r2->ha_status()->role == "leader"; }, 5));
  EXPECT_EQ(r2->ha_status()->epoch, 2);
  r1.reset();
  auto view = r2->ha_status();
  ASSERT_TRUE(view);
  auto row = std::find_if(view->replicas.begin(), view->replicas.end(), [](const auto& r) { return r.replica == "r1"; });
  ASSERT_NE(row, view->replicas.end());
  EXPECT_EQ(row->instance, "intruder");
  EXPECT_NE(row->role, "stopped");
}

INSTANTIATE_TEST_SUITE_P(Stores, PlatformHa, ::testing::Values("sqlite_file", "postgres"),
                         [](const auto& info) { return info.param; });

// A commit that fails while the leader keeps its lease (the database back before the lease ran
// out): the leader goes back to the store and drives on at the same epoch, instead of staying
// halted with the lease so that no replica drives anything.
TEST(PlatformHaStoreFailure, ALeaderWhoseCommitFailedRecoversWhileItHoldsTheLease) {
  PlatformTarget t("sqlite_file");
  BUDCORE_SKIP_UNLESS_READY(t);
  t.config.clock = platform::ClockKind::System;
  // No renewal while the store is locked below: only the job's completion meets the lock.
  t.config.ha = platform::HaConfig{"r1", core::Duration::seconds(60), core::Duration::seconds(30),
                                   core::Duration::milliseconds(100), true};
  auto p = t.open();
  ASSERT_TRUE(p);
  auto job = p->submit(ctx_a(), gpu_job("held", 1, 2));
  ASSERT_TRUE(job) << job.error().describe();
  const core::Id id = job->record.job.id;
  auto status_is = [&](JobStatus want, int seconds) {
    for (int i = 0; i < seconds * 20; ++i) {
      if (auto r = p->get_job(ctx_a(), id); r && r->job.status == want) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  };
  ASSERT_TRUE(status_is(JobStatus::Running, 5));
  // Another process holds the write lock past the busy timeout (10 s): the commit of the job's
  // completion (due at 2 s) fails.
  auto other = backend::open_store(t.config.store_uri);
  ASSERT_TRUE(other) << other.error().describe();
  auto held = (*other)->transact([](backend::Store&) -> core::Status {
    std::this_thread::sleep_for(std::chrono::seconds(13));
    return {};
  });
  ASSERT_TRUE(held) << held.error().describe();
  EXPECT_TRUE(status_is(JobStatus::Completed, 10));
  auto ha = p->ha_status();
  ASSERT_TRUE(ha) << ha.error().describe();
  EXPECT_EQ(ha->role, "leader");
  EXPECT_EQ(ha->epoch, 1);
}

// With a short lease and no renew or retry given, the defaults keep Kueue's proportions (renew
// two thirds of the lease, retry at most a third) rather than being refused for values nobody wrote.
TEST(PlatformHaConfig, DefaultPeriodsFollowAShortLease) {
  auto c = platform::PlatformConfig::parse("store: x\nclock: system\nha: {replica: r1, lease_seconds: 1.5}\n");
  ASSERT_TRUE(c) << c.error().describe();
  EXPECT_EQ(c->ha->renew, core::Duration::seconds(1));
  EXPECT_EQ(c->ha->retry, core::Duration::milliseconds(500));
  auto kueue = platform::PlatformConfig::parse("store: x\nclock: system\nha: {replica: r1}\n");
  ASSERT_TRUE(kueue) << kueue.error().describe();
  EXPECT_EQ(kueue->ha->renew, core::Duration::seconds(10));
  EXPECT_EQ(kueue->ha->retry, core::Duration::seconds(2));
  // What is written stays as written, and is checked.
  auto given = platform::PlatformConfig::parse("store: x\nclock: system\nha: {replica: r1, lease_seconds: 1.5, retry_seconds: 2}\n");
  ASSERT_FALSE(given);
  EXPECT_EQ(given.error().field, "ha.retry_seconds");
}

// A platform opened without `ha` on a store whose lease replicas hold would act beside their
// leader: it is refused, naming the holder.
TEST_P(PlatformHa, APlatformWithoutHaIsRefusedOnAStoreReplicasDrive) {
  auto r1 = replica("r1");
  ASSERT_TRUE(r1);
  ASSERT_TRUE(eventually([&] { return r1->ha_status()->role == "leader"; }, 5));
  auto single = platform::Platform::open(target_->config);
  ASSERT_FALSE(single);
  EXPECT_EQ(single.error().code, ErrorCode::Conflict) << single.error().describe();
  EXPECT_EQ(single.error().field, "ha");
  r1.reset();  // resigns: the store may be opened alone again
  auto after = platform::Platform::open(target_->config);
  EXPECT_TRUE(after) << after.error().describe();
}

TEST(PlatformHaConfig, TheHaSectionIsCheckedFieldByField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"store: x\nclock: system\nha: {replica: r1, lease_seconds: 5, renew_seconds: 10}\n", "ha.renew_seconds"},
      {"store: x\nclock: system\nha: {replica: 'R_1'}\n", "ha.replica"},
      {"store: x\nclock: system\nha: {renew_seconds: 1}\n", "ha.replica"},
      {"store: x\nha: {replica: r1}\n", "clock"},
      {"store: x\nclock: system\nha: {replica: r1, retry_seconds: 20}\n", "ha.retry_seconds"},
      {"store: x\nclock: system\nha: {replica: r1, leader: true}\n", "ha.leader"},
      {"store: x\nclock: system\nha: {replica: r1, lease_seconds: 0}\n", "ha.lease_seconds"},
      {"store: x\nclock: system\nha: {replica: r1, lease_seconds: 0.000003}\n", "ha.lease_seconds"},
      {"store: x\nclock: system\nha: {replica: r1, lease_seconds: 3153600000}\n", "ha.lease_seconds"},
      {"store: x\nclock: system\nha: {replica: r1, retry_seconds: 0}\n", "ha.retry_seconds"},
      {"store: x\nclock: system\nha: {replica: r1, renew_seconds: 0}\n", "ha.renew_seconds"},
      {"store: x\nclock: system\nha: {replica: r1, renew_seconds: -1}\n", "ha.renew_seconds"},
      {"store: x\nclock: system\nha: {replica: r1, lease_seconds: .nan}\n", "ha.lease_seconds"},
      // The CLI's one-shot commands speak as cli-<pid>; a replica that leads may not take such an id.
      {"store: x\nclock: system\nha: {replica: cli-1}\n", "ha.replica"},
      // Replicas share their store: an in-memory database belongs to one process.
      {"store: 'sqlite::memory:'\nclock: system\nha: {replica: r1}\n", "store"},
      {"store: 'sqlite://:memory:'\nclock: system\nha: {replica: r1}\n", "store"},
      {"store: 'sqlite:file:x?mode=memory&cache=shared'\nclock: system\nha: {replica: r1}\n", "store"},
  };
  for (const auto& [text, field] : cases) {
    SCOPED_TRACE(text);
    auto c = platform::PlatformConfig::parse(text);
    ASSERT_FALSE(c);
    EXPECT_EQ(c.error().field, field) << c.error().describe();
  }
  // The range a lease may have is the one named.
  auto long_lease = platform::PlatformConfig::parse("store: x\nclock: system\nha: {replica: r1, lease_seconds: 4000}\n");
  ASSERT_FALSE(long_lease);
  EXPECT_NE(long_lease.error().message.find("3600"), std::string::npos) << long_lease.error().describe();
  EXPECT_EQ(long_lease.error().message.find("3153600000"), std::string::npos) << long_lease.error().describe();
  // One wording of each range, whether the value is refused while parsing or by validate().
  for (const std::string value : {"-1", "0.1", "4000"}) {
    auto bad = platform::PlatformConfig::parse("store: x\nclock: system\nha: {replica: r1, lease_seconds: " + value + "}\n");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("between 0.5 and 3600 seconds"), std::string::npos) << bad.error().describe();
  }
  auto nan = platform::PlatformConfig::parse("store: x\nclock: system\nha: {replica: r1, lease_seconds: .nan}\n");
  ASSERT_FALSE(nan);
  EXPECT_EQ(nan.error().value, "NaN");
  auto ok = platform::PlatformConfig::parse("store: x\nclock: system\nha: {replica: r-1}\n");
  ASSERT_TRUE(ok) << ok.error().describe();
  EXPECT_EQ(ok->ha->lease, core::Duration::seconds(15));
  EXPECT_EQ(ok->ha->renew, core::Duration::seconds(10));
  EXPECT_EQ(ok->ha->retry, core::Duration::seconds(2));
}

}  // namespace
}  // namespace budcore::testing
