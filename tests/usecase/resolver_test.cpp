// Resolver: contract 4's rules one by one, on small templates over the shipped
// components.
#include <gtest/gtest.h>

#include <thread>

#include "usecase/usecase_fixture.hpp"

namespace budcore::usecase {
namespace {

using core::Value;
using testing::make_template;
using testing::resolve_ok;
using testing::single_issue;
using testing::yaml;
namespace code = issue_code;

class ResolverTest : public ::testing::Test {
 protected:
  ComponentRegistry registry = testing::source_components();

  // A template with `parameters` and `components` (YAML list bodies).
  static UseCaseTemplate tmpl(std::string_view parameters, std::string_view components) {
    return make_template(
        "id: t\nname: T\ndescription: d\ncategory: rag\nversion: \"1.0.0\"\ncomplexity: simple\n"
        "parameters:" +
        std::string(parameters.empty() ? " []" : parameters) + "\ncomponents:" + std::string(components) + "\n");
  }
  ResolveResult run(const UseCaseTemplate& t, std::string_view params = "{}", const ResolveOptions& o = {}) {
    return resolve(t, registry, yaml(params), o);
  }
};

constexpr std::string_view kUi = R"(
  - id: ui
    component_ref: chat-ui
    env: {API_ENDPOINT: "http://api"})";

TEST_F(ResolverTest, ParametersTakeTheUserValueElseTheDefault) {
  auto t = tmpl(R"(
  - {name: a, type: string, label: A, default: x}
  - {name: b, type: integer, label: B, default: 3}
  - {name: c, type: boolean, label: C, required: false})",
                kUi);
  auto s = resolve_ok(t, registry, yaml("{a: y}"));
  EXPECT_EQ(s.parameters, yaml("{a: y, b: 3, c: null}"));
  EXPECT_EQ(s.template_id, "t");
  EXPECT_EQ(s.template_version, "1.0.0");
}

TEST_F(ResolverTest, ParameterProblemsAreAllReportedEachNamingTheParameter) {
  auto t = tmpl(R"(
  - {name: model, type: model_ref, label: Model}
  - {name: size, type: integer, label: Size, default: 512, min: 128, max: 2048}
  - {name: db, type: enum, label: DB, options: [qdrant, milvus], default: qdrant}
  - {name: on, type: boolean, label: On, default: true}
  - {name: cluster, type: cluster_ref, label: Cluster, required: false})",
                kUi);
  auto res = run(t, "{siz: 5, size: 4096, db: weaviate, on: 'yes', cluster: 7}");
  ASSERT_FALSE(res.valid());
  std::vector<std::pair<std::string, std::string>> got;
  for (const auto& e : res.errors) got.emplace_back(e.code, e.path);
  EXPECT_EQ(got, (std::vector<std::pair<std::string, std::string>>{{"unknown_parameter", "parameters.siz"},
                                                                   {"missing_parameter", "parameters.model"},
                                                                   {"invalid_parameter", "parameters.size"},
                                                                   {"invalid_parameter", "parameters.db"},
                                                                   {"invalid_parameter", "parameters.on"},
                                                                   {"invalid_parameter", "parameters.cluster"}}))
      << testing::describe(res.errors);
  EXPECT_NE(res.errors[0].message.find("did you mean 'size'?"), std::string::npos);
  EXPECT_NE(res.errors[2].message.find("at most 2048"), std::string::npos);
  EXPECT_NE(res.errors[3].message.find("not one of the options: qdrant, milvus"), std::string::npos);
  EXPECT_FALSE(res.stack);
  EXPECT_EQ(res.to_value().find("valid")->as_bool(), false);
}

TEST_F(ResolverTest, ExplicitNullClearsAnOptionalParameterButNotARequiredOne) {
  auto t = tmpl(R"(
  - {name: reranker, type: model_ref, label: R, default: bge, required: false}
  - {name: llm, type: model_ref, label: L, default: llama})",
                kUi);
  EXPECT_TRUE(resolve_ok(t, registry, yaml("{reranker: null}")).parameters.find("reranker")->is_null());
  auto issue = single_issue(run(t, "{llm: null}"));
  EXPECT_EQ(issue.code, code::kMissingParameter);
  EXPECT_EQ(issue.path, "parameters.llm");
  EXPECT_EQ(single_issue(run(t, "[1]")).path, "parameters");
}

