// The companion controller's I/O: AdmissionChecks marked Active, Workloads listed and watched,
// decisions persisted in the Store before they are written to a Workload's status.
#include <algorithm>
#include <thread>

#include "budcore/companion/companion.hpp"
#include "budcore/core/json.hpp"
#include "budcore/kubernetes/reflector.hpp"

namespace budcore::companion {
namespace {

using core::Error;
using core::Value;

constexpr std::string_view kDecisionKind = "kueue_companion.decision";
constexpr std::string_view kHoldKind = "kueue_companion.hold";
constexpr std::string_view kKueueApi = "kueue.x-k8s.io/v1beta2";

const std::string& str(const Value* v) {
  static const std::string empty;
  return v != nullptr && v->is_string() ? v->as_string() : empty;
}

std::string seconds_text(core::Timestamp t) { return core::Timestamp::from_unix_seconds(t.unix_seconds()).to_string(); }

int severity(CheckState s) {
  switch (s) {
    case CheckState::Ready: return 0;
    case CheckState::Pending: return 1;
    case CheckState::Retry: return 2;
    case CheckState::Rejected: return 3;
  }
  return 1;
}

// One AdmissionCheck running several checks: the worst state decides, every message is kept.
Decision combine(const std::vector<Decision>& parts) {
  Decision out = parts.front();
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const Decision& p = parts[i];
    if (severity(p.state) > severity(out.state)) out.state = p.state;
    out.message += "; " + p.message;
    if (p.requeue_after_seconds)
      out.requeue_after_seconds = std::max(out.requeue_after_seconds.value_or(0), *p.requeue_after_seconds);
    if (p.estimate) out.estimate = p.estimate;
    if (p.tenant) out.tenant = p.tenant;
    if (!p.budget.empty()) out.budget = p.budget;
  }
  if (out.state != CheckState::Retry) out.requeue_after_seconds.reset();
  return out;
}

struct Stored {
  std::string workload;  // ns/name
  std::string uid;
  std::string admission_check;
  Decision decision;
  core::Timestamp decided_at;
};

// A Workload the companion deactivated to wait without quota, and when it lets it go again.
struct Hold {
  std::string namespace_, name, uid, admission_check;
  core::Timestamp until;
};

}  // namespace

struct Companion::Impl {
  CompanionConfig config;
  kubernetes::Client& client;
  backend::Store& store;
  CompanionOptions options;
  std::shared_ptr<core::Clock> clock;
  std::map<std::string, std::vector<CheckKind>> checks;  // AdmissionCheck name -> checks
  kubernetes::Reflector workloads;
  std::map<std::string, Stored> decided;  // "uid/check" -> the decision made
  std::map<std::string, Hold> holds;       // "uid/check" -> the Workload held
  std::atomic<bool> stopping{false};
  // Ends the watch request early: set by stop() and by the first event of a request, so that
  // a change is reconciled as soon as it arrives rather than when the request times out.
  std::atomic<bool> cut{false};

  Impl(CompanionConfig c, kubernetes::Client& cl, backend::Store& s, CompanionOptions o)
      : config(std::move(c)),
        client(cl),
        store(s),
        options(std::move(o)),
        clock(options.clock ? options.clock : core::system_clock()),
        workloads(cl, kubernetes::resources::workloads(), "") {}

  core::Status load() {
    backend::PageRequest page;
    page.limit = 500;
    for (;;) {
      auto p = store.list_platform_records(kDecisionKind, page);
      if (!p) return std::move(p).error();
      for (const auto& r : p->items) {
        Stored s;
        s.workload = str(r.doc.find("workload"));
        s.uid = str(r.doc.find("uid"));
        s.admission_check = str(r.doc.find("admission_check"));
        if (const Value* d = r.doc.find("decision")) {
          auto dec = decision_from_value(*d);
          if (!dec) continue;
          s.decision = *dec;
        }
        auto at = core::Timestamp::parse(str(r.doc.find("decided_at")));
        s.decided_at = at ? *at : r.updated_at;
        decided[r.key] = std::move(s);
      }
      if (p->next_cursor.empty()) break;
      page.after = p->next_cursor;
    }
    page.after.clear();
    for (;;) {
      auto p = store.list_platform_records(kHoldKind, page);
      if (!p) return std::move(p).error();
      for (const auto& r : p->items) {
        Hold h{str(r.doc.find("namespace")), str(r.doc.find("name")), str(r.doc.find("uid")),
               str(r.doc.find("admission_check")), {}};
        auto until = core::Timestamp::parse(str(r.doc.find("until")));
        h.until = until ? *until : r.updated_at;
        holds[r.key] = std::move(h);
      }
      if (p->next_cursor.empty()) break;
      page.after = p->next_cursor;
    }
    return {};
  }

