// The store's C ABI (budcore/c/store.h) called as a C caller would: handles, JSON in and out,
// status codes and the thread-local error naming the field.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "backends/store_fixture.hpp"
#include "budcore/budcore.h"
#include "budcore/core/id.hpp"

namespace {

using nlohmann::json;

struct Buf {
  budcore_buf b = BUDCORE_BUF_INIT;
  ~Buf() { budcore_buf_dispose(&b); }
  json parse() const { return json::parse(std::string(b.ptr, b.size)); }
};

class StoreCapiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    uri_ = "sqlite://" + (dir_.path / "capi.db").string();
    ASSERT_EQ(budcore_store_open(&store_, uri_.data(), uri_.size()), BUDCORE_OK) << budcore_error_last()->message;
    ASSERT_NE(store_, nullptr);
  }
  void TearDown() override { budcore_store_free(store_); }

  int submit(Buf& out, const std::string& job, const std::string& key = {}, const std::string& tenant = {}) {
    const std::string& t = tenant.empty() ? tenant_ : tenant;
    return budcore_store_job_submit(&out.b, store_, t.data(), t.size(), job.data(), job.size(), key.data(),
                                    key.size());
  }
  int list(Buf& out, const std::string& query, const std::string& tenant = {}) {
    const std::string& t = tenant.empty() ? tenant_ : tenant;
    return budcore_store_job_list(&out.b, store_, t.data(), t.size(), query.data(), query.size());
  }

  static std::string job_json(const std::string& name) {
    return R"({"name": ")" + name + R"(", "job_type": "batch", "deployment_type": "docker", "spec": {"image": "x"}})";
  }

  budcore::testing::TempDir dir_;
  std::string uri_;
  budcore_store* store_ = nullptr;
  const std::string tenant_ = budcore::core::Id::generate().to_string();
};

TEST_F(StoreCapiTest, SubmitGetAndIdempotentRetry) {
  Buf first;
  ASSERT_EQ(submit(first, job_json("train-a"), "req-1"), BUDCORE_OK) << budcore_error_last()->message;
  json a = first.parse();
  EXPECT_EQ(a["created"], true);
  EXPECT_EQ(a["version"], 1);
  EXPECT_EQ(a["idempotency_key"], "req-1");
  EXPECT_EQ(a["job"]["name"], "train-a");
  EXPECT_EQ(a["job"]["tenant_id"], tenant_);
  const std::string id = a["job"]["id"];

  Buf retry;
  ASSERT_EQ(submit(retry, job_json("train-a"), "req-1"), BUDCORE_OK);
  json b = retry.parse();
  EXPECT_EQ(b["created"], false);
  EXPECT_EQ(b["job"]["id"], id);
  EXPECT_EQ(b["job"]["name"], "train-a");

  // The key with another document: refused, naming the key.
  Buf reused;
  EXPECT_EQ(submit(reused, job_json("train-a-retry"), "req-1"), BUDCORE_EINVALID);
  EXPECT_STREQ(budcore_error_last()->field, "idempotency_key");

  Buf got;
  ASSERT_EQ(budcore_store_job_get(&got.b, store_, tenant_.data(), tenant_.size(), id.data(), id.size()), BUDCORE_OK);
  EXPECT_EQ(got.parse()["job"], a["job"]);
  EXPECT_EQ(got.b.ptr[got.b.size], '\0');
}

TEST_F(StoreCapiTest, ListPagesSummariesAndFullRecordsAndFilters) {
  for (int i = 0; i < 5; ++i) {
    Buf b;
    ASSERT_EQ(submit(b, job_json("job-" + std::to_string(i))), BUDCORE_OK);
  }
  Buf page1;
  ASSERT_EQ(list(page1, R"({"limit": 3})"), BUDCORE_OK) << budcore_error_last()->message;
  json p1 = page1.parse();
  ASSERT_EQ(p1["items"].size(), 3u);
  EXPECT_EQ(p1["items"][0]["status"], "pending");
  EXPECT_TRUE(p1["items"][0].contains("name"));
  EXPECT_FALSE(p1["items"][0].contains("job"));  // summaries by default
  ASSERT_FALSE(p1["next_cursor"].get<std::string>().empty());
  Buf page2;
  json q2 = {{"limit", 3}, {"after", p1["next_cursor"]}, {"view", "full"}};
  ASSERT_EQ(list(page2, q2.dump()), BUDCORE_OK);
  json p2 = page2.parse();
  ASSERT_EQ(p2["items"].size(), 2u);
  EXPECT_EQ(p2["next_cursor"], "");
  EXPECT_EQ(p2["items"][0]["version"], 1);
  EXPECT_TRUE(p2["items"][0]["job"].contains("spec"));
  std::set<std::string> names;
  for (const auto& it : p1["items"]) names.insert(it["name"]);
  for (const auto& it : p2["items"]) names.insert(it["job"]["name"]);
  EXPECT_EQ(names.size(), 5u);
  // No query at all = defaults.
  Buf all;
  ASSERT_EQ(budcore_store_job_list(&all.b, store_, tenant_.data(), tenant_.size(), nullptr, 0), BUDCORE_OK);
  EXPECT_EQ(all.parse()["items"].size(), 5u);
  Buf running;
  ASSERT_EQ(list(running, R"({"status": ["running", "queued"]})"), BUDCORE_OK);
  EXPECT_TRUE(running.parse()["items"].empty());
}

