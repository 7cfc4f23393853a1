// UseCaseTemplate: the template schema, the shipped examples, the versioned envelope, and bad
// documents.
#include <gtest/gtest.h>

#include "budcore/usecase/usecase_template.hpp"
#include "usecase/usecase_fixture.hpp"

namespace budcore::usecase {
namespace {

using core::ErrorCode;
using core::Value;
using testing::yaml;

// Header + one component; tests append parameters/components text.
std::string doc(std::string_view parameters, std::string_view components = R"(
  - id: ui
    component_ref: chat-ui
)") {
  return R"(
id: t
name: T
description: a template
category: rag
version: "1.0.0"
complexity: simple
parameters:)" +
         std::string(parameters.empty() ? " []" : parameters) + "\ncomponents:" + std::string(components) + "\n";
}

core::Error parse_error(const std::string& text) {
  auto t = UseCaseTemplate::from_value(yaml(text));
  EXPECT_FALSE(t) << "parsed: " << text;
  return t ? core::Error{} : t.error();
}

TEST(TemplateTest, SourceDesignExampleLoads) {
  const UseCaseTemplate* t = builtin_template("simple-rag-v1");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->category, "rag");
  EXPECT_EQ(t->complexity, Complexity::Simple);
  ASSERT_EQ(t->parameters.size(), 4u);
  EXPECT_EQ(t->parameters[0].type, ParameterType::ModelRef);
  EXPECT_TRUE(t->parameters[0].required);
  EXPECT_FALSE(t->parameters[1].required);
  EXPECT_TRUE(t->parameters[2].required);  // the schema's default
  EXPECT_EQ(t->parameters[2].default_value.as_string(), "50Gi");
  ASSERT_EQ(t->components.size(), 4u);
  EXPECT_EQ(t->components[2].gpu_count.as_int(), 1);
  EXPECT_TRUE(t->components[2].optimize_with_budsim.as_bool());
  EXPECT_EQ(t->components[3].depends_on, (std::vector<std::string>{"vector-db", "embedding", "llm"}));
  EXPECT_EQ(t->routing.find("entrypoint")->as_string(), "orchestrator");
}

TEST(TemplateTest, RoundTripsThroughItsDocument) {
  for (const auto& f : builtin_templates()) {
    auto again = UseCaseTemplate::from_value(f.tmpl.to_value());
    ASSERT_TRUE(again) << f.tmpl.id << ": " << again.error().describe();
    EXPECT_EQ(again->to_value(), f.tmpl.to_value());
  }
}

TEST(TemplateTest, ReadsTheEnvelopeOfSection85) {
  auto inner = yaml(doc(""));
  Value envelope = Value::map({{"schema_version", Value("1.0")}, {"template", inner}});
  auto t = UseCaseTemplate::from_value(envelope);
  ASSERT_TRUE(t) << t.error().describe();
  EXPECT_EQ(t->id, "t");
  core::Map bad = inner.as_map();
  bad.set("complexity", Value("hard"));
  auto e = UseCaseTemplate::from_value(Value::map({{"template", Value(bad)}}));
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().field, "template.complexity");
}

TEST(TemplateTest, ParameterRules) {
  auto p = [&](std::string_view item) { return parse_error(doc(std::string("\n  - ") + std::string(item))); };
  EXPECT_EQ(p("{name: x, type: enum, label: X}").field, "parameters[0].options");
  EXPECT_EQ(p("{name: x, type: string, label: X, min: 1}").field, "parameters[0].min");
  EXPECT_EQ(p("{name: x, type: integer, label: X, min: 5, max: 1}").field, "parameters[0].max");
  EXPECT_EQ(p("{name: x, type: integer, label: X, default: \"5\"}").field, "parameters[0].default");
  EXPECT_EQ(p("{name: x, type: integer, label: X, default: 50, max: 10}").field, "parameters[0].default");
  EXPECT_EQ(p("{name: x, type: string, label: X, default: c, options: [a, b]}").field, "parameters[0].default");
  EXPECT_EQ(p("{name: x, type: integer, label: X, options: [1, two]}").field, "parameters[0].options[1]");
  EXPECT_EQ(p("{name: x, type: boolean, label: X, default: yes}").field, "parameters[0].default");
  EXPECT_EQ(p("{name: x, type: model_ref, label: X, default: ''}").field, "parameters[0].default");
  EXPECT_EQ(p("{name: x-y, type: string, label: X}").field, "parameters[0].name");
  EXPECT_EQ(p("{name: x, type: float, label: X}").field, "parameters[0].type");
  EXPECT_EQ(p("{name: x, type: string}").field, "parameters[0].label");
  EXPECT_EQ(p("{name: x, type: string, label: X, defualt: 1}").message, "unknown field; did you mean 'default'?");
  EXPECT_EQ(parse_error(doc("\n  - {name: x, type: string, label: X}\n  - {name: x, type: string, label: Y}")).field,
            "parameters[1].name");
}

