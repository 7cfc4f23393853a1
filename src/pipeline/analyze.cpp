// The validation rules of docs/cli.md contract 3 and the planner, over Facts.
#include "pipeline/analyze.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <thread>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>

#include "budcore/core/json.hpp"
#include "budcore/pipeline/dag.hpp"
#include "budcore/pipeline/step.hpp"
#include "pipeline/template_check.hpp"

namespace budcore::pipeline::detail {
namespace {

constexpr std::uint32_t kNoStep = static_cast<std::uint32_t>(-1);

struct Ctx {
  Facts& f;
  std::vector<std::optional<StepType>> types;
  std::vector<Issue> warnings;
  void error(std::size_t step, std::string_view code, std::string path, std::string message) {
    f.issues.push_back({step, Issue{std::string(code), std::move(message), std::move(path)}});
  }
};

std::string quoted(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '\'';
  out += s;
  out += '\'';
  return out;
}

std::string type_list() {
  std::string out;
  for (StepType t : kAllStepTypes) {
    if (!out.empty()) out += ", ";
    out += to_string(t);
  }
  return out;
}

std::string_view key_name(std::uint32_t bit) {
  switch (bit) {
    case kJobType: return "job_type";
    case kDeploymentType: return "deployment_type";
    case kUrl: return "url";
    case kExpression: return "expression";
    case kThenSteps: return "then_steps";
    case kChannel: return "channel";
    case kRecipients: return "recipients";
    case kMessage: return "message";
    case kFunction: return "function";
    case kOutputs: return "outputs";
    case kSteps: return "steps";
    case kItems: return "items";
    case kBody: return "body";
    default: return "?";
  }
}

// Required config keys of a step type as bits, in the order they are reported (low bit first).
std::uint32_t required_mask(StepType t) {
  switch (t) {
    case StepType::Job: return kJobType | kDeploymentType;
    case StepType::ApiCall: return kUrl;
    case StepType::Function: return kFunction;
    case StepType::Notification: return kChannel | kRecipients | kMessage;
    case StepType::Transform: return kOutputs;
    case StepType::Condition: return kExpression | kThenSteps;
    case StepType::Parallel: return kSteps;
    case StepType::Wait: return 0;  // one of two, checked separately
    case StepType::Loop: return kItems | kBody;
  }
  return 0;
}

// Whether a step (or LOOP body) of type t lacks a required config key; cheap, so the messages
// of check_required are only built for the steps that need them.
bool lacks_required(StepType t, std::uint32_t keys) {
  if (required_mask(t) & ~keys) return true;
  return t == StepType::Wait && !(keys & (kDurationSeconds | kWaitForEvent));
}

// Missing required config fields of a step (or of a LOOP body) of type t.
void check_required(Ctx& c, std::size_t i, StepType t, std::uint32_t keys, const std::string& config_path,
                    std::string_view who) {
  std::uint32_t missing = required_mask(t) & ~keys;
  for (std::uint32_t bit = 1; bit != 0 && bit <= missing; bit <<= 1) {
    if (!(missing & bit)) continue;
    c.error(i, issue_code::kMissingField, config_path + "." + std::string(key_name(bit)),
            std::string(who) + " (" + std::string(to_string(t)) + ") needs config." + std::string(key_name(bit)));
  }
  if (t == StepType::Wait && !(keys & (kDurationSeconds | kWaitForEvent))) {
    c.error(i, issue_code::kMissingField, config_path + ".duration_seconds",
            std::string(who) + " (wait) needs config.duration_seconds or config.wait_for_event");
  }
}

void check_duration(Ctx& c, std::size_t i, const Duration& d, std::string_view field) {
  if (d.state == Duration::State::Invalid)
    c.error(i, issue_code::kInvalidValue, step_path(i) + ".config." + std::string(field),
            "must be a non-negative number of seconds (or a template), got " +
                (d.invalid != nullptr ? core::to_json(*d.invalid) : std::string("?")));
  // A run converts it to a core::Duration (range-checked): refuse here what it would refuse.
  if (d.state == Duration::State::Number && !core::Duration::from_seconds(d.seconds))
    c.error(i, issue_code::kInvalidValue, step_path(i) + ".config." + std::string(field),
            "must be at most 9223372036 seconds (about 292 years), got " + core::format_json_float(d.seconds));
}

void check_types(Ctx& c) {
  auto& steps = c.f.steps;
  c.types.assign(steps.size(), std::nullopt);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const StepFacts& s = steps[i];
    if (!s.has_id) c.error(i, issue_code::kMissingField, step_path(i) + ".id", "a step needs an id");
    if (!s.has_type) {
      c.error(i, issue_code::kMissingField, step_path(i) + ".step_type", "a step needs a step_type");
      continue;
    }
    if (s.type_reported) continue;  // wrong JSON type, already reported
    auto parsed = parse_step_type(s.type_text);
    if (!parsed) {
      c.error(i, issue_code::kUnknownStepType, step_path(i) + ".step_type",
              "unknown step type " + quoted(s.type_text) + "; expected one of " + type_list() + " (any letter case)");
      continue;
    }
    StepType t = *parsed;
    c.types[i] = t;
    auto who = [&] { return "step " + quoted(s.id); };
    if (lacks_required(t, s.config_keys)) check_required(c, i, t, s.config_keys, step_path(i) + ".config", who());
    if (t == StepType::Job) check_duration(c, i, s.estimated_duration, "estimated_duration_seconds");
    if (t == StepType::Wait) check_duration(c, i, s.wait_duration, "duration_seconds");
    if (t == StepType::Loop && s.body_present) {
      std::string bp = step_path(i) + ".config.body";
      if (!s.body_is_object) {
        c.error(i, issue_code::kInvalidValue, bp, "a LOOP body must be a step map {step_type, config}");
      } else if (!s.body_has_type) {
        c.error(i, issue_code::kMissingField, bp + ".step_type", "a LOOP body needs a step_type");
      } else if (auto bt = parse_step_type(s.body_type_text); !bt) {
        c.error(i, issue_code::kUnknownStepType, bp + ".step_type",
                "unknown step type " + quoted(s.body_type_text) + "; expected one of " + type_list());
      } else if (lacks_required(*bt, s.body_config_keys)) {
        check_required(c, i, *bt, s.body_config_keys, bp + ".config", "the LOOP body of " + who());
      }
    }
  }
}

std::string dep_path(std::size_t step, const DepRef& d) {
  std::string p = step_path(step);
  switch (d.kind) {
    case DepKind::DependsOn: p += ".depends_on"; break;
    case DepKind::Then: p += ".config.then_steps"; break;
    case DepKind::Else: p += ".config.else_steps"; break;
    case DepKind::Parallel: p += ".config.steps"; break;
  }
  return p + "[" + std::to_string(d.index) + "]";
}

// Open-addressing id -> step index table (ids are looked up 4x per step at 100k scale). Each
// slot keeps 32 bits of the hash and the id's first bytes, so a probe reads the id's text in
// the (large, cold) parser buffer only for ids longer than kInline.
class IdIndex {
 public:
  explicit IdIndex(std::size_t n) {
    // Load up to 0.8: probes mostly stay in the slot's cache line (tags and inline ids make a
    // mismatch cheap), and a 100k-step table stays at 4 MB instead of 8.
    std::size_t cap = 16;
    while (cap < n + n / 4) cap <<= 1;
    slots_.assign(cap, Slot{});
    mask_ = cap - 1;
  }
  // Returns the existing step for id, or inserts `step` and returns kNoStep.
  std::uint32_t insert(const std::vector<StepFacts>& steps, std::uint32_t step) {
    std::string_view id = steps[step].id;
    std::size_t h = hash(id);
    auto tag = static_cast<std::uint32_t>(h >> 32);
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& sl = slots_[i];
      if (sl.step == kNoStep) {
        sl.ptr = id.data();
        sl.len = static_cast<std::uint32_t>(id.size());
        sl.step = step;
        sl.tag = tag;
        std::memcpy(sl.head, id.data(), std::min(id.size(), kInline));
        return kNoStep;
      }
      if (sl.matches(tag, id)) return sl.step;
    }
  }
  std::uint32_t find(const std::vector<StepFacts>& /*steps*/, std::string_view id) const {
    std::size_t h = hash(id);
    auto tag = static_cast<std::uint32_t>(h >> 32);
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& sl = slots_[i];
      if (sl.step == kNoStep) return kNoStep;
      if (sl.matches(tag, id)) return sl.step;
    }
  }

 private:
  static constexpr std::size_t kInline = 12;
  struct Slot {
    const char* ptr = nullptr;
    std::uint32_t len = 0;
    std::uint32_t step = kNoStep;
    std::uint32_t tag = 0;
    char head[kInline] = {};
    bool matches(std::uint32_t t, std::string_view id) const {
      if (tag != t || len != id.size()) return false;
      std::size_t n = std::min(id.size(), kInline);
      if (std::memcmp(head, id.data(), n) != 0) return false;
      return id.size() <= kInline || std::memcmp(ptr + kInline, id.data() + kInline, id.size() - kInline) == 0;
    }
  };
  static_assert(sizeof(Slot) == 32);
  static std::size_t hash(std::string_view s) noexcept { return std::hash<std::string_view>{}(s); }
  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
};

