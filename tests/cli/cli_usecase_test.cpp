// `budcore usecase render|list|show|components` as an acceptance test drives them
// (docs/cli.md contract 4): JSON on stdout, exit 0/2/1, errors on stderr.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using budcore::test::detail::CliRun;
using budcore::test::detail::quote;
using budcore::test::detail::run_cli;
using nlohmann::json;

class CliUsecaseTest : public budcore::test::detail::CliFixture {
 protected:
  CliUsecaseTest() : CliFixture("budcore_cli_usecase_") {}
  static std::string shipped(const std::string& rel) {
    return quote((fs::path(BUDCORE_SOURCE_DIR) / "examples" / "usecases" / rel).string());
  }
  fs::path write(const std::string& name, const std::string& text) {
    fs::path p = dir_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  CliRun run(const std::string& args, const fs::path& stdin_file = {}) {
    return run_cli(args, dir_ / "stderr.txt", stdin_file);
  }
  static json parse(const std::string& out) {
    json j = json::parse(out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << out;
    return j;
  }
};

TEST_F(CliUsecaseTest, RenderFollowsContract4AndItsPipelinePlans) {
  CliRun r = run("usecase render --template " + shipped("templates/rag/simple-rag-v1.yaml") + " --components " +
                 shipped("components") + " --set model_id=meta-llama/Llama-3.1-8B-Instruct");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json out = parse(r.out);
  EXPECT_EQ(out["valid"], true);
  EXPECT_EQ(out["template"], json({{"id", "simple-rag-v1"}, {"version", "1.0.0"}}));
  EXPECT_EQ(out["parameters"]["embedding_model"], "BAAI/bge-base-en-v1.5");
  ASSERT_EQ(out["components"].size(), 4u);
  const json& orch = out["components"][3];
  EXPECT_EQ(orch["id"], "orchestrator");
  EXPECT_EQ(orch["component_ref"], "rag-orchestrator");
  EXPECT_EQ(orch["deployment_type"], "docker");
  EXPECT_EQ(orch["depends_on"], json({"vector-db", "embedding", "llm"}));
  EXPECT_EQ(orch["env"]["LLM_URL"], "{{ steps.llm.outputs.url }}");
  EXPECT_TRUE(orch["model_id"].is_null());
  EXPECT_EQ(orch["gpu_count"], 0);
  EXPECT_EQ(out["disabled"], json::array());
  // The pipeline passes `budcore pipeline plan` unchanged.
  fs::path pipeline = write("pipeline.json", out["pipeline"].dump());
  CliRun plan = run("pipeline plan " + quote(pipeline.string()));
  ASSERT_EQ(plan.exit_code, 0) << plan.out;
  json p = parse(plan.out);
  EXPECT_EQ(p["levels"], json({{"vector-db", "embedding", "llm"}, {"orchestrator"}}));
  EXPECT_EQ(p["job_steps"], json({"vector-db", "embedding", "llm", "orchestrator"}));
}

TEST_F(CliUsecaseTest, ParametersFromAFileAndSetWhichWins) {
  fs::path params = write("params.yaml", "cluster_id: c-1\nchunk_size: 256\nvector_db: milvus\n");
  CliRun r = run("usecase render --template enterprise-rag-v1 --params " + quote(params.string()) +
                 " --set chunk_size=1024 --set reranker_model= --set enable_budsim=false --name acme");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json out = parse(r.out);
  EXPECT_EQ(out["parameters"]["chunk_size"], 1024);
  EXPECT_TRUE(out["parameters"]["reranker_model"].is_null());
  EXPECT_EQ(out["parameters"]["enable_budsim"], false);
  EXPECT_EQ(out["disabled"], json({"vector-db-qdrant", "reranker-endpoint"}));
  EXPECT_EQ(out["pipeline"]["pipeline"]["name"], "acme");
  EXPECT_EQ(out["components"].back()["env"]["TITLE"], "acme Chat");
}

TEST_F(CliUsecaseTest, InvalidInputListsEveryProblemAndExits2) {
  CliRun r = run("usecase render --template enterprise-rag-v1 --set chunk_size=99999 --set chunk_sise=1");
  EXPECT_EQ(r.exit_code, 2);
  json out = parse(r.out);
  EXPECT_EQ(out["valid"], false);
  ASSERT_EQ(out["errors"].size(), 3u) << r.out;
  EXPECT_EQ(out["errors"][0],
            json({{"code", "unknown_parameter"},
                  {"message", "the template has no parameter 'chunk_sise'; did you mean 'chunk_size'?"},
                  {"path", "parameters.chunk_sise"}}));
  EXPECT_EQ(out["errors"][1]["code"], "missing_parameter");
  EXPECT_EQ(out["errors"][1]["path"], "parameters.cluster_id");
  EXPECT_EQ(out["errors"][2]["code"], "invalid_parameter");
  json err = parse(r.err)["error"];
  EXPECT_EQ(err["path"], "parameters.chunk_sise");
  EXPECT_EQ(err["code"], "invalid");
}

TEST_F(CliUsecaseTest, TemplatesAndComponentsFromFilesAndStdin) {
  fs::path comps = write("registry.json", R"([
    {"id": "api", "name": "API", "description": "", "category": "service", "version": "1",
     "deployment_type": "docker", "image": "api", "outputs": ["url"]},
    {"id": "ui", "name": "UI", "description": "", "category": "application", "version": "1",
     "deployment_type": "docker", "image": "ui", "required_inputs": ["API"]}])");
  fs::path tmpl = write("t.yaml", R"(
id: tiny
name: Tiny
description: two containers
category: demo
version: "0.1"
complexity: simple
components:
  - {id: api, component_ref: api}
  - {id: web, component_ref: ui, env: {API: "{{ components.api.outputs.url }}"}}
)");
  CliRun r = run("usecase render --template - --components " + quote(comps.string()), tmpl);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json out = parse(r.out);
  EXPECT_EQ(out["components"][1]["depends_on"], json({"api"}));
  EXPECT_EQ(out["pipeline"]["steps"][1]["config"]["spec"]["env"]["API"], "{{ steps.api.outputs.url }}");

  fs::path broken = write("broken.yaml", "id: x\nname: X\n");
  CliRun bad = run("usecase render --template " + quote(broken.string()) + " --components " + quote(comps.string()));
  EXPECT_EQ(bad.exit_code, 2);
  json report = parse(bad.out);
  EXPECT_EQ(report["errors"][0]["code"], "invalid_template");
  EXPECT_EQ(report["errors"][0]["path"], "description");
  fs::path bad_comps = write("bad/c.yaml", "id: c\nname: C\n");
  CliRun bc =
      run("usecase render --template " + quote(tmpl.string()) + " --components " + quote((dir_ / "bad").string()));
  EXPECT_EQ(bc.exit_code, 2);
  EXPECT_EQ(parse(bc.out)["errors"][0]["code"], "invalid_component");
  CliRun missing = run("usecase render --template no-such-template");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(parse(missing.out)["errors"][0]["path"], "--template");
  CliRun bad_set = run("usecase render --template simple-rag-v1 --set =x");
  EXPECT_EQ(bad_set.exit_code, 2);
  EXPECT_EQ(parse(bad_set.err)["error"]["path"], "--set");
}

TEST_F(CliUsecaseTest, ListShowAndComponents) {
  CliRun l = run("usecase list");
  ASSERT_EQ(l.exit_code, 0) << l.err;
  json list = parse(l.out);
  ASSERT_EQ(list["templates"].size(), 5u);
  EXPECT_EQ(list["templates"][4]["id"], "simple-rag-v1");
  EXPECT_EQ(list["templates"][4]["parameters"], json({"model_id", "embedding_model", "vector_db_size", "gpu_type"}));
  EXPECT_EQ(list["templates"][4]["source_file"], "rag/simple-rag-v1.yaml");
  CliRun fromdir = run("usecase list --templates " + shipped("templates/chatbot"));
  ASSERT_EQ(fromdir.exit_code, 0);
  EXPECT_EQ(parse(fromdir.out)["templates"].size(), 2u);
  CliRun s = run("usecase show chatbot-memory-v1");
  ASSERT_EQ(s.exit_code, 0);
  EXPECT_EQ(parse(s.out)["components"][2]["condition"], "{{ parameters.persist_history }}");
  CliRun sd = run("usecase show simple-agent-v1 --templates " + shipped("templates"));
  ASSERT_EQ(sd.exit_code, 0);
  EXPECT_EQ(parse(sd.out)["id"], "simple-agent-v1");
  EXPECT_EQ(run("usecase show nope --templates " + shipped("templates")).exit_code, 2);
  CliRun c = run("usecase components");
  ASSERT_EQ(c.exit_code, 0);
  EXPECT_EQ(parse(c.out)["components"].size(), 10u);
}

TEST_F(CliUsecaseTest, SyncLoadsTheSystemCatalogOnceAndThenSkips) {
  std::string store = quote("sqlite://" + (dir_ / "store.db").string());
  CliRun first = run("usecase sync --store " + store);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  json r1 = parse(first.out);
  EXPECT_EQ(r1["inserted"].size(), 15u);
  EXPECT_EQ(r1["inserted"][0], "component agent-runtime@1.0.0");
  CliRun second = run("usecase sync --store " + store);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  json r2 = parse(second.out);
  EXPECT_EQ(r2["inserted"].size(), 0u);
  EXPECT_EQ(r2["unchanged"].size(), 15u);
  fs::path bad = write("t/bad.yaml", R"(
id: bad
name: Bad
description: d
category: demo
version: "1"
complexity: simple
components: [{id: a, component_ref: weaviate}]
)");
  CliRun invalid = run("usecase sync --store " + store + " --templates " + quote((dir_ / "t").string()));
  EXPECT_EQ(invalid.exit_code, 2);
  EXPECT_EQ(parse(invalid.err)["error"]["path"], "components[0].component_ref");
}

}  // namespace
