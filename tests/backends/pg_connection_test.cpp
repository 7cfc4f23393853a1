// The PostgreSQL connection's session: statements it prepares keep finding rows by their key
// after the table they read has grown, and the same holds on a connection opened again.
#include <gtest/gtest.h>

#include <string>

#include "backends/pg_server.hpp"
#include "backends/store_common.hpp"

namespace budcore::backends {
namespace {

std::string plan_of(SqlConnection& db, std::string_view explain) {
  std::string plan;
  auto st = db.query(explain, {}, [&](const SqlRow& row) -> core::Status {
    plan += std::string(row.text(0)) + "\n";
    return {};
  });
  EXPECT_TRUE(st) << st.error().describe();
  return plan;
}

std::string plan_cache_mode(SqlConnection& db) {
  std::string mode;
  auto st = db.query("SHOW plan_cache_mode", {}, [&](const SqlRow& row) -> core::Status {
    mode = row.text(0);
    return {};
  });
  EXPECT_TRUE(st) << st.error().describe();
  return mode;
}

// A lookup by (tenant, id) run often while its table held one tenant's 100 rows (and the
// server's statistics said so), then after 20,000 more arrived: it must read the row by the
// primary key, not scan the table or the tenant's rows (the plan the server would keep from when
// the table was small, as on a fresh deployment's first burst of jobs).
TEST(PgConnection, APreparedLookupUsesTheKeyAfterItsTableGrew) {
  auto* server = testing::PgServer::get();
  if (server == nullptr) GTEST_SKIP() << testing::PgServer::reason();
  auto db = open_postgres_connection(server->admin_uri());
  ASSERT_TRUE(db) << db.error().describe();
  ASSERT_TRUE((*db)->exec_script("CREATE TEMP TABLE rows_by_key (tenant TEXT, id TEXT, v BIGINT, PRIMARY KEY (tenant, id)); "
                                 "CREATE INDEX rows_by_tenant ON rows_by_key (tenant, v); "
                                 "INSERT INTO rows_by_key SELECT 'a', g::text, g FROM generate_series(0, 99) g; "
                                 "ANALYZE rows_by_key"));
  const std::string lookup = "SELECT v FROM rows_by_key WHERE tenant = ? AND id = ?";
  for (int i = 0; i < 12; ++i) {  // past the runs after which a server may keep one plan for all
    SqlParam p[] = {std::string_view("a"), std::string_view("0")};
    ASSERT_TRUE((*db)->query(lookup, p, [](const SqlRow&) -> core::Status { return {}; }));
  }
  ASSERT_TRUE((*db)->exec_script("INSERT INTO rows_by_key SELECT 'a', g::text, g FROM generate_series(100, 20099) g"));
  // The connection's first prepared statement is the lookup (budcore_1).
  const std::string plan = plan_of(**db, "EXPLAIN EXECUTE budcore_1('a', '15000')");
  EXPECT_NE(plan.find("rows_by_key_pkey"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("rows_by_tenant"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("Seq Scan"), std::string::npos) << plan;
  EXPECT_EQ(plan_cache_mode(**db), "force_custom_plan");
}

// A session the server ended (a restart, a failover) is opened again with the same settings.
TEST(PgConnection, AReopenedSessionKeepsItsSettings) {
  auto* server = testing::PgServer::get();
  if (server == nullptr) GTEST_SKIP() << testing::PgServer::reason();
  auto db = open_postgres_connection(server->admin_uri() + "?application_name=reopened_session");
  auto admin = open_postgres_connection(server->admin_uri());
  ASSERT_TRUE(db && admin);
  ASSERT_TRUE((*admin)->exec_script(
      "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE application_name = 'reopened_session'"));
  (void)(*db)->exec_script("SELECT 1");  // meets the closed session
  EXPECT_EQ(plan_cache_mode(**db), "force_custom_plan");
}

}  // namespace
}  // namespace budcore::backends
