// ComponentDefinition: the component schema, the shipped examples, and bad documents.
#include <gtest/gtest.h>

#include "budcore/usecase/component.hpp"
#include "usecase/usecase_fixture.hpp"

namespace budcore::usecase {
namespace {

using core::ErrorCode;
using testing::yaml;

constexpr std::string_view kMinimal = R"(
id: my-ui
name: My UI
description: a UI
category: application
version: "1.0.0"
deployment_type: docker
image: ghcr.io/me/ui
)";

core::Error parse_error(std::string_view text) {
  auto c = ComponentDefinition::from_value(yaml(text));
  EXPECT_FALSE(c) << "parsed: " << text;
  return c ? core::Error{} : c.error();
}

// kMinimal with one line added or replaced (`key: value`).
std::string with(std::string_view line) {
  std::string base(kMinimal);
  auto key = line.substr(0, line.find(':') + 1);
  auto at = base.find("\n" + std::string(key));
  if (at != std::string::npos) base.erase(at + 1, base.find('\n', at + 1) - at);
  return base + std::string(line) + "\n";
}

TEST(ComponentTest, SourceDesignExamplesLoadAsWritten) {
  auto registry = testing::source_components();
  ASSERT_EQ(registry.size(), 4u);
  const ComponentDefinition* q = registry.find("qdrant");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->category, ComponentCategory::Database);
  EXPECT_EQ(q->deployment_type, job::DeploymentType::Helm);
  EXPECT_EQ(q->helm_chart, "qdrant/qdrant");
  EXPECT_EQ(q->default_values.find_path("persistence.size")->as_string(), "50Gi");
  EXPECT_EQ(q->outputs, (std::vector<std::string>{"url", "api_key", "grpc_url"}));
  EXPECT_EQ(q->readiness_timeout_seconds, 300);  // the schema's default
  EXPECT_TRUE(q->is_active);
  const ComponentDefinition* v = registry.find("vllm-endpoint");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->model_engine, "vllm");
  EXPECT_EQ(v->default_gpu_count, 1);
  EXPECT_EQ(v->required_inputs, std::vector<std::string>{"model_id"});
  EXPECT_EQ(registry.find("rag-orchestrator")->default_env.find("MAX_CONTEXT_LENGTH")->as_string(), "4096");
  EXPECT_EQ(registry.find("chat-ui")->image_tag, "latest");
}

TEST(ComponentTest, RoundTripsThroughItsDocument) {
  for (const auto* c : builtin_components().all()) {
    auto again = ComponentDefinition::from_value(c->to_value());
    ASSERT_TRUE(again) << c->id << ": " << again.error().describe();
    EXPECT_EQ(*again, *c) << c->id;
    EXPECT_EQ(c->to_value().find("schema_version")->as_string(), "1.0");
  }
}

TEST(ComponentTest, CategoryAndDeploymentTypeInAnyCase) {
  auto c = ComponentDefinition::from_value(yaml(with("category: APPLICATION") + "deployment_type: DOCKER\n"));
  ASSERT_TRUE(c) << c.error().describe();
  EXPECT_EQ(c->category, ComponentCategory::Application);
  EXPECT_EQ(to_string(ComponentCategory::ModelEndpoint), "model_endpoint");
  EXPECT_FALSE(parse_component_category("gpu"));
}

TEST(ComponentTest, UnknownKeyIsRejectedWithASuggestion) {
  auto e = parse_error(with("image_tg: latest"));
  EXPECT_EQ(e.code, ErrorCode::Invalid);
  EXPECT_EQ(e.field, "image_tg");
  EXPECT_NE(e.message.find("did you mean 'image_tag'?"), std::string::npos) << e.message;
}

TEST(ComponentTest, RequiredFieldsAreNamed) {
  for (std::string_view key : {"id", "name", "description", "category", "version", "deployment_type"}) {
    std::string text(kMinimal);
    auto at = text.find("\n" + std::string(key) + ":");
    text.erase(at + 1, text.find('\n', at + 1) - at);
    EXPECT_EQ(parse_error(text).field, key);
  }
  EXPECT_EQ(parse_error("[1, 2]").field, "");
}

