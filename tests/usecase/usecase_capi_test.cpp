// The use-case C ABI: registries, list/show/components and render, with the C ABI's rules
// (outputs untouched on failure, a buf still holding text refused, UTF-8 checked).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "budcore/budcore.h"

namespace {

using nlohmann::json;

struct Registry {
  budcore_usecase_registry* r = nullptr;
  explicit Registry(int builtin) { EXPECT_EQ(budcore_usecase_registry_new(&r, builtin), BUDCORE_OK); }
  ~Registry() { budcore_usecase_registry_free(r); }
};

std::string take(budcore_buf& b) {
  std::string s = b.ptr ? std::string(b.ptr, b.size) : std::string();
  budcore_buf_dispose(&b);
  return s;
}

int render(const budcore_usecase_registry* r, const std::string& id, const std::string& request, json& out,
           json& errors) {
  budcore_buf o = BUDCORE_BUF_INIT, e = BUDCORE_BUF_INIT;
  int rc = budcore_usecase_render(&o, &e, r, id.data(), id.size(), request.data(), request.size());
  std::string os = take(o), es = take(e);
  out = os.empty() ? json() : json::parse(os);
  errors = es.empty() ? json() : json::parse(es);
  return rc;
}

TEST(UsecaseCapiTest, RendersAShippedTemplate) {
  Registry reg(1);
  json out, errors;
  ASSERT_EQ(render(reg.r, "simple-rag-v1", R"({"parameters": {"model_id": "m"}, "name": "demo"})", out, errors),
            BUDCORE_OK)
      << budcore_error_last()->message;
  EXPECT_TRUE(errors.is_null());
  EXPECT_EQ(out["valid"], true);
  EXPECT_EQ(out["components"].size(), 4u);
  EXPECT_EQ(out["pipeline"]["pipeline"]["name"], "demo");
  ASSERT_EQ(render(reg.r, "simple-rag-v1", R"({"parameters": {"model_id": "m"},
      "overrides": {"llm": {"gpu_count": 4}}})",
                   out, errors),
            BUDCORE_OK);
  EXPECT_EQ(out["components"][2]["gpu_count"], 4);
}

TEST(UsecaseCapiTest, InvalidParametersListEveryProblemAndLeaveOutAlone) {
  Registry reg(1);
  json out, errors;
  EXPECT_EQ(render(reg.r, "simple-rag-v1", R"({"parameters": {"gpu_type": "tpu", "extra": 1}})", out, errors),
            BUDCORE_EINVALID);
  EXPECT_TRUE(out.is_null());
  ASSERT_EQ(errors["errors"].size(), 3u) << errors.dump();
  EXPECT_EQ(errors["valid"], false);
  EXPECT_STREQ(budcore_error_last()->field, "parameters.extra");
  EXPECT_NE(std::string(budcore_error_last()->message).find("unknown_parameter"), std::string::npos);
  // errors_out may be NULL.
  budcore_buf o = BUDCORE_BUF_INIT;
  std::string req = R"({"parameters": {}})";
  EXPECT_EQ(budcore_usecase_render(&o, nullptr, reg.r, "simple-rag-v1", 13, req.data(), req.size()), BUDCORE_EINVALID);
  EXPECT_EQ(o.ptr, nullptr);
  EXPECT_STREQ(budcore_error_last()->field, "parameters.model_id");
  EXPECT_EQ(render(reg.r, "nope", "", out, errors), BUDCORE_ENOTFOUND);
  EXPECT_STREQ(budcore_error_last()->field, "template_id");
  EXPECT_EQ(render(reg.r, "simple-rag-v1", R"({"params": {}})", out, errors), BUDCORE_EINVALID);
  EXPECT_STREQ(budcore_error_last()->field, "request_json.params");
  EXPECT_EQ(render(reg.r, "simple-rag-v1", "[1]", out, errors), BUDCORE_EINVALID);
  EXPECT_STREQ(budcore_error_last()->field, "request_json");
}

TEST(UsecaseCapiTest, BufferRulesAndArguments) {
  Registry reg(1);
  budcore_buf used = BUDCORE_BUF_INIT;
  ASSERT_EQ(budcore_usecase_list(&used, reg.r), BUDCORE_OK);
  char* before = used.ptr;
  EXPECT_EQ(budcore_usecase_list(&used, reg.r), BUDCORE_EINVALID);  // still holds text
  EXPECT_STREQ(budcore_error_last()->field, "out");
  EXPECT_EQ(used.ptr, before);
  budcore_buf_dispose(&used);
  EXPECT_EQ(budcore_usecase_list(nullptr, reg.r), BUDCORE_EINVALID);
  budcore_buf b = BUDCORE_BUF_INIT;
  EXPECT_EQ(budcore_usecase_list(&b, nullptr), BUDCORE_EINVALID);
  EXPECT_STREQ(budcore_error_last()->field, "registry");
  EXPECT_EQ(budcore_usecase_registry_new(nullptr, 0), BUDCORE_EINVALID);
  const char bad_utf8[] = "simple\xff";
  EXPECT_EQ(budcore_usecase_show(&b, reg.r, bad_utf8, sizeof bad_utf8 - 1), BUDCORE_EINVALID);
  EXPECT_STREQ(budcore_error_last()->field, "id");
  EXPECT_EQ(budcore_usecase_show(&b, reg.r, nullptr, 3), BUDCORE_EINVALID);
  budcore_usecase_registry_free(nullptr);
}

