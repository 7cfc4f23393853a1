// `budcore cost ...` driven as a user or an acceptance test would (docs/cli.md contract 5).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_runner.hpp"
#include "cost/cost_fixture.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using budcore::test::detail::CliRun;
using budcore::test::detail::quote;
using budcore::test::detail::run_cli;

using budcore::testing::kContractPrices;

class CliCostTest : public budcore::test::detail::CliFixture {
 protected:
  CliCostTest() : CliFixture("budcore_cli_cost_") {}
  void SetUp() override {
    CliFixture::SetUp();
    prices_ = write("prices.yaml", kContractPrices);
  }
  fs::path write(const std::string& name, const std::string& text) {
    fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  CliRun run(const std::string& args, const fs::path& stdin_file = {}) {
    return run_cli(args, dir_ / "stderr.txt", stdin_file);
  }
  CliRun estimate(const std::string& spec) {
    return run("cost estimate --prices " + quote(prices_.string()) + " " + quote(write("spec.json", spec).string()));
  }
  static json error_of(const CliRun& r) {
    json j = json::parse(r.err, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.err;
    return j.is_discarded() ? json::object() : j["error"];
  }
  fs::path prices_;
};

TEST_F(CliCostTest, EstimatesAJobExactlyAsTheContractWrites) {
  CliRun r = estimate(R"({"name": "t", "job_type": "training", "deployment_type": "docker",
      "gpu_type": "nvidia-a100-80gb", "gpu_count": 2, "cpu_cores": 8, "memory_gb": 64,
      "estimated_duration_seconds": 5400})");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            R"({"currency":"USD","seconds":5400,"tier":"on_demand","total":"8.430000","lines":[)"
            R"({"item":"gpu","resource":"nvidia-a100-80gb","quantity":"10800","unit":"gpu-second","unit_price":"2.49","amount":"7.470000"},)"
            R"({"item":"cpu","resource":"cpu","quantity":"43200","unit":"core-second","unit_price":"0.04","amount":"0.480000"},)"
            R"({"item":"memory","resource":"memory","quantity":"345600","unit":"GiB-second","unit_price":"0.005","amount":"0.480000"}]})"
            "\n");
}

TEST_F(CliCostTest, ReadsYamlSpecsFromStdinAndPipelines) {
  fs::path spec = write("p.yaml", R"(pipeline: {name: p}
steps:
  - {id: a, step_type: JOB, config: {job_type: batch, gpu_type: nvidia-t4, gpu_count: 1, cpu_cores: 0, memory_gb: 0, estimated_duration_seconds: 3600}}
  - {id: c, step_type: CONDITION, config: {expression: "{{ params.x }}", then_steps: [b]}}
  - {id: b, step_type: JOB, config: {job_type: batch, gpu_type: nvidia-t4, gpu_count: 2, cpu_cores: 0, memory_gb: 0, estimated_duration_seconds: 1800}}
)");
  CliRun r = run("cost estimate --prices " + quote(prices_.string()) + " -", spec);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["total"], "0.800000");
  EXPECT_EQ(j["total_min"], "0.400000");
  ASSERT_EQ(j["steps"].size(), 2u);
  EXPECT_EQ(j["steps"][1]["step"], "b");
  EXPECT_EQ(j["steps"][1]["lines"][0]["quantity"], "3600");
}

TEST_F(CliCostTest, ErrorsExitTwoWithTheContractCodes) {
  CliRun r = estimate(R"({"job_type": "batch", "gpu_type": "nvidia-h100", "gpu_count": 1, "estimated_duration_seconds": 60})");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
  json e = error_of(r);
  EXPECT_EQ(e["code"], "unknown_price");
  EXPECT_EQ(e["path"], "gpu_type");

  r = estimate(R"({"steps": [{"id": "x", "step_type": "JOB", "config": {"job_type": "batch", "gpu_type": "nvidia-t4", "gpu_count": 1}}]})");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(error_of(r)["code"], "missing_field");
  EXPECT_EQ(error_of(r)["path"], "steps[0].config.estimated_duration_seconds");

  r = estimate(R"({"job_type": "batch", "estimated_duration_seconds": -1})");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(error_of(r)["code"], "invalid_value");
  EXPECT_EQ(error_of(r)["path"], "estimated_duration_seconds");

  r = estimate("{not json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(error_of(r)["code"], "invalid_value");

  fs::path bad_prices = write("bad.yaml", "currency: USD\ngpu_hour:\n  t4: {on_demand: \"0.1234567890123\"}\n");
  r = run("cost estimate --prices " + quote(bad_prices.string()) + " " + quote(write("j.json", "{}").string()));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(error_of(r)["path"], "gpu_hour.t4.on_demand");
  r = run("cost estimate --prices " + quote((dir_ / "missing.yaml").string()) + " x");
  EXPECT_EQ(r.exit_code, 2);
}

TEST_F(CliCostTest, ComparesTiersAndFindsTheCheapestGpu) {
  CliRun r = run("cost estimate --compare --prices " + quote(prices_.string()) + " " +
                 quote(write("j.json", R"({"job_type": "batch", "gpu_type": "nvidia-t4", "gpu_count": 1, "cpu_cores": 0,
                     "memory_gb": 0, "estimated_duration_seconds": 3600})").string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["savings"], "0.240000");
  EXPECT_EQ(j["savings_percent"], "60.00");
  r = run("cost cheapest --prices " + quote((fs::path(BUDCORE_SOURCE_DIR) / "examples/prices/runpod-like.yaml").string()) +
          " --gpu-memory-gib 70 --gpu-count 2 --seconds 1800");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = json::parse(r.out);
  EXPECT_EQ(j["cheapest"]["gpu_type"], "mig-7g.80gb");  // ties with nvidia-a100-80gb at 1.64; names break ties
  EXPECT_EQ(j["cheapest"]["cost"], "1.640000");
  r = run("cost cheapest --prices " + quote(prices_.string()) + " --gpu-memory-gib 10 --gpu-count 0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(error_of(r)["path"], "gpu_count");
}

TEST_F(CliCostTest, MetersIntoAStoreThenReportsAndChecksBudgets) {
  const std::string store = "sqlite://" + (dir_ / "s.db").string();
  const std::string tenant = "0190e6f4-5c3a-7abc-8def-00000000000a";
  for (const char* hours : {"10", "12"}) {
    fs::path iv = write("iv.json", std::string(R"({"tenant_id": ")") + tenant +
                                       R"(", "project_id": "0190e6f4-5c3a-7abc-8def-0000000000a1",
        "job_id": "0190e6f4-5c3a-7abc-8def-0000000000f1", "gpu_type": "nvidia-a100-80gb", "gpu_count": 1,
        "labels": {"team": "search"}, "start": "2026-05-02T)" + hours + R"(:00:00Z", "end": "2026-05-02T)" + hours +
                                       R"(:30:00Z"})");
    CliRun r = run("cost meter --prices " + quote(prices_.string()) + " --store " + quote(store) + " " + quote(iv.string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(json::parse(r.out)["computed_cost"], "1.245");
  }
  CliRun r = run("cost report --store " + quote(store) + " --tenant " + tenant + " --by label:team --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("search,2,3600,0,2.49,0.00,0.00,2.49,100.00,USD"), std::string::npos) << r.out;

  fs::path budgets = write("b.yaml", "budgets:\n  - name: search\n    tenant_id: " + tenant +
                                         "\n    amount: \"3.00\"\n    hard_limit: true\n");
  r = run("cost budget check --budgets " + quote(budgets.string()) + " --prices " + quote(prices_.string()) +
          " --store " + quote(store) + " --tenant " + tenant + " --estimate 0.60 --now 2026-05-20T00:00:00Z");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json d = json::parse(r.out);
  EXPECT_EQ(d["allowed"], false);
  EXPECT_EQ(d["budget"], "search");
  EXPECT_EQ(d["spent"], "2.49");
  r = run("cost budget status --budgets " + quote(budgets.string()) + " --prices " + quote(prices_.string()) +
          " --store " + quote(store) + " --tenant " + tenant + " --now 2026-05-20T00:00:00Z");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["budgets"][0]["thresholds_crossed"], json::array({50, 80}));
  r = run("cost report --store " + quote(store) + " --by tenant");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(error_of(r)["path"], "--tenant");
}

// `cost serverless`: the rows a serverless endpoint meters (labelled serverless_endpoint),
// per endpoint and hour, busy and idle apart; other usage is left out.
TEST_F(CliCostTest, ReportsServerlessSpendPerEndpointPerHour) {
  const std::string store = "sqlite://" + (dir_ / "s.db").string();
  const std::string tenant = "0190e6f4-5c3a-7abc-8def-00000000000a";
  const std::string worker = R"({"tenant_id": ")" + tenant + R"(", "job_id": "0190e6f4-5c3a-7abc-8def-0000000000f1",
      "gpu_type": "nvidia-a100-80gb", "gpu_count": 1, "gpu_utilization": "0.5",
      "labels": {"serverless_endpoint": "chat"}, "start": "2026-05-02T10:30:00Z", "end": "2026-05-02T11:30:00Z"})";
  const std::string batch = R"({"tenant_id": ")" + tenant + R"(", "job_id": "0190e6f4-5c3a-7abc-8def-0000000000f2",
      "gpu_type": "nvidia-a100-80gb", "gpu_count": 1, "start": "2026-05-02T10:00:00Z", "end": "2026-05-02T11:00:00Z"})";
  for (const std::string& iv : {worker, batch}) {
    CliRun r = run("cost meter --prices " + quote(prices_.string()) + " --store " + quote(store) + " " +
                   quote(write("iv.json", iv).string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  CliRun r = run("cost serverless --store " + quote(store) + " --tenant " + tenant + " --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "bucket,endpoint,workers,records,gpu_seconds,busy_gpu_seconds,idle_gpu_seconds,cost,busy_cost,idle_cost\n"
            "2026-05-02T10:00:00Z,chat,1,1,1800,900,900,1.245,0.6225,0.6225\n"
            "2026-05-02T11:00:00Z,chat,1,1,1800,900,900,1.245,0.6225,0.6225\n");
  r = run("cost serverless --store " + quote(store) + " --tenant " + tenant + " --endpoint embed");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["rows"], json::array());
  r = run("cost serverless --store " + quote(store) + " --tenant " + tenant + " --granularity week");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(error_of(r)["path"], "--granularity");
  r = run("cost serverless --store " + quote(store) + " --tenant " + tenant + " --endpoint ''");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(error_of(r)["path"], "--endpoint");
}

}  // namespace
