// The openb CSV readers on small files of the trace's format, their errors, and the replay.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "budcore/gpu/policy.hpp"
#include "budcore/gpu/trace.hpp"

namespace budcore::gpu {
namespace {

std::string data(const std::string& name) {
  std::ifstream in(std::string(BUDCORE_TEST_DATA_DIR) + "/gpu/" + name);
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_FALSE(s.str().empty()) << name;
  return s.str();
}

TEST(TraceTest, ReadsNodesAndPods) {
  auto pool = parse_nodes_csv(data("nodes.csv"), "nodes.csv");
  ASSERT_TRUE(pool) << pool.error().describe();
  ASSERT_EQ(pool->size(), 4u);
  EXPECT_EQ(pool->total_gpus(), 16);
  EXPECT_EQ(pool->node(2).model, "P100");
  EXPECT_EQ(pool->node(3).cpu_milli, 96000);
  auto tasks = parse_pods_csv(data("pods.csv"), "pods.csv");
  ASSERT_TRUE(tasks) << tasks.error().describe();
  ASSERT_EQ(tasks->size(), 6u);
  EXPECT_EQ((*tasks)[1].gpu_milli, 250);
  EXPECT_EQ((*tasks)[4].num_gpu, 2);
  EXPECT_EQ((*tasks)[5].gpu_spec, (std::vector<std::string>{"T4", "P100"}));
  EXPECT_TRUE((*tasks)[3].gpu_spec.empty());
}

struct BadFile {
  const char* file;
  bool nodes;
  const char* field;
  const char* value;
};

TEST(TraceTest, BadInputNamesTheLineAndField) {
  const BadFile cases[] = {
      {"nodes_unknown_model.csv", true, "nodes_unknown_model.csv:3.model", "K80"},
      {"nodes_negative_gpus.csv", true, "nodes_negative_gpus.csv:2.gpu", "-2"},
      {"pods_too_much_gpu.csv", false, "pods_too_much_gpu.csv:3.gpu_milli", "1500"},
      {"pods_bad_number.csv", false, "pods_bad_number.csv:3.cpu_milli", "4x00"},
      {"pods_unknown_spec.csv", false, "pods_unknown_spec.csv:2.gpu_spec[1]", "A99"},
  };
  for (const auto& c : cases) {
    core::Error e = c.nodes ? parse_nodes_csv(data(c.file), c.file).error() : parse_pods_csv(data(c.file), c.file).error();
    EXPECT_EQ(e.code, core::ErrorCode::Invalid) << c.file;
    EXPECT_EQ(e.field, c.field) << c.file;
    EXPECT_EQ(e.value, c.value) << c.file;
    EXPECT_FALSE(e.message.empty());
  }
  auto no_spec = parse_pods_csv("name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,1000,10,2,1000\n", "p.csv");
  ASSERT_TRUE(no_spec) << no_spec.error().describe();
  EXPECT_TRUE((*no_spec)[0].gpu_spec.empty());
  auto missing = parse_pods_csv("name,cpu_milli,memory_mib,num_gpu,gpu_spec\n", "p.csv");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().field, "p.csv:1");
  EXPECT_EQ(missing.error().value, "gpu_milli");
  auto ragged = parse_nodes_csv("sn,cpu_milli,memory_mib,gpu,model\nn0,1,2,3\n", "n.csv");
  ASSERT_FALSE(ragged);
  EXPECT_EQ(ragged.error().field, "n.csv:2");
}

TEST(TraceTest, ReplayIsDeterministicAndRecordsTheLoadCurve) {
  auto pool = parse_nodes_csv(data("nodes.csv"));
  auto tasks = parse_pods_csv(data("pods.csv"));
  ASSERT_TRUE(pool && tasks);
  ReplayOptions o;
  o.seed = 42;
  o.max_load = 1.2;
  o.step = 0.1;
  for (const char* policy : {"first_fit", "fgd", "random"}) {
    auto a = replay(*pool, *tasks, policy, o);
    auto b = replay(*pool, *tasks, policy, o);
    ASSERT_TRUE(a && b) << policy;
    ASSERT_EQ(a->points.size(), 12u) << policy;
    for (std::size_t i = 0; i < a->points.size(); ++i) {
      EXPECT_NEAR(a->points[i].arrived_load, 0.1 * static_cast<double>(i + 1), 1e-9);
      EXPECT_DOUBLE_EQ(a->points[i].unallocated_share, b->points[i].unallocated_share);
      if (i > 0) EXPECT_LE(a->points[i].unallocated_share, a->points[i - 1].unallocated_share + 1e-12);
    }
    // 120% of the 16 GPUs cannot all be placed: something failed and something stays free or not.
    ASSERT_TRUE(a->first_failure) << policy;
    EXPECT_GT(a->points.back().failed, 0);
    EXPECT_LT(a->points.back().unallocated_share, 0.5) << policy;
    EXPECT_EQ(to_value(*a).as_map().find("policy")->as_string(), policy);
  }
  std::string table = to_table({*replay(*pool, *tasks, "fgd", o), *replay(*pool, *tasks, "best_fit", o)});
  EXPECT_NE(table.find("fgd"), std::string::npos);
  EXPECT_NE(table.find("120%"), std::string::npos);
  EXPECT_EQ(replay(*pool, *tasks, "nope", o).error().field, "policy");
  o.max_load = 0;
  EXPECT_EQ(replay(*pool, *tasks, "fgd", o).error().field, "max_load");
  // Each step measures the whole cluster, so their number is bounded: 1,000 pass, 1,001 do not.
  o.max_load = 1.0;
  o.step = 0.001;
  auto thousand = replay(*pool, *tasks, "first_fit", o);
  ASSERT_TRUE(thousand) << thousand.error().describe();
  EXPECT_EQ(thousand->points.size(), 1000u);
  o.step = 1.0 / 1001;
  auto too_many = replay(*pool, *tasks, "first_fit", o);
  ASSERT_FALSE(too_many);
  EXPECT_EQ(too_many.error().field, "step");
  EXPECT_NE(too_many.error().message.find("more than 1000 steps"), std::string::npos) << too_many.error().message;
}

TEST(TraceTest, PolicyListsAndTheReplayDocument) {
  EXPECT_EQ(*parse_policy_list("all"), policy_names());
  EXPECT_EQ(*parse_policy_list("fgd,best_fit"), (std::vector<std::string>{"fgd", "best_fit"}));
  auto bad = parse_policy_list("fgd,nope", "--policy");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "--policy");
  EXPECT_EQ(bad.error().value, "nope");
  EXPECT_EQ(parse_policy_list("fgd,", "p").error().value, "");  // an empty name is not a policy

  auto pool = parse_nodes_csv(data("nodes.csv"));
  auto tasks = parse_pods_csv(data("pods.csv"));
  ASSERT_TRUE(pool && tasks);
  ReplayOptions o;
  o.seed = 3;
  o.max_load = 0.4;
  o.step = 0.2;
  std::vector<ReplayResult> results{*replay(*pool, *tasks, "fgd", o), *replay(*pool, *tasks, "binpack", o)};
  core::Value doc = replay_document(*pool, tasks->size(), o.seed, results);
  EXPECT_EQ(doc.find("nodes")->as_int(), static_cast<std::int64_t>(pool->size()));
  EXPECT_EQ(doc.find("gpus")->as_int(), pool->total_gpus());
  EXPECT_EQ(doc.find("tasks")->as_int(), static_cast<std::int64_t>(tasks->size()));
  EXPECT_EQ(doc.find("seed")->as_int(), 3);
  ASSERT_EQ(doc.find("results")->size(), 2u);
  EXPECT_EQ(doc.find("results")->as_list()[1], to_value(results[1]));
}

}  // namespace
}  // namespace budcore::gpu