void check_cycles(Ctx& c, const Dag& dag) {
  const auto& steps = c.f.steps;
  for (const auto& cycle : dag.cycles()) {
    std::string names;
    for (auto v : cycle) names += quoted(steps[v].id) + " -> ";
    names += quoted(steps[cycle.front()].id);
    // Path: the entry that makes the cycle's first step depend on its last one.
    std::uint32_t first = cycle.front(), last = cycle.back();
    std::string path = step_path(first) + ".depends_on";
    for (const auto& d : steps[first].deps) {
      if (d.kind == DepKind::DependsOn && d.id == steps[last].id) {
        path = dep_path(first, d);
        break;
      }
    }
    if (path == step_path(first) + ".depends_on") {
      for (const auto& d : steps[last].deps) {
        if ((d.kind == DepKind::Then || d.kind == DepKind::Else) && d.id == steps[first].id) {
          path = dep_path(last, d);
          break;
        }
      }
    }
    c.f.issues.push_back({KeyedIssue::kDocument - 1,
                          Issue{std::string(issue_code::kCycle), "dependency cycle: " + names, std::move(path)}});
  }
}

// Finds the step a reference path "X.outputs..." names: the longest id matching its head.
std::uint32_t resolve_reference(const std::vector<StepFacts>& steps, const IdIndex& index, std::string_view path) {
  std::uint32_t found = kNoStep;
  std::size_t dot = 0;
  while (true) {
    dot = path.find('.', dot == 0 ? 0 : dot + 1);
    std::string_view head = path.substr(0, dot);
    std::uint32_t s = index.find(steps, head);
    if (s != kNoStep) found = s;
    if (dot == std::string_view::npos) break;
  }
  return found;
}

