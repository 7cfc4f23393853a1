// Resolver::resolve: parameters -> conditions -> merge -> render -> references and
// dependencies -> required inputs -> the stack and its pipeline document.
#include "budcore/usecase/resolver.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <set>

#include "budcore/core/json.hpp"
#include "budcore/core/keys.hpp"
#include "budcore/core/quantity.hpp"
#include "budcore/core/resource_list.hpp"
#include "budcore/pipeline/dag.hpp"
#include "usecase/doc_reader.hpp"
#include "usecase/resolver_impl.hpp"

namespace budcore::usecase {
namespace {

using core::Value;
using Instance = Resolver::Impl::Instance;
namespace code = issue_code;

constexpr std::int64_t kMaxGpuCount = ComponentDefinition::kMaxGpuCount;
// Bounds of what a JOB step may ask for, so the job layer's numbers never overflow.
constexpr std::int64_t kMaxMillicores = std::int64_t{1} << 40;
constexpr std::int64_t kMaxMemoryMib = job::Job::kMaxGigabytes * 1024;

constexpr std::array<std::string_view, 7> kOverrideKeys{"config",   "env",       "resources",           "model_id",
                                                        "gpu_type", "gpu_count", "optimize_with_budsim"};

// Contract 4: a condition is true unless it renders to "", False, false, 0 or None.
bool truthy(std::string_view text) {
  auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return false;
  text = text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
  return !(text == "False" || text == "false" || text == "0" || text == "None");
}

// Renders the template strings of values: text or native, classifying failures into issues
// and collecting the instances their output markers name.
class Renderer {
 public:
  Renderer(const Resolver::Impl& impl, const Value& context, const std::vector<bool>& enabled,
           std::vector<Issue>& issues)
      : impl_(impl), ctx_(context), enabled_(enabled), issues_(issues) {}

  enum class Mode { Text, Native };

  // Returns the rendered value; on failure records an issue and returns `v` unchanged.
  // Subtrees without template strings are shared, not copied.
  Value render(const Value& v, const std::string& path, Mode mode, std::vector<std::string>& refs) {
    std::string at = path;
    Value out;
    return render_into(v, at, mode, refs, out) ? out : v;
  }

  // Renders one template string as text (conditions).
  std::optional<std::string> text(const std::string& s, const std::string& path) {
    const detail::Compiled* c = compiled(s, path, true);
    if (c == nullptr) return std::nullopt;
    std::string out;
    templates::TemplateError err;
    if (!c->tmpl.render(ctx_, out, err)) {
      failed(*c, err, path);
      return std::nullopt;
    }
    return out;
  }

 private:
  // Sets `out` and returns true when `v` holds template strings; `path` is a buffer the walk
  // extends and restores, so no path is built unless a problem is reported.
  bool render_into(const Value& v, std::string& path, Mode mode, std::vector<std::string>& refs, Value& out) {
    if (v.is_string()) {
      if (!detail::has_template_markers(v.as_string())) return false;
      out = render_string(v.as_string(), path, mode, refs);
      return true;
    }
    const std::size_t n = path.size();
    if (v.is_list()) {
      std::optional<core::List> copy;
      const auto& l = v.as_list();
      for (std::size_t i = 0; i < l.size(); ++i) {
        path += '[';
        path += std::to_string(i);
        path += ']';
        Value item;
        if (render_into(l[i], path, mode, refs, item)) {
          if (!copy) copy = l;
          (*copy)[i] = std::move(item);
        }
        path.resize(n);
      }
      if (!copy) return false;
      out = Value(std::move(*copy));
      return true;
    }
    if (v.is_map()) {
      std::optional<core::Map> copy;
      for (const auto& [key, item] : v.as_map()) {
        if (n != 0) path += '.';
        path += key;
        Value rendered;
        if (render_into(item, path, mode, refs, rendered)) {
          if (!copy) copy = v.as_map();
          copy->set(key, std::move(rendered));
        }
        path.resize(n);
      }
      if (!copy) return false;
      out = Value(std::move(*copy));
      return true;
    }
    return false;
  }

