// Retention (docs/store.md "Retention") on SQLite (a file) and a real PostgreSQL server: compact()
// cuts each tenant's event log and audit chain by count and age (never the newest entry; open
// jobs' events stay), removes the usage of ended jobs, records every cut as a checkpoint; a
// watch from before the checkpoint is Gone, the audit chain verifies from its checkpoint, and the
// database still refuses to delete what no checkpoint covers.
#include <gtest/gtest.h>

#include "backends/store_fixture.hpp"
#include "budcore/backend/store.hpp"
#include "budcore/core/clock.hpp"

namespace budcore::backend {
namespace {

using core::Duration;
using core::ErrorCode;
using core::Id;
using core::Timestamp;

const Timestamp kStart = Timestamp::from_unix_seconds(1'767'225'600);  // 2026-01-01

class StoreRetention : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    target_ = testing::make_target(GetParam());
    if (!target_.skip.empty()) GTEST_SKIP() << target_.skip;
    ASSERT_TRUE(target_.error.empty()) << target_.error;
    options_.clock = std::make_shared<core::VirtualClock>(kStart);
    auto s = open_store(target_.uri, options_);
    ASSERT_TRUE(s) << s.error().describe();
    store_ = std::move(*s);
  }

  // One event per object (objects that are no job: nothing keeps them), a minute apart.
  void events(const Id& tenant, int n, Id object = Id()) {
    for (int i = 0; i < n; ++i) {
      EventRecord e;
      e.at = kStart + Duration::minutes(i);
      e.type = "job.transition";
      e.object_id = object.is_nil() ? Id::generate() : object;
      ASSERT_TRUE(store_->append_event(tenant, e));
    }
  }

  std::vector<AuditEntry> audit(const Id& tenant, int n) {
    std::vector<AuditEntry> out;
    for (int i = 0; i < n; ++i) {
      AuditEntry e;
      e.at = kStart + Duration::minutes(i);
      e.actor = "user:alice";
      e.action = "job.create";
      e.object_type = "job";
      e.object_id = "job-" + std::to_string(i);
      auto r = store_->append_audit(tenant, e);
      EXPECT_TRUE(r) << r.error().describe();
      if (r) out.push_back(*r);
    }
    return out;
  }

  core::Status raw(const std::string& sql) {
    auto conn = backends::open_connection(target_.uri, options_);
    if (!conn) return conn.error();
    return (*conn)->exec_script(sql);
  }

  testing::BackendTarget target_;
  StoreOptions options_;
  std::unique_ptr<Store> store_;
  const Id a_ = Id::generate();
  const Id b_ = Id::generate();
};

TEST_P(StoreRetention, EventsAreCutByCountAndAWatchFromBeforeTheCutIsGone) {
  events(a_, 10);
  events(b_, 3);
  RetentionPolicy p;
  p.event_max_count = 4;
  auto r = store_->compact(p, kStart + Duration::hours(1));
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(r->events_removed, 6);
  ASSERT_EQ(r->checkpoints.size(), 1u);  // b has only 3: nothing to cut
  EXPECT_EQ(r->checkpoints[0].tenant, a_);
  EXPECT_EQ(r->checkpoints[0].log, "events");
  EXPECT_EQ(r->checkpoints[0].seq, 6);

  for (std::int64_t since : {0, 1, 5}) {
    auto gone = store_->list_events(a_, since, 100);
    ASSERT_FALSE(gone) << since;
    EXPECT_EQ(gone.error().code, ErrorCode::Gone);
    EXPECT_EQ(gone.error().field, "since");
    EXPECT_EQ(gone.error().value, "6");
  }
  auto rest = store_->list_events(a_, 6, 100);
  ASSERT_TRUE(rest) << rest.error().describe();
  ASSERT_EQ(rest->size(), 4u);
  EXPECT_EQ(rest->front().seq, 7);
  auto of_b = store_->list_events(b_, 0, 100);
  ASSERT_TRUE(of_b);
  EXPECT_EQ(of_b->size(), 3u);
  // A tenant's numbers go on after the cut.
  events(a_, 1);
  EXPECT_EQ(store_->list_events(a_, 10, 100)->front().seq, 11);
  // A second run with the same policy finds the new head and cuts one more.
  auto again = store_->compact(p, kStart + Duration::hours(1));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->events_removed, 1);
  EXPECT_EQ(store_->retention_checkpoints()->front().seq, 7);
}

