// Facts straight from JSON text with simdjson: no core::Value tree, strings copied only for
// ids and template texts. The DOM parser is used (not On-Demand) because its parsing kernels
// are chosen at run time for the CPU (AVX2 etc.) from libsimdjson, while On-Demand is inlined
// and would compile to the portable scalar kernel without -march flags.
//
// This path handles well-formed documents; at the first thing that would be a validation
// issue of its own (a wrong JSON type, a LOOP body, ...) it gives up and the caller takes the
// Value path, so both paths always report exactly the same.
#include <simdjson.h>

#include <algorithm>
#include <array>
#include <vector>

#include "budcore/pipeline/step.hpp"
#include "pipeline/facts.hpp"

namespace budcore::pipeline::detail {

static_assert(kJsonPadding >= simdjson::SIMDJSON_PADDING);

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

// JSON allows a key twice; the Value path keeps the last value (core/json.cpp). Rather than
// replay that rule here, a repeated key sends the document down the Value path.
bool unique_keys(simdjson::dom::object obj) {
  std::array<std::string_view, 8> few;
  std::size_t n = 0;
  thread_local std::vector<std::string_view> many;
  many.clear();
  for (auto field : obj) {
    if (n < few.size()) {
      for (std::size_t i = 0; i < n; ++i)
        if (few[i] == field.key) return false;
      few[n++] = field.key;
    } else {
      many.push_back(field.key);
    }
  }
  if (many.empty()) return true;
  many.insert(many.end(), few.begin(), few.end());
  std::sort(many.begin(), many.end());
  return std::adjacent_find(many.begin(), many.end()) == many.end();
}

// Records every template string under v (path relative to the step); false on a repeated key.
bool collect(element v, std::string& path, StepFacts& s) {
  switch (v.type()) {
    case element_type::STRING: {
      std::string_view sv;
      if (v.get(sv)) return true;
      if (looks_like_template(sv)) s.templates.push_back({path, sv});
      return true;
    }
    case element_type::ARRAY: {
      std::size_t mark = path.size();
      std::size_t i = 0;
      simdjson::dom::array arr;
      if (v.get(arr)) return true;
      for (element item : arr) {
        path += '[';
        path += std::to_string(i++);
        path += ']';
        if (!collect(item, path, s)) return false;
        path.resize(mark);
      }
      return true;
    }
    case element_type::OBJECT: {
      std::size_t mark = path.size();
      simdjson::dom::object obj;
      if (v.get(obj)) return true;
      if (!unique_keys(obj)) return false;
      for (auto field : obj) {
        path += '.';
        path += field.key;
        if (!collect(field.value, path, s)) return false;
        path.resize(mark);
      }
      return true;
    }
    default: return true;
  }
}

bool read_duration(element v, Duration& d, const std::string& path, StepFacts& s) {
  switch (v.type()) {
    case element_type::NULL_VALUE: return true;
    case element_type::INT64:
    case element_type::UINT64:
    case element_type::DOUBLE: {
      double x = 0;
      if (v.get_double().get(x) || !(x >= 0)) return false;
      d.state = Duration::State::Number;
      d.seconds = x;
      return true;
    }
    case element_type::STRING: {
      std::string_view sv = v.get_string().value_unsafe();
      if (!looks_like_template(sv)) return false;
      d.state = Duration::State::Template;
      s.templates.push_back({path, sv});
      return true;
    }
    default: return false;
  }
}

// A list of step ids; in config lists, template-looking entries are also templates (as the
// Value path's collect_templates sees them).
bool read_ids(element v, DepKind kind, std::string& path, StepFacts& s) {
  if (v.is_null()) return true;
  if (v.type() != element_type::ARRAY) return false;
  std::uint32_t j = 0;
  std::size_t mark = path.size();
  simdjson::dom::array arr;
  if (v.get(arr)) return false;
  for (element item : arr) {
    if (item.type() != element_type::STRING) return false;
    std::string_view id = item.get_string().value_unsafe();
    if (kind != DepKind::DependsOn && looks_like_template(id)) {
      path += '[';
      path += std::to_string(j);
      path += ']';
      s.templates.push_back({path, id});
      path.resize(mark);
    }
    s.deps.push_back({id, kind, j++});
  }
  return true;
}

bool read_config(simdjson::dom::object cfg, StepFacts& s) {
  if (!unique_keys(cfg)) return false;
  std::string path = "config";
  for (auto field : cfg) {
    element v = field.value;
    std::uint32_t bit = config_key_bit(field.key);
    path += '.';
    path += field.key;
    bool ok = true;
    if (bit != 0 && !v.is_null()) s.config_keys |= bit;
    switch (bit) {
      case kEstimatedDuration: ok = read_duration(v, s.estimated_duration, path, s); break;
      case kDurationSeconds: ok = read_duration(v, s.wait_duration, path, s); break;
      case kThenSteps: ok = read_ids(v, DepKind::Then, path, s); break;
      case kElseSteps: ok = read_ids(v, DepKind::Else, path, s); break;
      case kSteps: ok = read_ids(v, DepKind::Parallel, path, s); break;
      case kBody: ok = v.is_null(); break;  // LOOP bodies take the Value path
      default: ok = collect(v, path, s); break;
    }
    if (!ok) return false;
    path.resize(6);
  }
  return true;
}

bool read_step(simdjson::dom::object obj, StepFacts& s) {
  if (!unique_keys(obj)) return false;
  for (auto field : obj) {
    element v = field.value;
    std::string_view key = field.key;
    if (key == "id") {
      if (v.type() != element_type::STRING) return false;
      std::string_view id = v.get_string().value_unsafe();
      if (id.empty()) return false;
      s.id = id;
      s.has_id = true;
    } else if (key == "step_type") {
      if (v.is_null()) continue;
      if (v.type() != element_type::STRING) return false;
      s.type_text = v.get_string().value_unsafe();
      s.has_type = true;
    } else if (key == "depends_on") {
      std::string p = "depends_on";
      if (!read_ids(v, DepKind::DependsOn, p, s)) return false;
    } else if (key == "condition") {
      if (v.type() == element_type::STRING) {
        std::string_view c = v.get_string().value_unsafe();
        if (looks_like_template(c)) s.templates.push_back({"condition", c});
      }
    } else if (key == "config") {
      if (v.is_null()) continue;
      simdjson::dom::object cfg;
      if (v.get(cfg) || !read_config(cfg, s)) return false;
    }
  }
  return true;
}

}  // namespace

