// Planning per docs/cli.md contract 3: golden documents, the RAG example, and random DAGs
// checked against an independent, deliberately naive computation.
#include "budcore/pipeline/planner.hpp"
#include "budcore/pipeline/validation.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>

#include "budcore/core/json.hpp"
#include "budcore/core/yaml.hpp"

namespace budcore::pipeline {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kData = fs::path(BUDCORE_SOURCE_DIR) / "tests" / "pipeline" / "data";

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(PlannerTest, GoldenDocuments) {
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(kData)) {
    const fs::path& p = entry.path();
    std::string name = p.filename().string();
    if (name.find(".expected.") != std::string::npos) continue;
    fs::path expected = kData / (p.stem().string() + ".expected.json");
    ASSERT_TRUE(fs::exists(expected)) << expected;
    std::string text = read(p);
    json want = json::parse(read(expected));
    EXPECT_EQ(json::parse(to_json(plan_text(text))), want) << name;
    auto doc = core::parse_document(text);
    ASSERT_TRUE(doc);
    EXPECT_EQ(json::parse(to_json(plan_document(*doc))), want) << name << " (Value path)";
    ++checked;
  }
  EXPECT_GE(checked, 4);
}

TEST(PlannerTest, RagExampleFromTheSourceDesign) {
  PlanResult r = plan_text(read(kData / "rag.json"));
  ASSERT_TRUE(r.valid()) << to_json(r);
  using V = std::vector<std::string>;
  EXPECT_EQ(r.plan.levels, (std::vector<V>{{"step-1", "step-2", "step-5"}, {"step-3", "step-4", "step-6"}, {"step-7"}, {"step-8"}}));
  EXPECT_EQ(r.plan.order, (V{"step-1", "step-2", "step-5", "step-3", "step-4", "step-6", "step-7", "step-8"}));
  EXPECT_EQ(r.plan.job_steps, (V{"step-2", "step-3", "step-4", "step-6", "step-7"}));
  EXPECT_EQ(r.plan.critical_path_seconds, 0);
  // step-7's RERANKER_URL reads the optional step-6 through default(''): a warning, not an error.
  ASSERT_EQ(r.report.warnings.size(), 1u);
  EXPECT_EQ(r.report.warnings[0].path, "steps[6].config.spec.env.RERANKER_URL");
}

TEST(PlannerTest, RagWithDurations) {
  json doc = json::parse(read(kData / "rag.json"));
  std::map<std::string, int> secs = {{"step-2", 300}, {"step-3", 600}, {"step-4", 1800}, {"step-6", 900}, {"step-7", 120}};
  for (auto& s : doc["steps"]) {
    auto it = secs.find(s["id"]);
    if (it != secs.end()) s["config"]["estimated_duration_seconds"] = it->second;
  }
  PlanResult r = plan_text(doc.dump());
  ASSERT_TRUE(r.valid());
  EXPECT_EQ(r.plan.critical_path, (std::vector<std::string>{"step-1", "step-4", "step-7", "step-8"}));
  EXPECT_EQ(r.plan.critical_path_seconds, 1920);
}

TEST(PlannerTest, DurationsOnlyFromJobAndWait) {
  PlanResult r = plan_text(R"({"steps": [
    {"id": "w", "step_type": "wait", "config": {"duration_seconds": 7.5, "estimated_duration_seconds": 1000}},
    {"id": "a", "step_type": "api_call", "depends_on": ["w"], "config": {"url": "u", "estimated_duration_seconds": 5000}},
    {"id": "j", "step_type": "job", "depends_on": ["a"], "config": {"job_type": "batch", "deployment_type": "helm",
       "estimated_duration_seconds": 10, "duration_seconds": 99}},
    {"id": "t", "step_type": "job", "config": {"job_type": "batch", "deployment_type": "helm",
       "estimated_duration_seconds": "{{ params.est }}"}}]})");
  ASSERT_TRUE(r.valid()) << to_json(r);
  EXPECT_EQ(r.plan.critical_path, (std::vector<std::string>{"w", "a", "j"}));
  EXPECT_EQ(r.plan.critical_path_seconds, 17.5);
  EXPECT_NE(to_json(r).find("\"critical_path_seconds\":17.5"), std::string::npos);
}

TEST(PlannerTest, InvalidOutputShape) {
  PlanResult r = plan_text(R"({"steps": [{"id": "a", "step_type": "job", "depends_on": ["b"], "config": {"job_type": "batch", "deployment_type": "helm"}}]})");
  ASSERT_FALSE(r.valid());
  json j = json::parse(to_json(r));
  EXPECT_EQ(j["valid"], false);
  EXPECT_EQ(j.size(), 2u);
  EXPECT_EQ(j["errors"][0], (json{{"code", "unknown_dependency"}, {"message", r.report.errors[0].message}, {"path", "steps[0].depends_on[0]"}}));
  PlanResult bad = plan_text("{ not json");
  ASSERT_FALSE(bad.valid());
  EXPECT_EQ(bad.report.errors[0].code, "invalid_document");
}