  Value render_string(const std::string& s, const std::string& path, Mode mode, std::vector<std::string>& refs) {
    const detail::Compiled* c = compiled(s, path, false);
    if (c == nullptr) return Value(s);
    templates::TemplateError err;
    Value out;
    bool ok = false;
    if (mode == Mode::Native) {
      ok = c->tmpl.render_native(ctx_, out, err);
    } else {
      std::string text;
      ok = c->tmpl.render(ctx_, text, err);
      out = Value(std::move(text));
    }
    if (!ok) {
      failed(*c, err, path);
      return Value(s);
    }
    collect(out, path, refs);
    return out;
  }

  // Template strings of the template were compiled at construction; override strings are
  // compiled here, for this call only.
  const detail::Compiled* compiled(const std::string& s, const std::string& path, bool in_condition) {
    if (auto it = impl_.compiled_at.find(&s); it != impl_.compiled_at.end()) return it->second;
    if (auto it = impl_.compiled.find(s); it != impl_.compiled.end()) return &it->second;
    templates::Template t;
    templates::TemplateError err;
    if (!templates::Template::compile(s, t, err)) {
      detail::add_issue(issues_, code::kTemplateSyntax,
                        std::string(templates::to_string(err.kind)) + ": " + err.message, path);
      return nullptr;
    }
    auto refs = t.references();
    std::size_t before = issues_.size();
    impl_.check_references(refs, path, in_condition, issues_);
    if (issues_.size() != before) return nullptr;
    local_.push_back(std::make_unique<detail::Compiled>(detail::Compiled{std::move(t), std::move(refs)}));
    return local_.back().get();
  }

  // The output markers a rendered value carries name the instances it depends on; any other
  // template text would be evaluated again by the pipeline engine, so it is an error.
  void collect(const Value& v, const std::string& path, std::vector<std::string>& refs) {
    if (v.is_string()) {
      std::string bad;
      std::size_t before = refs.size();
      if (!detail::scan_markers(v.as_string(), refs, bad)) {
        detail::add_issue(issues_, code::kTemplateError,
                          "renders to text holding a template ('" + bad +
                              "'); only references to component outputs may remain for the pipeline to resolve",
                          path);
        return;
      }
      for (std::size_t i = before; i < refs.size(); ++i) {
        auto it = impl_.instance_index.find(refs[i]);
        if (it == impl_.instance_index.end() || !enabled_[it->second]) {
          detail::add_issue(issues_, code::kUnknownReference,
                            "renders a reference to '" + refs[i] + "', which is not a deployed instance", path);
        }
      }
    } else if (v.is_list()) {
      for (const auto& item : v.as_list()) collect(item, path, refs);
    } else if (v.is_map()) {
      for (const auto& [key, item] : v.as_map()) collect(item, path, refs);
    }
  }

  void failed(const detail::Compiled& c, const templates::TemplateError& err, const std::string& path) {
    std::string msg = std::string(templates::to_string(err.kind)) + ": " + err.message;
    if (err.kind != templates::ErrorKind::Undefined) {
      detail::add_issue(issues_, code::kTemplateError, std::move(msg), path);
      return;
    }
    // The first reference to a disabled instance's outputs is the likely culprit.
    for (const auto& ref : c.refs) {
      std::string_view tail;
      const Instance* in = impl_.referenced_instance(ref, &tail);
      if (in == nullptr) continue;
      auto idx = static_cast<std::size_t>(in - impl_.instances.data());
      if (!enabled_[idx] && !tail.empty() && detail::path_head(tail, nullptr) != "enabled") {
        detail::add_issue(
            issues_, code::kReferenceToDisabled,
            "reads '" + ref + "', but instance '" + in->tc->id +
                "' is disabled by its condition; guard the reference (| default('')) or give this instance the same "
                "condition",
            path);
        return;
      }
    }
    detail::add_issue(issues_, code::kUnknownReference, std::move(msg), path);
  }

