// libFuzzer: use-case template documents (YAML/JSON). Loading never crashes and an error says
// what is wrong; a template that loads writes out and reads back to the same document; it
// resolves (with its defaults, against the shipped components) without crashing, and a valid
// resolution's pipeline passes planning unchanged.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "budcore/core/json.hpp"
#include "budcore/pipeline/planner.hpp"
#include "budcore/usecase/registry.hpp"
#include "budcore/usecase/resolver.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace budcore;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto doc = usecase::parse_usecase_document(text);
  if (!doc) return 0;
  auto t = usecase::UseCaseTemplate::from_value(*doc);
  if (!t) {
    if (t.error().message.empty()) std::abort();
    return 0;
  }
  core::Value once = t->to_value();
  auto again = usecase::UseCaseTemplate::from_value(once);
  if (!again || !(again->to_value() == once)) std::abort();
  auto result = usecase::resolve(*t, usecase::builtin_components(), core::Value());
  for (const auto& e : result.errors) {
    if (e.code.empty() || e.message.empty()) std::abort();
  }
  if (result.valid()) {
    if (!result.stack) std::abort();
    auto plan = pipeline::plan_text(core::to_json(result.stack->pipeline));
    if (!plan.valid()) std::abort();
  }
  return 0;
}
