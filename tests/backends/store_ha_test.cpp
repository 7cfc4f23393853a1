// Leader election, fencing and the followers' request queue in the store (docs/ha.md), on
// SQLite (a file) and on a real PostgreSQL server: one holder at a time, the epoch grows with
// every change of holder, a fenced handle's writes fail with NotLeader once another holder has
// the lease, and requests come back in order.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "backends/store_fixture.hpp"
#include "budcore/backend/store.hpp"

namespace budcore::backend {
namespace {

using core::Duration;
using core::ErrorCode;

class StoreHa : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    target_ = testing::make_target(GetParam());
    if (!target_.skip.empty()) GTEST_SKIP() << target_.skip;
    ASSERT_TRUE(target_.error.empty()) << target_.error;
    a_ = open();
    b_ = open();
  }
  std::unique_ptr<Store> open() {
    auto s = open_store(target_.uri);
    EXPECT_TRUE(s) << s.error().describe();
    return s ? std::move(*s) : nullptr;
  }
  testing::BackendTarget target_;
  std::unique_ptr<Store> a_, b_;
};

TEST_P(StoreHa, OneHolderAtATimeAndTheEpochGrowsWithEveryNewHolder) {
  auto first = a_->acquire_lease("platform", "a#1", Duration::seconds(30));
  ASSERT_TRUE(first) << first.error().describe();
  EXPECT_TRUE(first->held_by("a#1"));
  EXPECT_EQ(first->epoch, 1);
  auto lost = b_->acquire_lease("platform", "b#1", Duration::seconds(30));
  ASSERT_TRUE(lost);
  EXPECT_FALSE(lost->held_by("b#1"));
  EXPECT_EQ(lost->holder, "a#1");
  auto renewed = a_->acquire_lease("platform", "a#1", Duration::seconds(30));
  ASSERT_TRUE(renewed);
  EXPECT_EQ(renewed->epoch, 1);  // a renewal keeps the epoch
  ASSERT_TRUE(a_->release_lease("platform", "a#1", 1));
  auto taken = b_->acquire_lease("platform", "b#1", Duration::seconds(30));
  ASSERT_TRUE(taken);
  EXPECT_TRUE(taken->held_by("b#1"));
  EXPECT_EQ(taken->epoch, 2);
  // A lease that is not renewed passes on after it expires (the database's clock).
  auto short_lease = b_->acquire_lease("platform", "b#1", Duration::milliseconds(200));
  ASSERT_TRUE(short_lease);
  EXPECT_FALSE(a_->acquire_lease("platform", "a#2", Duration::seconds(30))->held_by("a#2"));
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  auto after = a_->acquire_lease("platform", "a#2", Duration::seconds(30));
  ASSERT_TRUE(after);
  EXPECT_TRUE(after->held_by("a#2"));
  EXPECT_EQ(after->epoch, 3);
}

TEST_P(StoreHa, AFencedHandleCannotWriteOnceAnotherHolderHasTheLease) {
  auto lease = a_->acquire_lease("platform", "a#1", Duration::milliseconds(300));
  ASSERT_TRUE(lease && lease->held_by("a#1"));
  a_->set_fence(Store::Fence{"platform", "a#1", lease->epoch});
  PlatformRequest r;
  r.tenant = core::Id::generate();
  r.kind = "adopt";
  r.object_id = core::Id::generate();
  r.replica = "a";
  ASSERT_TRUE(a_->append_request(r));  // while it holds the lease
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  auto taken = b_->acquire_lease("platform", "b#1", Duration::seconds(30));
  ASSERT_TRUE(taken && taken->held_by("b#1"));
  // The deposed holder wakes: every write of its handle fails, naming the current epoch.
  auto refused = a_->append_request(r);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::NotLeader);
  EXPECT_EQ(refused.error().value, std::to_string(taken->epoch));
  auto in_tx = a_->transact([&](Store& tx) -> core::Status { return tx.put_platform_record("state", "x", core::Value::map({})); });
  ASSERT_FALSE(in_tx);
  EXPECT_EQ(in_tx.error().code, ErrorCode::NotLeader);
  EXPECT_FALSE(b_->get_platform_record("state", "x").value());
  // Reads still work, and the queue holds only what was written while it led.
  auto queued = b_->list_requests(0, 100);
  ASSERT_TRUE(queued);
  ASSERT_EQ(queued->size(), 1u);
  EXPECT_EQ(queued->front().kind, "adopt");
  ASSERT_TRUE(b_->delete_request(queued->front().seq));
  EXPECT_TRUE(b_->list_requests(0, 100)->empty());
  a_->set_fence(std::nullopt);
}