  // One apply carries the given entries plus every other entry of ours the Workload shows, so
  // none this manager owned is dropped.
  core::Status apply_checks(const Value& wl, const std::string& ns, const std::string& name,
                            const std::map<std::string, core::Map>& ours) {
    core::List entries;
    const Value* current = wl.find_path("status.admissionChecks");
    if (current != nullptr && current->is_list()) {
      for (const auto& c : current->as_list()) {
        std::string n = str(c.find("name"));
        if (!checks.contains(n) || ours.contains(n)) continue;
        core::Map e{{"name", n}, {"state", str(c.find("state"))}, {"message", str(c.find("message"))},
                    {"lastTransitionTime", str(c.find("lastTransitionTime"))}};
        if (const Value* r = c.find("requeueAfterSeconds"); r != nullptr && r->is_int()) e.set("requeueAfterSeconds", *r);
        entries.emplace_back(std::move(e));
      }
    }
    for (const auto& [n, e] : ours) entries.emplace_back(e);
    Value patch = core::Map{{"apiVersion", std::string(kKueueApi)},
                            {"kind", "Workload"},
                            {"metadata", core::Map{{"name", name}, {"namespace", ns}}},
                            {"status", core::Map{{"admissionChecks", std::move(entries)}}}};
    auto r = client.apply(kubernetes::resources::workloads(), ns, patch, true, "status");
    if (!r) return std::move(r).error();
    return {};
  }

  // Kueue 0.19 keeps a Workload's quota while a Retry with requeueAfterSeconds waits, and
  // re-reserves at once after a Retry without it; deactivating the Workload is what releases
  // its quota and keeps it out of the queue. The companion deactivates the Workloads it holds
  // (marking them with an annotation) and reactivates them when the hold ends.
  core::Status hold(const WorkloadFacts& f, const std::string& check, core::Timestamp until) {
    std::string key = f.uid + "/" + check;
    Hold h{f.namespace_, f.name, f.uid, check, until};
    BUDCORE_TRY(store.put_platform_record(kHoldKind, key,
                                          core::Map{{"namespace", h.namespace_},
                                                    {"name", h.name},
                                                    {"uid", h.uid},
                                                    {"admission_check", check},
                                                    {"until", until.to_string()}}));
    holds[key] = h;
    Value patch = core::Map{{"metadata", core::Map{{"annotations", core::Map{{std::string(kHeldUntilAnnotation), until.to_string()}}}}},
                            {"spec", core::Map{{"active", false}}}};
    auto r = client.patch(kubernetes::resources::workloads(), f.namespace_, f.name, patch);
    if (!r) return std::move(r).error();
    return {};
  }

  // Ends the holds that are due: the check back to Pending (a Retry would keep the Workload
  // inadmissible), then the Workload reactivated; Kueue queues it and the check is decided anew.
  core::Status release_due(core::Timestamp now) {
    std::vector<std::string> due;
    for (const auto& [key, h] : holds)
      if (h.until <= now) due.push_back(key);
    for (const auto& key : due) {
      const Hold h = holds[key];
      auto wl = client.get(kubernetes::resources::workloads(), h.namespace_, h.name);
      bool gone = !wl && wl.error().code == core::ErrorCode::NotFound;
      if (!wl && !gone) return std::move(wl).error();
      if (!gone && str(wl->find_path("metadata.uid")) == h.uid) {
        core::Map entry{{"name", h.admission_check},
                        {"state", "Pending"},
                        {"message", "hold ended at " + h.until.to_string() + "; checking again"},
                        {"lastTransitionTime", seconds_text(now)}};
        BUDCORE_TRY(apply_checks(*wl, h.namespace_, h.name, {{h.admission_check, entry}}));
        Value patch = core::Map{{"metadata", core::Map{{"annotations", core::Map{{std::string(kHeldUntilAnnotation), nullptr}}}}},
                                {"spec", core::Map{{"active", true}}}};
        auto r = client.patch(kubernetes::resources::workloads(), h.namespace_, h.name, patch);
        if (!r && r.error().code != core::ErrorCode::NotFound) return std::move(r).error();
      }
      BUDCORE_TRY(store.delete_platform_record(kHoldKind, key));
      holds.erase(key);
    }
    return {};
  }

  core::Status persist(const std::string& key, const Stored& s) {
    Value doc = core::Map{{"workload", s.workload},
                          {"uid", s.uid},
                          {"admission_check", s.admission_check},
                          {"decision", to_value(s.decision)},
                          {"decided_at", s.decided_at.to_string()}};
    BUDCORE_TRY(store.put_platform_record(kDecisionKind, key, doc));
    decided[key] = s;
    return {};
  }

