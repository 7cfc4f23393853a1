// Use-case resolution (google/benchmark): a 200-component template with 50 parameters (the
// issue's target: under 5 ms), and the shipped enterprise RAG template.
//
// The synthetic template: 50 parameters (string / integer / boolean / enum); 200 instances
// over four components (helm, docker, model, a docker service with required inputs); every
// instance has 3 templated config values and 2 templated env values reading parameters, one
// env value reading the previous instance's output (a dependency), resources from a
// parameter; every 10th instance has a condition, and the instances after a disabled one
// read its output through `default('')`.
#include <benchmark/benchmark.h>

#include <string>

#include "budcore/core/json.hpp"
#include "budcore/usecase/registry.hpp"
#include "budcore/usecase/resolver.hpp"

namespace {

using budcore::core::Value;
namespace usecase = budcore::usecase;

constexpr int kParameters = 50;
constexpr int kComponents = 200;

const usecase::ComponentRegistry& registry() {
  static const usecase::ComponentRegistry r = [] {
    usecase::ComponentRegistry reg;
    auto doc = budcore::core::parse_json(R"([
      {"id": "db", "name": "DB", "description": "", "category": "database", "version": "1", "deployment_type": "helm",
       "helm_chart": "x/db", "default_values": {"replicaCount": 1, "persistence": {"size": "10Gi"},
         "resources": {"requests": {"cpu": "1", "memory": "2Gi"}}}, "outputs": ["url", "api_key"]},
      {"id": "svc", "name": "Svc", "description": "", "category": "service", "version": "1", "deployment_type": "docker",
       "image": "svc", "default_env": {"LOG_LEVEL": "INFO"}, "default_resources": {"requests": {"cpu": "500m", "memory": "1Gi"}},
       "outputs": ["url"]},
      {"id": "llm", "name": "LLM", "description": "", "category": "model_endpoint", "version": "1", "deployment_type": "model",
       "model_engine": "vllm", "default_gpu_type": "nvidia-a100-80gb", "default_gpu_count": 1, "required_inputs": ["model_id"],
       "outputs": ["url", "metrics_url"]},
      {"id": "app", "name": "App", "description": "", "category": "application", "version": "1", "deployment_type": "docker",
       "image": "app", "required_inputs": ["UPSTREAM"], "outputs": ["url"]}])");
    (void)reg.add_document(*doc);
    return reg;
  }();
  return r;
}