// The store-wide event seq follows cause and effect across replicas: an event appended after
// another replica's committed event has a greater seq, whatever either took in earlier
// transactions (readers and the platform's queue order rely on it).
TEST_P(StoreHa, AnEventAfterAnotherReplicasCommittedEventHasAGreaterSeq) {
  const core::Id tenant = core::Id::generate();
  backend::EventRecord ev;
  ev.type = "job.test";
  ev.object_id = core::Id::generate();
  ev.data = core::Value::map({});
  auto append = [&](Store& s) {
    std::int64_t seq = 0;
    EXPECT_TRUE(s.transact([&](Store& tx) -> core::Status {
      BUDCORE_TRY_ASSIGN(seq, tx.append_event(tenant, ev));
      return {};
    }));
    return seq;
  };
  std::int64_t last = 0;
  for (int round = 0; round < 5; ++round) {
    for (Store* s : {a_.get(), b_.get()}) {
      const std::int64_t seq = append(*s);
      EXPECT_GT(seq, last) << "round " << round;
      last = seq;
    }
  }
}

// A transaction with more events than one reserved block of numbers (PostgreSQL reserves 1,024
// at a time) numbers them in order without a repeat, and the other replica's next event follows.
TEST_P(StoreHa, ATransactionOfManyEventsNumbersThemInOrderAcrossBlocks) {
  const core::Id tenant = core::Id::generate();
  backend::EventRecord ev;
  ev.type = "job.test";
  ev.object_id = core::Id::generate();
  ev.data = core::Value::map({});
  std::vector<std::int64_t> seqs;
  ASSERT_TRUE(a_->transact([&](Store& tx) -> core::Status {
    for (int i = 0; i < 2500; ++i) {
      BUDCORE_TRY_ASSIGN(std::int64_t seq, tx.append_event(tenant, ev));
      seqs.push_back(seq);
    }
    return {};
  }));
  for (std::size_t i = 1; i < seqs.size(); ++i) ASSERT_GT(seqs[i], seqs[i - 1]) << "event " << i;
  std::int64_t after = 0;
  ASSERT_TRUE(b_->transact([&](Store& tx) -> core::Status {
    BUDCORE_TRY_ASSIGN(after, tx.append_event(tenant, ev));
    return {};
  }));
  EXPECT_GT(after, seqs.back());
  auto listed = a_->list_events(tenant, 0, 10'000);
  ASSERT_TRUE(listed) << listed.error().describe();
  ASSERT_EQ(listed->size(), 2501u);
  // The tenant's own numbers stay gapless: 1 to 2,501.
  for (std::size_t i = 0; i < listed->size(); ++i)
    EXPECT_EQ((*listed)[i].seq, static_cast<std::int64_t>(i + 1)) << "event " << i;
}

TEST_P(StoreHa, ReplicasReportThemselves) {
  ReplicaRecord r;
  r.replica = "r1";
  r.instance = "i1";
  r.role = "leader";
  r.epoch = 4;
  r.renew_us = 120;
  ASSERT_TRUE(a_->report_replica("platform", r));
  r.replica = "r2";
  r.role = "follower";
  ASSERT_TRUE(b_->report_replica("platform", r));
  auto all = a_->list_replicas("platform");
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ(all->front().replica, "r1");
  EXPECT_EQ(all->front().role, "leader");
  EXPECT_EQ(all->front().epoch, 4);
  EXPECT_EQ(all->back().role, "follower");
}

// A report for a row another process (instance) reported is refused while that row is fresh
// and taken over once it has been silent for `takeover_after`; a report without a takeover
// period always writes.
TEST_P(StoreHa, AReplicaRowIsTakenOverOnlyOnceItsProcessWasSilent) {
  backend::ReplicaRecord first;
  first.replica = "r1";
  first.instance = "first";
  first.role = "leader";
  ASSERT_TRUE(a_->report_replica("platform", first));
  backend::ReplicaRecord second = first;
  second.instance = "second";
  second.role = "follower";
  second.takeover_after = Duration::milliseconds(300);
  auto refused = b_->report_replica("platform", second);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::AlreadyExists);
  EXPECT_EQ(refused.error().field, "ha.replica");
  EXPECT_EQ(a_->list_replicas("platform")->front().instance, "first");
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  ASSERT_TRUE(b_->report_replica("platform", second));
  EXPECT_EQ(a_->list_replicas("platform")->front().instance, "second");
  // The first process, back, is refused in turn: the id is the second's now.
  first.takeover_after = Duration::milliseconds(300);
  EXPECT_EQ(a_->report_replica("platform", first).error().code, ErrorCode::AlreadyExists);
  first.role = "stopped";
  EXPECT_FALSE(a_->report_replica("platform", first));
  EXPECT_EQ(a_->list_replicas("platform")->front().role, "follower");
}