  // Spend of every budget in its current period: metered usage in the Store plus the estimates
  // of Workloads this companion let through (Ready) in the period.
  core::Result<SpendByBudget> spend(core::Timestamp now) {
    SpendByBudget out;
    auto metered = cost::store_spend(store, config.price_book);
    for (const auto& b : config.budgets.budgets) {
      auto [from, to] = cost::period_bounds(b.period, now);
      core::Money total;
      BUDCORE_TRY_ASSIGN(total, metered->spent(b, from, now));
      for (const auto& [key, s] : decided) {
        const Decision& d = s.decision;
        if (d.state != CheckState::Ready || !d.estimate || !d.tenant) continue;
        if (!b.covers(*d.tenant, std::nullopt) || s.decided_at < from || s.decided_at >= to) continue;
        core::Money est;
        BUDCORE_TRY_ASSIGN(est, config.price_book.convert(*d.estimate, b.amount.currency()));
        BUDCORE_TRY_ASSIGN(total, total.checked_add(est));
      }
      out[b.name] = total;
    }
    return out;
  }

  std::map<std::string, std::string> owner_annotations(const Value& wl) {
    const Value* owners = wl.find_path("metadata.ownerReferences");
    if (owners == nullptr || !owners->is_list()) return {};
    for (const auto& o : owners->as_list()) {
      const auto* r = kubernetes::resources::by_kind(str(o.find("apiVersion")), str(o.find("kind")));
      if (r == nullptr || str(o.find("kind")) != "Job") continue;
      auto job = client.get(*r, str(wl.find_path("metadata.namespace")), str(o.find("name")));
      if (!job) return {};
      std::map<std::string, std::string> out;
      if (const Value* a = job->find_path("metadata.annotations"); a != nullptr && a->is_map())
        for (const auto& [k, v] : a->as_map())
          if (v.is_string()) out[k] = v.as_string();
      return out;
    }
    return {};
  }

