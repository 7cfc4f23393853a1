// The audit log's hash chains (one per tenant) and role bindings, on SQLite (a file) and a real
// PostgreSQL server: the chains verify, and an edited, deleted or inserted row is found by
// verify_audit_chain after the append-only triggers were dropped by someone with database
// access; a truncation with a rewritten head is found by an anchor kept outside the store.
#include <gtest/gtest.h>

#include <cctype>
#include <string>

#include "backends/store_fixture.hpp"
#include "budcore/backend/store.hpp"
#include "budcore/core/clock.hpp"

namespace budcore::backend {
namespace {

using core::ErrorCode;
using core::Id;

class StoreSecurity : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    target_ = testing::make_target(GetParam());
    if (!target_.skip.empty()) GTEST_SKIP() << target_.skip;
    ASSERT_TRUE(target_.error.empty()) << target_.error;
    options_.clock = std::make_shared<core::VirtualClock>();
    auto s = open_store(target_.uri, options_);
    ASSERT_TRUE(s) << s.error().describe();
    store_ = std::move(*s);
  }

  // Raw SQL on the same database, as an attacker with database access would run it.
  void tamper(const std::string& sql) {
    auto conn = backends::open_connection(target_.uri, options_);
    ASSERT_TRUE(conn) << conn.error().describe();
    const bool sqlite = (*conn)->dialect() == backends::Dialect::Sqlite;
    std::string drop = sqlite ? "DROP TRIGGER IF EXISTS audit_log_append_only_u; DROP TRIGGER IF EXISTS audit_log_append_only_d;"
                              : "DROP TRIGGER IF EXISTS audit_log_append_only ON audit_log; "
                                "DROP TRIGGER IF EXISTS audit_log_delete_behind_checkpoint ON audit_log;";
    auto st = (*conn)->exec_script(drop + sql);
    ASSERT_TRUE(st) << st.error().describe();
  }

  std::vector<AuditEntry> append(int n) {
    std::vector<AuditEntry> out;
    for (int i = 0; i < n; ++i) {
      AuditEntry e;
      e.actor = "user:alice";
      e.action = i % 2 == 0 ? "job.create" : "job.cancel";
      e.object_type = "job";
      e.object_id = "job-" + std::to_string(i);
      e.request_id = "req-" + std::to_string(i);
      e.detail = core::Value::map({{"i", i}});
      auto r = store_->append_audit(i % 3 == 0 ? tenant_b_ : tenant_a_, e);
      EXPECT_TRUE(r) << r.error().describe();
      if (r) out.push_back(*r);
    }
    return out;
  }

  testing::BackendTarget target_;
  StoreOptions options_;
  std::unique_ptr<Store> store_;
  const Id tenant_a_ = Id::generate();
  const Id tenant_b_ = Id::generate();
};

// Raw-SQL selector of one entry: (tenant, the tenant's seq).
std::string row(const Id& tenant, const AuditEntry& e) {
  return "tenant_id = '" + tenant.to_string() + "' AND tenant_seq = " + std::to_string(e.seq);
}

TEST_P(StoreSecurity, EachTenantHasAChainOfItsOwnAndEveryChainVerifies) {
  auto entries = append(6);  // tenants b, a, a, b, a, a
  ASSERT_EQ(entries.size(), 6u);
  // Each tenant's entries are numbered 1, 2, ... and chained among themselves only.
  std::vector<AuditEntry> of_a, of_b;
  for (std::size_t i = 0; i < entries.size(); ++i) (i % 3 == 0 ? of_b : of_a).push_back(entries[i]);
  for (const auto* chain : {&of_a, &of_b}) {
    EXPECT_EQ(chain->front().prev_hash, std::string(64, '0'));
    for (std::size_t i = 0; i < chain->size(); ++i) {
      EXPECT_EQ((*chain)[i].seq, static_cast<std::int64_t>(i + 1));
      EXPECT_EQ((*chain)[i].hash.size(), 64u);
      if (i > 0) EXPECT_EQ((*chain)[i].prev_hash, (*chain)[i - 1].hash) << i;
    }
  }
  auto listed = store_->list_audit(tenant_a_, {});
  ASSERT_TRUE(listed) << listed.error().describe();
  ASSERT_EQ(listed->items.size(), of_a.size());
  EXPECT_EQ(listed->items.front().hash, of_a.front().hash);
  EXPECT_EQ(listed->items.front().seq, 1);
  auto report = store_->verify_audit_chain();
  ASSERT_TRUE(report) << report.error().describe();
  EXPECT_TRUE(report->ok) << (report->problems.empty() ? "" : report->problems.front());
  EXPECT_EQ(report->entries, 6);
  EXPECT_EQ(report->unchained, 0);
  EXPECT_EQ(report->head_seq, 6);
  ASSERT_EQ(report->heads.size(), 2u);
  for (const auto& h : report->heads) EXPECT_EQ(h.hash, h.tenant == tenant_a_ ? of_a.back().hash : of_b.back().hash);
  EXPECT_EQ(report->head_hash, audit_heads_digest(report->heads));
  EXPECT_EQ(store_->audit_heads().value(), report->heads);
}