TEST(ComponentTest, EachDeploymentTypeNeedsItsOwnFieldsOnly) {
  auto e = parse_error(with("helm_chart: x/y"));
  EXPECT_EQ(e.field, "helm_chart");
  EXPECT_NE(e.message.find("applies to helm components"), std::string::npos) << e.message;
  EXPECT_EQ(parse_error(with("deployment_type: helm")).field, "image");  // image belongs to docker
  EXPECT_EQ(parse_error(R"(
id: h
name: H
description: d
category: database
version: "1"
deployment_type: helm
)")
                .field,
            "helm_chart");
  EXPECT_EQ(parse_error(R"(
id: m
name: M
description: d
category: model_endpoint
version: "1"
deployment_type: model
)")
                .field,
            "model_engine");
}

TEST(ComponentTest, ValuesOutOfRangeOrMalformedNameTheirPath) {
  EXPECT_EQ(parse_error(with("id: Bad_Id")).field, "id");
  EXPECT_EQ(parse_error(with("version: \"1 0\"")).field, "version");
  EXPECT_EQ(parse_error(with("version: 1.0")).field, "version");  // a float: quote it
  EXPECT_EQ(parse_error(with("outputs: [url, url]")).field, "outputs[1]");
  EXPECT_EQ(parse_error(with("outputs: [url, outputs]")).field, "outputs[1]");
  EXPECT_EQ(parse_error(with("outputs: [url, 'my url']")).field, "outputs[1]");
  EXPECT_EQ(parse_error(with("required_inputs: [A, '']")).field, "required_inputs[1]");
  EXPECT_EQ(parse_error(with("tags: [a, 3]")).field, "tags[1]");
  EXPECT_EQ(parse_error(with("readiness_timeout_seconds: 0")).field, "readiness_timeout_seconds");
  EXPECT_EQ(parse_error(with("readiness_timeout_seconds: 86401")).field, "readiness_timeout_seconds");
  EXPECT_EQ(parse_error(with("default_env: {A: [1]}")).field, "default_env.A");
  EXPECT_EQ(parse_error(with("default_values: [1]")).field, "default_values");
  EXPECT_EQ(parse_error(with("is_active: \"no\"")).field, "is_active");
  auto gpus = parse_error(R"(
id: m
name: M
description: d
category: model_endpoint
version: "1"
deployment_type: model
model_engine: vllm
default_gpu_count: 5000
)");
  EXPECT_EQ(gpus.field, "default_gpu_count");
  EXPECT_EQ(gpus.value, "5000");
}

TEST(ComponentTest, EnvScalarsBecomeText) {
  auto c = ComponentDefinition::from_value(yaml(with("default_env: {PORT: 8000, DEBUG: true, RATIO: 0.5}")));
  ASSERT_TRUE(c) << c.error().describe();
  EXPECT_EQ(c->default_env.find("PORT")->as_string(), "8000");
  EXPECT_EQ(c->default_env.find("DEBUG")->as_string(), "true");
  EXPECT_EQ(c->default_env.find("RATIO")->as_string(), "0.5");
}

TEST(ComponentTest, SchemaVersion) {
  EXPECT_TRUE(ComponentDefinition::from_value(yaml(with("schema_version: \"1.0\""))));
  auto e = parse_error(with("schema_version: \"2.0\""));
  EXPECT_EQ(e.code, ErrorCode::Unsupported);
  EXPECT_EQ(e.field, "schema_version");
}

TEST(ComponentTest, VersionDocument) {
  ComponentVersion v;
  v.component_id = "qdrant";
  v.version = "1.0.0";
  v.is_default = true;
  auto doc = v.to_value();
  EXPECT_TRUE(doc.find("id")->is_null());
  EXPECT_EQ(doc.find("component_id")->as_string(), "qdrant");
  EXPECT_TRUE(doc.find("is_default")->as_bool());
}

}  // namespace
}  // namespace budcore::usecase
