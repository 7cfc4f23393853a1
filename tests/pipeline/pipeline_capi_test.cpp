// budcore_pipeline_plan through the C ABI: the contract-3 JSON on success, every problem on
// failure with the first named by budcore_error_last().
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "budcore/budcore.h"

namespace {

struct Planned {
  int rc;
  nlohmann::json json;
};

Planned plan(const std::string& doc) {
  budcore_buf out = BUDCORE_BUF_INIT;
  int rc = budcore_pipeline_plan(&out, doc.data(), doc.size());
  Planned p{rc, out.ptr ? nlohmann::json::parse(out.ptr) : nlohmann::json()};
  budcore_buf_dispose(&out);
  return p;
}

TEST(PipelineCapiTest, PlansAValidPipeline) {
  auto p = plan(R"({"pipeline": {"name": "p"}, "steps": [
    {"id": "a", "step_type": "JOB", "config": {"job_type": "BATCH", "deployment_type": "DOCKER",
                                              "estimated_duration_seconds": 60}},
    {"id": "b", "step_type": "WAIT", "depends_on": ["a"], "config": {"duration_seconds": 30}},
    {"id": "c", "step_type": "TRANSFORM", "depends_on": ["a"], "config": {"outputs": {}}}]})");
  ASSERT_EQ(p.rc, BUDCORE_OK) << budcore_error_last()->message;
  EXPECT_EQ(p.json["valid"], true);
  EXPECT_EQ(p.json["order"], nlohmann::json::parse(R"(["a", "b", "c"])"));
  EXPECT_EQ(p.json["levels"], nlohmann::json::parse(R"([["a"], ["b", "c"]])"));
  EXPECT_EQ(p.json["critical_path"], nlohmann::json::parse(R"(["a", "b"])"));
  EXPECT_EQ(p.json["critical_path_seconds"], 90);
  EXPECT_EQ(p.json["job_steps"], nlohmann::json::parse(R"(["a"])"));
  EXPECT_EQ(budcore_error_last()->code, BUDCORE_OK);
}

TEST(PipelineCapiTest, InvalidPipelineFillsEveryErrorAndNamesTheFirst) {
  auto p = plan(R"({"pipeline": {"name": "p"}, "steps": [
    {"id": "a", "step_type": "WAIT", "depends_on": ["b"], "config": {"duration_seconds": 1}},
    {"id": "b", "step_type": "WAIT", "depends_on": ["a"], "config": {"duration_seconds": 1}},
    {"id": "c", "step_type": "TELEPORT", "config": {}}]})");
  EXPECT_EQ(p.rc, BUDCORE_EINVALID);
  EXPECT_EQ(p.json["valid"], false);
  ASSERT_GE(p.json["errors"].size(), 2u);
  std::string codes;
  for (const auto& e : p.json["errors"]) codes += e["code"].get<std::string>() + " ";
  EXPECT_NE(codes.find("cycle"), std::string::npos) << codes;
  EXPECT_NE(codes.find("unknown_step_type"), std::string::npos) << codes;
  const budcore_error* err = budcore_error_last();
  EXPECT_EQ(err->code, BUDCORE_EINVALID);
  EXPECT_EQ(std::string(err->field), p.json["errors"][0]["path"].get<std::string>());
}

TEST(PipelineCapiTest, RejectsNullOutputAndBadUtf8) {
  std::string doc = R"({"pipeline": {}, "steps": []})";
  EXPECT_EQ(budcore_pipeline_plan(nullptr, doc.data(), doc.size()), BUDCORE_EINVALID);
  EXPECT_STREQ(budcore_error_last()->field, "out");
  budcore_buf out = BUDCORE_BUF_INIT;
  const char bad[] = "\xff\xfe";
  EXPECT_EQ(budcore_pipeline_plan(&out, bad, 2), BUDCORE_EINVALID);
  EXPECT_STREQ(budcore_error_last()->field, "utf8");
  EXPECT_EQ(out.ptr, nullptr);
}

}  // namespace