TEST_F(ResolverTest, ParametersAndParamsBothNameAParameter) {
  auto t = tmpl("\n  - {name: x, type: string, label: X, default: v}", R"(
  - id: ui
    component_ref: chat-ui
    env: {API_ENDPOINT: "{{ parameters.x }}-{{ params.x }}"})");
  EXPECT_EQ(resolve_ok(t, registry, Value()).components[0].env.find("API_ENDPOINT")->as_string(), "v-v");
}

TEST_F(ResolverTest, ConditionsAreFalseOnlyForEmptyFalseZeroAndNone) {
  auto t = tmpl("\n  - {name: c, type: string, label: C, required: false}", R"(
  - id: a
    component_ref: qdrant
    condition: "{{ params.c }}"
  - id: b
    component_ref: qdrant
    condition: "{{ params.c is none }}")");
  for (std::string falsy : {"''", "'  '", "'False'", "'false'", "'0'", "'None'"}) {
    auto s = resolve_ok(t, registry, yaml("{c: " + falsy + "}"));
    EXPECT_EQ(s.disabled, (std::vector<std::string>{"a", "b"})) << falsy;
  }
  for (std::string truthy : {"'yes'", "'1'", "'True'", "'0.0'", "'no'"}) {
    auto s = resolve_ok(t, registry, yaml("{c: " + truthy + "}"));
    EXPECT_EQ(s.disabled, std::vector<std::string>{"b"}) << truthy;
    EXPECT_EQ(s.components.size(), 1u);
  }
  auto none = resolve_ok(t, registry, yaml("{}"));
  EXPECT_EQ(none.disabled, std::vector<std::string>{"a"});  // None renders "None"
  EXPECT_EQ(none.components[0].id, "b");
}

TEST_F(ResolverTest, MergeFollowsHelmDefaultsThenTemplateThenUser) {
  auto t = tmpl("", R"(
  - id: db
    component_ref: qdrant
    config:
      persistence: {size: 100Gi, storageClass: fast}
      resources: {limits: null}
      extra: [1, 2]
    resources:
      requests: {cpu: "3"})");
  ResolveOptions o;
  o.overrides = yaml(R"({db: {config: {persistence: {storageClass: null}, replicaCount: 3, extra: [9]},
                              resources: {requests: {memory: 6Gi}}}})");
  auto s = resolve_ok(t, registry, Value(), o);
  const Value& v = s.components[0].values;
  EXPECT_EQ(v, yaml(R"({replicaCount: 3, persistence: {size: 100Gi},
                         resources: {requests: {memory: 4Gi, cpu: "2"}}, extra: [9]})"))
      << core::to_json(v);
  EXPECT_EQ(s.components[0].resources, yaml(R"({requests: {cpu: "3", memory: 6Gi}})"));
}

TEST_F(ResolverTest, StringsRenderNativelyInConfigAndAsTextInEnv) {
  auto t = tmpl(R"(
  - {name: n, type: integer, label: N, default: 512}
  - {name: on, type: boolean, label: On, default: true}
  - {name: size, type: string, label: S, default: 50Gi})",
                R"(
  - id: ui
    component_ref: chat-ui
    config: {chunk: "{{ params.n }}", enabled: "{{ params.on }}", size: "{{ params.size }}", list: ["{{ params.n }}"]}
    env: {API_ENDPOINT: x, CHUNK: "{{ params.n }}", ON: "{{ params.on }}", RAW: 7})");
  auto s = resolve_ok(t, registry, Value());
  EXPECT_EQ(s.components[0].values, yaml("{chunk: 512, enabled: true, size: 50Gi, list: [512]}"));
  EXPECT_EQ(s.components[0].env.find("CHUNK")->as_string(), "512");
  EXPECT_EQ(s.components[0].env.find("ON")->as_string(), "True");
  EXPECT_EQ(s.components[0].env.find("RAW")->as_string(), "7");
  EXPECT_EQ(s.components[0].env.find("THEME")->as_string(), "light");  // the component's default
}