TEST_P(StoreSecurity, AppendsInOneTransactionChainAndARollbackLeavesNoTrace) {
  append(2);  // b then a
  AuditEntry e;
  e.actor = "user:bob";
  e.action = "jobs.create";
  auto failed = store_->transact([&](Store& tx) -> core::Status {
    for (int i = 0; i < 3; ++i)
      if (auto r = tx.append_audit(tenant_a_, e); !r) return r.error();
    return core::Error::make(ErrorCode::Conflict, "changed my mind");
  });
  ASSERT_FALSE(failed);
  auto after_rollback = store_->verify_audit_chain();
  ASSERT_TRUE(after_rollback && after_rollback->ok);
  EXPECT_EQ(after_rollback->entries, 2);
  std::vector<AuditEntry> in_tx;
  ASSERT_TRUE(store_->transact([&](Store& tx) -> core::Status {
    for (int i = 0; i < 3; ++i) {
      auto r = tx.append_audit(i == 1 ? tenant_b_ : tenant_a_, e);
      if (!r) return r.error();
      in_tx.push_back(*r);
    }
    return {};
  }));
  EXPECT_EQ(in_tx[0].seq, 2);
  EXPECT_EQ(in_tx[2].seq, 3);
  EXPECT_EQ(in_tx[2].prev_hash, in_tx[0].hash);
  EXPECT_EQ(in_tx[1].seq, 2);
  auto report = store_->verify_audit_chain();
  ASSERT_TRUE(report) << report.error().describe();
  EXPECT_TRUE(report->ok) << (report->problems.empty() ? "" : report->problems.front());
  EXPECT_EQ(report->entries, 5);
  auto single = store_->append_audit(tenant_a_, e);  // outside a transaction, after it
  ASSERT_TRUE(single);
  EXPECT_EQ(single->prev_hash, in_tx[2].hash);
  EXPECT_EQ(single->seq, 4);
}

TEST_P(StoreSecurity, VerifyFindsAnEditedEntry) {
  auto entries = append(5);
  tamper("UPDATE audit_log SET actor = 'user:mallory' WHERE " + row(tenant_a_, entries[2]) + ";");
  auto report = store_->verify_audit_chain();
  ASSERT_TRUE(report) << report.error().describe();
  EXPECT_FALSE(report->ok);
  ASSERT_EQ(report->problems.size(), 1u);
  EXPECT_NE(report->problems[0].find("seq " + std::to_string(entries[2].seq)), std::string::npos) << report->problems[0];
  EXPECT_NE(report->problems[0].find("edited"), std::string::npos) << report->problems[0];
}

TEST_P(StoreSecurity, VerifyFindsADeletedEntryInTheMiddleAndAtTheEnd) {
  auto entries = append(6);  // a's: entries 1, 2, 4, 5 (seq 1..4)
  tamper("DELETE FROM audit_log WHERE " + row(tenant_a_, entries[2]) + ";");
  auto middle = store_->verify_audit_chain();
  ASSERT_TRUE(middle) << middle.error().describe();
  EXPECT_FALSE(middle->ok);
  ASSERT_EQ(middle->problems.size(), 1u);
  EXPECT_NE(middle->problems[0].find("seq " + std::to_string(entries[4].seq)), std::string::npos) << middle->problems[0];
  EXPECT_NE(middle->problems[0].find("deleted"), std::string::npos);

  tamper("DELETE FROM audit_log WHERE " + row(tenant_a_, entries[5]) + ";");
  auto tail = store_->verify_audit_chain();
  ASSERT_TRUE(tail) << tail.error().describe();
  EXPECT_FALSE(tail->ok);
  ASSERT_EQ(tail->problems.size(), 2u);
  EXPECT_NE(tail->problems[1].find("audit_heads"), std::string::npos) << tail->problems[1];
}

TEST_P(StoreSecurity, VerifyFindsARecomputedRowWithoutTheHead) {
  // An attacker who rewrites a row's hash to match its edit still breaks the next row's link.
  auto entries = append(3);  // b, a, a
  tamper("UPDATE audit_log SET hash = '" + std::string(64, 'a') + "' WHERE " + row(tenant_a_, entries[1]) + ";");
  auto report = store_->verify_audit_chain();
  ASSERT_TRUE(report) << report.error().describe();
  EXPECT_FALSE(report->ok);
  EXPECT_EQ(report->problems.size(), 2u);  // row 1's hash, row 2's link
}