TEST_F(StoreCapiTest, TenantsAreIsolated) {
  Buf mine;
  ASSERT_EQ(submit(mine, job_json("secret")), BUDCORE_OK);
  const std::string id = mine.parse()["job"]["id"];
  const std::string other = budcore::core::Id::generate().to_string();
  Buf got;
  EXPECT_EQ(budcore_store_job_get(&got.b, store_, other.data(), other.size(), id.data(), id.size()), BUDCORE_ENOTFOUND);
  Buf theirs;
  ASSERT_EQ(list(theirs, "{}", other), BUDCORE_OK);
  EXPECT_TRUE(theirs.parse()["items"].empty());
}

TEST_F(StoreCapiTest, ErrorsNameTheField) {
  Buf b;
  EXPECT_EQ(submit(b, R"({"name": "Bad_Name", "job_type": "batch", "deployment_type": "docker"})"), BUDCORE_EINVALID);
  EXPECT_STREQ(budcore_error_last()->field, "name");
  EXPECT_EQ(submit(b, "{not json"), BUDCORE_EINVALID);
  EXPECT_EQ(submit(b, job_json("ok"), "", "not-a-uuid"), BUDCORE_EINVALID);
  EXPECT_STREQ(budcore_error_last()->field, "tenant");
  EXPECT_EQ(list(b, R"({"limit": 0})"), BUDCORE_EINVALID);
  EXPECT_STREQ(budcore_error_last()->field, "limit");
  EXPECT_EQ(list(b, R"({"colour": "red"})"), BUDCORE_EINVALID);
  EXPECT_STREQ(budcore_error_last()->field, "colour");
  EXPECT_EQ(list(b, R"({"status": ["queued", "sleeping"]})"), BUDCORE_EINVALID);
  EXPECT_STREQ(budcore_error_last()->field, "status[1]");
  EXPECT_EQ(list(b, R"({"after": "forged"})"), BUDCORE_EINVALID);
  EXPECT_STREQ(budcore_error_last()->field, "page.after");
  EXPECT_EQ(list(b, "[1"), BUDCORE_EINVALID);
  const std::string bad_id = "123";
  EXPECT_EQ(budcore_store_job_get(&b.b, store_, tenant_.data(), tenant_.size(), bad_id.data(), bad_id.size()),
            BUDCORE_EINVALID);
  EXPECT_STREQ(budcore_error_last()->field, "id");
  const std::string invalid_utf8 = "\xff\xfe";
  EXPECT_EQ(submit(b, invalid_utf8), BUDCORE_EINVALID);
  EXPECT_EQ(budcore_store_job_list(nullptr, store_, tenant_.data(), tenant_.size(), nullptr, 0), BUDCORE_EINVALID);
  EXPECT_EQ(budcore_store_job_list(&b.b, nullptr, tenant_.data(), tenant_.size(), nullptr, 0), BUDCORE_EINVALID);
  EXPECT_STREQ(budcore_error_last()->field, "store");
  EXPECT_EQ(b.b.ptr, nullptr);  // nothing written on failure
}

TEST(StoreCapiOpenTest, OpenFailuresLeaveNullAndFreeOfNullIsANoOp) {
  budcore_store* s = reinterpret_cast<budcore_store*>(0x1);
  const std::string bad = "mysql://x";
  EXPECT_EQ(budcore_store_open(&s, bad.data(), bad.size()), BUDCORE_EINVALID);
  EXPECT_EQ(s, nullptr);
  EXPECT_STREQ(budcore_error_last()->field, "uri");
  budcore::testing::TempDir dir;
  const std::string not_db = "sqlite://" + (dir.path / "missing-dir" / "x.db").string();
  EXPECT_EQ(budcore_store_open(&s, not_db.data(), not_db.size()), BUDCORE_EIO);
  EXPECT_EQ(s, nullptr);
  EXPECT_EQ(budcore_store_open(nullptr, bad.data(), bad.size()), BUDCORE_EINVALID);
  budcore_store_free(nullptr);
  const std::string mem = "sqlite::memory:";
  ASSERT_EQ(budcore_store_open(&s, mem.data(), mem.size()), BUDCORE_OK);
  budcore_store_free(s);
}

}  // namespace
