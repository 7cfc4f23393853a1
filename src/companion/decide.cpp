// The companion's pure decisions: a Workload read, priced and judged against budgets and
// windows (companion/companion.hpp).
#include <algorithm>

#include "budcore/companion/companion.hpp"
#include "budcore/core/json.hpp"
#include "budcore/cost/estimator.hpp"
#include "companion/companion_impl.hpp"

namespace budcore::companion {
namespace {

using core::Error;
using core::Value;

std::map<std::string, std::string> string_map(const Value* v) {
  std::map<std::string, std::string> out;
  if (v == nullptr || !v->is_map()) return out;
  for (const auto& [k, x] : v->as_map())
    if (x.is_string()) out[k] = x.as_string();
  return out;
}

bool condition_true(const Value& wl, std::string_view type) {
  const Value* conds = wl.find_path("status.conditions");
  if (conds == nullptr || !conds->is_list()) return false;
  for (const auto& c : conds->as_list())
    if (str(c.find("type")) == type) return str(c.find("status")) == "True";
  return false;
}

// Requests of one container (limits stand in for requests it does not give, as Kubernetes defaults them).
core::Result<std::map<std::string, core::Quantity>> container_requests(const Value& c, const std::string& path) {
  std::map<std::string, core::Quantity> out;
  for (const char* section : {"limits", "requests"}) {
    const Value* m = c.find_path(std::string("resources.") + section);
    if (m == nullptr || !m->is_map()) continue;
    for (const auto& [res, q] : m->as_map()) {
      std::string text = q.is_string() ? q.as_string() : q.is_int() ? std::to_string(q.as_int()) : "";
      auto parsed = core::Quantity::parse(text);
      if (!parsed) return Error::invalid(path + ".resources." + section + "." + res, text, parsed.error().message);
      out.insert_or_assign(res, *parsed);
    }
  }
  return out;
}

core::Result<core::Quantity> add(const core::Quantity& a, const core::Quantity& b) {
  return a.checked_add(b);
}

std::string duration_text(core::Duration d) {
  std::int64_t s = d.count_ns() / 1'000'000'000;
  if (s % 3600 == 0) return std::to_string(s / 3600) + "h";
  if (s % 60 == 0) return std::to_string(s / 60) + "m";
  return std::to_string(s) + "s";
}

std::string window_text(const schedule::Window& w) {
  return w.start.to_string() + "-" + w.end.to_string() + " " + w.zone;
}

Decision rejected(CheckKind k, std::string message) {
  Decision d;
  d.check = k;
  d.state = CheckState::Rejected;
  d.message = std::move(message);
  return d;
}

}  // namespace

std::string_view to_string(CheckKind k) noexcept { return k == CheckKind::Budget ? "budget" : "window"; }

std::string_view to_string(CheckState s) noexcept {
  switch (s) {
    case CheckState::Pending: return "Pending";
    case CheckState::Ready: return "Ready";
    case CheckState::Retry: return "Retry";
    case CheckState::Rejected: return "Rejected";
  }
  return "Pending";
}

core::Result<CheckState> parse_check_state(std::string_view text) {
  for (auto s : {CheckState::Pending, CheckState::Ready, CheckState::Retry, CheckState::Rejected})
    if (to_string(s) == text) return s;
  return Error::invalid("state", std::string(text), "expected Pending, Ready, Retry or Rejected");
}

core::Result<WorkloadFacts> read_workload(const Value& wl, const std::map<std::string, std::string>& owner_annotations) {
  if (!wl.is_map()) return Error::invalid("", core::to_json(wl), "expected a Workload object");
  WorkloadFacts f;
  f.namespace_ = str(wl.find_path("metadata.namespace"));
  f.name = str(wl.find_path("metadata.name"));
  f.uid = str(wl.find_path("metadata.uid"));
  if (f.name.empty()) return Error::invalid("metadata.name", "", "a Workload has a name");
  f.labels = string_map(wl.find_path("metadata.labels"));
  f.annotations = owner_annotations;
  for (auto& [k, v] : string_map(wl.find_path("metadata.annotations"))) f.annotations[k] = v;
  if (const Value* m = wl.find_path("spec.maximumExecutionTimeSeconds"); m != nullptr && m->is_int())
    f.maximum_execution_time_seconds = m->as_int();
  const Value* pod_sets = wl.find_path("spec.podSets");
  if (pod_sets != nullptr && pod_sets->is_list()) {
    for (std::size_t i = 0; i < pod_sets->as_list().size(); ++i) {
      const Value& ps = pod_sets->as_list()[i];
      std::string path = "spec.podSets[" + std::to_string(i) + "]";
      PodSetFacts p;
      p.name = str(ps.find("name"));
      if (const Value* c = ps.find("count"); c != nullptr && c->is_int()) p.count = c->as_int();
      const Value* containers = ps.find_path("template.spec.containers");
      if (containers != nullptr && containers->is_list()) {
        for (std::size_t j = 0; j < containers->as_list().size(); ++j) {
          std::map<std::string, core::Quantity> r;
          BUDCORE_TRY_ASSIGN(r, container_requests(containers->as_list()[j],
                                                   path + ".template.spec.containers[" + std::to_string(j) + "]"));
          for (const auto& [res, q] : r) {
            auto it = p.requests.find(res);
            if (it == p.requests.end()) {
              p.requests.emplace(res, q);
            } else {
              BUDCORE_TRY_ASSIGN(it->second, add(it->second, q));
            }
          }
        }
      }
      // An init container runs alone: the pod needs the larger of it and the containers' sum.
      const Value* inits = ps.find_path("template.spec.initContainers");
      if (inits != nullptr && inits->is_list()) {
        for (std::size_t j = 0; j < inits->as_list().size(); ++j) {
          std::map<std::string, core::Quantity> r;
          BUDCORE_TRY_ASSIGN(r, container_requests(inits->as_list()[j],
                                                   path + ".template.spec.initContainers[" + std::to_string(j) + "]"));
          for (const auto& [res, q] : r) {
            auto it = p.requests.find(res);
            if (it == p.requests.end()) p.requests.emplace(res, q);
            else if (it->second.nano() < q.nano()) it->second = q;
          }
        }
      }
      f.pod_sets.push_back(std::move(p));
    }
  }
  f.cluster_queue = str(wl.find_path("status.admission.clusterQueue"));
  if (const Value* as = wl.find_path("status.admission.podSetAssignments"); as != nullptr && as->is_list()) {
    for (const auto& a : as->as_list()) {
      std::string name = str(a.find("name"));
      for (auto& p : f.pod_sets) {
        if (p.name != name) continue;
        p.flavors = string_map(a.find("flavors"));
        if (const Value* c = a.find("count"); c != nullptr && c->is_int()) p.count = c->as_int();
      }
    }
  }
  f.quota_reserved = condition_true(wl, "QuotaReserved");
  f.finished = condition_true(wl, "Finished");
  if (const Value* checks = wl.find_path("status.admissionChecks"); checks != nullptr && checks->is_list()) {
    for (const auto& c : checks->as_list()) {
      auto s = parse_check_state(str(c.find("state")));
      f.checks[str(c.find("name"))] = s ? *s : CheckState::Pending;
    }
  }
  return f;
}

std::optional<core::Id> tenant_of(const CompanionConfig& config, const WorkloadFacts& w) {
  for (const auto& r : config.tenants) {
    if (!r.namespace_.empty() && r.namespace_ == w.namespace_) return r.tenant_id;
    if (!r.label_key.empty()) {
      auto it = w.labels.find(r.label_key);
      if (it != w.labels.end() && it->second == r.label_value) return r.tenant_id;
    }
  }
  return std::nullopt;
}

core::Result<ExpectedDuration> expected_duration(const CompanionConfig& config, const WorkloadFacts& w) {
  if (auto it = w.annotations.find(std::string(kDurationAnnotation)); it != w.annotations.end()) {
    std::string field = "metadata.annotations[" + std::string(kDurationAnnotation) + "]";
    auto d = core::Duration::parse(it->second);
    if (!d) return Error::invalid(field, it->second, d.error().message);
    if (*d <= core::Duration::seconds(0)) return Error::invalid(field, it->second, "a duration must be positive");
    return ExpectedDuration{*d, "annotation " + std::string(kDurationAnnotation)};
  }
  if (w.maximum_execution_time_seconds && *w.maximum_execution_time_seconds > 0)
    return ExpectedDuration{core::Duration::seconds(*w.maximum_execution_time_seconds), "maximumExecutionTimeSeconds"};
  if (auto q = config.queues.find(w.cluster_queue); q != config.queues.end() && q->second.default_duration)
    return ExpectedDuration{*q->second.default_duration, "queue " + w.cluster_queue};
  if (config.default_duration) return ExpectedDuration{*config.default_duration, "default_duration"};
  return Error::make(core::ErrorCode::NotFound,
                     "no expected duration: set the annotation " + std::string(kDurationAnnotation) +
                         " or spec.maximumExecutionTimeSeconds, or a default_duration for ClusterQueue " + w.cluster_queue,
                     "metadata.annotations[" + std::string(kDurationAnnotation) + "]");
}

core::Result<WorkloadPrice> price_workload(const CompanionConfig& config, const WorkloadFacts& w) {
  WorkloadPrice out;
  BUDCORE_TRY_ASSIGN(out.duration, expected_duration(config, w));
  // The annotation is the submitter's word; spec.maximumExecutionTimeSeconds is Kueue's limit,
  // which it enforces. A budget pays for the longer, so a short annotation cannot hide a long run.
  if (w.maximum_execution_time_seconds && *w.maximum_execution_time_seconds > 0) {
    const auto limit = core::Duration::seconds(*w.maximum_execution_time_seconds);
    if (out.duration.duration < limit) out.duration = ExpectedDuration{limit, "maximumExecutionTimeSeconds"};
  }
  const auto& book = config.price_book;
  std::int64_t seconds = (out.duration.duration.count_ns() + 999'999'999) / 1'000'000'000;
  out.total = core::Money::from_units(0, book.currency);
  for (std::size_t i = 0; i < w.pod_sets.size(); ++i) {
    const auto& p = w.pod_sets[i];
    cost::ResourceRequest r;
    r.estimated_duration_seconds = seconds;
    r.path = "spec.podSets[" + std::to_string(i) + "]";
    std::int64_t gpu_milli = 0;
    std::string gpu_flavor;
    for (const auto& res : config.gpu_resources) {
      auto it = p.requests.find(res);
      if (it == p.requests.end()) continue;
      std::int64_t m = it->second.milli_value().value_or(0);
      gpu_milli += m;
      if (auto f = p.flavors.find(res); f != p.flavors.end()) gpu_flavor = f->second;
    }
    std::int64_t gpus_per_pod = (gpu_milli + 999) / 1000;
    r.gpu_count = gpus_per_pod * p.count;
    std::string line = p.name + ": " + std::to_string(p.count) + " pod(s)";
    if (r.gpu_count > 0) {
      if (gpu_flavor.empty())
        return Error::make(core::ErrorCode::NotFound,
                           "pod set " + p.name + " has no flavor assigned for its GPUs yet (quota not reserved)",
                           "status.admission.podSetAssignments");
      auto t = config.flavor_gpu_types.find(gpu_flavor);
      r.gpu_type = t != config.flavor_gpu_types.end() ? t->second : gpu_flavor;
      line += " x " + std::to_string(gpus_per_pod) + " GPU on " + gpu_flavor + " (" + *r.gpu_type + ")";
    }
    r.cpu_cores = core::Quantity::from_int(0);
    r.memory_gb = core::Quantity::from_int(0);
    if (book.cpu_core_hour) {
      if (auto it = p.requests.find("cpu"); it != p.requests.end())
        r.cpu_cores = core::Quantity::from_nano(it->second.nano() * p.count);
    }
    if (book.memory_gib_hour) {
      if (auto it = p.requests.find("memory"); it != p.requests.end())
        r.memory_gb = core::Quantity::from_nano(it->second.nano() * p.count / (core::int128{1} << 30));
    }
    auto e = cost::estimate(book, r);
    if (!e) return std::move(e).error();
    BUDCORE_TRY_ASSIGN(out.total, out.total.checked_add(e->total));
    out.lines.push_back(line + " for " + duration_text(out.duration.duration) + ": " + e->total.to_string());
  }
  return out;
}

Decision decide_budget(const CompanionConfig& config, const WorkloadFacts& w, const core::Result<WorkloadPrice>& price,
                       const SpendByBudget& spent) {
  Decision d;
  d.check = CheckKind::Budget;
  auto tenant = tenant_of(config, w);
  if (!tenant) {
    if (config.reject_unmapped_tenant)
      return rejected(CheckKind::Budget, "namespace " + w.namespace_ + " maps to no tenant (unmapped_tenant: reject)");
    d.state = CheckState::Ready;
    d.message = "namespace " + w.namespace_ + " maps to no tenant: no budget applies";
    return d;
  }
  d.tenant = tenant;
  if (!price) {
    const Error& e = price.error();
    if (e.code == core::ErrorCode::Invalid)
      return [&] {
        Decision r = rejected(CheckKind::Budget, "cannot price the Workload: " + e.describe());
        r.tenant = tenant;
        return r;
      }();
    // The operator can fix a missing price or default duration without the Workload changing.
    d.state = CheckState::Retry;
    d.requeue_after_seconds = config.retry_after_seconds;
    d.message = "cannot price the Workload: " + e.describe();
    return d;
  }
  d.estimate = price->total;
  const cost::Budget* soft = nullptr;
  std::string soft_msg;
  std::vector<std::string> checked;
  for (const auto& b : config.budgets.budgets) {
    if (!b.covers(*tenant, std::nullopt)) continue;
    checked.push_back(b.name);
    auto est = config.price_book.convert(price->total, b.amount.currency());
    if (!est) {
      d.state = CheckState::Retry;
      d.requeue_after_seconds = config.retry_after_seconds;
      d.message = "budget " + b.name + ": " + est.error().describe();
      return d;
    }
    core::Money used = core::Money::from_units(0, b.amount.currency());
    if (auto it = spent.find(b.name); it != spent.end()) used = it->second;
    auto projected = used.checked_add(*est);
    if (!projected) {
      d.state = CheckState::Retry;
      d.requeue_after_seconds = config.retry_after_seconds;
      d.message = "budget " + b.name + ": " + projected.error().describe();
      return d;
    }
    std::string figures = "spent " + used.to_string() + " + this Workload " + est->to_string() + " (" +
                          duration_text(price->duration.duration) + " from " + price->duration.source + ") = " +
                          projected->to_string();
    if (b.hard_limit && *projected > b.amount) {
      Decision r = rejected(CheckKind::Budget, "budget " + b.name + " (" + std::string(cost::to_string(b.period)) + ", hard limit " +
                                                   b.amount.to_string() + "): " + figures + " passes the hard limit");
      r.tenant = tenant;
      r.estimate = price->total;
      r.budget = b.name;
      return r;
    }
    auto soft_limit = b.amount.checked_mul(config.soft_limit_percent);
    bool over_soft = soft_limit && core::Money::from_units(projected->units() * 100, b.amount.currency()) > *soft_limit;
    if (over_soft && soft == nullptr) {
      soft = &b;
      soft_msg = "budget " + b.name + " (" + std::string(cost::to_string(b.period)) + ", " + b.amount.to_string() +
                 ", soft limit " + std::to_string(config.soft_limit_percent) + "%): " + figures +
                 " passes the soft limit; held until spend allows it";
    }
  }
  if (soft != nullptr) {
    d.state = CheckState::Retry;
    d.requeue_after_seconds = config.retry_after_seconds;
    d.message = soft_msg;
    d.budget = soft->name;
    return d;
  }
  d.state = CheckState::Ready;
  if (checked.empty()) {
    d.message = "no budget covers tenant " + tenant->to_string() + "; estimate " + price->total.to_string();
  } else {
    std::string names;
    for (const auto& n : checked) names += (names.empty() ? "" : ", ") + n;
    d.message = "within budget (" + names + "); estimate " + price->total.to_string();
  }
  return d;
}

namespace {

// A window that applies to a Workload and where it comes from.
struct AppliedWindow {
  schedule::Window window;
  std::string source;
};

std::string windows_text(const std::vector<AppliedWindow>& windows) {
  std::string out;
  for (const auto& w : windows) out += (out.empty() ? "" : " and ") + window_text(w.window) + " (" + w.source + ")";
  return out;
}

// The first instant from `now` at which every window is open: each window's next opening in
// turn until they agree. Windows that never overlap are an error naming them.
core::Result<core::Timestamp> next_open_in_all(const std::vector<AppliedWindow>& windows, core::Timestamp now) {
  core::Timestamp t = now;
  for (int round = 0; round < 1000; ++round) {
    bool all_open = true;
    for (const auto& w : windows) {
      BUDCORE_TRY_ASSIGN(core::Timestamp next, schedule::next_window_open(w.window, t));
      if (next != t) {
        t = next;
        all_open = false;
      }
    }
    if (all_open) return t;
  }
  return Error::invalid("window", windows_text(windows), "the windows are never open at the same time");
}

}  // namespace

// The ClusterQueue's window is the platform team's and holds for every Workload on it; a
// Workload's own window annotation can narrow it, never widen it: both must be open.
Decision decide_window(const CompanionConfig& config, const WorkloadFacts& w, core::Timestamp now) {
  Decision d;
  d.check = CheckKind::Window;
  d.tenant = tenant_of(config, w);
  std::vector<AppliedWindow> windows;
  if (auto q = config.queues.find(w.cluster_queue); q != config.queues.end() && q->second.window)
    windows.push_back({*q->second.window, "ClusterQueue " + w.cluster_queue});
  if (auto it = w.annotations.find(std::string(kWindowAnnotation)); it != w.annotations.end()) {
    auto parsed = parse_window_text(it->second);
    if (!parsed) {
      Decision r = rejected(CheckKind::Window, "metadata.annotations[" + std::string(kWindowAnnotation) + "]: " +
                                                   parsed.error().message + " (value: '" + it->second + "')");
      r.tenant = d.tenant;
      return r;
    }
    windows.push_back({*parsed, "annotation " + std::string(kWindowAnnotation)});
  }
  if (windows.empty()) {
    d.state = CheckState::Ready;
    d.message = "no window applies";
    return d;
  }
  auto next = next_open_in_all(windows, now);
  if (!next) {
    d.state = CheckState::Rejected;
    d.message = "window " + windows_text(windows) + ": " + next.error().message;
    return d;
  }
  if (*next <= now) {
    d.state = CheckState::Ready;
    d.message = "inside the window " + windows_text(windows);
    return d;
  }
  std::int64_t wait_ns = (*next - now).count_ns();
  std::int64_t wait = (wait_ns + 999'999'999) / 1'000'000'000;
  d.state = CheckState::Retry;
  d.requeue_after_seconds = static_cast<std::int32_t>(std::min<std::int64_t>(wait, 0x7fffffff));
  d.message = "outside the window " + windows_text(windows) + "; next opening " + next->to_string();
  return d;
}

Value to_value(const Decision& d) {
  core::Map m{{"check", std::string(to_string(d.check))}, {"state", std::string(to_string(d.state))}, {"message", d.message}};
  if (d.requeue_after_seconds) m.set("requeue_after_seconds", static_cast<std::int64_t>(*d.requeue_after_seconds));
  if (d.estimate) m.set("estimate", d.estimate->to_string());
  if (d.tenant) m.set("tenant_id", d.tenant->to_string());
  if (!d.budget.empty()) m.set("budget", d.budget);
  return m;
}

core::Result<Decision> decision_from_value(const Value& v) {
  if (!v.is_map()) return Error::invalid("", core::to_json(v), "expected a decision document");
  Decision d;
  std::string check = str(v.find("check"));
  if (check == "budget") d.check = CheckKind::Budget;
  else if (check == "window") d.check = CheckKind::Window;
  else return Error::invalid("check", check, "expected budget or window");
  BUDCORE_TRY_ASSIGN(d.state, parse_check_state(str(v.find("state"))));
  d.message = str(v.find("message"));
  if (const Value* r = v.find("requeue_after_seconds"); r != nullptr && r->is_int())
    d.requeue_after_seconds = static_cast<std::int32_t>(r->as_int());
  if (const Value* e = v.find("estimate"); e != nullptr && e->is_string()) {
    core::Money m;
    BUDCORE_TRY_ASSIGN(m, core::Money::parse(e->as_string()));
    d.estimate = m;
  }
  if (const Value* t = v.find("tenant_id"); t != nullptr && t->is_string()) {
    core::Id id;
    BUDCORE_TRY_ASSIGN(id, core::Id::parse_field(t->as_string(), "tenant_id"));
    d.tenant = id;
  }
  d.budget = str(v.find("budget"));
  return d;
}

}  // namespace budcore::companion