// Every distinct template text, parsed once (100k-step documents repeat most of theirs).
using TemplateCache = std::unordered_map<std::string_view, TemplateCheck>;

TemplateCache compile_templates(const std::vector<StepFacts>& steps) {
  TemplateCache cache;
  for (const auto& s : steps) {
    for (const auto& t : s.templates) {
      if (!cache.contains(t.text)) cache.emplace(t.text, check_template(t.text));
    }
  }
  return cache;
}

void check_templates(Ctx& c, const IdIndex& index, const Dag& dag, const TemplateCache& cache) {
  auto& steps = c.f.steps;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    for (const auto& t : steps[i].templates) {
      const TemplateCheck& tc = cache.at(t.text);
      if (tc.ok && tc.step_paths.empty()) continue;  // nothing to report, nothing to resolve
      auto path = [&] { return step_path(i) + "." + t.path; };  // only errors need it
      if (!tc.ok) {
        c.error(i, issue_code::kTemplateSyntax, path(), tc.error);
        continue;
      }
      std::vector<std::uint32_t> seen;  // one finding per step named in this template
      for (const auto& ref : tc.step_paths) {
        std::uint32_t x = resolve_reference(steps, index, ref);
        if (x != kNoStep) {
          if (std::find(seen.begin(), seen.end(), x) != seen.end()) continue;
          seen.push_back(x);
        }
        std::string_view head = std::string_view(ref).substr(0, ref.find('.'));
        bool soft = false;
        for (const auto& h : tc.soft_heads) {
          if (x != kNoStep ? path_names_step(ref, h) && h.size() <= steps[x].id.size() : h == head) soft = true;
        }
        auto who = [&] { return "step " + quoted(steps[i].id) + " reads steps." + ref; };
        if (x == kNoStep) {
          c.error(i, issue_code::kReferenceNotUpstream, path(), who() + ", but there is no step " + quoted(head));
          continue;
        }
        const auto self = static_cast<Dag::Node>(i);
        if (x == self) {
          c.error(i, issue_code::kReferenceNotUpstream, path(), who() + ": a step cannot read its own outputs");
          continue;
        }
        if (dag.is_ancestor(x, self)) continue;
        if (soft && !dag.is_ancestor(self, x)) {
          c.warnings.push_back({std::string(issue_code::kSoftReference),
                                who() + " guarded by a default/defined test; " + quoted(steps[x].id) +
                                    " is not upstream, so the value may be the default",
                                path()});
          continue;
        }
        c.error(i, issue_code::kReferenceNotUpstream, path(),
                who() + ", but " + quoted(steps[x].id) + " is not upstream of it (add it to depends_on)");
      }
    }
  }
}

