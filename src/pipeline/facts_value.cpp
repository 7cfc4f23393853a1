// Facts from a parsed core::Value document (YAML input, the library API).
#include <cstring>
#include <string>

#include "budcore/core/json.hpp"
#include "budcore/pipeline/step.hpp"
#include "pipeline/facts.hpp"

namespace budcore::pipeline::detail {

std::uint32_t config_key_bit(std::string_view key) noexcept {
  // Dispatch on length first: this runs for every config key of every step.
  switch (key.size()) {
    case 3: return key == "url" ? kUrl : 0;
    case 4: return key == "body" ? kBody : 0;
    case 5: return key == "steps" ? kSteps : key == "items" ? kItems : 0;
    case 7:
      return key == "channel" ? kChannel : key == "message" ? kMessage : key == "outputs" ? kOutputs : 0;
    case 8: return key == "job_type" ? kJobType : key == "function" ? kFunction : 0;
    case 10:
      return key == "expression" ? kExpression : key == "then_steps" ? kThenSteps
             : key == "else_steps" ? kElseSteps : key == "recipients" ? kRecipients : 0;
    case 14: return key == "wait_for_event" ? kWaitForEvent : 0;
    case 15: return key == "deployment_type" ? kDeploymentType : 0;
    case 16: return key == "duration_seconds" ? kDurationSeconds : 0;
    case 26: return key == "estimated_duration_seconds" ? kEstimatedDuration : 0;
    default: return 0;
  }
}

std::string step_path(std::size_t index) { return "steps[" + std::to_string(index) + "]"; }

bool looks_like_template(std::string_view s) noexcept {
  const char* p = s.data();
  const char* end = p + s.size();
  while (p < end) {
    const void* hit = std::memchr(p, '{', static_cast<std::size_t>(end - p));
    if (!hit) return false;
    p = static_cast<const char*>(hit) + 1;
    if (p < end && (*p == '{' || *p == '%' || *p == '#')) return true;
  }
  return false;
}

namespace {

using core::Value;

void add_issue(Facts& f, std::size_t step, std::string_view code, std::string path, std::string message) {
  f.issues.push_back({step, Issue{std::string(code), std::move(message), std::move(path)}});
}

std::string show(const Value& v) { return core::to_json(v); }

void read_duration(const Value& v, Duration& d) {
  if (v.is_null()) return;
  if (v.is_number() && v.as_float() >= 0) {
    d.state = Duration::State::Number;
    d.seconds = v.as_float();
  } else if (v.is_string() && looks_like_template(v.as_string())) {
    d.state = Duration::State::Template;
  } else {
    d.state = Duration::State::Invalid;
    d.invalid = &v;  // the document outlives the facts
  }
}

// Collects every template string under v; `path` is v's path relative to the step.
void collect_templates(const Value& v, std::string& path, StepFacts& s) {
  switch (v.kind()) {
    case Value::Kind::String:
      if (looks_like_template(v.as_string())) s.templates.push_back({path, std::string_view(v.as_string())});
      break;
    case Value::Kind::List: {
      std::size_t mark = path.size();
      std::size_t i = 0;
      for (const auto& item : v.as_list()) {
        path += '[';
        path += std::to_string(i++);
        path += ']';
        collect_templates(item, path, s);
        path.resize(mark);
      }
      break;
    }
    case Value::Kind::Map: {
      std::size_t mark = path.size();
      for (const auto& [k, item] : v.as_map()) {
        path += '.';
        path += k;
        collect_templates(item, path, s);
        path.resize(mark);
      }
      break;
    }
    default: break;
  }
}

void read_id_list(const Value& v, DepKind kind, std::string_view field, std::size_t step, Facts& f, StepFacts& s) {
  if (v.is_null()) return;
  if (!v.is_list()) {
    // A branch list of the wrong type matters only for the step type that uses it; the
    // analyzer does not see it, so report it here only for depends_on.
    if (kind == DepKind::DependsOn)
      add_issue(f, step, issue_code::kInvalidValue, step_path(step) + "." + std::string(field),
                "must be a list of step ids, got " + show(v));
    return;
  }
  std::uint32_t j = 0;
  for (const auto& item : v.as_list()) {
    if (item.is_string()) {
      s.deps.push_back({item.as_string(), kind, j});
    } else if (kind == DepKind::DependsOn) {
      add_issue(f, step, issue_code::kInvalidValue,
                step_path(step) + "." + std::string(field) + "[" + std::to_string(j) + "]",
                "a step id must be a string, got " + show(item));
    }
    ++j;
  }
}

void read_config(const Value& cfg, std::size_t step, Facts& f, StepFacts& s) {
  std::string path = "config";
  for (const auto& [key, v] : cfg.as_map()) {
    std::uint32_t bit = config_key_bit(key);
    if (bit != 0 && !v.is_null()) s.config_keys |= bit;
    if (bit == kEstimatedDuration) read_duration(v, s.estimated_duration);
    if (bit == kDurationSeconds) read_duration(v, s.wait_duration);
    if (bit == kThenSteps) read_id_list(v, DepKind::Then, "config.then_steps", step, f, s);
    if (bit == kElseSteps) read_id_list(v, DepKind::Else, "config.else_steps", step, f, s);
    if (bit == kSteps) read_id_list(v, DepKind::Parallel, "config.steps", step, f, s);
    if (bit == kBody && !v.is_null()) {
      s.body_present = true;
      s.body_is_object = v.is_map();
      if (v.is_map()) {
        if (const Value* t = v.find("step_type"); t && t->is_string()) {
          s.body_has_type = true;
          s.body_type_text = t->as_string();
        }
        if (const Value* c = v.find("config"); c && c->is_map()) {
          for (const auto& [bk, bv] : c->as_map()) {
            if (!bv.is_null()) s.body_config_keys |= config_key_bit(bk);
          }
        }
      }
    }
    path += '.';
    path += key;
    collect_templates(v, path, s);
    path.resize(6);
  }
}

void read_step(const Value& v, std::size_t step, Facts& f, StepFacts& s) {
  std::string base = step_path(step);
  if (!v.is_map()) {
    add_issue(f, step, issue_code::kInvalidValue, base, "a step must be a map, got " + show(v));
    s.has_id = true;  // nothing more to report about it
    s.has_type = true;
    s.type_reported = true;
    return;
  }
  for (const auto& [key, item] : v.as_map()) {
    if (key == "id") {
      if (item.is_string() && !item.as_string().empty()) {
        s.id = item.as_string();
        s.has_id = true;
      } else if (item.is_string()) {
        add_issue(f, step, issue_code::kInvalidValue, base + ".id", "a step id must not be empty");
        s.has_id = true;
      } else if (!item.is_null()) {
        add_issue(f, step, issue_code::kInvalidValue, base + ".id", "a step id must be a string, got " + show(item));
        s.has_id = true;  // reported; not "missing"
        s.id = {};
      }
    } else if (key == "step_type") {
      if (item.is_string()) {
        s.type_text = item.as_string();
        s.has_type = true;
      } else if (!item.is_null()) {
        add_issue(f, step, issue_code::kInvalidValue, base + ".step_type", "must be a string, got " + show(item));
        s.has_type = true;
        s.type_reported = true;
      }
    } else if (key == "depends_on") {
      read_id_list(item, DepKind::DependsOn, "depends_on", step, f, s);
    } else if (key == "condition") {
      if (item.is_string() && looks_like_template(item.as_string()))
        s.templates.push_back({"condition", item.as_string()});
    } else if (key == "config") {
      if (item.is_map()) {
        read_config(item, step, f, s);
      } else if (!item.is_null()) {
        add_issue(f, step, issue_code::kInvalidValue, base + ".config", "must be a map, got " + show(item));
      }
    }
  }
}

}  // namespace

Facts extract_facts(const core::Value& document) {
  Facts f;
  if (!document.is_map()) {
    add_issue(f, KeyedIssue::kDocument, issue_code::kInvalidDocument, "",
              "a pipeline document must be a map {\"pipeline\": {...}, \"steps\": [...]}");
    f.fatal = true;
    return f;
  }
  if (const Value* p = document.find("pipeline"); p && !p->is_null()) {
    if (!p->is_map()) {
      add_issue(f, KeyedIssue::kDocument, issue_code::kInvalidValue, "pipeline", "must be a map, got " + show(*p));
    } else if (const Value* t = p->find("trigger_type"); t && !t->is_null()) {
      if (!t->is_string() || !parse_trigger_type(t->as_string()))
        add_issue(f, KeyedIssue::kDocument, issue_code::kInvalidValue, "pipeline.trigger_type",
                  "unknown trigger type " + show(*t) + "; expected manual, scheduled, event or pipeline");
    }
  }
  const Value* steps = document.find("steps");
  if (!steps || steps->is_null()) {
    add_issue(f, KeyedIssue::kDocument, issue_code::kMissingField, "steps", "a pipeline needs a steps list");
    f.fatal = true;
    return f;
  }
  if (!steps->is_list()) {
    add_issue(f, KeyedIssue::kDocument, issue_code::kInvalidValue, "steps", "must be a list, got " + show(*steps));
    f.fatal = true;
    return f;
  }
  const auto& list = steps->as_list();
  f.steps.resize(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) read_step(list[i], i, f, f.steps[i]);
  return f;
}

}  // namespace budcore::pipeline::detail