TEST_F(ResolverTest, OutputReferencesBecomeStepReferencesAndDependencies) {
  auto t = tmpl("", R"(
  - id: ui
    component_ref: chat-ui
    env:
      API_ENDPOINT: "{{ components['orch'].outputs.url }}/chat"
      HEALTH: "{{ components.orch.outputs.health_endpoint }}"
      SHORT: "{{ components.llm-a.url }}"
      MAPPED: "{{ components['llm-a'].outputs.metrics }}"
  - id: orch
    component_ref: rag-orchestrator
    depends_on: [db]
    env:
      VECTOR_DB_URL: "{{ components['db'].outputs.url }}"
      EMBEDDING_URL: x
      LLM_URL: "{{ components['llm-a'].outputs.url }}"
  - id: db
    component_ref: qdrant
  - id: llm-a
    component_ref: vllm-endpoint
    model_id: m
    output_mappings: {metrics_url: metrics})");
  auto s = resolve_ok(t, registry, Value());
  const auto* ui = s.component("ui");
  ASSERT_NE(ui, nullptr);
  EXPECT_EQ(ui->env.find("API_ENDPOINT")->as_string(), "{{ steps.orch.outputs.url }}/chat");
  EXPECT_EQ(ui->env.find("HEALTH")->as_string(), "{{ steps.orch.outputs.health_endpoint }}");
  EXPECT_EQ(ui->env.find("SHORT")->as_string(), "{{ steps.llm-a.outputs.url }}");
  EXPECT_EQ(ui->env.find("MAPPED")->as_string(), "{{ steps.llm-a.outputs.metrics_url }}");
  EXPECT_EQ(ui->depends_on, (std::vector<std::string>{"orch", "llm-a"}));  // template order
  EXPECT_EQ(s.component("orch")->depends_on, (std::vector<std::string>{"db", "llm-a"}));
  EXPECT_EQ(s.component("llm-a")->outputs, (std::vector<std::string>{"url", "metrics_url", "metrics"}));
  testing::expect_deployable(s);
}

TEST_F(ResolverTest, ReferencesToDisabledInstancesAreErrorsUnlessGuarded) {
  auto t = tmpl("\n  - {name: on, type: boolean, label: On, default: false}", R"(
  - id: db
    component_ref: qdrant
    condition: "{{ params.on }}"
  - id: ui
    component_ref: chat-ui
    env:
      API_ENDPOINT: "{{ components.db.outputs.url | default('none') }}"
      ENABLED: "{{ components.db.enabled }}"
      IF: "{% if components.db.enabled %}{{ components.db.outputs.url }}{% endif %}")");
  auto s = resolve_ok(t, registry, Value());
  EXPECT_EQ(s.disabled, std::vector<std::string>{"db"});
  const auto& env = s.components[0].env;
  EXPECT_EQ(env.find("API_ENDPOINT")->as_string(), "none");
  EXPECT_EQ(env.find("ENABLED")->as_string(), "False");
  EXPECT_EQ(env.find("IF")->as_string(), "");
  EXPECT_TRUE(s.components[0].depends_on.empty());
  auto on = resolve_ok(t, registry, yaml("{on: true}"));
  EXPECT_EQ(on.components[1].depends_on, std::vector<std::string>{"db"});
  EXPECT_EQ(on.components[1].env.find("IF")->as_string(), "{{ steps.db.outputs.url }}");

  auto hard = tmpl("\n  - {name: on, type: boolean, label: On, default: false}", R"(
  - id: db
    component_ref: qdrant
    condition: "{{ params.on }}"
  - id: ui
    component_ref: chat-ui
    env: {API_ENDPOINT: "{{ components['db'].outputs.url }}"})");
  auto issue = single_issue(run(hard));
  EXPECT_EQ(issue.code, code::kReferenceToDisabled);
  EXPECT_EQ(issue.path, "components[1].env.API_ENDPOINT");
  EXPECT_NE(issue.message.find("'db' is disabled"), std::string::npos) << issue.message;
}