// A database writer who re-spells a tenant's id (capitals) would hide its entries from the
// tenant's reads while every hash still matches: verify finds it.
TEST_P(StoreSecurity, VerifyFindsARespelledTenantId) {
  append(4);
  std::string upper = tenant_a_.to_string();
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  tamper("UPDATE audit_log SET tenant_id = '" + upper + "' WHERE tenant_id = '" + tenant_a_.to_string() + "';"
         "UPDATE audit_heads SET tenant_id = '" + upper + "' WHERE tenant_id = '" + tenant_a_.to_string() + "';");
  auto report = store_->verify_audit_chain();
  ASSERT_TRUE(report) << report.error().describe();
  EXPECT_FALSE(report->ok);
  ASSERT_FALSE(report->problems.empty());
  EXPECT_NE(report->problems[0].find("not written as the store writes it"), std::string::npos) << report->problems[0];
}

// Truncating a chain and rewriting its head is consistent by itself; an anchor kept outside
// the store (a head published earlier) finds it.
TEST_P(StoreSecurity, AnAnchorFindsATruncatedChainWithARewrittenHead) {
  auto entries = append(6);
  auto before = store_->verify_audit_chain();
  ASSERT_TRUE(before && before->ok);
  std::vector<std::string> anchors;
  for (const auto& h : before->heads) anchors.push_back(h.hash);
  EXPECT_TRUE(store_->verify_audit_chain(anchors)->ok);
  // Drop a's last entry and point the head at the one before it: the chain alone verifies.
  tamper("DELETE FROM audit_log WHERE " + row(tenant_a_, entries[5]) + ";"
         "UPDATE audit_heads SET last_seq = " + std::to_string(entries[4].seq) + ", last_hash = '" + entries[4].hash +
         "' WHERE tenant_id = '" + tenant_a_.to_string() + "';");
  auto alone = store_->verify_audit_chain();
  ASSERT_TRUE(alone);
  EXPECT_TRUE(alone->ok) << (alone->problems.empty() ? "" : alone->problems.front());
  EXPECT_NE(alone->head_hash, before->head_hash);
  auto anchored = store_->verify_audit_chain(anchors);
  ASSERT_TRUE(anchored);
  EXPECT_FALSE(anchored->ok);
  ASSERT_EQ(anchored->problems.size(), 1u);
  EXPECT_NE(anchored->problems[0].find(entries[5].hash), std::string::npos) << anchored->problems[0];
}

TEST_P(StoreSecurity, RoleBindingsArePerTenantAndExact) {
  RoleBindingRecord b;
  b.principal = "user:alice'); DROP TABLE jobs; --";
  b.role = "editor";
  b.created_by = "user:root";
  auto put = store_->put_role_binding(tenant_a_, b);
  ASSERT_TRUE(put) << put.error().describe();
  EXPECT_NE(put->created_at, core::Timestamp());
  EXPECT_EQ(store_->put_role_binding(tenant_a_, b).error().code, ErrorCode::AlreadyExists);
  RoleBindingRecord p = b;
  p.project_id = Id::generate();
  p.role = "admin";
  ASSERT_TRUE(store_->put_role_binding(tenant_a_, p));
  RoleBindingRecord other;
  other.principal = "sa:ci-bot";
  other.role = "viewer";
  other.created_by = "user:root";
  ASSERT_TRUE(store_->put_role_binding(tenant_a_, other));
  ASSERT_TRUE(store_->put_role_binding(system_tenant(), RoleBindingRecord{"user:root", "platform-admin", {}, {}, "config"}));

  auto all = store_->list_role_bindings(tenant_a_);
  ASSERT_TRUE(all) << all.error().describe();
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].principal, "sa:ci-bot");
  auto alice = store_->list_role_bindings(tenant_a_, b.principal);
  ASSERT_TRUE(alice);
  ASSERT_EQ(alice->size(), 2u);
  EXPECT_EQ((*alice)[0].role, "admin");
  EXPECT_EQ((*alice)[0].project_id, p.project_id);
  EXPECT_EQ((*alice)[1].role, "editor");
  EXPECT_FALSE((*alice)[1].project_id);
  EXPECT_TRUE(store_->list_role_bindings(tenant_b_)->empty());
  EXPECT_EQ(store_->list_role_bindings(system_tenant())->size(), 1u);

  // Tenant B cannot remove tenant A's binding; A can, once.
  EXPECT_EQ(store_->delete_role_binding(tenant_b_, b.principal, "editor", std::nullopt).error().code, ErrorCode::NotFound);
  EXPECT_TRUE(store_->delete_role_binding(tenant_a_, b.principal, "editor", std::nullopt));
  auto again = store_->delete_role_binding(tenant_a_, b.principal, "editor", std::nullopt);
  EXPECT_EQ(again.error().code, ErrorCode::NotFound);
  EXPECT_NE(again.error().message.find("no role editor"), std::string::npos) << again.error().message;
  EXPECT_EQ(store_->list_role_bindings(tenant_a_, b.principal)->size(), 1u);
  EXPECT_EQ(store_->put_role_binding(tenant_a_, RoleBindingRecord{"", "viewer", {}, {}, "user:root"}).error().field,
            "principal");
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreSecurity, ::testing::Values("sqlite_file", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace budcore::backend