TEST_P(StoreRetention, EventsAreCutByAgeButATenantKeepsItsNewestAndOpenJobsKeepTheirs) {
  job::Job open_job;
  open_job.name = "still-open";
  open_job.project_id = Id::generate();
  open_job.cluster_id = Id::generate();
  auto created = store_->create_job(a_, open_job);
  ASSERT_TRUE(created) << created.error().describe();
  events(a_, 3, created->record.job.id);  // seq 1..3: the open job's
  events(a_, 5);                          // seq 4..8, minutes 0..4
  RetentionPolicy p;
  p.event_max_age = Duration::minutes(1);
  // Now = minute 3: events before minute 2 are old. Seq 1, 2 (minutes 0, 1) of the open job stay.
  auto r = store_->compact(p, kStart + Duration::minutes(3));
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->checkpoints.size(), 1u);
  EXPECT_EQ(r->checkpoints[0].seq, 5);  // seq 5 is minute 1, the newest older than minute 2
  EXPECT_EQ(r->events_removed, 2);      // seq 4, 5; seq 1, 2, 3 are the open job's
  // Everything old: the newest event stays all the same.
  auto all = store_->compact(p, kStart + Duration::hours(24 * 30));
  ASSERT_TRUE(all);
  EXPECT_EQ(store_->retention_checkpoints()->front().seq, 7);
  auto left = store_->list_events(a_, 7, 100);
  ASSERT_TRUE(left);
  ASSERT_EQ(left->size(), 1u);
  EXPECT_EQ(left->front().seq, 8);
}

TEST_P(StoreRetention, TheAuditChainVerifiesFromItsCheckpointAndStillCatchesTampering) {
  auto entries = audit(a_, 8);
  audit(b_, 2);
  ASSERT_EQ(entries.size(), 8u);
  RetentionPolicy p;
  p.audit_max_count = 3;
  auto r = store_->compact(p, kStart + Duration::hours(1));
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(r->audit_removed, 5);
  ASSERT_EQ(r->checkpoints.size(), 1u);
  EXPECT_EQ(r->checkpoints[0].seq, 5);
  EXPECT_EQ(r->checkpoints[0].hash, entries[4].hash);

  // The chain verifies from the checkpoint; anchors at or after it are found, older ones are not.
  auto ok = store_->verify_audit_chain({entries[4].hash, entries[6].hash});
  ASSERT_TRUE(ok);
  EXPECT_TRUE(ok->ok) << (ok->problems.empty() ? "" : ok->problems.front());
  EXPECT_EQ(ok->compacted, 5);
  auto old_anchor = store_->verify_audit_chain({entries[1].hash});
  ASSERT_TRUE(old_anchor);
  EXPECT_FALSE(old_anchor->ok);
  // The compaction is itself audited, in the system tenant's chain.
  auto sys = store_->list_audit(system_tenant(), AuditQuery{});
  ASSERT_TRUE(sys);
  ASSERT_FALSE(sys->items.empty());
  EXPECT_EQ(sys->items.back().action, "store.compacted");

  // A checkpoint moved forward together with the hash it now names, and the entries behind it
  // deleted (its table is the database's like any other), is not the one the compaction recorded.
  {
    const std::string hash6 = entries[5].hash;
    ASSERT_TRUE(raw("UPDATE retention_checkpoints SET seq = 6, hash = '" + hash6 + "' WHERE tenant_id = '" +
                    a_.to_string() + "' AND log = 'audit'"));
    ASSERT_TRUE(raw("DELETE FROM audit_log WHERE tenant_id = '" + a_.to_string() + "' AND tenant_seq = 6"));
    auto hidden = store_->verify_audit_chain({}, a_);
    ASSERT_TRUE(hidden);
    EXPECT_FALSE(hidden->ok);
    ASSERT_FALSE(hidden->problems.empty());
    EXPECT_NE(hidden->problems.front().find("moved by hand"), std::string::npos) << hidden->problems.front();
  }
  // A checkpoint added for a tenant no compaction cut is found too.
  ASSERT_TRUE(raw("INSERT INTO retention_checkpoints (tenant_id, log, seq, hash, at_ns) VALUES ('" + b_.to_string() +
                  "', 'audit', 1, 'x', 0)"));
  auto added = store_->verify_audit_chain({}, b_);
  ASSERT_TRUE(added);
  EXPECT_FALSE(added->ok);
  // The database refuses to delete an entry no checkpoint covers.
  auto refused = raw("DELETE FROM audit_log WHERE tenant_id = '" + a_.to_string() + "' AND tenant_seq = 7");
  EXPECT_FALSE(refused);
  // Someone who drops the triggers and deletes past the checkpoint is found.
  const bool sqlite = store_->backend_name() == "sqlite";
  ASSERT_TRUE(raw(std::string(sqlite ? "DROP TRIGGER audit_log_append_only_d;"
                                     : "DROP TRIGGER audit_log_delete_behind_checkpoint ON audit_log;") +
                  "DELETE FROM audit_log WHERE tenant_id = '" + a_.to_string() + "' AND tenant_seq = 6"));
  auto broken = store_->verify_audit_chain();
  ASSERT_TRUE(broken);
  EXPECT_FALSE(broken->ok);
  // As is a checkpoint moved forward to hide the deletion (its hash is not the entry's before 7).
  ASSERT_TRUE(raw("UPDATE retention_checkpoints SET seq = 6 WHERE tenant_id = '" + a_.to_string() + "' AND log = 'audit'"));
  auto moved = store_->verify_audit_chain();
  ASSERT_TRUE(moved);
  EXPECT_FALSE(moved->ok);
}