// A database restart drops every connection: the store opens its connection again before the
// next statement, so a replica goes on by itself once the server is back. A transaction the drop
// cut short fails as a whole and commits nothing.
TEST_P(StoreHa, AStoreReconnectsAfterTheServerDroppedItsConnection) {
  if (GetParam() != "postgres") GTEST_SKIP() << "PostgreSQL only: SQLite has no server";
  const std::string app = testing::unique_name("reconnect_");
  auto s = open_store(target_.uri + "&application_name=" + app);
  ASSERT_TRUE(s) << s.error().describe();
  auto admin = backends::open_postgres_connection(testing::PgServer::get()->admin_uri());
  ASSERT_TRUE(admin) << admin.error().describe();
  auto drop = [&] {
    // Waits (up to 5 s) until the backend is gone, so the next statement meets a closed socket.
    auto st = (*admin)->exec_script("SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE application_name = '" +
                                    app + "'");  // a generated name, not input
    ASSERT_TRUE(st) << st.error().describe();
  };
  ASSERT_TRUE((*s)->acquire_lease("platform", "a#1", Duration::seconds(30)));
  drop();
  // The statement that finds the connection closed fails; the next one reconnects.
  auto first = (*s)->read_lease("platform");
  if (!first) EXPECT_EQ(first.error().code, ErrorCode::Io) << first.error().describe();
  auto again = (*s)->read_lease("platform");
  ASSERT_TRUE(again) << again.error().describe();
  EXPECT_EQ(again->holder, "a#1");
  PlatformRequest r;
  r.tenant = core::Id::generate();
  r.kind = "adopt";
  r.object_id = core::Id::generate();
  r.replica = "a";
  auto cut = (*s)->transact([&](Store& tx) -> core::Status {
    BUDCORE_TRY(tx.append_request(r));
    drop();
    BUDCORE_TRY(tx.append_request(r));
    return {};
  });
  ASSERT_FALSE(cut);
  EXPECT_EQ(cut.error().code, ErrorCode::Io);
  auto left = (*s)->list_requests(0, 10);
  ASSERT_TRUE(left) << left.error().describe();
  EXPECT_TRUE(left->empty());  // nothing of the cut transaction
  ASSERT_TRUE((*s)->append_request(r));
  EXPECT_EQ((*s)->list_requests(0, 10)->size(), 1u);
}