// ---- random DAGs against a naive reference ----

struct RandomDoc {
  json doc;
  std::vector<std::string> ids;                 // input order
  std::vector<std::vector<int>> preds;          // by input index
  std::vector<double> weight;
  std::vector<bool> is_job;
};

RandomDoc random_doc(std::mt19937& rng, int n) {
  RandomDoc r;
  // Create in a hidden topological order, then shuffle the input order.
  std::vector<int> perm(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) perm[static_cast<std::size_t>(i)] = i;
  std::shuffle(perm.begin(), perm.end(), rng);  // perm[k] = input position of the k-th created step
  r.ids.resize(static_cast<std::size_t>(n));
  r.preds.resize(static_cast<std::size_t>(n));
  r.weight.assign(static_cast<std::size_t>(n), 0);
  r.is_job.assign(static_cast<std::size_t>(n), false);
  std::vector<json> steps(static_cast<std::size_t>(n));
  std::uniform_int_distribution<int> kind(0, 9), secs(0, 500);
  for (int k = 0; k < n; ++k) r.ids[static_cast<std::size_t>(perm[static_cast<std::size_t>(k)])] = "st-" + std::to_string(k);
  for (int k = 0; k < n; ++k) {
    auto pos = static_cast<std::size_t>(perm[static_cast<std::size_t>(k)]);
    json deps = json::array();
    std::set<int> chosen;
    int count = k == 0 ? 0 : std::uniform_int_distribution<int>(0, std::min(k, 4))(rng);
    for (int d = 0; d < count; ++d) chosen.insert(std::uniform_int_distribution<int>(0, k - 1)(rng));
    for (int c : chosen) {
      auto cp = static_cast<std::size_t>(perm[static_cast<std::size_t>(c)]);
      deps.push_back(r.ids[cp]);
      r.preds[pos].push_back(static_cast<int>(cp));
    }
    json s = {{"id", r.ids[pos]}, {"depends_on", deps}};
    int t = kind(rng);
    if (t < 6) {
      int d = secs(rng);
      s["step_type"] = "JOB";
      s["config"] = {{"job_type", "batch"}, {"deployment_type", "docker"}, {"estimated_duration_seconds", d}};
      r.weight[pos] = d;
      r.is_job[pos] = true;
    } else if (t < 8) {
      int d = secs(rng);
      s["step_type"] = "WAIT";
      s["config"] = {{"duration_seconds", d}};
      r.weight[pos] = d;
    } else {
      s["step_type"] = "API_CALL";
      std::string url = "http://x";
      if (!chosen.empty()) url += "/{{ steps." + r.ids[static_cast<std::size_t>(perm[static_cast<std::size_t>(*chosen.begin())])] + ".outputs.v }}";
      s["config"] = {{"url", url}};
    }
    steps[pos] = std::move(s);
  }
  r.doc = {{"pipeline", {{"name", "random"}}}, {"steps", steps}};
  return r;
}