TEST(TemplateTest, ParameterCheck) {
  TemplateParameter p;
  p.name = "n";
  p.type = ParameterType::Integer;
  p.min = 1;
  p.max = 10;
  EXPECT_TRUE(p.check(Value(5)));
  EXPECT_FALSE(p.check(Value(11)));
  EXPECT_FALSE(p.check(Value(5.0)));
  EXPECT_FALSE(p.check(Value("5")));
  p.type = ParameterType::String;
  p.min.reset();
  p.max.reset();
  EXPECT_TRUE(p.check(Value("plain text")));
  auto st = p.check(Value("{{ steps.x.outputs.secret }}"));
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("template markers"), std::string::npos);
  p.type = ParameterType::Enum;
  p.options = core::List{Value("a"), Value(2)};
  EXPECT_TRUE(p.check(Value(2)));
  EXPECT_FALSE(p.check(Value("2")));
}

TEST(TemplateTest, ComponentInstanceRules) {
  auto c = [&](std::string_view item) { return parse_error(doc("", std::string("\n  - ") + std::string(item))); };
  EXPECT_EQ(c("{id: Bad, component_ref: x}").field, "components[0].id");
  EXPECT_EQ(c("{id: a}").field, "components[0].component_ref");
  EXPECT_EQ(c("{id: a, component_ref: x, dependson: [b]}").message, "unknown field; did you mean 'depends_on'?");
  EXPECT_EQ(c("{id: a, component_ref: x, gpu_count: two}").field, "components[0].gpu_count");
  EXPECT_EQ(c("{id: a, component_ref: x, gpu_count: 2000}").field, "components[0].gpu_count");
  EXPECT_EQ(c("{id: a, component_ref: x, optimize_with_budsim: sometimes}").field,
            "components[0].optimize_with_budsim");
  EXPECT_EQ(c("{id: a, component_ref: x, env: {A: {b: 1}}}").field, "components[0].env.A");
  EXPECT_EQ(c("{id: a, component_ref: x, config: [1]}").field, "components[0].config");
  EXPECT_EQ(c("{id: a, component_ref: x, depends_on: [b, b]}").field, "components[0].depends_on[1]");
  EXPECT_EQ(c("{id: a, component_ref: x, output_mappings: {url: 'not ok'}}").field,
            "components[0].output_mappings.url");
  EXPECT_EQ(c("{id: a, component_ref: x, output_mappings: {url: outputs}}").field, "components[0].output_mappings.url");
  EXPECT_EQ(parse_error(doc("", "\n  - {id: a, component_ref: x}\n  - {id: a, component_ref: y}")).field,
            "components[1].id");
  EXPECT_EQ(parse_error(doc("", " []")).field, "components");
}

TEST(TemplateTest, TemplatedAndLiteralFieldsAreKept) {
  auto t = testing::make_template(doc("", R"(
  - id: a
    component_ref: x
    condition: false
    gpu_count: "{{ params.n }}"
    optimize_with_budsim: "{{ params.b }}"
    env: {PORT: 8080})"));
  ASSERT_EQ(t.components.size(), 1u);
  EXPECT_EQ(t.components[0].condition, "false");
  EXPECT_EQ(t.components[0].gpu_count.as_string(), "{{ params.n }}");
  EXPECT_EQ(t.components[0].env.find("PORT")->as_string(), "8080");
}

TEST(TemplateTest, TopLevelRules) {
  EXPECT_EQ(parse_error(doc("") + "complexity: hard\n").field, "complexity");
  EXPECT_EQ(parse_error(doc("") + "routing: [1]\n").field, "routing");
  EXPECT_EQ(parse_error(doc("") + "tag: [a]\n").message, "unknown field; did you mean 'tags'?");
  EXPECT_EQ(parse_error(doc("") + "schema_version: 3\n").code, ErrorCode::Unsupported);
  std::string many = doc("", "");
  for (std::size_t i = 0; i <= UseCaseTemplate::kMaxComponents; ++i) {
    many += "  - {id: c" + std::to_string(i) + ", component_ref: x}\n";
  }
  auto e = parse_error(many);
  EXPECT_EQ(e.field, "components");
  EXPECT_NE(e.message.find("at most"), std::string::npos);
}

}  // namespace
}  // namespace budcore::usecase