TEST_P(StoreRetention, UsageOfEndedJobsGoesOpenJobsKeepTheirs) {
  job::Job open_job;
  open_job.name = "running-long";
  open_job.project_id = Id::generate();
  open_job.cluster_id = Id::generate();
  auto created = store_->create_job(a_, open_job);
  ASSERT_TRUE(created) << created.error().describe();
  const Id ended = Id::generate();  // a job the store no longer lists as open
  auto usage = [&](const Id& job, Timestamp start) {
    UsageRecord u;
    u.job_id = job;
    u.start = start;
    u.end = start + Duration::hours(1);
    u.data = core::Value::map({{"gpu_seconds", 3600}});
    auto appended = store_->append_usage(a_, u);
    ASSERT_TRUE(appended) << appended.error().describe();
  };
  usage(ended, kStart);
  usage(created->record.job.id, kStart);
  usage(ended, kStart + Duration::hours(24 * 150));
  RetentionPolicy p;
  p.usage_max_age = Duration::hours(24 * 100);
  auto r = store_->compact(p, kStart + Duration::hours(24 * 200));
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(r->usage_removed, 1);
  auto left = store_->list_usage(a_, UsageQuery{});
  ASSERT_TRUE(left);
  ASSERT_EQ(left->items.size(), 2u);
  EXPECT_EQ(left->items[0].job_id, created->record.job.id);
  // A record younger than the checkpoint may not be deleted by hand.
  EXPECT_FALSE(raw("DELETE FROM usage_records WHERE tenant_id = '" + a_.to_string() + "' AND start_ns > " +
                   std::to_string((kStart + Duration::hours(24 * 1)).unix_nanos())));
  EXPECT_EQ(store_->list_usage(a_, UsageQuery{})->items.size(), 2u);
}

TEST_P(StoreRetention, APolicyOutOfRangeIsRefusedNamingTheField) {
  RetentionPolicy p;
  p.event_max_count = 0;
  auto r = store_->compact(p, kStart);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::Invalid);
  EXPECT_EQ(r.error().field, "event_max_count");
  RetentionPolicy q;
  q.audit_max_age = Duration::seconds(-1);
  EXPECT_EQ(store_->compact(q, kStart).error().field, "audit_max_age");
  // Nothing to do is no error, and moves no checkpoint.
  auto none = store_->compact(RetentionPolicy{}, kStart);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->checkpoints.empty());
  EXPECT_TRUE(store_->retention_checkpoints()->empty());
}

INSTANTIATE_TEST_SUITE_P(Stores, StoreRetention, ::testing::Values("sqlite_file", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace budcore::backend