  const Resolver::Impl& impl_;
  const Value& ctx_;
  const std::vector<bool>& enabled_;
  std::vector<Issue>& issues_;
  std::vector<std::unique_ptr<detail::Compiled>> local_;
};

// The declared parameters' values (user value, else default), in declaration order.
Value resolve_parameters(const Resolver::Impl& impl, const Value& given, std::vector<Issue>& issues) {
  core::Map out;
  const core::Map* user = nullptr;
  if (given.is_map()) {
    user = &given.as_map();
  } else if (!given.is_null()) {
    detail::add_issue(issues, code::kInvalidParameter, "parameters must be a map of name -> value", "parameters");
  }
  if (user != nullptr) {
    std::vector<std::string_view> names;
    names.reserve(impl.tmpl.parameters.size());
    for (const auto& p : impl.tmpl.parameters) names.push_back(p.name);
    for (const auto& [key, v] : *user) {
      if (impl.parameter_index.count(key) != 0) continue;
      std::string msg = "the template has no parameter '" + key + "'";
      if (auto s = core::suggest(key, names); !s.empty()) msg += "; did you mean '" + std::string(s) + "'?";
      detail::add_issue(issues, code::kUnknownParameter, std::move(msg), core::join_path("parameters", key));
    }
  }
  for (const auto& p : impl.tmpl.parameters) {
    const Value* u = user != nullptr ? user->find(p.name) : nullptr;
    Value v = u != nullptr ? *u : p.default_value;
    std::string path = core::join_path("parameters", p.name);
    if (v.is_null()) {
      if (p.required) {
        detail::add_issue(issues, code::kMissingParameter,
                          "'" + p.name + "' (" + p.label + ") is required and has no default", path);
      }
    } else if (auto st = p.check(v); !st) {
      detail::add_issue(issues, code::kInvalidParameter,
                        "'" + p.name + "' " + st.error().message + " (value: " + detail::value_text(v) + ")", path);
    }
    out.set(p.name, std::move(v));
  }
  return Value(std::move(out));
}

// User overrides by instance index; shape errors as issues.
std::vector<const core::Map*> read_overrides(const Resolver::Impl& impl, const Value& overrides,
                                             std::vector<Issue>& issues) {
  std::vector<const core::Map*> out(impl.instances.size(), nullptr);
  if (overrides.is_null()) return out;
  if (!overrides.is_map()) {
    detail::add_issue(issues, code::kInvalidValue,
                      "overrides must be a map of instance id -> {config, env, resources, ...}", "overrides");
    return out;
  }
  for (const auto& [id, v] : overrides.as_map()) {
    std::string path = core::join_path("overrides", id);
    auto it = impl.instance_index.find(id);
    if (it == impl.instance_index.end()) {
      detail::add_issue(issues, code::kUnknownReference, "no instance '" + id + "' in this template", path);
      continue;
    }
    if (!v.is_map()) {
      detail::add_issue(issues, code::kInvalidValue,
                        "must be a map with config, env, resources, model_id, gpu_type, gpu_count", path);
      continue;
    }
    core::detail::Reader r(v.as_map());
    if (auto st = r.reject_unknown(kOverrideKeys); !st) {
      detail::add_issue(issues, code::kInvalidValue, st.error().message, core::join_path(path, st.error().field));
      continue;
    }
    bool ok = true;
    for (std::string_view key : {"config", "resources"}) {
      if (auto m = r.map(key); !m) {
        detail::add_issue(issues, code::kInvalidValue, m.error().message, core::join_path(path, m.error().field));
        ok = false;
      }
    }
    if (auto e = detail::env_map(r, "env"); !e) {
      detail::add_issue(issues, code::kInvalidValue, e.error().message, core::join_path(path, e.error().field));
      ok = false;
    }
    for (std::string_view key : {"model_id", "gpu_type"}) {
      if (auto s = r.string(key); !s) {
        detail::add_issue(issues, code::kInvalidValue, s.error().message, core::join_path(path, s.error().field));
        ok = false;
      }
    }
    if (ok) out[it->second] = &v.as_map();
  }
  return out;
}

// A Kubernetes quantity from a resources entry: number or string.
std::optional<core::Quantity> quantity_of(const Value& v) {
  std::string text;
  if (v.is_int()) return core::Quantity::from_int(v.as_int());
  if (v.is_float())
    text = core::format_json_float(v.as_float());
  else if (v.is_string())
    text = v.as_string();
  else
    return std::nullopt;
  auto q = core::Quantity::parse(text);
  if (!q) return std::nullopt;
  return *q;
}

// What the JOB step asks for, from resources.requests (else values.resources.requests, the
// Helm convention), rounded up: whole milli-cores, and MiB to a multiple of 4 so the GiB
// figure is an exact decimal.
void job_resources(ResolvedComponent& rc, const std::string& at, std::vector<Issue>& issues) {
  const Value* req = rc.resources.find_path("requests");
  std::string base = at + ".resources.requests";
  if (req == nullptr || !req->is_map()) {
    req = rc.values.find_path("resources.requests");
    base = at + ".config.resources.requests";
  }
  if (req == nullptr || !req->is_map()) return;
  if (const Value* cpu = req->find("cpu"); cpu != nullptr && !cpu->is_null()) {
    auto q = quantity_of(*cpu);
    auto milli = q ? q->milli_value() : core::Result<std::int64_t>(core::Error::make(core::ErrorCode::Invalid, ""));
    if (!q || q->sign() < 0 || !milli || *milli > kMaxMillicores) {
      detail::add_issue(issues, code::kInvalidValue,
                        "cpu must be a non-negative Kubernetes quantity such as 2, \"1.5\" or \"500m\" (value: " +
                            detail::value_text(*cpu) + ")",
                        base + ".cpu");
    } else {
      rc.cpu_millicores = *milli;
    }
  }
  if (const Value* mem = req->find("memory"); mem != nullptr && !mem->is_null()) {
    auto q = quantity_of(*mem);
    auto bytes = q ? q->value() : core::Result<std::int64_t>(core::Error::make(core::ErrorCode::Invalid, ""));
    constexpr std::int64_t kMib = 1 << 20;
    if (!q || q->sign() < 0 || !bytes || *bytes / kMib > kMaxMemoryMib) {
      detail::add_issue(issues, code::kInvalidValue,
                        "memory must be a non-negative Kubernetes quantity such as \"4Gi\" or \"512Mi\", at most " +
                            std::to_string(job::Job::kMaxGigabytes) + " GiB (value: " + detail::value_text(*mem) + ")",
                        base + ".memory");
    } else {
      std::int64_t mib = (*bytes + kMib - 1) / kMib;
      rc.memory_mib = (mib + 3) / 4 * 4;
    }
  }
}

// Is `name` provided by env, config (a top-level key) or model_id? Empty strings do not count.
bool provides(const ResolvedComponent& rc, const std::string& name) {
  auto given = [](const Value* v) {
    return v != nullptr && !v->is_null() && !(v->is_string() && v->as_string().empty());
  };
  if (name == "model_id" && rc.model_id && !rc.model_id->empty()) return true;
  return given(rc.env.find(name)) || given(rc.values.find(name));
}

std::string input_path(const std::string& at, const std::string& name) {
  if (name == "model_id") return at + ".model_id";
  bool env_like = std::all_of(name.begin(), name.end(),
                              [](char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; });
  return at + (env_like ? ".env." : ".config.") + name;
}

Value usecase_value(const Resolver::Impl& impl, const std::string& name) {
  core::Map m;
  m.set("name", Value(name));
  m.set("template_id", Value(impl.tmpl.id));
  m.set("template_version", Value(impl.tmpl.version));
  return Value(std::move(m));
}


// 2. Which instances are deployed: each condition rendered against the parameters.
std::vector<bool> evaluate_conditions(const Resolver::Impl& impl, const Value& base_ctx, std::vector<Issue>& errors) {
  const std::size_t n = impl.instances.size();
  std::vector<bool> enabled(n, true);
  Renderer r(impl, base_ctx, enabled, errors);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& cond = impl.instances[i].tc->condition;
    if (!cond) continue;
    auto text = r.text(*cond, detail::indexed("components", i) + ".condition");
    if (text) enabled[i] = truthy(*text);
  }
  return enabled;
}

// 3. The context templates render against: the parameters and every instance's outputs (a
// disabled one says so).
Value render_context(const Resolver::Impl& impl, core::Map base_ctx, const std::vector<bool>& enabled) {
  core::Map comps;
  const Value disabled_ctx = Value::map({{"enabled", Value(false)}, {"outputs", Value(core::Map{})}});
  for (std::size_t i = 0; i < impl.instances.size(); ++i)
    comps.set(impl.instances[i].tc->id, enabled[i] ? impl.instances[i].context : disabled_ctx);
  base_ctx.set("components", Value(std::move(comps)));
  return Value(std::move(base_ctx));
}

// An instance's fields before rendering: the component's defaults with the template's and the
// caller's overrides merged over them.
struct MergedFields {
  Value values, env, resources, model_id, gpu_type, gpu_count, optimize;
};

MergedFields merge_fields(const Instance& in, const core::Map* override_map) {
  const TemplateComponent& tc = *in.tc;
  MergedFields f{in.values,
                 in.env,
                 in.resources,
                 tc.model_id ? Value(*tc.model_id) : Value(),
                 tc.gpu_type ? Value(*tc.gpu_type) : Value(),
                 tc.gpu_count,
                 tc.optimize_with_budsim};
  if (override_map == nullptr) return f;
  const core::Map& o = *override_map;
  if (const Value* v = o.find("config")) f.values = detail::deep_merge(f.values, *v);
  if (const Value* v = o.find("env")) f.env = detail::deep_merge(f.env, *v);
  if (const Value* v = o.find("resources")) f.resources = detail::deep_merge(f.resources, *v);
  if (const Value* v = o.find("model_id")) f.model_id = *v;
  if (const Value* v = o.find("gpu_type")) f.gpu_type = *v;
  if (const Value* v = o.find("gpu_count")) f.gpu_count = *v;
  if (const Value* v = o.find("optimize_with_budsim")) f.optimize = *v;
  return f;
}

// Environment variables render as text; a list or map is not a value an environment holds.
Value render_env(Renderer& r, const Value& env, const std::string& at, std::vector<std::string>& refs,
                 std::vector<Issue>& errors) {
  Value rendered = r.render(env, at + ".env", Renderer::Mode::Text, refs);
  core::Map out;
  for (const auto& [k, v] : rendered.as_map()) {
    if (v.is_null()) continue;
    if (v.is_list() || v.is_map()) {
      detail::add_issue(errors, code::kInvalidValue, "an environment variable's value must be text", at + ".env." + k);
      continue;
    }
    out.set(k, Value(detail::scalar_text(v)));
  }
  return Value(std::move(out));
}

// model_id, gpu_type, gpu_count and optimize_with_budsim, rendered and checked.
void render_scalars(Renderer& r, const Instance& in, const MergedFields& f, const std::string& at,
                    std::vector<std::string>& refs, std::vector<Issue>& errors, ResolvedComponent& rc) {
  auto text_field = [&](const Value& v, const char* key) -> std::optional<std::string> {
    if (v.is_null()) return std::nullopt;
    Value out = r.render(v, at + "." + key, Renderer::Mode::Text, refs);
    if (!out.is_string() || out.as_string().empty()) return std::nullopt;
    return out.as_string();
  };
  rc.model_id = text_field(f.model_id, "model_id");
  rc.gpu_type = text_field(f.gpu_type, "gpu_type");
  if (!rc.gpu_type) rc.gpu_type = in.def->default_gpu_type;
  if (rc.gpu_type) {
    if (auto st = core::validate_resource_name(*rc.gpu_type); !st) {
      detail::add_issue(errors, code::kInvalidValue,
                        "'" + *rc.gpu_type + "' is not a GPU flavor or resource name: " + st.error().message,
                        at + ".gpu_type");
    }
  }
  Value count = f.gpu_count.is_null() ? Value() : r.render(f.gpu_count, at + ".gpu_count", Renderer::Mode::Native, refs);
  if (count.is_null()) {
    rc.gpu_count = in.def->default_gpu_count.value_or(0);
  } else if (!count.is_int() || count.as_int() < 0 || count.as_int() > kMaxGpuCount) {
    detail::add_issue(errors, code::kInvalidValue,
                      "gpu_count must be an integer between 0 and " + std::to_string(kMaxGpuCount) +
                          " (value: " + detail::value_text(count) + ")",
                      at + ".gpu_count");
  } else {
    rc.gpu_count = count.as_int();
  }
  Value opt = r.render(f.optimize, at + ".optimize_with_budsim", Renderer::Mode::Native, refs);
  if (opt.is_bool()) {
    rc.optimize_with_budsim = opt.as_bool();
  } else if (!opt.is_null()) {
    detail::add_issue(errors, code::kInvalidValue,
                      "optimize_with_budsim must be true or false (value: " + detail::value_text(opt) + ")",
                      at + ".optimize_with_budsim");
  }
}

// An instance's dependencies: its explicit depends_on and the instances its templates
// reference, among those deployed, in template order.
std::vector<std::size_t> dependencies_of(const Resolver::Impl& impl, const TemplateComponent& tc,
                                         const std::vector<std::string>& refs, const std::vector<bool>& enabled) {
  std::vector<std::size_t> deps;
  auto depend_on = [&](std::string_view id) {
    auto it = impl.instance_index.find(id);
    if (it != impl.instance_index.end() && enabled[it->second]) deps.push_back(it->second);
  };
  for (const auto& d : tc.depends_on) depend_on(d);
  for (const auto& ref : refs) depend_on(ref);
  std::sort(deps.begin(), deps.end());
  deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
  return deps;
}

// 4. One deployed instance: merged, rendered, its dependencies, inputs and resources checked.
ResolvedComponent resolve_component(const Resolver::Impl& impl, std::size_t i, const core::Map* override_map,
                                    Renderer& r, const std::vector<bool>& enabled, std::vector<std::size_t>& deps,
                                    std::vector<Issue>& errors) {
  const Instance& in = impl.instances[i];
  const std::string at = detail::indexed("components", i);
  ResolvedComponent rc;
  rc.id = in.tc->id;
  rc.component_ref = in.tc->component_ref;
  rc.component_version = in.def->version;
  rc.deployment_type = in.def->deployment_type;
  rc.outputs = in.outputs;
  rc.deployment = in.deployment;
  const MergedFields f = merge_fields(in, override_map);
  std::vector<std::string> refs;
  rc.values = r.render(f.values, at + ".config", Renderer::Mode::Native, refs);
  rc.resources = r.render(f.resources, at + ".resources", Renderer::Mode::Native, refs);
  rc.env = render_env(r, f.env, at, refs, errors);
  render_scalars(r, in, f, at, refs, errors, rc);
  deps = dependencies_of(impl, *in.tc, refs, enabled);
  for (std::size_t j : deps) rc.depends_on.push_back(impl.instances[j].tc->id);
  for (const auto& input : in.def->required_inputs) {
    if (!provides(rc, input)) {
      detail::add_issue(
          errors, code::kMissingInput,
          "component '" + in.def->id + "' requires '" + input + "', and neither env, config nor model_id provides it",
          input_path(at, input));
    }
  }
  job_resources(rc, at, errors);
  return rc;
}

// 5. Cycles among the deployed instances (deps_of and index_of by position in the stack).
void check_cycles(const ResolvedStack& stack, const std::vector<bool>& enabled, const std::vector<std::size_t>& index_of,
                  const std::vector<std::vector<std::size_t>>& deps_of, std::vector<Issue>& errors) {
  std::vector<std::size_t> instance_at;  // position -> instance index
  for (std::size_t i = 0; i < enabled.size(); ++i)
    if (enabled[i]) instance_at.push_back(i);
  std::vector<pipeline::Dag::Edge> edges;
  for (std::size_t pos = 0; pos < deps_of.size(); ++pos)
    for (std::size_t d : deps_of[pos])
      edges.emplace_back(static_cast<pipeline::Dag::Node>(index_of[d]), static_cast<pipeline::Dag::Node>(pos));
  pipeline::Dag dag(stack.components.size(), std::move(edges));
  if (!dag.has_cycle()) return;
  for (const auto& cycle : dag.cycles()) {
    std::string msg = "the instances depend on each other in a cycle: ";
    for (auto node : cycle) msg += "'" + stack.components[node].id + "' -> ";
    msg += "'" + stack.components[cycle.front()].id + "'";
    detail::add_issue(errors, code::kCycle, std::move(msg),
                      detail::indexed("components", instance_at[cycle.front()]) + ".depends_on");
  }
}

}  // namespace