usecase::UseCaseTemplate synthetic() {
  budcore::core::List params;
  for (int i = 0; i < kParameters; ++i) {
    std::string n = "p" + std::to_string(i);
    switch (i % 4) {
      case 0:
        params.push_back(Value::map({{"name", n}, {"type", "string"}, {"label", n}, {"default", "value-" + n}}));
        break;
      case 1:
        params.push_back(
            Value::map({{"name", n}, {"type", "integer"}, {"label", n}, {"default", i}, {"min", 0}, {"max", 1000}}));
        break;
      case 2:
        params.push_back(Value::map({{"name", n}, {"type", "boolean"}, {"label", n}, {"default", i != 10}}));
        break;
      default:
        params.push_back(Value::map({{"name", n},
                                     {"type", "enum"},
                                     {"label", n},
                                     {"options", Value::list({"a", "b", "c"})},
                                     {"default", "b"}}));
        break;
    }
  }
  const char* refs[] = {"db", "svc", "llm", "app"};
  budcore::core::List comps;
  for (int i = 0; i < kComponents; ++i) {
    std::string id = "c" + std::to_string(i);
    auto p = [&](int k) { return "p" + std::to_string((i + k) % kParameters); };
    budcore::core::Map c;
    c.set("id", id);
    c.set("component_ref", refs[i % 4]);
    if (i % 10 == 5) c.set("condition", "{{ params.p2 }}");                 // p2 is true: enabled
    if (i % 10 == 7) c.set("condition", "{{ params.p10 and params.p6 }}");  // p10 is false: disabled
    c.set("config", Value::map({{"name", "{{ params." + p(0) + " }}"},
                                {"replicas", "{{ params." + p(1) + " }}"},
                                {"nested", Value::map({{"flag", "{{ parameters." + p(2) + " }}"}, {"plain", 3}})}}));
    budcore::core::Map env;
    env.set("A", "{{ params." + p(3) + " }}-x");
    env.set("B", "{{ params." + p(4) + " | upper }}");
    if (i > 0) {
      std::string prev = "c" + std::to_string(i - 1);
      bool prev_optional = (i - 1) % 10 == 7;
      env.set("UPSTREAM", prev_optional ? "{{ components['" + prev + "'].outputs.url | default('') }}"
                                        : "{{ components['" + prev + "'].outputs.url }}/v1");
    } else {
      env.set("UPSTREAM", "http://entry");
    }
    c.set("env", Value(std::move(env)));
    c.set("resources", Value::map({{"requests", Value::map({{"cpu", "{{ params.p1 % 4 + 1 }}"}, {"memory", "4Gi"}})}}));
    if (i % 4 == 2) c.set("model_id", "{{ params.p0 }}");
    comps.push_back(Value(std::move(c)));
  }
  Value doc = Value::map({{"id", "bench"},
                          {"name", "Bench"},
                          {"description", "200 components"},
                          {"category", "bench"},
                          {"version", "1"},
                          {"complexity", "advanced"},
                          {"parameters", Value(std::move(params))},
                          {"components", Value(std::move(comps))}});
  return *usecase::UseCaseTemplate::from_value(doc);
}

const Value& user_parameters() {
  static const Value v = Value::map({{"p0", "meta-llama/Llama-3.1-8B-Instruct"}, {"p5", 7}, {"p13", 9}});
  return v;
}

void check(const usecase::ResolveResult& r, benchmark::State& state) {
  if (!r.valid()) state.SkipWithError(("resolution failed: " + r.errors.front().message).c_str());
}

// The issue's figure: a prepared Resolver (the template compiled once) resolving parameters.
void BM_Resolve200Components50Parameters(benchmark::State& state) {
  usecase::Resolver resolver(synthetic(), registry());
  check(resolver.resolve(user_parameters()), state);
  for (auto _ : state) {
    auto r = resolver.resolve(user_parameters());
    benchmark::DoNotOptimize(r);
  }
  state.counters["components"] = kComponents;
}

// Compiling the template's strings too (a one-shot resolve, as `usecase render` does).
void BM_CompileAndResolve200Components50Parameters(benchmark::State& state) {
  auto t = synthetic();
  for (auto _ : state) {
    auto r = usecase::resolve(t, registry(), user_parameters());
    benchmark::DoNotOptimize(r);
  }
}

// Resolve plus writing contract 4's JSON.
void BM_ResolveToJson200Components(benchmark::State& state) {
  usecase::Resolver resolver(synthetic(), registry());
  std::size_t bytes = 0;
  for (auto _ : state) {
    auto r = resolver.resolve(user_parameters());
    std::string out = budcore::core::to_json(r.to_value());
    bytes = out.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["json_bytes"] = static_cast<double>(bytes);
}

void BM_ResolveEnterpriseRag(benchmark::State& state) {
  usecase::Resolver resolver(*usecase::builtin_template("enterprise-rag-v1"), usecase::builtin_components());
  Value params = Value::map({{"cluster_id", "c1"}});
  check(resolver.resolve(params), state);
  for (auto _ : state) {
    auto r = resolver.resolve(params);
    benchmark::DoNotOptimize(r);
  }
}

BENCHMARK(BM_Resolve200Components50Parameters)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CompileAndResolve200Components50Parameters)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ResolveToJson200Components)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ResolveEnterpriseRag)->Unit(benchmark::kMicrosecond);

}  // namespace