Plan make_plan(const std::vector<StepFacts>& steps, const std::vector<std::optional<StepType>>& types,
               const Dag& dag) {
  Plan plan;
  const auto& lv = dag.levels();
  std::int32_t max_level = steps.empty() ? -1 : *std::max_element(lv.begin(), lv.end());
  plan.levels.resize(static_cast<std::size_t>(max_level + 1));
  std::vector<double> weights(steps.size(), 0.0);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    plan.levels[static_cast<std::size_t>(lv[i])].emplace_back(steps[i].id);
    if (types[i] == StepType::Job) {
      plan.job_steps.emplace_back(steps[i].id);
      weights[i] = steps[i].estimated_duration.seconds;
    } else if (types[i] == StepType::Wait) {
      weights[i] = steps[i].wait_duration.seconds;
    }
  }
  plan.order.reserve(steps.size());
  for (const auto& level : plan.levels) plan.order.insert(plan.order.end(), level.begin(), level.end());
  for (auto v : dag.longest_path(weights, &plan.critical_path_seconds)) plan.critical_path.emplace_back(steps[v].id);
  return plan;
}

}  // namespace

ValidationReport finish_report(std::vector<KeyedIssue> issues, std::vector<Issue> warnings) {
  // Document-level issues first, then by step; cycles (kDocument - 1) last.
  auto key = [](std::size_t s) { return s == KeyedIssue::kDocument ? std::size_t{0} : s + 1; };
  std::stable_sort(issues.begin(), issues.end(),
                   [&](const KeyedIssue& a, const KeyedIssue& b) { return key(a.step) < key(b.step); });
  ValidationReport r;
  r.errors.reserve(issues.size());
  for (auto& k : issues) r.errors.push_back(std::move(k.issue));
  r.warnings = std::move(warnings);
  return r;
}

PlanResult analyze(Facts facts, bool want_plan) {
  PlanResult result;
  if (facts.fatal) {
    result.report = finish_report(std::move(facts.issues), {});
    return result;
  }
  auto& steps = facts.steps;
  // Templates only need the steps, which nothing below modifies: big documents parse them on
  // a second thread while this one checks types and builds the graph.
  TemplateCache templates;
  std::exception_ptr compile_error;
  std::thread compiler;
  if (steps.size() >= kTwoThreadsFrom && std::thread::hardware_concurrency() >= 2) {
    compiler = std::thread([&] {
      try {
        templates = compile_templates(steps);
      } catch (...) {
        compile_error = std::current_exception();
      }
    });
  }
  struct Joiner {  // joins on every exit, exceptions included
    std::thread& t;
    ~Joiner() {
      if (t.joinable()) t.join();
    }
  } joiner{compiler};

  Ctx c{facts, {}, {}};
  check_types(c);

  IdIndex index(steps.size());
  for (std::uint32_t i = 0; i < steps.size(); ++i) {
    if (steps[i].id.empty()) continue;
    std::uint32_t first = index.insert(steps, i);
    if (first != kNoStep)
      c.error(i, issue_code::kDuplicateId, step_path(i) + ".id",
              "duplicate step id " + quoted(steps[i].id) + " (first used by " + step_path(first) + ")");
  }

  std::vector<Dag::Edge> edges;
  edges.reserve(steps.size() * 3);
  for (std::uint32_t i = 0; i < steps.size(); ++i) {
    for (const auto& d : steps[i].deps) {
      bool branch = d.kind == DepKind::Then || d.kind == DepKind::Else;
      if (branch && c.types[i] != StepType::Condition) continue;
      if (d.kind == DepKind::Parallel && c.types[i] != StepType::Parallel) continue;
      std::uint32_t u = index.find(steps, d.id);
      if (u == kNoStep) {
        std::string what = d.kind == DepKind::DependsOn ? "depends on" : "names";
        c.error(i, issue_code::kUnknownDependency, dep_path(i, d),
                "step " + quoted(steps[i].id) + " " + what + " " + quoted(d.id) + ", which is not a step of this pipeline");
        continue;
      }
      if (d.kind == DepKind::DependsOn) edges.emplace_back(u, i);
      if (branch) edges.emplace_back(i, u);  // a branch target runs after its condition
    }
  }
  Dag dag(steps.size(), std::move(edges));
  check_cycles(c, dag);
  if (compiler.joinable()) {
    compiler.join();
    if (compile_error) std::rethrow_exception(compile_error);
  } else {
    templates = compile_templates(steps);
  }
  check_templates(c, index, dag, templates);

  result.report = finish_report(std::move(facts.issues), std::move(c.warnings));
  if (want_plan && result.report.valid()) result.plan = make_plan(steps, c.types, dag);
  return result;
}

}  // namespace budcore::pipeline::detail
