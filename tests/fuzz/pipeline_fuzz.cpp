// libFuzzer: pipeline documents. Planning must never crash or hang, and its two readers must
// agree: plan_text (the streaming simdjson path for JSON) and plan_document (parse to a Value,
// then validate) give the same validity, the same error codes and paths, and the same plan.
// A valid plan must be a real topological order, and a valid document must rehearse without
// crashing (bounded to a few thousand transitions, since retry limits and loops come from the
// input).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "budcore/core/yaml.hpp"
#include "budcore/pipeline/planner.hpp"
#include "budcore/pipeline/rehearsal.hpp"

namespace {

using namespace budcore;

// Stops a rehearsal after a bounded number of transitions.
struct Budget final : pipeline::StateSink {
  int left = 3000;
  core::Status save(const pipeline::Transition&, const pipeline::RunState&) override {
    if (--left < 0) return core::Error::make(core::ErrorCode::Conflict, "transition budget spent");
    return {};
  }
};

void check_order(const core::Value& doc, const pipeline::Plan& plan) {
  std::map<std::string, std::size_t> position;
  for (std::size_t i = 0; i < plan.order.size(); ++i) {
    if (!position.emplace(plan.order[i], i).second) std::abort();  // a step listed twice
  }
  const core::Value* steps = doc.find("steps");
  if (steps == nullptr || !steps->is_list() || steps->as_list().size() != plan.order.size()) std::abort();
  for (const auto& step : steps->as_list()) {
    const std::string& id = step.find("id")->as_string();
    auto at = position.find(id);
    if (at == position.end()) std::abort();
    if (const core::Value* deps = step.find("depends_on"); deps != nullptr && deps->is_list()) {
      for (const auto& dep : deps->as_list()) {
        if (position.at(dep.as_string()) >= at->second) std::abort();  // a dependency after its step
      }
    }
    const core::Value* config = step.find("config");
    for (const char* branch : {"then_steps", "else_steps"}) {  // CONDITION branches are edges too
      const core::Value* targets = config != nullptr ? config->find(branch) : nullptr;
      if (targets == nullptr || !targets->is_list()) continue;
      for (const auto& target : targets->as_list()) {
        if (target.is_string() && position.at(target.as_string()) <= at->second) std::abort();
      }
    }
  }
  std::size_t in_levels = 0;
  for (const auto& level : plan.levels) in_levels += level.size();
  if (in_levels != plan.order.size() || plan.critical_path_seconds < 0) std::abort();
  if (!plan.order.empty() && plan.critical_path.empty()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  pipeline::PlanResult streamed = pipeline::plan_text(text);
  auto doc = core::parse_document(text);
  if (!doc) {
    if (streamed.valid()) std::abort();  // the fast path accepted what the parser refuses
    return 0;
  }
  pipeline::PlanResult parsed = pipeline::plan_document(*doc);
  if (streamed.valid() != parsed.valid()) std::abort();
  if (!(streamed.report.errors == parsed.report.errors)) std::abort();
  if (!parsed.valid()) {
    for (const auto& e : parsed.report.errors) {
      if (e.code.empty() || e.message.empty()) std::abort();
    }
    return 0;
  }
  if (!(streamed.plan == parsed.plan)) std::abort();
  check_order(*doc, parsed.plan);
  (void)pipeline::to_json(parsed);

  if (size > 4096) return 0;  // rehearsing big inputs only slows the search down
  Budget budget;
  auto run = pipeline::rehearse(*doc, pipeline::RehearsalOptions{}, nullptr, &budget);
  if (!run && run.error().message.empty()) std::abort();
  return 0;
}