TEST_F(ResolverTest, UnknownReferences) {
  auto t = tmpl("\n  - {name: x, type: string, label: X, default: v}", R"(
  - id: ui
    component_ref: chat-ui
    depends_on: [nowhere]
    condition: "{{ components.db.enabled }}"
    env:
      API_ENDPOINT: "{{ components.ghost.outputs.url }}"
      A: "{{ components.db.outputs.port }}"
      B: "{{ params.y }}"
      C: "{{ cluster.name }}"
      D: "{{ usecase.owner }}"
  - id: db
    component_ref: qdrant
    output_mappings: {port: p})");
  auto res = run(t);
  std::vector<std::pair<std::string, std::string>> got;
  for (const auto& e : res.errors) got.emplace_back(e.code, e.path);
  EXPECT_EQ(got, (std::vector<std::pair<std::string, std::string>>{
                     {"unknown_reference", "components[0].depends_on[0]"},
                     {"unknown_reference", "components[1].output_mappings.port"},
                     {"unknown_reference", "components[0].condition"},
                     {"unknown_reference", "components[0].env.API_ENDPOINT"},
                     {"unknown_reference", "components[0].env.A"},
                     {"unknown_reference", "components[0].env.B"},
                     {"unknown_reference", "components[0].env.C"},
                     {"unknown_reference", "components[0].env.D"}}))
      << testing::describe(res.errors);
}

TEST_F(ResolverTest, UnknownAndDeletedComponents) {
  auto t = tmpl("", "\n  - {id: a, component_ref: weaviate}");
  auto issue = single_issue(run(t));
  EXPECT_EQ(issue.code, code::kUnknownComponent);
  EXPECT_EQ(issue.path, "components[0].component_ref");
  ComponentDefinition gone = *registry.find("qdrant");
  gone.is_active = false;
  registry.put(gone);
  EXPECT_EQ(single_issue(run(tmpl("", "\n  - {id: a, component_ref: qdrant}"))).code, code::kUnknownComponent);
}

TEST_F(ResolverTest, RequiredInputsMustBeProvided) {
  auto t = tmpl("", R"(
  - id: orch
    component_ref: rag-orchestrator
    env: {VECTOR_DB_URL: x, EMBEDDING_URL: ""}
  - id: llm
    component_ref: vllm-endpoint)");
  auto res = run(t);
  std::vector<std::pair<std::string, std::string>> got;
  for (const auto& e : res.errors) got.emplace_back(e.code, e.path);
  EXPECT_EQ(got, (std::vector<std::pair<std::string, std::string>>{{"missing_input", "components[0].env.EMBEDDING_URL"},
                                                                   {"missing_input", "components[0].env.LLM_URL"},
                                                                   {"missing_input", "components[1].model_id"}}))
      << testing::describe(res.errors);
  // config keys and model_id count too.
  auto ok = tmpl("", R"(
  - id: orch
    component_ref: rag-orchestrator
    env: {VECTOR_DB_URL: x}
    config: {EMBEDDING_URL: y, LLM_URL: z}
  - id: llm
    component_ref: vllm-endpoint
    model_id: m)");
  resolve_ok(ok, registry, Value());
}

TEST_F(ResolverTest, CyclesAreReported) {
  auto t = tmpl("", R"(
  - id: a
    component_ref: chat-ui
    env: {API_ENDPOINT: "{{ components.b.outputs.url }}"}
  - id: b
    component_ref: chat-ui
    depends_on: [c]
    env: {API_ENDPOINT: x}
  - id: c
    component_ref: chat-ui
    depends_on: [a]
    env: {API_ENDPOINT: x}
  - id: d
    component_ref: chat-ui
    depends_on: [d]
    env: {API_ENDPOINT: x})");
  auto res = run(t);
  ASSERT_EQ(res.errors.size(), 2u) << testing::describe(res.errors);
  EXPECT_EQ(res.errors[0].code, code::kCycle);
  EXPECT_EQ(res.errors[0].path, "components[0].depends_on");
  EXPECT_EQ(res.errors[0].message, "the instances depend on each other in a cycle: 'a' -> 'c' -> 'b' -> 'a'");
  EXPECT_EQ(res.errors[1].message, "the instances depend on each other in a cycle: 'd' -> 'd'");
}

