// budcore_pipeline_plan through the C ABI: the contract-3 JSON on success; on failure `out`
// untouched, every problem in errors_out and the first named by budcore_error_last().
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "budcore/budcore.h"

namespace {

struct Planned {
  int rc;
  nlohmann::json json;    // out
  nlohmann::json errors;  // errors_out
};

Planned plan(const std::string& doc) {
  budcore_buf out = BUDCORE_BUF_INIT, errors = BUDCORE_BUF_INIT;
  int rc = budcore_pipeline_plan(&out, &errors, doc.data(), doc.size());
  Planned p{rc, out.ptr ? nlohmann::json::parse(out.ptr) : nlohmann::json(),
            errors.ptr ? nlohmann::json::parse(errors.ptr) : nlohmann::json()};
  budcore_buf_dispose(&out);
  budcore_buf_dispose(&errors);
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
  EXPECT_TRUE(p.errors.is_null()) << "errors_out stays empty on success";
}

TEST(PipelineCapiTest, InvalidPipelineFillsEveryErrorAndNamesTheFirst) {
  auto p = plan(R"({"pipeline": {"name": "p"}, "steps": [
    {"id": "a", "step_type": "WAIT", "depends_on": ["b"], "config": {"duration_seconds": 1}},
    {"id": "b", "step_type": "WAIT", "depends_on": ["a"], "config": {"duration_seconds": 1}},
    {"id": "c", "step_type": "TELEPORT", "config": {}}]})");
  EXPECT_EQ(p.rc, BUDCORE_EINVALID);
  EXPECT_TRUE(p.json.is_null()) << "a failed call leaves out untouched";
  EXPECT_EQ(p.errors["valid"], false);
  ASSERT_GE(p.errors["errors"].size(), 2u);
  std::string codes;
  for (const auto& e : p.errors["errors"]) codes += e["code"].get<std::string>() + " ";
  EXPECT_NE(codes.find("cycle"), std::string::npos) << codes;
  EXPECT_NE(codes.find("unknown_step_type"), std::string::npos) << codes;
  const budcore_error* err = budcore_error_last();
  EXPECT_EQ(err->code, BUDCORE_EINVALID);
  EXPECT_EQ(std::string(err->field), p.errors["errors"][0]["path"].get<std::string>());
  // Without errors_out the first problem is still the last error.
  budcore_buf out = BUDCORE_BUF_INIT;
  const std::string bad = R"({"pipeline": {"name": "p"}, "steps": [{"id": "c", "step_type": "TELEPORT", "config": {}}]})";
  EXPECT_EQ(budcore_pipeline_plan(&out, nullptr, bad.data(), bad.size()), BUDCORE_EINVALID);
  EXPECT_EQ(out.ptr, nullptr);
  EXPECT_EQ(std::string(budcore_error_last()->field), "steps[0].step_type");
}

// The one buffer rule, on every call that writes a buf: a buf that still holds text is refused
// (filling it would leak the text) and left exactly as it was.
TEST(PipelineCapiTest, RefusesAnOutputBufThatStillHoldsText) {
  const std::string doc = R"({"pipeline": {"name": "p"}, "steps": []})";
  budcore_buf out = BUDCORE_BUF_INIT;
  ASSERT_EQ(budcore_buf_set(&out, "kept", 4), BUDCORE_OK);
  char* before = out.ptr;
  EXPECT_EQ(budcore_pipeline_plan(&out, nullptr, doc.data(), doc.size()), BUDCORE_EINVALID);
  EXPECT_STREQ(budcore_error_last()->field, "out");
  EXPECT_NE(std::string(budcore_error_last()->message).find("still holds text"), std::string::npos);
  EXPECT_EQ(out.ptr, before);
  EXPECT_STREQ(out.ptr, "kept");
  budcore_buf errors = BUDCORE_BUF_INIT, fresh = BUDCORE_BUF_INIT;
  ASSERT_EQ(budcore_buf_set(&errors, "x", 1), BUDCORE_OK);
  EXPECT_EQ(budcore_pipeline_plan(&fresh, &errors, doc.data(), doc.size()), BUDCORE_EINVALID);
  EXPECT_STREQ(budcore_error_last()->field, "errors_out");
  EXPECT_EQ(fresh.ptr, nullptr);
  // The same rule on the other families' calls.
  const std::string job = R"({"name": "j"})";
  EXPECT_EQ(budcore_job_validate(&out, job.data(), job.size()), BUDCORE_EINVALID);
  EXPECT_STREQ(budcore_error_last()->field, "out");
  EXPECT_EQ(budcore_template_render(&out, "x", 1, nullptr, 0, 0), BUDCORE_EINVALID);
  EXPECT_STREQ(budcore_error_last()->field, "out");
  EXPECT_EQ(budcore_quota_simulate(&out, "{}", 2), BUDCORE_EINVALID);
  EXPECT_STREQ(budcore_error_last()->field, "out");
  EXPECT_EQ(budcore_pipeline_run(&out, doc.data(), doc.size(), nullptr, 0, nullptr), BUDCORE_EINVALID);
  EXPECT_STREQ(budcore_error_last()->field, "out");
  EXPECT_EQ(budcore_schedule_replay(&out, "baseline", 8), BUDCORE_EINVALID);
  EXPECT_STREQ(budcore_error_last()->field, "out");
  EXPECT_STREQ(out.ptr, "kept");
  budcore_buf_dispose(&out);
  budcore_buf_dispose(&errors);
}

TEST(PipelineCapiTest, RejectsNullOutputAndBadUtf8) {
  std::string doc = R"({"pipeline": {}, "steps": []})";
  EXPECT_EQ(budcore_pipeline_plan(nullptr, nullptr, doc.data(), doc.size()), BUDCORE_EINVALID);
  EXPECT_STREQ(budcore_error_last()->field, "out");
  budcore_buf out = BUDCORE_BUF_INIT;
  const char bad[] = "\xff\xfe";
  EXPECT_EQ(budcore_pipeline_plan(&out, nullptr, bad, 2), BUDCORE_EINVALID);
  EXPECT_STREQ(budcore_error_last()->field, "document");
  EXPECT_NE(std::string(budcore_error_last()->message).find("document is not valid UTF-8 (byte 0)"), std::string::npos);
  EXPECT_EQ(out.ptr, nullptr);
}

}  // namespace