TEST(PlannerTest, RandomDagsMatchANaiveReference) {
  std::mt19937 rng(20260122);
  for (int round = 0; round < 60; ++round) {
    int n = round < 50 ? 1 + round * 3 : 2000;
    RandomDoc rd = random_doc(rng, n);
    std::string text = rd.doc.dump();
    PlanResult r = plan_text(text);
    ASSERT_TRUE(r.valid()) << to_json(r).substr(0, 300);
    EXPECT_EQ(r.plan, plan_document(*core::parse_json(text)).plan) << "paths disagree, n=" << n;

    // Reference: level = longest chain of edges (memoized recursion); best = heaviest path sum.
    std::vector<int> level(static_cast<std::size_t>(n), -1);
    std::vector<double> best(static_cast<std::size_t>(n), -1);
    std::function<int(int)> lv = [&](int v) {
      auto& l = level[static_cast<std::size_t>(v)];
      if (l < 0) {
        l = 0;
        for (int p : rd.preds[static_cast<std::size_t>(v)]) l = std::max(l, lv(p) + 1);
      }
      return l;
    };
    std::function<double(int)> heavy = [&](int v) {
      auto& b = best[static_cast<std::size_t>(v)];
      if (b < 0) {
        double m = 0;
        for (int p : rd.preds[static_cast<std::size_t>(v)]) m = std::max(m, heavy(p));
        b = m + rd.weight[static_cast<std::size_t>(v)];
      }
      return b;
    };
    std::vector<std::vector<std::string>> levels;
    double cp = 0;
    std::vector<std::string> jobs;
    for (int v = 0; v < n; ++v) {
      auto l = static_cast<std::size_t>(lv(v));
      if (levels.size() <= l) levels.resize(l + 1);
      levels[l].push_back(rd.ids[static_cast<std::size_t>(v)]);
      cp = std::max(cp, heavy(v));
      if (rd.is_job[static_cast<std::size_t>(v)]) jobs.push_back(rd.ids[static_cast<std::size_t>(v)]);
    }
    EXPECT_EQ(r.plan.levels, levels) << "n=" << n;
    EXPECT_EQ(r.plan.critical_path_seconds, cp) << "n=" << n;
    EXPECT_EQ(r.plan.job_steps, jobs);

    // order is topological and a permutation; critical_path is a real edge path summing to cp.
    std::map<std::string, int> index, at;
    for (int v = 0; v < n; ++v) index[rd.ids[static_cast<std::size_t>(v)]] = v;
    ASSERT_EQ(r.plan.order.size(), static_cast<std::size_t>(n));
    for (std::size_t k = 0; k < r.plan.order.size(); ++k) at[r.plan.order[k]] = static_cast<int>(k);
    ASSERT_EQ(at.size(), static_cast<std::size_t>(n));
    for (int v = 0; v < n; ++v) {
      for (int p : rd.preds[static_cast<std::size_t>(v)])
        EXPECT_LT(at[rd.ids[static_cast<std::size_t>(p)]], at[rd.ids[static_cast<std::size_t>(v)]]);
    }
    double sum = 0;
    const auto& path = r.plan.critical_path;
    ASSERT_FALSE(path.empty());
    EXPECT_TRUE(rd.preds[static_cast<std::size_t>(index[path.front()])].empty()) << "starts at a source";
    for (std::size_t k = 0; k < path.size(); ++k) {
      int v = index[path[k]];
      sum += rd.weight[static_cast<std::size_t>(v)];
      if (k > 0) {
        const auto& pv = rd.preds[static_cast<std::size_t>(v)];
        EXPECT_NE(std::find(pv.begin(), pv.end(), index[path[k - 1]]), pv.end()) << "not an edge";
      }
    }
    EXPECT_EQ(sum, cp);
  }
}

// Long step lists are read on two threads; the result must not depend on it, for a valid
// document and for one whose problems sit in both halves (errors keep document order).
TEST(PlannerTest, LongDocumentsReadOnTwoThreadsAgreeWithTheValuePath) {
  std::mt19937 rng(99);
  RandomDoc rd = random_doc(rng, 20000);
  std::string text = rd.doc.dump();
  PlanResult fast = plan_text(text);
  ASSERT_TRUE(fast.valid()) << to_json(fast).substr(0, 300);
  EXPECT_EQ(fast.plan, plan_document(*core::parse_json(text)).plan);

  auto& steps = rd.doc["steps"];
  steps[10]["depends_on"].push_back("ghost-a");
  steps[19990]["depends_on"].push_back("ghost-b");
  steps[15000]["step_type"] = "TELEPORT";
  text = rd.doc.dump();
  PlanResult broken = plan_text(text);
  ValidationReport slow = validate_document(*core::parse_json(text));
  ASSERT_EQ(broken.report.errors.size(), 3u);
  EXPECT_EQ(broken.report.errors, slow.errors);
  EXPECT_NE(broken.report.errors[0].message.find("ghost-a"), std::string::npos);
  EXPECT_EQ(broken.report.errors[2].path, "steps[19990].depends_on[" + std::to_string(steps[19990]["depends_on"].size() - 1) + "]");
}

TEST(PlannerTest, RandomCyclesAreAllFound) {
  // Chains closed into rings of different lengths, written in shuffled order.
  std::mt19937 rng(7);
  for (int ring : {1, 2, 3, 10, 50}) {
    json steps = json::array();
    for (int i = 0; i < ring; ++i) {
      steps.push_back({{"id", "r" + std::to_string(i)}, {"step_type", "WAIT"},
                       {"depends_on", {"r" + std::to_string((i + ring - 1) % ring)}}, {"config", {{"duration_seconds", 1}}}});
    }
    steps.push_back({{"id", "tail"}, {"step_type", "WAIT"}, {"depends_on", {"r0"}}, {"config", {{"duration_seconds", 1}}}});
    std::shuffle(steps.begin(), steps.end(), rng);
    PlanResult r = plan_text(json{{"steps", steps}}.dump());
    ASSERT_EQ(r.report.errors.size(), 1u) << ring;
    EXPECT_EQ(r.report.errors[0].code, "cycle");
    // The message lists every ring member once, plus the first again.
    std::size_t quotes = std::count(r.report.errors[0].message.begin(), r.report.errors[0].message.end(), '\'');
    EXPECT_EQ(quotes, static_cast<std::size_t>(2 * (ring + 1)));
  }
}

}  // namespace
}  // namespace budcore::pipeline