ResolveResult Resolver::Impl::resolve(const Value& parameters, const ResolveOptions& options) const {
  ResolveResult result;
  std::vector<Issue>& errors = result.errors;

  // 1. Parameters (and the overrides' shape), with every problem found before rendering.
  Value params = resolve_parameters(*this, parameters, errors);
  auto overrides = read_overrides(*this, options.overrides, errors);
  errors.insert(errors.end(), static_issues.begin(), static_issues.end());
  if (!errors.empty()) return result;

  const std::string name = options.name.empty() ? tmpl.id : options.name;
  core::Map base_ctx;
  base_ctx.set("parameters", params);
  base_ctx.set("params", params);
  base_ctx.set("usecase", usecase_value(*this, name));

  const std::vector<bool> enabled = evaluate_conditions(*this, Value(base_ctx), errors);
  if (!errors.empty()) return result;
  const Value ctx = render_context(*this, std::move(base_ctx), enabled);
  Renderer r(*this, ctx, enabled, errors);

  ResolvedStack stack;
  stack.template_id = tmpl.id;
  stack.template_version = tmpl.version;
  stack.name = name;
  stack.parameters = params;
  std::vector<std::size_t> index_of(instances.size(), 0);  // instance -> position in stack.components
  std::vector<std::vector<std::size_t>> deps_of;
  for (std::size_t i = 0; i < instances.size(); ++i) {
    if (!enabled[i]) {
      stack.disabled.push_back(instances[i].tc->id);
      continue;
    }
    std::vector<std::size_t> deps;
    ResolvedComponent rc = resolve_component(*this, i, overrides[i], r, enabled, deps, errors);
    deps_of.push_back(std::move(deps));
    index_of[i] = stack.components.size();
    stack.components.push_back(std::move(rc));
  }
  check_cycles(stack, enabled, index_of, deps_of, errors);

  // 6. Routing and observability (their references need no dependency).
  std::vector<std::string> ignored;
  if (!tmpl.routing.is_null()) stack.routing = r.render(tmpl.routing, "routing", Renderer::Mode::Native, ignored);
  if (!tmpl.observability.is_null()) {
    stack.observability = r.render(tmpl.observability, "observability", Renderer::Mode::Native, ignored);
  }
  if (!errors.empty()) return result;

  stack.pipeline = detail::pipeline_document(stack);
  result.stack = std::move(stack);
  return result;
}

Resolver::Resolver(const UseCaseTemplate& tmpl, const ComponentRegistry& registry)
    : impl_(std::make_unique<Impl>(tmpl, registry)) {}
Resolver::~Resolver() = default;
Resolver::Resolver(Resolver&&) noexcept = default;
Resolver& Resolver::operator=(Resolver&&) noexcept = default;

const std::vector<Issue>& Resolver::static_issues() const noexcept { return impl_->static_issues; }

ResolveResult Resolver::resolve(const Value& parameters, const ResolveOptions& options) const {
  return impl_->resolve(parameters, options);
}

ResolveResult resolve(const UseCaseTemplate& tmpl, const ComponentRegistry& registry, const Value& parameters,
                      const ResolveOptions& options) {
  return Resolver(tmpl, registry).resolve(parameters, options);
}

}  // namespace budcore::usecase