TEST_F(ResolverTest, TemplateSyntaxAndRenderErrors) {
  auto t = tmpl("\n  - {name: n, type: integer, label: N, default: 1}", R"(
  - id: ui
    component_ref: chat-ui
    env:
      API_ENDPOINT: "{{ params.n + }}"
      A: "{{ params.n | nosuchfilter }}"
      B: "{{ params.n / 0 }}"
      C: "{% raw %}{{ question }}{% endraw %}")");
  auto res = run(t);
  std::vector<std::pair<std::string, std::string>> got;
  for (const auto& e : res.errors) got.emplace_back(e.code, e.path);
  EXPECT_EQ(got,
            (std::vector<std::pair<std::string, std::string>>{{"template_syntax", "components[0].env.API_ENDPOINT"},
                                                              {"template_syntax", "components[0].env.A"}}))
      << testing::describe(res.errors);
  auto runtime = tmpl("\n  - {name: n, type: integer, label: N, default: 1}", R"(
  - id: ui
    component_ref: chat-ui
    env:
      API_ENDPOINT: "{{ params.n / 0 }}"
      C: "{% raw %}{{ question }}{% endraw %}")");
  auto res2 = run(runtime);
  ASSERT_EQ(res2.errors.size(), 2u) << testing::describe(res2.errors);
  EXPECT_EQ(res2.errors[0].code, code::kTemplateError);
  EXPECT_NE(res2.errors[0].message.find("ZeroDivisionError"), std::string::npos);
  EXPECT_EQ(res2.errors[1].code, code::kTemplateError);
  EXPECT_EQ(res2.errors[1].path, "components[0].env.C");
}

TEST_F(ResolverTest, GpuFieldsRenderAndFallBackToTheComponent) {
  auto t = tmpl(R"(
  - {name: gpus, type: integer, label: G, default: 2}
  - {name: gpu, type: string, label: T, default: nvidia-t4})",
                R"(
  - id: a
    component_ref: vllm-endpoint
    model_id: m
    gpu_type: "{{ params.gpu }}"
    gpu_count: "{{ params.gpus }}"
    optimize_with_budsim: "{{ params.gpus > 1 }}"
  - id: b
    component_ref: vllm-endpoint
    model_id: m
  - id: c
    component_ref: chat-ui
    env: {API_ENDPOINT: x})");
  auto s = resolve_ok(t, registry, Value());
  EXPECT_EQ(s.components[0].gpu_count, 2);
  EXPECT_EQ(s.components[0].gpu_type, "nvidia-t4");
  EXPECT_TRUE(s.components[0].optimize_with_budsim);
  EXPECT_EQ(s.components[1].gpu_count, 1);
  EXPECT_EQ(s.components[1].gpu_type, "nvidia-a100-80gb");
  EXPECT_EQ(s.components[2].gpu_count, 0);
  EXPECT_FALSE(s.components[2].gpu_type);
  const auto& steps = s.pipeline.find("steps")->as_list();
  EXPECT_EQ(steps[0].find_path("config.gpu_type")->as_string(), "nvidia-t4");
  EXPECT_TRUE(steps[0].find_path("config.optimize_with_budsim")->as_bool());
  EXPECT_EQ(steps[2].find_path("config.gpu_type"), nullptr);
  testing::expect_deployable(s);

  auto bad = resolve(t, registry, yaml("{gpus: 2, gpu: 'NVIDIA A100'}"));
  EXPECT_EQ(single_issue(bad).path, "components[0].gpu_type");
  auto t2 = tmpl("\n  - {name: g, type: string, label: G, default: two}", R"(
  - id: a
    component_ref: vllm-endpoint
    model_id: m
    gpu_count: "{{ params.g }}")");
  auto issue = single_issue(run(t2));
  EXPECT_EQ(issue.code, code::kInvalidValue);
  EXPECT_EQ(issue.path, "components[0].gpu_count");
}

