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
#include <exception>
#include <thread>
#include <vector>

#include "budcore/pipeline/step.hpp"
#include "pipeline/facts.hpp"

namespace budcore::pipeline::detail {

static_assert(kJsonPadding >= simdjson::SIMDJSON_PADDING);

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

// JSON allows a key twice; the Value path keeps the last value (core/json.cpp). Rather than
// replay that rule here, a repeated key sends the document down the Value path. Checked while
// the object is walked anyway: a second walk cost ~25% of extraction.
class KeySet {
 public:
  // False when `key` was seen before.
  bool insert(std::string_view key) {
    for (std::size_t i = 0; i < n_; ++i)
      if (few_[i] == key) return false;
    if (n_ < few_.size()) {
      few_[n_++] = key;
      return true;
    }
    for (auto k : more_)
      if (k == key) return false;  // quadratic, but objects this wide are rare in pipelines
    more_.push_back(key);
    return true;
  }

 private:
  std::array<std::string_view, 8> few_;
  std::size_t n_ = 0;
  std::vector<std::string_view> more_;
};

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
      KeySet keys;
      for (auto field : obj) {
        if (!keys.insert(field.key)) return false;
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
  s.deps.reserve(s.deps.size() + arr.size());  // one allocation, not one per doubling
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
  std::string path = "config";
  KeySet keys;
  for (auto field : cfg) {
    if (!keys.insert(field.key)) return false;
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
  KeySet keys;
  for (auto field : obj) {
    if (!keys.insert(field.key)) return false;
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

// Reads every step. Long lists are split across two threads (the DOM is read-only once
// parsed and each thread fills its own StepFacts): a 100k-step document spends ~30 ms here.
bool read_steps(simdjson::dom::array arr, std::vector<StepFacts>& steps) {
  std::vector<element> items;
  items.reserve(arr.size());
  for (element item : arr) items.push_back(item);
  steps.resize(items.size());
  auto read_range = [&](std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; ++i) {
      simdjson::dom::object obj;
      if (items[i].get(obj) || !read_step(obj, steps[i])) return false;
    }
    return true;
  };
  if (items.size() < kTwoThreadsFrom || std::thread::hardware_concurrency() < 2) return read_range(0, items.size());
  std::size_t mid = items.size() / 2;
  bool second_ok = false;
  std::exception_ptr second_error;
  std::thread helper([&] {
    try {
      second_ok = read_range(mid, items.size());
    } catch (...) {
      second_error = std::current_exception();  // bad_alloc: rethrown on the caller's thread
    }
  });
  bool first_ok = false;
  try {
    first_ok = read_range(0, mid);
  } catch (...) {
    helper.join();
    throw;
  }
  helper.join();
  if (second_error) std::rethrow_exception(second_error);
  return first_ok && second_ok;
}

}  // namespace

struct BUDCORE_HIDDEN JsonSource::Impl {
  simdjson::dom::parser parser;
};

JsonSource::JsonSource() : impl_(std::make_unique<Impl>()) {}
JsonSource::~JsonSource() = default;

bool extract_facts_json(std::string_view text, bool padded, JsonSource& source, Facts& out) {
  element root;
  if (source.impl_->parser.parse(text.data(), text.size(), !padded).get(root)) return false;
  simdjson::dom::object top;
  if (root.get(top)) return false;
  bool have_steps = false;
  KeySet top_keys;
  for (auto field : top) {
    if (!top_keys.insert(field.key)) return false;
    element v = field.value;
    if (field.key == "pipeline") {
      if (v.is_null()) continue;
      simdjson::dom::object p;
      if (v.get(p)) return false;
      KeySet keys;
      for (auto f : p)
        if (!keys.insert(f.key)) return false;
      element t;
      if (p.at_key("trigger_type").get(t)) continue;
      if (t.is_null()) continue;
      if (t.type() != element_type::STRING || !parse_trigger_type(t.get_string().value_unsafe())) return false;
    } else if (field.key == "steps") {
      simdjson::dom::array arr;
      if (v.get(arr)) return false;
      have_steps = true;
      if (!read_steps(arr, out.steps)) return false;
    }
  }
  return have_steps;
}

}  // namespace budcore::pipeline::detail
