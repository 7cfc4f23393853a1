// Building the engine's node table from a pipeline document, and loading a saved RunState.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <functional>

#include "budcore/core/json.hpp"
#include "budcore/core/limits.hpp"
#include "budcore/pipeline/validation.hpp"
#include "pipeline/engine_impl.hpp"
#include "pipeline/template_check.hpp"

namespace budcore::pipeline {
namespace detail {
namespace {

using core::Value;

core::Result<std::int64_t> read_seconds(const Value& v, const std::string& path) {
  if (!v.is_int() || v.as_int() < 0) return core::Error::invalid(path, core::to_json(v), "must be a whole number of seconds >= 0");
  return v.as_int();
}

core::Result<double> read_number(const Value& v, const std::string& path) {
  if (!v.is_number()) return core::Error::invalid(path, core::to_json(v), "must be a number");
  return v.as_float();
}

core::Status parse_retry(const Value& v, const std::string& path, RetrySpec& out) {
  if (v.is_int()) {
    BUDCORE_TRY(core::check_range(v.as_int(), 0, INT32_MAX, path));
    out.limit = static_cast<int>(v.as_int());
    return {};
  }
  if (!v.is_map()) return core::Error::invalid(path, core::to_json(v), "must be a number of retries or a map");
  if (const Value* l = v.find("limit")) {
    if (!l->is_int() || l->as_int() < 0 || l->as_int() > INT32_MAX)
      return core::Error::invalid(path + ".limit", core::to_json(*l), "must be an integer from 0 to 2147483647");
    out.limit = static_cast<int>(l->as_int());
  }
  if (const Value* b = v.find("backoff")) {
    if (!b->is_map()) return core::Error::invalid(path + ".backoff", core::to_json(*b), "must be a map");
    if (const Value* x = b->find("base_seconds")) {
      BUDCORE_TRY_ASSIGN(double s, read_number(*x, path + ".backoff.base_seconds"));
      auto d = core::Duration::from_seconds(s);
      if (!d) return std::move(d.error().at(path + ".backoff.base_seconds"));
      out.backoff.base = *d;
    }
    if (const Value* x = b->find("factor")) { BUDCORE_TRY_ASSIGN(out.backoff.factor, read_number(*x, path + ".backoff.factor")); }
    if (const Value* x = b->find("cap_seconds")) {
      BUDCORE_TRY_ASSIGN(double s, read_number(*x, path + ".backoff.cap_seconds"));
      auto d = core::Duration::from_seconds(s);
      if (!d) return std::move(d.error().at(path + ".backoff.cap_seconds"));
      out.backoff.cap = *d;
    }
    if (const Value* x = b->find("jitter")) { BUDCORE_TRY_ASSIGN(out.backoff.jitter, read_number(*x, path + ".backoff.jitter")); }
    if (out.backoff.cap < out.backoff.base) out.backoff.cap = out.backoff.base;
    auto st = out.backoff.validate();
    if (!st) return std::move(st).error().at(path + ".backoff");
  }
  if (const Value* on = v.find("retry_on")) {
    if (!on->is_list()) return core::Error::invalid(path + ".retry_on", core::to_json(*on), "must be a list");
    out.on_failed = out.on_errored = false;
    for (const Value& x : on->as_list()) {
      if (x.is_string() && x.as_string() == "failed") out.on_failed = true;
      else if (x.is_string() && x.as_string() == "errored") out.on_errored = true;
      else return core::Error::invalid(path + ".retry_on", core::to_json(x), "entries must be \"failed\" or \"errored\"");
    }
  }
  return {};
}

void collect_strings(const Value& v, std::vector<std::string>& out) {
  if (v.is_string()) {
    const std::string& s = v.as_string();
    if (s.find("{{") != std::string::npos || s.find("{%") != std::string::npos) out.push_back(s);
  } else if (v.is_list()) {
    for (const Value& x : v.as_list()) collect_strings(x, out);
  } else if (v.is_map()) {
    for (const auto& [k, x] : v.as_map()) collect_strings(x, out);
  }
}

}  // namespace

core::Result<StepExtras> parse_extras(const Value& raw, std::string_view path_view, StepType type) {
  std::string path(path_view);
  StepExtras e;
  // Literal config values of the wrong type fail here, before the run starts, not as an
  // errored (and retried) attempt later.
  if (const Value* c = raw.find("config"); c && !c->is_null()) {
    if (auto st = check_step_config_literals(type, *c); !st) return std::move(st).error().at(path);
  }
  if (type == StepType::ApiCall) {  // API_CALL retries transport errors and 5xx/429 by default
    e.retry.limit = 3;
    if (const Value* c = raw.find("config")) {
      if (const Value* rc = c->find("retry_count"); rc && !rc->is_null()) {
        // The retry budget is fixed before the first attempt, so it cannot come from a template.
        if (!rc->is_int()) return core::Error::invalid(path + ".config.retry_count", core::to_json(*rc), "must be a literal integer >= 0 (templates are not resolved for retry_count)");
        BUDCORE_TRY(core::check_range(rc->as_int(), 0, INT32_MAX, path + ".config.retry_count"));
        e.retry.limit = static_cast<int>(rc->as_int());
      }
    }
    e.retry.backoff.base = core::Duration::seconds(1);
    e.retry.backoff.cap = core::Duration::seconds(60);
    e.retry.on_failed = false;
  }
  if (const Value* d = raw.find("depends"); d && !d->is_null()) {
    if (!d->is_string()) return core::Error::invalid(path + ".depends", core::to_json(*d), "must be a string");
    auto expr = DependsExpr::parse(d->as_string());
    if (!expr) return core::Error::invalid(path + ".depends", d->as_string(), expr.error().message);
    e.depends = std::move(*expr);
  }
  if (const Value* r = raw.find("trigger_rule"); r && !r->is_null()) {
    if (!r->is_string()) return core::Error::invalid(path + ".trigger_rule", core::to_json(*r), "must be a string");
    auto rule = parse_trigger_rule(r->as_string());
    if (!rule) return std::move(rule).error().at(path);
    e.rule = *rule;
    if (e.depends) return core::Error::invalid(path + ".trigger_rule", r->as_string(), "cannot be combined with depends");
  }
  if (const Value* r = raw.find("retry"); r && !r->is_null()) BUDCORE_TRY(parse_retry(*r, path + ".retry", e.retry));
  if (const Value* t = raw.find("timeout_seconds"); t && !t->is_null()) {
    BUDCORE_TRY_ASSIGN(std::int64_t s, read_seconds(*t, path + ".timeout_seconds"));
    e.timeout = core::Duration::seconds(s);
  }
  if (const Value* a = raw.find("approval"); a && !a->is_null()) {
    if (a->is_bool()) {
      e.approval = a->as_bool();
    } else if (a->is_map()) {
      e.approval = true;
      if (const Value* t = a->find("timeout_seconds")) {
        BUDCORE_TRY_ASSIGN(std::int64_t s, read_seconds(*t, path + ".approval.timeout_seconds"));
        e.approval_timeout = core::Duration::seconds(s);
      }
    } else {
      return core::Error::invalid(path + ".approval", core::to_json(*a), "must be a bool or a map");
    }
  }
  if (const Value* c = raw.find("continue_on_failure"); c && !c->is_null()) {
    if (!c->is_bool()) return core::Error::invalid(path + ".continue_on_failure", core::to_json(*c), "must be a bool");
    e.continue_on_failure = c->as_bool();
  }
  if (const Value* c = raw.find("compensation"); c && !c->is_null()) e.compensation = *c;
  return e;
}

core::Result<NodeDef> parse_inline_step(const Value& raw, std::string_view path_view, std::string default_id) {
  std::string path(path_view);
  if (!raw.is_map()) return core::Error::invalid(path, core::to_json(raw), "must be a step map");
  NodeDef d;
  d.id = std::move(default_id);
  if (const Value* id = raw.find("id"); id && id->is_string()) d.id = id->as_string();
  const Value* type = raw.find("step_type");
  if (!type || !type->is_string()) return core::Error::invalid(path + ".step_type", "", "is required");
  auto t = parse_step_type(type->as_string());
  if (!t) return core::Error::invalid(path + ".step_type", type->as_string(), "unknown step type");
  d.type = *t;
  if (d.type == StepType::Condition || d.type == StepType::Parallel || d.type == StepType::Loop) {
    return core::Error::invalid(path + ".step_type", type->as_string(), "an inline step cannot be CONDITION, PARALLEL or LOOP");
  }
  const Value* config = raw.find("config");
  d.config = config && config->is_map() ? *config : Value(core::Map{});
  for (std::string_view field : required_config_fields(d.type)) {
    const Value* f = d.config.find(field);
    bool wait_ok = d.type == StepType::Wait && d.config.find("wait_for_event");
    if ((!f || f->is_null()) && !wait_ok) return core::Error::invalid(path + ".config." + std::string(field), "", "is required");
  }
  if (const Value* c = raw.find("condition"); c && c->is_string()) d.condition = c->as_string();
  BUDCORE_TRY_ASSIGN(d.extras, parse_extras(raw, path, d.type));
  return d;
}

std::string hash_inputs(StepType type, const Value& resolved) {
  std::string text(to_string(type));
  text += '\n';
  text += core::to_json(resolved);
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a 64
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

bool truthy(const Value& v) noexcept {
  switch (v.kind()) {
    case Value::Kind::Null: return false;
    case Value::Kind::Bool: return v.as_bool();
    case Value::Kind::Int: return v.as_int() != 0;
    case Value::Kind::Float: return v.as_float() != 0.0;
    default: return v.size() > 0;
  }
}

}  // namespace detail

using detail::NodeDef;
using detail::NodeKind;

namespace {
std::string path_of(std::size_t i) { return "steps[" + std::to_string(i) + "]"; }
}  // namespace

core::Result<std::unique_ptr<Engine::Impl>> Engine::Impl::build(const core::Value& document, EngineDeps deps,
                                                               EngineOptions options) {
  if (!deps.clock) return core::Error::invalid("clock", "", "the engine needs a clock");
  auto impl = std::make_unique<Impl>();
  impl->deps = deps;
  impl->options = std::move(options);
  BUDCORE_TRY_ASSIGN(impl->spec, PipelineSpec::from_value(document));
  const core::Value& raw_steps = *document.find("steps");
  const core::Value* raw_pipeline = document.find("pipeline");

  auto& nodes = impl->nodes;
  for (std::size_t i = 0; i < impl->spec.steps.size(); ++i) {
    const Step& s = impl->spec.steps[i];
    NodeDef d;
    d.id = s.id;
    d.type = s.step_type;
    d.config = s.config;
    d.condition = s.condition;
    std::string path = "steps[" + std::to_string(i) + "]";
    BUDCORE_TRY_ASSIGN(d.extras, detail::parse_extras(raw_steps.as_list()[i], path, s.step_type));
    impl->index.emplace(d.id, static_cast<int>(i));
    nodes.push_back(std::move(d));
  }
  auto idx = [&](const std::string& id) {
    auto it = impl->index.find(id);
    return it == impl->index.end() ? -1 : it->second;
  };
  auto add_edge = [&](int from, int to) {
    auto& p = nodes[static_cast<std::size_t>(to)].preds;
    if (std::find(p.begin(), p.end(), from) == p.end()) {
      p.push_back(from);
      nodes[static_cast<std::size_t>(from)].succs.push_back(to);
    }
  };
  for (std::size_t i = 0; i < impl->spec.steps.size(); ++i) {
    const Step& s = impl->spec.steps[i];
    int me = static_cast<int>(i);
    for (const auto& dep : s.depends_on) add_edge(idx(dep), me);
    if (s.step_type == StepType::Condition) {
      for (const char* key : {"then_steps", "else_steps"}) {
        const core::Value* list = s.config.find(key);
        if (!list || !list->is_list()) continue;
        for (const auto& t : list->as_list()) {
          int target = idx(t.as_string());
          add_edge(me, target);
          nodes[static_cast<std::size_t>(target)].branch_sources.push_back(me);
        }
      }
    }
    if (s.step_type == StepType::Parallel) {
      for (const auto& m : s.config.find("steps")->as_list()) {
        int member = idx(m.as_string());
        if (nodes[static_cast<std::size_t>(member)].group >= 0) {
          return core::Error::invalid(path_of(i) + ".config.steps", m.as_string(), "a step belongs to at most one PARALLEL group");
        }
        nodes[static_cast<std::size_t>(member)].group = me;
        nodes[i].members.push_back(member);
      }
    }
  }
  // depends may only name direct upstream steps (it reads their results).
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!nodes[i].extras.depends) continue;
    for (const auto& name : nodes[i].extras.depends->names()) {
      int u = idx(name);
      const auto& p = nodes[i].preds;
      if (u < 0 || std::find(p.begin(), p.end(), u) == p.end()) {
        return core::Error::invalid(path_of(i) + ".depends", name, "names a step that is not in depends_on (or a CONDITION branching to it)");
      }
    }
  }
  // Soft references wait for the step they read when it may still run (docs/pipelines.md);
  // a soft wait that would close a cycle is dropped (then the default is read).
  auto reaches = [&](int from, int to) {
    std::vector<char> seen(nodes.size(), 0);
    std::vector<int> stack{from};
    while (!stack.empty()) {
      int v = stack.back();
      stack.pop_back();
      if (v == to) return true;
      if (seen[static_cast<std::size_t>(v)]) continue;
      seen[static_cast<std::size_t>(v)] = 1;
      for (int s : nodes[static_cast<std::size_t>(v)].succs) stack.push_back(s);
      for (int s : nodes[static_cast<std::size_t>(v)].soft_readers) stack.push_back(s);
    }
    return false;
  };
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    std::vector<std::string> texts;
    detail::collect_strings(nodes[i].config, texts);
    if (nodes[i].condition) texts.push_back(*nodes[i].condition);
    for (const auto& text : texts) {
      for (const auto& head : detail::check_template(text).soft_heads) {
        int x = idx(head);
        if (x < 0 || x == static_cast<int>(i)) continue;
        auto& w = nodes[i].soft_waits;
        if (std::find(w.begin(), w.end(), x) != w.end()) continue;
        if (reaches(static_cast<int>(i), x)) continue;
        w.push_back(x);
        nodes[static_cast<std::size_t>(x)].soft_readers.push_back(static_cast<int>(i));
      }
    }
  }
  // Pipeline-level engine keys.
  if (raw_pipeline && raw_pipeline->is_map()) {
    if (const core::Value* f = raw_pipeline->find("fail_fast"); f && !f->is_null()) {
      if (!f->is_bool()) return core::Error::invalid("pipeline.fail_fast", core::to_json(*f), "must be a bool");
      impl->fail_fast = f->as_bool();
    }
    if (const core::Value* m = raw_pipeline->find("max_concurrency"); m && !m->is_null()) {
      if (!m->is_int() || m->as_int() < 1) return core::Error::invalid("pipeline.max_concurrency", core::to_json(*m), "must be an integer >= 1");
      impl->max_concurrency = m->as_int();
    }
    for (const char* key : {"on_failure", "finally"}) {
      const core::Value* hooks = raw_pipeline->find(key);
      if (!hooks || hooks->is_null()) continue;
      if (!hooks->is_list()) return core::Error::invalid(std::string("pipeline.") + key, "", "must be a list of steps");
      for (std::size_t h = 0; h < hooks->as_list().size(); ++h) {
        std::string id = std::string(key) + "[" + std::to_string(h) + "]";
        BUDCORE_TRY_ASSIGN(NodeDef d, detail::parse_inline_step(hooks->as_list()[h], "pipeline." + id, id));
        if (impl->index.count(d.id)) return core::Error::invalid("pipeline." + id + ".id", d.id, "duplicates a step id");
        d.kind = std::string_view(key) == "finally" ? NodeKind::Finally : NodeKind::OnFailure;
        int n = static_cast<int>(nodes.size());
        impl->index.emplace(d.id, n);
        (d.kind == NodeKind::Finally ? impl->finally_hooks : impl->on_failure_hooks).push_back(n);
        nodes.push_back(std::move(d));
      }
    }
  }
  std::size_t main_count = impl->spec.steps.size();
  for (std::size_t i = 0; i < main_count; ++i) {
    if (nodes[i].extras.compensation.is_null()) continue;
    std::string id = nodes[i].id + ".compensation";
    BUDCORE_TRY_ASSIGN(NodeDef d, detail::parse_inline_step(nodes[i].extras.compensation, path_of(i) + ".compensation", id));
    d.id = id;
    d.kind = NodeKind::Compensation;
    d.parent = static_cast<int>(i);
    int n = static_cast<int>(nodes.size());
    nodes[i].compensation = n;
    impl->index.emplace(d.id, n);
    nodes.push_back(std::move(d));
  }
  if (impl->spec.pipeline.timeout_seconds && *impl->spec.pipeline.timeout_seconds > 0) {
    impl->timeout = core::Duration::seconds(*impl->spec.pipeline.timeout_seconds);
  }
  if (impl->spec.pipeline.deadline) {
    auto t = core::Timestamp::parse(*impl->spec.pipeline.deadline);
    if (!t) return std::move(t).error().at("pipeline.deadline");
    impl->deadline = *t;
  }
  // Fresh run state.
  RunState& st = impl->state;
  st.run_id = impl->options.run_id;
  st.params = impl->spec.pipeline.parameters.is_map() ? impl->spec.pipeline.parameters : core::Value(core::Map{});
  if (impl->options.params.is_map()) {
    for (const auto& [k, v] : impl->options.params.as_map()) st.params.mutable_map().set(k, v);
  } else if (!impl->options.params.is_null()) {
    return core::Error::invalid("params", core::to_json(impl->options.params), "must be a map");
  }
  for (const auto& d : nodes) {
    StepRun r;
    r.id = d.id;
    st.steps.push_back(std::move(r));
  }
  impl->ctx = core::Value::map({{"params", st.params},
                                {"steps", core::Value(core::Map{})},
                                {"pipeline", core::Value::map({{"id", impl->spec.pipeline.id},
                                                               {"name", impl->spec.pipeline.name},
                                                               {"run_id", st.run_id},
                                                               {"status", "running"},
                                                               {"failure_reason", ""}})}});
  for (std::size_t i = 0; i < main_count; ++i) impl->dirty.insert(static_cast<int>(i));
  impl->open_main = static_cast<std::int64_t>(main_count);
  return impl;
}

