// budcore_quota_simulate: the simulate contract through the C ABI.
#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "budcore/budcore.h"

namespace {

const char* kScenario = R"({"cycles": 1, "resource_flavors": [{"name": "default"}],
  "cluster_queues": [{"name": "cq", "resource_groups": [{"covered_resources": ["cpu"],
    "flavors": [{"name": "default", "resources": [{"name": "cpu", "nominal": "4"}]}]}]}],
  "local_queues": [{"namespace": "ns", "name": "lq", "cluster_queue": "cq"}],
  "workloads": [
    {"name": "a", "namespace": "ns", "queue": "lq", "creation_seq": 1, "pod_sets": [{"name": "main", "count": 3, "requests": {"cpu": "1"}}]},
    {"name": "b", "namespace": "ns", "queue": "lq", "creation_seq": 2, "pod_sets": [{"name": "main", "count": 2, "requests": {"cpu": "1"}}]}]})";

TEST(QuotaCApiTest, SimulatesAScenario) {
  budcore_buf out{};
  ASSERT_EQ(budcore_quota_simulate(&out, kScenario, std::strlen(kScenario)), BUDCORE_OK);
  auto j = nlohmann::json::parse(std::string(out.ptr, out.size));
  budcore_buf_dispose(&out);
  EXPECT_EQ(j["admitted"]["a"]["cluster_queue"], "cq");
  EXPECT_EQ(j["admitted"]["a"]["flavors"]["main"]["cpu"], "default");
  EXPECT_TRUE(j["pending"].contains("b"));
  EXPECT_EQ(j["usage"]["cq"]["default"]["cpu"], "3");
}

TEST(QuotaCApiTest, InvalidInputNamesTheField) {
  std::string bad = R"({"cycles": 1, "resource_flavors": [], "cluster_queues": [], "local_queues": [],
    "workloads": [{"name": "a", "queue": "lq", "pod_sets": [{"name": "main", "count": "three", "requests": {}}]}]})";
  budcore_buf out{};
  EXPECT_EQ(budcore_quota_simulate(&out, bad.data(), bad.size()), BUDCORE_EINVALID);
  ASSERT_NE(budcore_error_last(), nullptr);
  EXPECT_NE(std::string(budcore_error_last()->field).find("workloads[0].pod_sets[0].count"), std::string::npos)
      << budcore_error_last()->field;
  EXPECT_EQ(budcore_quota_simulate(nullptr, kScenario, std::strlen(kScenario)), BUDCORE_EINVALID);
  EXPECT_EQ(budcore_quota_simulate(&out, "{not json", 9), BUDCORE_EINVALID);
}

}  // namespace