TEST(UsecaseCapiTest, ListShowComponentsAndOwnDocuments) {
  Registry empty(0);
  budcore_buf b = BUDCORE_BUF_INIT;
  ASSERT_EQ(budcore_usecase_list(&b, empty.r), BUDCORE_OK);
  EXPECT_EQ(json::parse(take(b))["templates"].size(), 0u);
  std::string comps = R"([{"id": "api", "name": "API", "description": "", "category": "service", "version": "1",
                            "deployment_type": "docker", "image": "api", "outputs": ["url"]}])";
  ASSERT_EQ(budcore_usecase_registry_add_components(empty.r, comps.data(), comps.size()), BUDCORE_OK);
  EXPECT_EQ(budcore_usecase_registry_add_components(empty.r, comps.data(), comps.size()), BUDCORE_EEXISTS);
  std::string bad = R"({"id": "x", "name": "X", "description": "", "category": "service", "version": "1",
                        "deployment_type": "docker", "image": "x", "outputz": []})";
  EXPECT_EQ(budcore_usecase_registry_add_components(empty.r, bad.data(), bad.size()), BUDCORE_EINVALID);
  EXPECT_STREQ(budcore_error_last()->field, "outputz");
  std::string tmpl =
      "id: one\nname: One\ndescription: d\ncategory: demo\nversion: '1'\ncomplexity: simple\n"
      "components: [{id: a, component_ref: api}]\n";
  ASSERT_EQ(budcore_usecase_registry_add_template(empty.r, tmpl.data(), tmpl.size()), BUDCORE_OK);
  ASSERT_EQ(budcore_usecase_registry_add_template(empty.r, tmpl.data(), tmpl.size()), BUDCORE_OK);  // replaces
  ASSERT_EQ(budcore_usecase_list(&b, empty.r), BUDCORE_OK);
  EXPECT_EQ(json::parse(take(b))["templates"][0]["id"], "one");
  ASSERT_EQ(budcore_usecase_show(&b, empty.r, "one", 3), BUDCORE_OK);
  EXPECT_EQ(json::parse(take(b))["components"][0]["component_ref"], "api");
  EXPECT_EQ(budcore_usecase_show(&b, empty.r, "two", 3), BUDCORE_ENOTFOUND);
  ASSERT_EQ(budcore_usecase_components(&b, empty.r), BUDCORE_OK);
  EXPECT_EQ(json::parse(take(b))["components"][0]["id"], "api");
  json out, errors;
  ASSERT_EQ(render(empty.r, "one", "", out, errors), BUDCORE_OK) << budcore_error_last()->message;
  std::string dir = std::string(BUDCORE_SOURCE_DIR) + "/examples/usecases";
  std::string cpath = dir + "/components", tpath = dir + "/templates";
  ASSERT_EQ(budcore_usecase_registry_load(empty.r, cpath.data(), cpath.size(), tpath.data(), tpath.size()), BUDCORE_OK)
      << budcore_error_last()->message;
  ASSERT_EQ(budcore_usecase_list(&b, empty.r), BUDCORE_OK);
  EXPECT_EQ(json::parse(take(b))["templates"].size(), 6u);
  std::string missing = dir + "/nope";
  EXPECT_EQ(budcore_usecase_registry_load(empty.r, missing.data(), missing.size(), nullptr, 0), BUDCORE_EIO);
  EXPECT_STREQ(budcore_error_last()->field, "path");
  EXPECT_EQ(std::string(budcore_error_last()->value), missing);
  EXPECT_EQ(std::string(budcore_error_last()->message), "cannot open file '" + missing + "': No such file or directory");
}

TEST(UsecaseCapiTest, ConcurrentRendersShareARegistry) {
  Registry reg(1);
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        json out, errors;
        std::string req = R"({"parameters": {"cluster_id": "c)" + std::to_string(t) + R"("}})";
        if (render(reg.r, "enterprise-rag-v1", req, out, errors) == BUDCORE_OK && out["valid"] == true) ++ok[t];
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok, std::vector<int>(4, 20));
}

}  // namespace