int Engine::Impl::add_iteration(int loop, int i) {
  NodeDef d;
  const NodeDef& l = nodes[static_cast<std::size_t>(loop)];
  const core::Value& body = *l.config.find("body");
  d.id = l.id + "[" + std::to_string(i) + "]";
  auto type = parse_step_type(body.find("step_type")->as_string());
  d.type = type ? *type : StepType::Transform;
  const core::Value* cfg = body.find("config");
  d.config = cfg ? *cfg : core::Value(core::Map{});
  if (const core::Value* c = body.find("condition"); c && c->is_string()) d.condition = c->as_string();
  auto extras = detail::parse_extras(body, l.id + ".body", d.type);
  if (extras) d.extras = std::move(*extras);
  d.kind = NodeKind::Iteration;
  ++iterations;
  d.parent = loop;
  d.index = i;
  int n = static_cast<int>(nodes.size());
  index.emplace(d.id, n);
  nodes[static_cast<std::size_t>(loop)].members.push_back(n);
  nodes.push_back(std::move(d));
  return n;
}

core::Status Engine::Impl::load(RunState saved) {
  std::size_t fixed = nodes.size();
  if (saved.steps.size() < fixed) return core::Error::invalid("steps", "", "the saved state does not match the document");
  for (std::size_t i = 0; i < fixed; ++i) {
    if (saved.steps[i].id != nodes[i].id) {
      return core::Error::invalid("steps[" + std::to_string(i) + "].id", saved.steps[i].id, "does not match the document's step '" + nodes[i].id + "'");
    }
  }
  for (std::size_t i = fixed; i < saved.steps.size(); ++i) {
    const std::string& id = saved.steps[i].id;
    auto bracket = id.rfind('[');
    int loop = bracket == std::string::npos ? -1 : (index.count(id.substr(0, bracket)) ? index[id.substr(0, bracket)] : -1);
    if (loop < 0 || nodes[static_cast<std::size_t>(loop)].type != StepType::Loop) {
      return core::Error::invalid("steps[" + std::to_string(i) + "].id", id, "is not a LOOP iteration of the document");
    }
    // "l[7]": exactly the next index, as add_iteration made them (std::stoi threw on "l[x]").
    int at = -1;
    std::string_view digits = std::string_view(id).substr(bracket + 1);
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), at);
    if (ec != std::errc() || end + 1 != digits.data() + digits.size() || *end != ']' ||
        at != static_cast<int>(nodes[static_cast<std::size_t>(loop)].members.size())) {
      return core::Error::invalid("steps[" + std::to_string(i) + "].id", core::truncate_text(id), "is not the next iteration of its LOOP");
    }
    add_iteration(loop, at);
  }
  state = std::move(saved);
  ctx.mutable_map().set("params", state.params);
  ctx.mutable_map()["pipeline"].mutable_map().set("failure_reason", state.failure_reason);
  dirty.clear();
  open_main = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    int n = static_cast<int>(i);
    const StepRun& r = state.steps[i];
    bool main_like = nodes[i].kind == NodeKind::Main || nodes[i].kind == NodeKind::Iteration;
    if (is_terminal(r.state)) {
      publish(n);
      continue;
    }
    if (main_like) ++open_main;
    if (r.state == StepState::Pending) {
      if (main_like) dirty.insert(n);
    } else {
      active.insert(n);
      if (r.state == StepState::Running) resume.insert(n);
    }
  }
  return {};
}

std::map<std::string, std::vector<std::string>, std::less<>> referenced_output_keys(const core::Value& document) {
  std::map<std::string, std::vector<std::string>, std::less<>> out;
  std::vector<std::string> texts;
  detail::collect_strings(document, texts);
  for (const auto& text : texts) {
    auto t = templates::Template::compile(text);
    if (!t) continue;
    for (const auto& ref : t->references()) {
      if (ref.rfind("steps.", 0) != 0) continue;
      auto pos = ref.find(".outputs.");
      if (pos == std::string::npos) continue;
      std::string step = ref.substr(6, pos - 6);
      std::string key = ref.substr(pos + 9);
      key = key.substr(0, key.find('.'));
      auto& keys = out[step];
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    }
  }
  return out;
}

}  // namespace budcore::pipeline
