// SQLite-specific behaviour: bad files, schema versions and migrations, damaged documents,
// several connections on one file, and the URI forms.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "backends/sql_security.hpp"
#include "backends/store_common.hpp"
#include "backends/store_fixture.hpp"
#include "budcore/backend/store.hpp"
#include "budcore/core/json.hpp"
#include "budcore/job/job.hpp"

namespace budcore::backend {
namespace {

using core::ErrorCode;
using core::Id;

class StoreSqliteTest : public ::testing::Test {
 protected:
  std::string path() const { return (dir_.path / "store.db").string(); }
  std::string uri() const { return "sqlite://" + path(); }

  // Runs SQL on the file directly, as a damaged or foreign writer would.
  void raw_exec(const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path().c_str(), &db), SQLITE_OK);
    char* err = nullptr;
    int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
    std::string msg = err != nullptr ? err : "";
    sqlite3_free(err);
    sqlite3_close(db);
    ASSERT_EQ(rc, SQLITE_OK) << msg;
  }

  JobRecord make_job(Store& s, const Id& tenant) {
    job::Job j;
    j.name = "job";
    auto r = s.create_job(tenant, j);
    EXPECT_TRUE(r) << r.error().describe();
    return r ? r->record : JobRecord{};
  }

  testing::TempDir dir_;
  const Id tenant_ = Id::generate();
};

TEST_F(StoreSqliteTest, AFileThatIsNotADatabaseFailsClearly) {
  {
    std::ofstream f(path(), std::ios::binary);
    for (int i = 0; i < 4096; ++i) f.put(static_cast<char>((i * 7919) & 0xff));
  }
  auto s = open_store(uri());
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, ErrorCode::Io);
  EXPECT_NE(s.error().message.find("not a database"), std::string::npos) << s.error().message;
  auto check = check_store(uri());
  EXPECT_FALSE(check);
}

TEST_F(StoreSqliteTest, ATruncatedDatabaseGivesErrorsNotCrashes) {
  {
    auto s = open_store(uri());
    ASSERT_TRUE(s);
    for (int i = 0; i < 300; ++i) make_job(**s, tenant_);
  }
  // Fold the WAL into the main file, then cut the file in half.
  raw_exec("PRAGMA wal_checkpoint(TRUNCATE)");
  auto size = std::filesystem::file_size(path());
  std::filesystem::resize_file(path(), size / 2);
  std::filesystem::remove(path() + "-wal");
  auto s = open_store(uri());
  if (!s) {
    EXPECT_EQ(s.error().code, ErrorCode::Io);
    return;
  }
  // Reading every page must fail cleanly somewhere, and check must report the damage.
  auto list = (*s)->list_jobs(tenant_, {}, PageRequest{1000, ""});
  if (!list) EXPECT_EQ(list.error().code, ErrorCode::Io);
  auto check = check_store(uri());
  if (check) {
    EXPECT_FALSE(check->ok);
    EXPECT_FALSE(check->problems.empty());
  } else {
    EXPECT_EQ(check.error().code, ErrorCode::Io);
  }
}

TEST_F(StoreSqliteTest, ANewerSchemaFailsToOpenNamingBothVersions) {
  ASSERT_TRUE(open_store(uri()));
  raw_exec("UPDATE budcore_meta SET schema_version = 99");
  auto s = open_store(uri());
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, ErrorCode::Unsupported);
  EXPECT_EQ(s.error().field, "schema_version");
  EXPECT_NE(s.error().message.find("99"), std::string::npos);
  EXPECT_NE(s.error().message.find(std::to_string(latest_schema_version())), std::string::npos);
  auto check = check_store(uri());
  ASSERT_TRUE(check);
  EXPECT_FALSE(check->ok);
  EXPECT_EQ(check->schema_version, 99);
}

// Stored versions past int's range, or negative, are refused as read: never narrowed into an
// older version (which would open the store, or start a migration over billions of versions).
TEST_F(StoreSqliteTest, ASchemaVersionOutOfRangeIsRefusedNotNarrowed) {
  ASSERT_TRUE(open_store(uri()));
  for (const char* stored : {"4294967305", "2147483648", "999999999999"}) {
    SCOPED_TRACE(stored);
    raw_exec(std::string("UPDATE budcore_meta SET schema_version = ") + stored);
    auto s = open_store(uri());
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, ErrorCode::Unsupported);
    EXPECT_EQ(s.error().field, "schema_version");
    EXPECT_NE(s.error().message.find(stored), std::string::npos) << s.error().message;
    EXPECT_FALSE(check_store(uri()));
  }
  raw_exec("UPDATE budcore_meta SET schema_version = -1");
  auto negative = open_store(uri());
  ASSERT_FALSE(negative);
  EXPECT_EQ(negative.error().code, ErrorCode::Io);
  EXPECT_EQ(negative.error().field, "schema_version");
}