TEST_F(ResolverTest, JobResourcesComeFromRequests) {
  auto t = tmpl("", R"(
  - id: db
    component_ref: qdrant
  - id: ui
    component_ref: chat-ui
    env: {API_ENDPOINT: x}
  - id: odd
    component_ref: chat-ui
    env: {API_ENDPOINT: x}
    resources: {requests: {cpu: 100m, memory: 100Mi}}
  - id: none
    component_ref: chat-ui
    env: {API_ENDPOINT: x}
    resources: {requests: null})");
  auto s = resolve_ok(t, registry, Value());
  EXPECT_EQ(s.components[0].cpu_millicores, 2000);  // values.resources.requests (Helm)
  EXPECT_EQ(s.components[0].memory_mib, 4096);
  EXPECT_EQ(s.components[1].cpu_millicores, 500);
  EXPECT_EQ(s.components[1].memory_mib, 512);
  EXPECT_EQ(s.components[2].cpu_millicores, 100);
  EXPECT_EQ(s.components[2].memory_mib, 100);
  EXPECT_EQ(s.components[3].cpu_millicores, 1000);  // the job defaults
  EXPECT_EQ(s.components[3].memory_mib, 4096);
  const auto& steps = s.pipeline.find("steps")->as_list();
  EXPECT_EQ(steps[1].find_path("config.cpu_cores")->as_float(), 0.5);
  EXPECT_EQ(steps[1].find_path("config.memory_gb")->as_float(), 0.5);
  EXPECT_EQ(steps[2].find_path("config.memory_gb")->as_float(), 100.0 / 1024);
  testing::expect_deployable(s);

  auto bad = tmpl("", R"(
  - id: ui
    component_ref: chat-ui
    env: {API_ENDPOINT: x}
    resources: {requests: {cpu: lots, memory: -1Gi}})");
  auto res = run(bad);
  ASSERT_EQ(res.errors.size(), 2u) << testing::describe(res.errors);
  EXPECT_EQ(res.errors[0].path, "components[0].resources.requests.cpu");
  EXPECT_EQ(res.errors[1].path, "components[0].resources.requests.memory");
}

TEST_F(ResolverTest, UserOverridesAreCheckedAndRendered) {
  auto t = tmpl("\n  - {name: x, type: string, label: X, default: v}", kUi);
  ResolveOptions o;
  o.overrides = yaml(R"({ui: {env: {EXTRA: "{{ params.x }}", THEME: null}, gpu_count: 0}})");
  auto s = resolve_ok(t, registry, Value(), o);
  EXPECT_EQ(s.components[0].env.find("EXTRA")->as_string(), "v");
  EXPECT_EQ(s.components[0].env.find("THEME"), nullptr);

  o.overrides = yaml(R"({ghost: {}, ui: {confg: {}}, "": 1})");
  auto res = run(t, "{}", o);
  std::vector<std::pair<std::string, std::string>> got;
  for (const auto& e : res.errors) got.emplace_back(e.code, e.path);
  EXPECT_EQ(got, (std::vector<std::pair<std::string, std::string>>{{"unknown_reference", "overrides.ghost"},
                                                                   {"invalid_value", "overrides.ui.confg"},
                                                                   {"unknown_reference", "overrides"}}))
      << testing::describe(res.errors);
  EXPECT_NE(res.errors[1].message.find("did you mean 'config'?"), std::string::npos);
  o.overrides = yaml(R"({ui: {env: {API_ENDPOINT: "{{ params.nope }}"}}})");
  EXPECT_EQ(single_issue(run(t, "{}", o)).code, code::kUnknownReference);
}

