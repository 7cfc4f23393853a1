// C ABI over budcore::gpu: the trace replay of `budcore gpu replay`, defragmentation plans and
// MIG-aware placement.
#include <array>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/json.hpp"
#include "budcore/gpu/defrag.hpp"
#include "budcore/gpu/policy.hpp"
#include "budcore/gpu/trace.hpp"
#include "capi_internal.hpp"
#include "replay_options.hpp"

namespace {

namespace capi = budcore::capi;
namespace core = budcore::core;
namespace gpu = budcore::gpu;

struct Options {
  std::vector<std::string> policies;
  gpu::ReplayOptions replay;
};

// "all", "a,b" or ["a", "b"]: the policies to run, in order.
core::Result<std::vector<std::string>> policies_of(const core::Value& v) {
  constexpr std::string_view field = "options.policies";
  if (auto st = capi::check_policy_list(v, field); !st) return st.error();
  if (v.is_string()) return gpu::parse_policy_list(v.as_string(), field);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.as_list().size(); ++i) {
    auto one = gpu::parse_policy_list(v.as_list()[i].as_string(), std::string(field) + "[" + std::to_string(i) + "]");
    if (!one) return std::move(one).error();
    out.push_back(std::move(one->front()));
  }
  return out;
}

core::Result<double> number_of(const core::Value& v, std::string_view key) {
  if (!v.is_number() || !std::isfinite(v.as_float()))
    return core::Error::invalid("options." + std::string(key), core::to_json(v), "expected a number");
  return v.as_float();
}

core::Result<Options> options_of(std::string_view text) {
  Options o;
  o.policies = gpu::policy_names();
  if (text.empty()) return o;
  static constexpr std::array<std::string_view, 4> kKeys = {"policies", "seed", "max_load", "step"};
  auto doc = capi::options_object(text, kKeys);
  if (!doc) return std::move(doc).error();
  if (const core::Value* v = doc->find("policies")) {
    auto p = policies_of(*v);
    if (!p) return std::move(p).error();
    o.policies = std::move(*p);
  }
  if (const core::Value* v = doc->find("seed")) {
    if (!v->is_int() || v->as_int() < 0)
      return core::Error::invalid("options.seed", core::to_json(*v), "expected an integer >= 0");
    o.replay.seed = static_cast<std::uint64_t>(v->as_int());
  }
  if (const core::Value* v = doc->find("max_load")) {
    auto n = number_of(*v, "max_load");
    if (!n) return std::move(n).error();
    o.replay.max_load = *n;
  }
  if (const core::Value* v = doc->find("step")) {
    auto n = number_of(*v, "step");
    if (!n) return std::move(n).error();
    o.replay.step = *n;
  }
  return o;
}

}  // namespace

extern "C" int budcore_gpu_replay(budcore_buf* out, const char* nodes_csv, size_t nodes_len, const char* pods_csv,
                                  size_t pods_len, const char* options_json, size_t options_len) {
  return capi::guard([&]() -> int {
    if (!capi::empty_out(out)) return budcore_error_last()->code;
    std::string_view nodes_text, pods_text, options_text;
    if (!capi::input_text(nodes_csv, nodes_len, "nodes_csv", nodes_text)) return budcore_error_last()->code;
    if (!capi::input_text(pods_csv, pods_len, "pods_csv", pods_text)) return budcore_error_last()->code;
    if (!capi::input_text(options_json, options_len, "options_json", options_text)) return budcore_error_last()->code;
    auto pool = gpu::parse_nodes_csv(nodes_text, "nodes_csv");
    if (!pool) return capi::set_error(pool.error());
    auto tasks = gpu::parse_pods_csv(pods_text, "pods_csv");
    if (!tasks) return capi::set_error(tasks.error());
    auto options = options_of(options_text);
    if (!options) return capi::set_error(options.error());
    std::vector<gpu::ReplayResult> results;
    for (const auto& name : options->policies) {
      auto r = gpu::replay(*pool, *tasks, name, options->replay);
      if (!r) {
        core::Error e = r.error();
        if (e.field == "max_load" || e.field == "step") e.at("options");
        return capi::set_error(e);
      }
      results.push_back(std::move(*r));
    }
    return capi::fill_buf(out, core::to_json(gpu::replay_document(*pool, tasks->size(), options->replay.seed, results)));
  });
}

namespace {

// A problem document (gpu defrag's format) in, the document `answer` makes of it out.
template <class Answer>
int answer_problem(budcore_buf* out, const char* problem_json, size_t problem_json_len, Answer answer) {
  return capi::guard([&]() -> int {
    if (!capi::empty_out(out)) return budcore_error_last()->code;
    std::string_view text;
    if (!capi::input_text(problem_json, problem_json_len, "problem_json", text)) return budcore_error_last()->code;
    auto problem = gpu::parse_defrag_problem(text);
    if (!problem) return capi::set_error(problem.error());
    auto doc = answer(*problem);
    if (!doc) return capi::set_error(doc.error());
    return capi::fill_buf(out, core::to_json(*doc));
  });
}

}  // namespace

extern "C" int budcore_gpu_defrag(budcore_buf* out, const char* problem_json, size_t problem_json_len) {
  return answer_problem(out, problem_json, problem_json_len, [](const auto& p) { return gpu::defrag_document(p); });
}

extern "C" int budcore_gpu_place_mig(budcore_buf* out, const char* problem_json, size_t problem_json_len) {
  return answer_problem(out, problem_json, problem_json_len, [](const auto& p) { return gpu::place_mig_document(p); });
}
