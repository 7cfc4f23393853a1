// libFuzzer target: any bytes as a template, compiled and rendered (text and native) against a
// small context with tight sandbox limits. Hostile input must fail cleanly, never crash or hang.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "budcore/core/json.hpp"
#include "budcore/templates/template.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace budcore;
  static const core::Value context = *core::parse_json(
      R"({"a": 1, "s": "text", "l": [1, 2.5, "x", null, true], "m": {"k-1": {"v": [1]}, "b": false}})");
  templates::Limits limits;
  limits.max_output_bytes = 1 << 16;
  limits.max_loop_iterations = 10000;
  limits.max_steps = 200000;
  limits.max_range_length = 1000;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  templates::Template t;
  templates::TemplateError err;
  if (!templates::Template::compile(text, t, err, limits)) return 0;
  templates::RenderOptions options{limits};
  std::string out;
  (void)t.render(context, out, err, options);
  core::Value v;
  (void)t.render_native(context, v, err, options);
  (void)t.references();
  return 0;
}