TEST_F(ResolverTest, UsecaseNameAndRoutingRender) {
  auto t = make_template(R"y(
id: t
name: T
description: d
category: rag
version: "2"
complexity: simple
components:
  - id: ui
    component_ref: chat-ui
    env: {API_ENDPOINT: x, TITLE: "{{ usecase.name }} ({{ usecase.template_id }}@{{ usecase.template_version }})"}
routing:
  target: "{{ components.ui.outputs.url }}/v1"
observability:
  dashboards: [a]
)y");
  ResolveOptions o;
  o.name = "my-rag";
  auto s = resolve_ok(t, registry, Value(), o);
  EXPECT_EQ(s.components[0].env.find("TITLE")->as_string(), "my-rag (t@2)");
  EXPECT_EQ(s.routing, yaml("{target: '{{ steps.ui.outputs.url }}/v1'}"));
  auto doc = s.to_value();
  EXPECT_EQ(doc.find_path("pipeline.pipeline.name")->as_string(), "my-rag");
  EXPECT_EQ(doc.find("observability")->find("dashboards")->as_list().size(), 1u);
  EXPECT_EQ(resolve_ok(t, registry, Value()).name, "t");
}

TEST_F(ResolverTest, OutputFollowsContract4) {
  const UseCaseTemplate* t = builtin_template("simple-rag-v1");
  auto s = resolve_ok(*t, builtin_components(), yaml("{model_id: meta-llama/Llama-3.1-8B-Instruct}"));
  Value doc = s.to_value();
  std::vector<std::string> keys;
  for (const auto& [k, v] : doc.as_map()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"valid", "template", "parameters", "components", "disabled", "pipeline",
                                            "routing", "observability"}));
  EXPECT_EQ(*doc.find("template"), yaml("{id: simple-rag-v1, version: 1.0.0}"));
  const Value& c = doc.find("components")->as_list()[3];
  std::vector<std::string> ckeys;
  for (const auto& [k, v] : c.as_map()) ckeys.push_back(k);
  std::vector<std::string> contract{"id",  "component_ref", "deployment_type", "depends_on", "values",
                                    "env", "resources",     "model_id",        "gpu_type",   "gpu_count"};
  ASSERT_GE(ckeys.size(), contract.size());
  EXPECT_EQ(std::vector<std::string>(ckeys.begin(), ckeys.begin() + 10), contract);
  EXPECT_EQ(c.find("env")->find("LLM_URL")->as_string(), "{{ steps.llm.outputs.url }}");
  const Value& steps = *doc.find_path("pipeline.steps");
  EXPECT_EQ(steps.as_list().size(), 4u);
  EXPECT_EQ(steps.as_list()[3].find("id")->as_string(), "orchestrator");
  EXPECT_EQ(steps.as_list()[3].find("step_type")->as_string(), "job");
}

TEST_F(ResolverTest, StaticIssuesAndConcurrentResolves) {
  const UseCaseTemplate* t = builtin_template("enterprise-rag-v1");
  Resolver r(*t, builtin_components());
  EXPECT_TRUE(r.static_issues().empty());
  Resolver broken(*t, registry);  // the four fixture components lack tei-embedding, milvus, tei-reranker
  EXPECT_EQ(broken.static_issues().size(), 3u) << testing::describe(broken.static_issues());
  std::vector<std::string> outputs(4);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    threads.emplace_back([&, i] {
      for (int k = 0; k < 25; ++k) {
        Value p = Value::map(
            {{"cluster_id", Value("c" + std::to_string(i))}, {"vector_db", Value(k % 2 ? "milvus" : "qdrant")}});
        auto res = r.resolve(p);
        if (k == 24) outputs[i] = res.valid() ? core::to_json(res.to_value()) : "invalid";
      }
    });
  }
  for (auto& th : threads) th.join();
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    auto single =
        r.resolve(Value::map({{"cluster_id", Value("c" + std::to_string(i))}, {"vector_db", Value("qdrant")}}));
    EXPECT_EQ(outputs[i], core::to_json(single.to_value()));
  }
}

}  // namespace
}  // namespace budcore::usecase