// On PostgreSQL a follower's attempt on a lease the leader holds neither waits for the
// leader's fenced transaction (which reads the lease FOR SHARE) nor holds up the next one.
TEST_P(StoreHa, AnAttemptOnAHeldLeaseDoesNotWaitForTheLeadersTransactions) {
  if (GetParam() != "postgres") GTEST_SKIP() << "SQLite serializes every writer anyway";
  auto lease = a_->acquire_lease("platform", "a#1", Duration::seconds(30));
  ASSERT_TRUE(lease && lease->held_by("a#1"));
  a_->set_fence(Store::Fence{"platform", "a#1", lease->epoch});
  std::thread leader([&] {
    auto st = a_->transact([&](Store& tx) -> core::Status {
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      return tx.put_platform_record("state", "x", core::Value::map({}));
    });
    EXPECT_TRUE(st) << st.error().describe();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the leader's fence check is done
  const auto t0 = std::chrono::steady_clock::now();
  auto attempt = b_->acquire_lease("platform", "b#1", Duration::seconds(30));
  const auto waited = std::chrono::steady_clock::now() - t0;
  leader.join();
  ASSERT_TRUE(attempt) << attempt.error().describe();
  EXPECT_EQ(attempt->holder, "a#1");
  EXPECT_EQ(attempt->epoch, lease->epoch);
  EXPECT_LT(waited, std::chrono::milliseconds(1000));
  a_->set_fence(std::nullopt);
}

// A leader stopped inside a fenced transaction (SIGSTOP, a debugger, a VM pause) holds the lease
// row share-locked: with an idle limit the server ends that transaction, the lease passes on
// expiry and the stopped leader's transaction fails when it wakes instead of committing.
TEST_P(StoreHa, AStoppedLeadersTransactionIsEndedAfterTheIdleLimit) {
  if (GetParam() != "postgres") GTEST_SKIP() << "only a database server can end another's transaction";
  ASSERT_TRUE(a_->set_idle_transaction_limit(Duration::milliseconds(500)));
  auto lease = a_->acquire_lease("platform", "a#1", Duration::milliseconds(500));
  ASSERT_TRUE(lease && lease->held_by("a#1"));
  a_->set_fence(Store::Fence{"platform", "a#1", lease->epoch});
  std::thread leader([&] {
    auto st = a_->transact([&](Store& tx) -> core::Status {
      std::this_thread::sleep_for(std::chrono::milliseconds(2500));  // stopped past lease and limit
      return tx.put_platform_record("state", "stale", core::Value::map({}));
    });
    EXPECT_FALSE(st) << "a stopped leader's transaction committed after it was deposed";
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(700));  // the lease has expired
  const auto t0 = std::chrono::steady_clock::now();
  auto taken = b_->acquire_lease("platform", "b#1", Duration::seconds(30));
  const auto waited = std::chrono::steady_clock::now() - t0;
  leader.join();
  ASSERT_TRUE(taken) << taken.error().describe();
  EXPECT_EQ(taken->holder, "b#1");
  EXPECT_EQ(taken->epoch, lease->epoch + 1);
  EXPECT_LT(waited, std::chrono::milliseconds(1500)) << "the new leader waited for the stopped one";
  auto stale = b_->get_platform_record("state", "stale");
  ASSERT_TRUE(stale);
  EXPECT_FALSE(stale->has_value());
  // The handle reconnects for its next transaction, with the limit still set.
  a_->set_fence(std::nullopt);
  EXPECT_TRUE(a_->put_platform_record("state", "after", core::Value::map({})));
  EXPECT_FALSE(a_->set_idle_transaction_limit(Duration::milliseconds(0)));
  EXPECT_TRUE(a_->set_idle_transaction_limit(std::nullopt));
}

// The change marker moves when a transaction commits after a later one did (a follower's long
// batch finishing after the leader's commits), so that the leader looks at the requests again.
TEST_P(StoreHa, TheChangeMarkerMovesWhenAnEarlierTransactionCommitsLast) {
  if (GetParam() != "postgres") GTEST_SKIP() << "SQLite serializes every writer";
  std::thread slow([&] {
    auto st = a_->transact([&](Store& tx) -> core::Status {
      BUDCORE_TRY(tx.put_platform_record("state", "slow", core::Value::map({})));
      std::this_thread::sleep_for(std::chrono::milliseconds(800));
      return {};
    });
    EXPECT_TRUE(st) << st.error().describe();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the slow one has its transaction id
  ASSERT_TRUE(b_->put_platform_record("state", "quick", core::Value::map({})));
  auto before = b_->change_marker();
  ASSERT_TRUE(before);
  slow.join();
  auto after = b_->change_marker();
  ASSERT_TRUE(after);
  EXPECT_NE(*after, *before);
  EXPECT_EQ(*b_->change_marker(), *after);  // and stays put while nothing commits
}

INSTANTIATE_TEST_SUITE_P(Stores, StoreHa, ::testing::Values("sqlite_file", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace budcore::backend
