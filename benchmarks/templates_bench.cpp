// Compile and render costs of the template engine (google/benchmark).
#include <benchmark/benchmark.h>

#include "budcore/core/json.hpp"
#include "budcore/templates/template.hpp"

namespace {

using budcore::templates::Template;

const budcore::core::Value& context() {
  static const budcore::core::Value v = *budcore::core::parse_json(R"({
    "params": {"llm_model": "llama-3-8b", "enable_reranker": true, "top_k": 5, "temperature": 0.7},
    "steps": {"step-1": {"outputs": {"config": {"model": "m1", "replicas": 2}, "url": "http://svc"}},
              "step-6": {"outputs": {}}},
    "users": [{"name": "alice", "age": 30}, {"name": "bob", "age": 25}, {"name": "carol", "age": 35}]})");
  return v;
}

constexpr const char* kSimple = "{{ params.llm_model }}";
constexpr const char* kDefault = "{{ steps.step-6.outputs.url | default('') }}";
constexpr const char* kMessage =
    "Deployment {{ params.llm_model | upper }} ({{ params.top_k }} results{% if params.enable_reranker %}, "
    "reranked{% endif %}): {% for u in users %}{{ loop.index }}. {{ u.name | title }} ({{ u.age }}){% if not loop.last %}, "
    "{% endif %}{% endfor %} t={{ params.temperature * 2 }}";

void BM_Compile(benchmark::State& state, const char* text) {
  for (auto _ : state) {
    auto t = Template::compile(text);
    benchmark::DoNotOptimize(t);
  }
}

void BM_Render(benchmark::State& state, const char* text) {
  auto t = Template::compile(text);
  std::string out;
  budcore::templates::TemplateError err;
  for (auto _ : state) {
    bool ok = t->render(context(), out, err);
    benchmark::DoNotOptimize(ok);
    benchmark::DoNotOptimize(out.data());
  }
}

void BM_RenderNative(benchmark::State& state, const char* text) {
  auto t = Template::compile(text);
  budcore::core::Value out;
  budcore::templates::TemplateError err;
  for (auto _ : state) {
    bool ok = t->render_native(context(), out, err);
    benchmark::DoNotOptimize(ok);
  }
}

BENCHMARK_CAPTURE(BM_Compile, simple, kSimple);
BENCHMARK_CAPTURE(BM_Compile, message, kMessage);
BENCHMARK_CAPTURE(BM_Render, simple, kSimple);
BENCHMARK_CAPTURE(BM_Render, default_filter, kDefault);
BENCHMARK_CAPTURE(BM_Render, message, kMessage);
BENCHMARK_CAPTURE(BM_RenderNative, map, "{{ steps.step-1.outputs.config }}");

}  // namespace