  core::Result<std::vector<Written>> reconcile(const Value& wl) {
    std::vector<Written> written;
    WorkloadFacts f;
    BUDCORE_TRY_ASSIGN(f, read_workload(wl));
    if (f.finished || !f.quota_reserved) return written;
    if (!config.cluster_queues.empty() && !config.cluster_queues.contains(f.cluster_queue)) return written;
    std::vector<std::string> pending;
    for (const auto& [name, state] : f.checks)
      if (state == CheckState::Pending && checks.contains(name)) pending.push_back(name);
    if (pending.empty()) return written;
    auto owner = owner_annotations(wl);
    if (!owner.empty()) {
      BUDCORE_TRY_ASSIGN(f, read_workload(wl, owner));
    }
    core::Timestamp now = clock->now();
    std::string ref = f.namespace_ + "/" + f.name;
    std::map<std::string, Decision> answers;
    for (const auto& name : pending) {
      std::string key = f.uid + "/" + name;
      auto prior = decided.find(key);
      // A decision that let the Workload through or rejected it stands (a restart, or Kueue
      // resetting the check after an eviction, never flips it or counts its price twice).
      if (prior != decided.end() && prior->second.decision.state != CheckState::Retry) {
        answers[name] = prior->second.decision;
        continue;
      }
      std::vector<Decision> parts;
      for (CheckKind k : checks[name]) {
        if (k == CheckKind::Budget) {
          SpendByBudget spent;
          BUDCORE_TRY_ASSIGN(spent, spend(now));
          parts.push_back(decide_budget(config, f, price_workload(config, f), spent));
        } else {
          parts.push_back(decide_window(config, f, now));
        }
      }
      Decision d = combine(parts);
      // Persist before acting: the Store knows the decision before the cluster does.
      BUDCORE_TRY(persist(key, Stored{ref, f.uid, name, d, now}));
      answers[name] = d;
    }
    std::map<std::string, core::Map> ours;
    for (const auto& [name, d] : answers) {
      core::Map e{{"name", name},
                  {"state", std::string(to_string(d.state))},
                  {"message", d.message.substr(0, 32'000)},
                  {"lastTransitionTime", seconds_text(now)}};
      ours[name] = std::move(e);
      written.push_back({ref, name, d});
    }
    // A hold deactivates the Workload first: Kueue evicts it (its quota released) before the
    // Retry, with its message, is written.
    for (const auto& [name, d] : answers) {
      if (d.state != CheckState::Retry) continue;
      core::Timestamp until = now + core::Duration::seconds(d.requeue_after_seconds.value_or(config.retry_after_seconds));
      auto st = hold(f, name, until);
      if (!st) {
        if (st.error().code == core::ErrorCode::NotFound) return std::vector<Written>{};
        return std::move(st).error();
      }
    }
    auto st = apply_checks(wl, f.namespace_, f.name, ours);
    if (!st) {
      // Gone meanwhile: nothing to answer.
      if (st.error().code == core::ErrorCode::NotFound) return std::vector<Written>{};
      return std::move(st).error();
    }
    return written;
  }
};

Companion::Companion(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Companion::~Companion() = default;

core::Result<std::unique_ptr<Companion>> Companion::open(CompanionConfig config, kubernetes::Client& client,
                                                         backend::Store& store, CompanionOptions options) {
  if (config.controllers.empty()) return Error::invalid("controllers", "", "required: at least one controller name");
  auto impl = std::make_unique<Impl>(std::move(config), client, store, std::move(options));
  BUDCORE_TRY(impl->load());
  return std::unique_ptr<Companion>(new Companion(std::move(impl)));
}

core::Result<std::vector<std::string>> Companion::activate_checks() {
  auto& m = *impl_;
  kubernetes::ObjectList list;
  BUDCORE_TRY_ASSIGN(list, m.client.list(kubernetes::resources::admission_checks(), ""));
  std::map<std::string, std::vector<CheckKind>> found;
  std::vector<std::string> names;
  for (const auto& ac : list.items) {
    std::string name = str(ac.find_path("metadata.name"));
    auto kinds = m.config.checks_of(str(ac.find_path("spec.controllerName")));
    if (kinds.empty()) continue;  // another controller's check: left alone
    found[name] = kinds;
    names.push_back(name);
    bool active = false;
    if (const Value* conds = ac.find_path("status.conditions"); conds != nullptr && conds->is_list())
      for (const auto& c : conds->as_list())
        if (str(c.find("type")) == "Active") active = str(c.find("status")) == "True";
    if (active) continue;
    std::string what;
    for (auto k : kinds) what += (what.empty() ? "" : ", ") + std::string(to_string(k));
    Value status = core::Map{
        {"apiVersion", std::string(kKueueApi)},
        {"kind", "AdmissionCheck"},
        {"metadata", core::Map{{"name", name}}},
        {"status", core::Map{{"conditions", core::List{core::Map{{"type", "Active"},
                                                                  {"status", "True"},
                                                                  {"reason", "Active"},
                                                                  {"message", "budcore companion runs the " + what + " check"},
                                                                  {"lastTransitionTime", seconds_text(m.clock->now())}}}}}}};
    auto r = m.client.apply(kubernetes::resources::admission_checks(), "", status, true, "status");
    if (!r) return std::move(r).error();
  }
  m.checks = std::move(found);
  return names;
}

core::Result<std::vector<Written>> Companion::sync(std::int64_t timeout_seconds) {
  auto& m = *impl_;
  std::vector<Value> changed;
  if (!m.stopping.load()) m.cut.store(false);
  auto end = m.workloads.sync(
      [&](const kubernetes::WatchEvent& ev) {
        if (ev.type == kubernetes::WatchEvent::Type::Added || ev.type == kubernetes::WatchEvent::Type::Modified)
          changed.push_back(ev.object);
        m.cut.store(true);
      },
      timeout_seconds, &m.cut);
  // A request cut short may end without a status; what it delivered was applied.
  if (!end && !m.cut.load()) return std::move(end).error();
  std::vector<Written> out;
  for (const auto& wl : changed) {
    // A newer version of the same Workload later in the batch supersedes this one.
    auto w = m.reconcile(wl);
    if (!w) {
      if (w.error().code == core::ErrorCode::Conflict) continue;
      return std::move(w).error();
    }
    out.insert(out.end(), w->begin(), w->end());
  }
  BUDCORE_TRY(m.release_due(m.clock->now()));
  return out;
}

core::Result<std::vector<Written>> Companion::reconcile(const Value& workload) { return impl_->reconcile(workload); }

void Companion::run(const std::function<void(const Written&)>& on_written,
                    const std::function<void(const core::Error&)>& on_error) {
  auto& m = *impl_;
  while (!m.stopping.load()) {
    auto act = activate_checks();
    core::Result<std::vector<Written>> w = act ? sync(m.options.watch_timeout_seconds) : core::Result<std::vector<Written>>(act.error());
    if (!w) {
      if (m.stopping.load()) break;
      if (on_error) on_error(w.error());
      for (int i = 0; i < 10 && !m.stopping.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    if (on_written)
      for (const auto& x : *w) on_written(x);
  }
}

void Companion::stop() noexcept {
  impl_->stopping.store(true);
  impl_->cut.store(true);
}

const std::map<std::string, std::vector<CheckKind>>& Companion::admission_checks() const noexcept { return impl_->checks; }

std::size_t Companion::relists() const noexcept { return impl_->workloads.relists(); }

}  // namespace budcore::companion
