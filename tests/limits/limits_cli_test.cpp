// The limits suite, CLI face (issue #19): every pathological input the issue lists, fed to the
// `budcore` binary under a time limit and (outside sanitizer builds, whose shadow memory needs
// a large address space) a memory cap. Each must end in a clean error — the JSON error object
// on stderr and exit 2, or a per-case error line in a batch — never a crash, a hang or an
// out-of-memory kill.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cli/cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using budcore::test::detail::CliRun;
using budcore::test::detail::quote;
using budcore::test::detail::slurp;
using nlohmann::json;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kCapMemory = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kCapMemory = false;
#else
constexpr bool kCapMemory = true;
#endif
#else
constexpr bool kCapMemory = true;
#endif

// 1 GiB of address space: ten times what any of these needs when the limits hold, a small
// fraction of what they took when they did not.
constexpr const char* kMemoryCapKb = "1048576";

std::string repeat(std::string_view s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

class LimitsCliTest : public budcore::test::detail::CliFixture {
 protected:
  LimitsCliTest() : CliFixture("budcore_limits_cli_") {}

  fs::path write(const std::string& name, const std::string& text) {
    fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

  // `budcore <args>` with a 60 s limit (and the memory cap); stderr captured.
  CliRun run(const std::string& args, const std::string& env = {}) {
    fs::path err = dir_ / "stderr.txt";
    std::string inner = env + " exec timeout 60 " + quote(binary().string()) + " " + args;
    std::string cmd = std::string(kCapMemory ? std::string("ulimit -v ") + kMemoryCapKb + "; " : "") + inner;
    std::string shell = "bash -c " + quote(cmd) + " 2>" + quote(err.string());
    CliRun r;
    FILE* pipe = ::popen(shell.c_str(), "r");
    if (pipe == nullptr) return r;
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) r.out.append(buf, n);
    int status = ::pclose(pipe);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.err = slurp(err);
    return r;
  }

  // Exit 2 with one JSON error object on stderr, short however large the input; returns it.
  json invalid(const CliRun& r) {
    EXPECT_EQ(r.exit_code, 2) << r.err.substr(0, 500);
    EXPECT_LT(r.err.size(), 8192u) << "the error repeats the input";
    json j = json::parse(r.err.substr(0, r.err.find('\n')), nullptr, false);
    EXPECT_TRUE(j.contains("error")) << r.err.substr(0, 500);
    return j.is_object() && j.contains("error") ? j["error"] : json::object();
  }
};

TEST_F(LimitsCliTest, TemplateBatchFailsEachHostileCaseAndGoesOn) {
  std::string deep_list = "{% set ns = namespace(l=[]) %}{% for i in range(30000) %}{% set ns.l = [ns.l] %}{% endfor %}";
  std::vector<std::pair<std::string, std::string>> cases = {
      {"plus", "{{ 1" + repeat("+1", 20000) + " }}"},
      {"upper", "{{ 'a'" + repeat("|upper", 20000) + " }}"},
      {"print", deep_list + "{{ ns.l }}"},
      {"tojson", deep_list + "{{ ns.l | tojson }}"},
      {"compare", deep_list + "{{ ns.l == ns.l }}"},
      {"self", "{% set ns = namespace(a=1) %}{% set ns.a = ns %}{{ ns }}"},
      {"format", "{{ '{99999999999999999999}'.format(1) }}"},
      {"range", "{% for i in range(9223372036854775800, 9223372036854775807, 3) %}{{ i }}{% endfor %}"},
      {"list_plus", "{% set ns = namespace(l=[]) %}{% for i in range(100000) %}{% set ns.l = ns.l + [i] %}{% endfor %}"},
      {"batch", "{{ ['x'] | batch(1000000000, 'x') | list | length }}"},
      {"after", "{{ 6 * 7 }}"},
  };
  std::string batch = json{{"context", json::object()}}.dump() + "\n";
  for (const auto& [id, t] : cases) batch += json{{"id", id}, {"template", t}}.dump() + "\n";
  CliRun r = run("template eval --batch " + quote(write("batch.jsonl", batch).string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, json> by_id;
  std::size_t start = 0;
  while (start < r.out.size()) {
    std::size_t nl = r.out.find('\n', start);
    json line = json::parse(r.out.substr(start, nl - start));
    by_id[line["id"]] = line;
    start = nl + 1;
  }
  ASSERT_EQ(by_id.size(), cases.size());
  for (const char* id : {"plus", "upper"}) EXPECT_EQ(by_id[id]["error"], "TemplateSyntaxError") << id;
  // ([[1] * 100000] * 100000 prints until the 16 MiB output limit: a SecurityError after
  // seconds; templates/template_limits_test.cpp covers it under scaled-down limits.)
  for (const char* id : {"print", "tojson", "compare", "list_plus", "batch"}) {
    EXPECT_EQ(by_id[id]["error"], "SecurityError") << id << ": " << by_id[id].dump();
  }
  EXPECT_EQ(by_id["self"]["value"], "{'a': {...}}");
  EXPECT_EQ(by_id["format"]["error"], "TemplateRuntimeError");
  EXPECT_EQ(by_id["range"]["value"], "922337203685477580092233720368547758039223372036854775806");
  EXPECT_EQ(by_id["after"]["value"], "42");  // one bad case never ends the batch
}

TEST_F(LimitsCliTest, OversizedAndEndlessInputsAreRefused) {
  // A 50 MB job document: refused at 1.5 MiB, and the error does not quote it.
  std::string big = json{{"name", std::string(50'000'000, 'x')}}.dump();
  json e = invalid(run("job validate " + quote(write("big.json", big).string())));
  EXPECT_NE(e["message"].get<std::string>().find("1572864"), std::string::npos) << e.dump();
  // A job document with a huge bad value: the error quotes its start and length only.
  std::string bad_name = json{{"name", std::string(1'000'000, 'X')}}.dump();
  e = invalid(run("job validate " + quote(write("bad_name.json", bad_name).string())));
  EXPECT_LT(e.dump().size(), 4096u);
  // /dev/zero ends at the input limit instead of exhausting memory.
  for (const char* cmd : {"template eval --batch /dev/zero", "job validate /dev/zero",
                          "--max-input-bytes 1048576 pipeline plan /dev/zero", "--max-input-bytes 1048576 pipeline run /dev/zero",
                          "--max-input-bytes 1048576 quota simulate /dev/zero"}) {
    e = invalid(run(cmd));
    EXPECT_NE(e["message"].get<std::string>().find("larger than the input limit"), std::string::npos) << cmd;
  }
  // The cap is configurable: flag and environment.
  fs::path small = write("small.json", R"({"pipeline": {"id": "p"}, "steps": []})");
  e = invalid(run("--max-input-bytes 10 pipeline plan " + quote(small.string())));
  EXPECT_NE(e["message"].get<std::string>().find("10 bytes"), std::string::npos);
  invalid(run("pipeline plan " + quote(small.string()), "BUDCORE_MAX_INPUT_BYTES=10"));
  EXPECT_EQ(run("pipeline plan " + quote(small.string())).exit_code, 0);  // and without them it plans
}

TEST_F(LimitsCliTest, YamlAliasBombIsRefused) {
  std::string doc = "pipeline: {id: p, parameters: {big: &big " + std::string(1 << 20, 'x') + "}}\nsteps:\n";
  doc += "- id: t\n  name: t\n  step_type: TRANSFORM\n  config:\n    outputs:\n      x: [";
  for (int i = 0; i < 1000; ++i) doc += i ? ", *big" : "*big";
  doc += "]\n";
  fs::path bomb = write("bomb.yaml", doc);
  json e = invalid(run("pipeline plan " + quote(bomb.string())));
  EXPECT_NE(e["message"].get<std::string>().find("aliases expand"), std::string::npos) << e.dump();
  if (!kCapMemory) return;
  // With the input limit raised past the memory cap, the expansion runs out of memory: a clean
  // error and exit 1, not the segfault it was (a std::variant copy that throws crashed).
  CliRun oom = run("pipeline plan " + quote(bomb.string()), "BUDCORE_MAX_INPUT_BYTES=4000000000");
  EXPECT_EQ(oom.exit_code, 1) << oom.err;
  EXPECT_NE(oom.err.find("out of memory"), std::string::npos) << oom.err;
}

TEST_F(LimitsCliTest, QuotaNumbersAndKeysAreChecked) {
  json scenario = json::parse(R"({"cycles": 1, "resource_flavors": [{"name": "default"}],
    "cluster_queues": [{"name": "cq", "resource_groups": [{"covered_resources": ["cpu"],
      "flavors": [{"name": "default", "resources": [{"name": "cpu", "nominal": "10"}]}]}]}],
    "local_queues": [{"namespace": "ns", "name": "lq", "cluster_queue": "cq"}],
    "workloads": [{"name": "w", "namespace": "ns", "queue": "lq",
                   "pod_sets": [{"name": "main", "count": 4294967297, "requests": {"cpu": "0"}}]}]})");
  json e = invalid(run("quota simulate " + quote(write("count.json", scenario.dump()).string())));
  EXPECT_EQ(e["path"], "workloads[0].pod_sets[0].count");
  scenario["workloads"][0]["pod_sets"][0]["count"] = 1;
  scenario["workloads"][0]["pod_sets"][0].erase("requests");
  scenario["workloads"][0]["pod_sets"][0]["reqests"] = {{"cpu", "100"}};
  e = invalid(run("quota simulate " + quote(write("typo.json", scenario.dump()).string())));
  EXPECT_EQ(e["path"], "workloads[0].pod_sets[0].reqests");
  EXPECT_NE(e["message"].get<std::string>().find("did you mean 'requests'?"), std::string::npos);
}

TEST_F(LimitsCliTest, PipelinesWithHostileTemplatesDurationsAndDependsFailCleanly) {
  json chain = {{"pipeline", {{"id", "p"}}},
                {"steps", json::array({{{"id", "t"}, {"name", "t"}, {"step_type", "TRANSFORM"},
                                        {"config", {{"outputs", {{"x", "{{ 1" + repeat("+1", 20000) + " }}"}}}}}}})}};
  fs::path f = write("chain.json", chain.dump());
  CliRun plan = run("pipeline plan " + quote(f.string()));
  EXPECT_EQ(plan.exit_code, 2);
  EXPECT_EQ(json::parse(plan.out)["errors"][0]["code"], "template_syntax");
  invalid(run("pipeline run " + quote(f.string())));
  json wait = {{"pipeline", {{"id", "p"}}},
               {"steps", json::array({{{"id", "w"}, {"name", "w"}, {"step_type", "WAIT"},
                                       {"config", {{"duration_seconds", 1000000000000000000LL}}}}})}};
  json e = invalid(run("pipeline run " + quote(write("wait.json", wait.dump()).string())));
  EXPECT_EQ(e["path"], "steps[0].config.duration_seconds");
  json deps = {{"pipeline", {{"id", "p"}}},
               {"steps", json::array({{{"id", "a"}, {"name", "a"}, {"step_type", "TRANSFORM"}, {"config", {{"outputs", {{"x", 1}}}}}},
                                      {{"id", "b"}, {"name", "b"}, {"step_type", "TRANSFORM"}, {"depends_on", {"a"}},
                                       {"depends", "a" + repeat(" || a", 20000)}, {"config", {{"outputs", {{"x", 1}}}}}}})}};
  invalid(run("pipeline run " + quote(write("deps.json", deps.dump()).string())));
}

TEST_F(LimitsCliTest, StoreRefusesNonUtf8KeysAndForgedCursors) {
  std::string uri = "sqlite://" + (dir_ / "s.db").string();
  std::string tenant = "3f6b2a1e-8c4d-4e5f-9a0b-1c2d3e4f5a6b";  // the spec's tenant
  fs::path job = fs::path(BUDCORE_SOURCE_DIR) / "examples/specs/jobs/llm-endpoint.json";
  json e = invalid(run("job submit " + quote(job.string()) + " --store " + quote(uri) + " --tenant " + tenant +
                       " --idempotency-key $'k\\xff'"));
  EXPECT_EQ(e["path"], "idempotency_key");
  CliRun listed = run("job list --store " + quote(uri) + " --tenant " + tenant);
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(json::parse(listed.out)["items"].size(), 0u);
  for (const char* forged : {"1_x", "-5_zz", "007_0190a0a0-0000-7000-8000-000000000001"}) {
    e = invalid(run("job list --store " + quote(uri) + " --tenant " + tenant + " --after " + quote(forged)));
    EXPECT_EQ(e["path"], "page.after") << forged;
  }
}

}  // namespace