TEST_F(StoreSqliteTest, AnOlderSchemaMigratesForwardOnOpen) {
  {
    auto conn = backends::open_connection(uri(), {});
    ASSERT_TRUE(conn);
    auto m = backends::migrate_schema(**conn, true, 1);
    ASSERT_TRUE(m) << m.error().describe();
    EXPECT_EQ(m->from, 0);
    EXPECT_EQ(m->to, 1);
  }
  StoreOptions no_migrate;
  no_migrate.migrate = false;
  auto refused = open_store(uri(), no_migrate);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::Unsupported);
  EXPECT_NE(refused.error().message.find("store migrate"), std::string::npos);
  auto s = open_store(uri());
  ASSERT_TRUE(s) << s.error().describe();
  EXPECT_EQ(*(*s)->schema_version(), latest_schema_version());
  // Version 2 made the audit log append-only in the database itself.
  AuditEntry e;
  e.actor = "a";
  e.action = "b";
  ASSERT_TRUE((*s)->append_audit(tenant_, e));
  s->reset();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path().c_str(), &db), SQLITE_OK);
  EXPECT_NE(sqlite3_exec(db, "UPDATE audit_log SET actor = 'mallory'", nullptr, nullptr, nullptr), SQLITE_OK);
  EXPECT_NE(sqlite3_exec(db, "DELETE FROM audit_log", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
}

// Schema 7 numbers events and audit entries per tenant and chains the audit log per tenant: a
// store written by schema 6 (one global chain) is re-chained on migration, what the old chain
// said about itself is recorded in the system tenant's chain, and pipeline steps' keys move
// into the platform's namespace.
class SchemaSevenMigration : public StoreSqliteTest, public ::testing::WithParamInterface<bool> {};

TEST_P(SchemaSevenMigration, ReChainsPerTenantAndRecordsWhatTheOldChainSaid) {
  const bool tampered = GetParam();
  const Id other = Id::generate();
  {
    auto conn = backends::open_connection(uri(), {});
    ASSERT_TRUE(conn);
    ASSERT_TRUE(backends::migrate_schema(**conn, true, 6));
  }
  // Six entries chained over both tenants as schema 6 wrote them, and events seq 1..5.
  std::string prev(64, '0');
  for (int i = 0; i < 6; ++i) {
    const Id& t = i % 2 == 0 ? tenant_ : other;
    AuditEntry e;
    e.at = core::Timestamp::from_unix_nanos(1000 + i);
    e.actor = "user:alice";
    e.action = "jobs.create";
    e.object_type = "job";
    e.object_id = "j" + std::to_string(i);
    e.prev_hash = prev;
    const std::string detail = "{\"i\":" + std::to_string(i) + "}";
    e.hash = backends::audit_entry_hash(t, e, detail);
    raw_exec("INSERT INTO audit_log (tenant_id, at_ns, actor, action, object_type, object_id, request_id, detail, "
             "prev_hash, hash) VALUES ('" + t.to_string() + "', " + std::to_string(1000 + i) + ", 'user:alice', "
             "'jobs.create', 'job', 'j" + std::to_string(i) + "', '', '" + detail + "', '" + prev + "', '" + e.hash + "')");
    prev = e.hash;
  }
  raw_exec("UPDATE audit_chain SET last_seq = 6, last_hash = '" + prev + "'");
  if (tampered) {
    raw_exec("DROP TRIGGER audit_log_append_only_u");
    raw_exec("UPDATE audit_log SET actor = 'user:mallory' WHERE seq = 3");
  }
  for (int i = 0; i < 5; ++i)
    raw_exec("INSERT INTO platform_events (tenant_id, at_ns, type, object_id, doc) VALUES ('" +
             (i < 3 ? tenant_ : other).to_string() + "', 1, 'job.transition', '" + Id::generate().to_string() + "', '{}')");
  // A pipeline step's job under the old key "<run>/<step>/<attempt>".
  const Id run = Id::generate();
  job::Job j;
  j.id = Id::generate();
  j.tenant_id = tenant_;
  j.name = "step";
  j.source = job::JobSource::Pipeline;
  j.pipeline_id = run;
  j.source_id = run;
  raw_exec("INSERT INTO jobs (tenant_id, id, project_id, cluster_id, pipeline_id, status, job_type, source, created_ns, "
           "updated_ns, version, idempotency_key, doc) VALUES ('" + tenant_.to_string() + "', '" + j.id.to_string() +
           "', '" + j.project_id.to_string() + "', '" + j.cluster_id.to_string() + "', '" + run.to_string() +
           "', 'pending', 'batch', 'pipeline', 1, 1, 1, '" + run.to_string() + "/s/1', '" + core::to_json(j.to_value()) + "')");
  auto s = open_store(uri());
  ASSERT_TRUE(s) << s.error().describe();
  EXPECT_EQ(*(*s)->schema_version(), latest_schema_version());
  // Events: each tenant's numbered from 1, new ones continue the tenant's sequence.
  auto mine = (*s)->list_events(tenant_, 0, 100);
  ASSERT_TRUE(mine);
  ASSERT_EQ(mine->size(), 3u);
  EXPECT_EQ(mine->back().seq, 3);
  EventRecord ev;
  ev.type = "job.transition";
  ev.object_id = run;
  ASSERT_TRUE((*s)->append_event(other, ev));
  EXPECT_EQ((*s)->list_events(other, 0, 100)->back().seq, 3);
  // Audit: re-chained per tenant, plus the migration's own entry in the system tenant's chain.
  auto report = (*s)->verify_audit_chain();
  ASSERT_TRUE(report) << report.error().describe();
  EXPECT_TRUE(report->ok) << (report->problems.empty() ? "" : report->problems.front());
  EXPECT_EQ(report->entries, 7);
  ASSERT_EQ(report->heads.size(), 3u);
  auto mine_audit = (*s)->list_audit(tenant_, {});
  ASSERT_EQ(mine_audit->items.size(), 3u);
  EXPECT_EQ(mine_audit->items[2].seq, 3);
  EXPECT_EQ(mine_audit->items[0].prev_hash, std::string(64, '0'));
  EXPECT_EQ(mine_audit->items[1].prev_hash, mine_audit->items[0].hash);
  auto conn = backends::open_connection(uri(), {});
  ASSERT_TRUE(conn);
  std::string detail;
  ASSERT_TRUE((*conn)->query("SELECT detail FROM audit_log WHERE action = 'audit_log.rechained'", {},
                             [&](const backends::SqlRow& row) -> core::Status {
                               detail = std::string(row.text(0));
                               return {};
                             }));
  EXPECT_NE(detail.find(tampered ? "\"previous_chain_ok\":false" : "\"previous_chain_ok\":true"), std::string::npos) << detail;
  if (tampered) EXPECT_NE(detail.find("seq 3: edited"), std::string::npos) << detail;
  auto moved = (*s)->get_job_by_key(tenant_, "budcore:pipeline/" + run.to_string() + "/s/1");
  ASSERT_TRUE(moved && *moved) << "the step's key moved into the platform's namespace";
  EXPECT_EQ((*moved)->job.id, j.id);
  // The append-only triggers are back.
  EXPECT_FALSE((*conn)->exec_script("UPDATE audit_log SET actor = 'x'"));
}

INSTANTIATE_TEST_SUITE_P(OldChain, SchemaSevenMigration, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Tampered" : "Intact"; });

TEST_F(StoreSqliteTest, MigrateStoreMovesAnOldSchemaForwardOnce) {
  {
    auto conn = backends::open_connection(uri(), {});
    ASSERT_TRUE(conn);
    ASSERT_TRUE(backends::migrate_schema(**conn, true, 3));
  }
  auto first = migrate_store(uri());
  ASSERT_TRUE(first) << first.error().describe();
  EXPECT_EQ(first->from_schema_version, 3);
  EXPECT_EQ(first->schema_version, latest_schema_version());
  auto again = migrate_store(uri());
  ASSERT_TRUE(again);
  EXPECT_EQ(again->from_schema_version, latest_schema_version());
  EXPECT_EQ(migrate_store("mysql://x").error().code, ErrorCode::Invalid);
}

TEST_F(StoreSqliteTest, CatalogRowsWrittenBeforeSchema4StayReadable) {
  {
    auto conn = backends::open_connection(uri(), {});
    ASSERT_TRUE(conn);
    ASSERT_TRUE(backends::migrate_schema(**conn, true, 3));
  }
  raw_exec("INSERT INTO components (tenant_id, name, version, scope, doc, created_ns) VALUES "
           "('00000000-0000-0000-0000-000000000000', 'old', '1', 'system', '{\"id\": \"old\"}', 5)");
  auto s = open_store(uri());
  ASSERT_TRUE(s) << s.error().describe();
  auto item = (*s)->get_catalog_item(tenant_, CatalogKind::Component, "old");
  ASSERT_TRUE(item) << item.error().describe();
  EXPECT_TRUE(item->id.is_nil());
  EXPECT_TRUE(item->is_active);
  EXPECT_FALSE(item->is_default);
  EXPECT_TRUE(item->tags.empty());
  EXPECT_EQ(item->document, core::Value::map({{"id", "old"}}));
  EXPECT_TRUE(check_store(uri())->ok);
}

// Schema 12 keeps templates and components in one table: what was written into the two tables
// before is read back per kind, a name used by both kinds stays two items, and each name's newest
// and default versions stay what they were.
TEST_F(StoreSqliteTest, TemplatesAndComponentsWrittenBeforeSchema12MoveIntoOneTable) {
  {
    auto conn = backends::open_connection(uri(), {});
    ASSERT_TRUE(conn);
    ASSERT_TRUE(backends::migrate_schema(**conn, true, 11));
  }
  const std::string t = tenant_.to_string();
  raw_exec("INSERT INTO components (tenant_id, name, version, scope, doc, created_ns, is_default) VALUES "
           "('" + t + "', 'shared', '1', 'user', '{\"k\": \"component 1\"}', 1, 1), "
           "('" + t + "', 'shared', '2', 'user', '{\"k\": \"component 2\"}', 2, 0), "
           "('" + t + "', 'gone', '1', 'user', '{}', 3, 0)");
  raw_exec("UPDATE components SET is_active = 0 WHERE name = 'gone'");
  raw_exec("INSERT INTO usecase_templates (tenant_id, name, version, scope, doc, created_ns) VALUES "
           "('" + t + "', 'shared', '1', 'user', '{\"k\": \"template 1\"}', 4), "
           "('" + t + "', 'shared', '2', 'user', '{\"k\": \"template 2\"}', 5)");
  auto s = open_store(uri());
  ASSERT_TRUE(s) << s.error().describe();
  auto component = (*s)->get_catalog_item(tenant_, CatalogKind::Component, "shared");
  ASSERT_TRUE(component) << component.error().describe();
  EXPECT_EQ(component->version, "1") << "the default version";
  EXPECT_EQ(component->document, core::Value::map({{"k", "component 1"}}));
  auto tmpl = (*s)->get_catalog_item(tenant_, CatalogKind::UsecaseTemplate, "shared");
  ASSERT_TRUE(tmpl) << tmpl.error().describe();
  EXPECT_EQ(tmpl->version, "2") << "no default: the newest";
  EXPECT_EQ(tmpl->document, core::Value::map({{"k", "template 2"}}));
  auto versions = (*s)->list_catalog_items(tenant_, CatalogKind::Component);
  ASSERT_TRUE(versions);
  ASSERT_EQ(versions->size(), 2u) << "the inactive one is left out";
  EXPECT_EQ((*versions)[0].version, "1");
  EXPECT_EQ((*versions)[1].version, "2");
  EXPECT_FALSE((*s)->get_catalog_item(tenant_, CatalogKind::Component, "gone"));
  EXPECT_FALSE((*s)->get_catalog_item(tenant_, CatalogKind::UsecaseTemplate, "gone")) << "a component, not a template";
  // One name and version in both kinds stays allowed; within one kind it is taken.
  CatalogItem again;
  again.kind = CatalogKind::UsecaseTemplate;
  again.scope = CatalogScope::User;
  again.name = "gone";
  again.version = "1";
  again.document = core::Value::map({});
  EXPECT_TRUE((*s)->put_catalog_item(tenant_, again));
  again.kind = CatalogKind::Component;
  again.name = "shared";
  auto taken = (*s)->put_catalog_item(tenant_, again);
  ASSERT_FALSE(taken);
  EXPECT_EQ(taken.error().code, ErrorCode::AlreadyExists) << taken.error().describe();
  EXPECT_TRUE(check_store(uri())->ok);
}

TEST_F(StoreSqliteTest, InvalidJsonInAStoredDocumentIsAClearError) {
  Id job_id;
  {
    auto s = open_store(uri());
    ASSERT_TRUE(s);
    job_id = make_job(**s, tenant_).job.id;
    PipelineRecord p;
    p.name = "p";
    ASSERT_TRUE((*s)->create_pipeline(tenant_, p));
  }
  raw_exec("UPDATE jobs SET doc = '{\"name\": \"job\", \"spec\": {' ");
  raw_exec("UPDATE pipelines SET state = 'not json'");
  auto s = open_store(uri());
  ASSERT_TRUE(s);
  auto got = (*s)->get_job(tenant_, job_id);
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code, ErrorCode::Io);
  EXPECT_EQ(got.error().field, "jobs[" + job_id.to_string() + "].doc");
  auto list = (*s)->list_pipelines(tenant_);
  ASSERT_FALSE(list);
  EXPECT_NE(list.error().field.find(".state"), std::string::npos);
  auto check = check_store(uri());
  ASSERT_TRUE(check) << check.error().describe();
  EXPECT_FALSE(check->ok);
  EXPECT_EQ(check->problems.size(), 2u);
  EXPECT_EQ(check->rows_checked, 2);
}

TEST_F(StoreSqliteTest, SummariesOfRowsWrittenBeforeSchema3ComeFromTheirDocuments) {
  JobRecord rec;
  {
    auto conn = backends::open_connection(uri(), {});
    ASSERT_TRUE(conn);
    ASSERT_TRUE(backends::migrate_schema(**conn, true, 2));
  }
  {
    // A version-2 row: written by this library, then its v3 columns cleared as v2 leaves them.
    auto s = open_store(uri());
    ASSERT_TRUE(s);
    job::Job j;
    j.name = "old-row";
    j.gpu_count = 4;
    j.gpu_type = "nvidia-h100-80gb";
    j.priority = job::JobPriority::Critical;
    auto r = (*s)->create_job(tenant_, j, "k-old");
    ASSERT_TRUE(r);
    rec = r->record;
  }
  raw_exec("UPDATE jobs SET name = NULL, priority = NULL, gpu_type = NULL, gpu_count = NULL");
  auto s = open_store(uri());
  ASSERT_TRUE(s);
  auto page = (*s)->list_job_summaries(tenant_, {});
  ASSERT_TRUE(page) << page.error().describe();
  ASSERT_EQ(page->items.size(), 1u);
  EXPECT_EQ(page->items[0], summarize(rec));
  EXPECT_EQ(page->items[0].name, "old-row");
  EXPECT_EQ(page->items[0].gpu_count, 4);
  // Its next write fills the columns in.
  ASSERT_TRUE((*s)->transition_job(tenant_, rec.job.id, 1, job::JobStatus::Queued));
  raw_exec("UPDATE jobs SET doc = 'damaged'");
  page = (*s)->list_job_summaries(tenant_, {});
  ASSERT_TRUE(page) << page.error().describe();
  EXPECT_EQ(page->items[0].name, "old-row");
  EXPECT_EQ(page->items[0].status, job::JobStatus::Queued);
  EXPECT_EQ(page->items[0].priority, job::JobPriority::Critical);
}

TEST_F(StoreSqliteTest, ADamagedSummaryColumnIsAClearError) {
  {
    auto s = open_store(uri());
    ASSERT_TRUE(s);
    make_job(**s, tenant_);
  }
  raw_exec("UPDATE jobs SET status = 'exploded'");
  auto s = open_store(uri());
  ASSERT_TRUE(s);
  auto page = (*s)->list_job_summaries(tenant_, {});
  ASSERT_FALSE(page);
  EXPECT_EQ(page.error().code, ErrorCode::Io);
  EXPECT_NE(page.error().field.find(".status"), std::string::npos) << page.error().field;
  raw_exec("UPDATE jobs SET status = 'pending', name = NULL, doc = '{'");
  page = (*s)->list_job_summaries(tenant_, {});
  ASSERT_FALSE(page);
  EXPECT_EQ(page.error().code, ErrorCode::Io);
  EXPECT_NE(page.error().field.find(".doc"), std::string::npos) << page.error().field;
}

TEST_F(StoreSqliteTest, TwoStoresOnOneFileSeeEachOthersCommits) {
  auto a = open_store(uri());
  auto b = open_store(uri());
  ASSERT_TRUE(a);
  ASSERT_TRUE(b);
  auto rec = make_job(**a, tenant_);
  auto moved = (*b)->transition_job(tenant_, rec.job.id, 1, job::JobStatus::Queued);
  ASSERT_TRUE(moved) << moved.error().describe();
  auto stale = (*a)->transition_job(tenant_, rec.job.id, 1, job::JobStatus::Cancelled);
  ASSERT_FALSE(stale);
  EXPECT_EQ(stale.error().code, ErrorCode::Conflict);
}

TEST_F(StoreSqliteTest, CheckReportsAHealthyStore) {
  {
    auto s = open_store(uri());
    ASSERT_TRUE(s);
    make_job(**s, tenant_);
  }
  auto check = check_store(uri());
  ASSERT_TRUE(check) << check.error().describe();
  EXPECT_TRUE(check->ok);
  EXPECT_EQ(check->schema_version, latest_schema_version());
  EXPECT_EQ(check->rows_checked, 1);
}

TEST_F(StoreSqliteTest, CheckFindsIndexedColumnsThatDisagreeWithTheDocument) {
  {
    auto s = open_store(uri());
    ASSERT_TRUE(s);
    job::Job j;
    j.name = "job";
    j.gpu_count = 2;
    j.gpu_type = "nvidia-t4";
    ASSERT_TRUE((*s)->create_job(tenant_, j));
  }
  ASSERT_TRUE(check_store(uri())->ok);
  const std::string other_tenant = Id::generate().to_string();
  struct Case {
    std::string set, column;
  };
  for (const Case& c : {Case{"tenant_id = '" + other_tenant + "'", "tenant_id"}, Case{"status = 'running'", "status"},
                        Case{"gpu_count = 8", "gpu_count"}, Case{"name = 'other'", "name"},
                        Case{"gpu_type = 'nvidia-h100-80gb'", "gpu_type"}, Case{"priority = 'critical'", "priority"}}) {
    raw_exec("UPDATE jobs SET " + c.set);
    auto check = check_store(uri());
    ASSERT_TRUE(check) << check.error().describe();
    EXPECT_FALSE(check->ok) << c.set;
    ASSERT_EQ(check->problems.size(), 1u) << c.set;
    EXPECT_NE(check->problems[0].find("." + c.column), std::string::npos) << check->problems[0];
    EXPECT_NE(check->problems[0].find("indexed column " + c.column), std::string::npos) << check->problems[0];
    // Put the row back the way the library wrote it.
    raw_exec("UPDATE jobs SET tenant_id = '" + tenant_.to_string() +
             "', status = 'pending', gpu_count = 2, name = 'job', gpu_type = 'nvidia-t4', priority = 'normal'");
    ASSERT_TRUE(check_store(uri())->ok) << check_store(uri())->problems[0];
  }
}

TEST(StoreUriTest, SchemesAndErrors) {
  EXPECT_TRUE(open_store("sqlite::memory:"));
  auto unknown = open_store("mysql://localhost/db");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, ErrorCode::Invalid);
  EXPECT_EQ(unknown.error().field, "uri");
  EXPECT_EQ(open_store("sqlite://").error().field, "uri");
  auto missing_dir = open_store("sqlite:///nonexistent-dir-budcore/x.db");
  ASSERT_FALSE(missing_dir);
  EXPECT_EQ(missing_dir.error().code, ErrorCode::Io);
  // A NUL inside the URI used to open the file named by the part before it.
  testing::TempDir dir;
  std::string with_nul = "sqlite://" + (dir.path / "a.db").string() + std::string(1, '\0') + "/b.db";
  auto nul = open_store(with_nul);
  ASSERT_FALSE(nul);
  EXPECT_EQ(nul.error().code, ErrorCode::Invalid);
  EXPECT_EQ(nul.error().field, "uri");
  EXPECT_NE(nul.error().message.find("NUL"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir.path / "a.db"));
  EXPECT_EQ(check_store(with_nul).error().field, "uri");
  EXPECT_EQ(open_store("sqlite:///tmp/\xff.db").error().field, "uri");
  auto pg = open_store("postgresql://nobody@127.0.0.1:1/none?connect_timeout=2");
  ASSERT_FALSE(pg);
  EXPECT_EQ(pg.error().code, ErrorCode::Io);
}

}  // namespace
}  // namespace budcore::backend