struct JsonSource::Impl {
  simdjson::dom::parser parser;
};

JsonSource::JsonSource() : impl_(std::make_unique<Impl>()) {}
JsonSource::~JsonSource() = default;

bool extract_facts_json(std::string_view text, bool padded, JsonSource& source, Facts& out) {
  element root;
  if (source.impl_->parser.parse(text.data(), text.size(), !padded).get(root)) return false;
  simdjson::dom::object top;
  if (root.get(top) || !unique_keys(top)) return false;
  bool have_steps = false;
  for (auto field : top) {
    element v = field.value;
    if (field.key == "pipeline") {
      if (v.is_null()) continue;
      simdjson::dom::object p;
      if (v.get(p) || !unique_keys(p)) return false;
      element t;
      if (p.at_key("trigger_type").get(t)) continue;
      if (t.is_null()) continue;
      if (t.type() != element_type::STRING || !parse_trigger_type(t.get_string().value_unsafe())) return false;
    } else if (field.key == "steps") {
      simdjson::dom::array arr;
      if (v.get(arr)) return false;
      have_steps = true;
      out.steps.reserve(arr.size());
      for (element item : arr) {
        simdjson::dom::object obj;
        if (item.get(obj)) return false;
        out.steps.emplace_back();
        if (!read_step(obj, out.steps.back())) return false;
      }
    }
  }
  return have_steps;
}

}  // namespace budcore::pipeline::detail
