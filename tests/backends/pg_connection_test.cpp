// The PostgreSQL connection's prepared statements keep finding rows by their key after the
// table they read has grown.
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
  // Within the next thousand runs the lookup is prepared again, for the table as it is now.
  for (int i = 0; i < 1020; ++i) {
    SqlParam p[] = {std::string_view("a"), std::string_view("15000")};
    ASSERT_TRUE((*db)->query(lookup, p, [](const SqlRow&) -> core::Status { return {}; }));
  }
  std::string name;
  ASSERT_TRUE((*db)->query("SELECT name FROM pg_prepared_statements WHERE statement LIKE 'SELECT v FROM%'", {},
                           [&](const SqlRow& row) -> core::Status {
                             name = row.text(0);
                             return {};
                           }));
  ASSERT_FALSE(name.empty());
  const std::string plan = plan_of(**db, "EXPLAIN EXECUTE " + name + "('a', '15000')");
  EXPECT_NE(plan.find("rows_by_key_pkey"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("rows_by_tenant"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("Seq Scan"), std::string::npos) << plan;
  std::int64_t statements = 0;
  ASSERT_TRUE((*db)->query("SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE 'SELECT v FROM%'", {}, [&](const SqlRow& row) -> core::Status {
    statements = row.int64(0);
    return {};
  }));
  EXPECT_EQ(statements, 1) << "a statement prepared again left its old one behind";
}

}  // namespace
}  // namespace budcore::backends
