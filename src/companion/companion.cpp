// The companion controller's I/O: AdmissionChecks marked Active, Workloads listed and watched,
// decisions persisted in the Store before they are written to a Workload's status.
#include <algorithm>
#include <set>
#include <utility>
#include <thread>

#include "budcore/companion/companion.hpp"
#include "budcore/companion/estimates.hpp"
#include "budcore/core/json.hpp"
#include "budcore/kubernetes/kueue.hpp"
#include "budcore/kubernetes/reflector.hpp"
#include "budcore/kubernetes/status.hpp"
#include "core/parallel.hpp"
#include "companion/companion_impl.hpp"

namespace budcore::companion {
namespace {

using core::Error;
using core::Value;

constexpr std::string_view kDecisionKind = "kueue_companion.decision";
constexpr std::string_view kHoldKind = "kueue_companion.hold";
constexpr std::string_view kSegmentKind = "kueue_companion.segment";
constexpr std::string_view kKueueApi = "kueue.x-k8s.io/v1beta2";

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

// A run of a Workload on its admitted quota whose usage rows are not written yet. Kept in the
// Store so that a run that ends (or whose Workload is deleted) while no companion leads is still
// metered by the next leader.
struct OpenSegment {
  std::string key;  // "<uid>/<admission unix seconds>"
  core::Id tenant;
  core::Timestamp start;
  std::optional<core::Timestamp> end;  // set when the run ended but could not be priced yet
  Value workload;                      // the Workload as last seen: enough to price it once it is gone
};

// What pricing a Workload needs, without its managed fields and status history.
Value priced_part(const Value& wl) {
  core::Map meta;
  for (const char* k : {"name", "namespace", "uid", "labels", "annotations"})
    if (const Value* v = wl.find_path(std::string("metadata.") + k)) meta.set(k, *v);
  core::Map out{{"metadata", std::move(meta)}};
  if (const Value* spec = wl.find("spec")) out.set("spec", *spec);
  if (const Value* adm = wl.find_path("status.admission")) out.set("status", core::Map{{"admission", *adm}});
  return out;
}

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
  std::map<std::string, OpenSegment> open_segments;  // uid -> its run not yet metered
  std::set<std::string> metered;                      // segment keys whose rows are in the Store
  std::size_t swept_at_relists = 0;                   // the relist after which gone Workloads were closed
  // Background work that failed since the caller last took them (metering a run, refreshing
  // the estimates): each is tried again later and does not stop the decisions.
  std::vector<Error> retrying;
  std::atomic<bool> stopping{false};
  // Ends the watch request early: set by stop() and by the first event of a request, so that
  // a change is reconciled as soon as it arrives rather than when the request times out.
  std::atomic<bool> cut{false};
  // With leader election: the Lease, the term whose Workloads were last listed in full, and the
  // writes made (every one passed gate()).
  std::unique_ptr<LeaderElector> elector;
  std::uint64_t term_listed = 0;
  std::atomic<std::uint64_t> writes{0};
  // Estimates (companion/estimates.hpp): the last refresh, whether Workloads changed since, and
  // the first instant at which the last estimates expected something to happen.
  std::optional<core::Timestamp> estimated_at;
  bool estimates_stale = true;
  std::optional<core::Timestamp> estimates_valid_until;
  // The owning Job's annotations per Workload uid (a GET each, once: they carry the expected
  // duration and rarely change).
  OwnerAnnotations owners;
  // The budgets' metered spend, read incrementally (each decision reads the rows written since).
  std::unique_ptr<cost::SpendSource> metered_spend;
  // The estimate annotations each pending Workload shows, as this leader last wrote them or
  // first read them (uid -> {"metadata": {"annotations": ...}}): the informer's copy lags behind
  // our own patches while their watch events are on the way, and compared with it they would
  // all be sent again, each refresh, until the events arrive.
  std::map<std::string, Value> shown_estimates;

  Impl(CompanionConfig c, kubernetes::Client& cl, backend::Store& s, CompanionOptions o)
      : config(std::move(c)),
        client(cl),
        store(s),
        options(std::move(o)),
        clock(options.clock ? options.clock : core::system_clock()),
        workloads(cl, kubernetes::resources::workloads(), "") {
    if (config.leader_election) elector = std::make_unique<LeaderElector>(*config.leader_election, cl, clock);
  }

  bool leading() const { return !elector || elector->is_leader(); }

  Error not_leader() const {
    const auto& le = elector->config();
    return Error::make(core::ErrorCode::NotLeader, "replica " + le.identity + " does not hold Lease " + le.namespace_ +
                                                       "/" + le.lease_name + ": it makes no writes");
  }

  // The one gate, called right before each write (Workloads, AdmissionChecks, the Store): only
  // the replica holding the Lease, renewed within the renew deadline, passes; each pass is
  // counted as one write.
  core::Status gate() {
    if (!leading()) return not_leader();
    writes.fetch_add(1);
    return {};
  }

  // Calls fn with every platform record of `kind`, a page at a time.
  template <class Fn>
  core::Status each_record(std::string_view kind, Fn&& fn) {
    backend::PageRequest page;
    page.limit = 500;
    for (;;) {
      auto p = store.list_platform_records(kind, page);
      if (!p) return std::move(p).error();
      for (const auto& r : p->items) fn(r);
      if (p->next_cursor.empty()) return {};
      page.after = p->next_cursor;
    }
  }

  core::Status load() {
    decided.clear();
    holds.clear();
    BUDCORE_TRY(each_record(kDecisionKind, [&](const backend::PlatformRecord& r) {
      Stored s;
      s.workload = str(r.doc.find("workload"));
      s.uid = str(r.doc.find("uid"));
      s.admission_check = str(r.doc.find("admission_check"));
      if (const Value* d = r.doc.find("decision")) {
        auto dec = decision_from_value(*d);
        if (!dec) return;
        s.decision = *dec;
      }
      auto at = core::Timestamp::parse(str(r.doc.find("decided_at")));
      s.decided_at = at ? *at : r.updated_at;
      decided[r.key] = std::move(s);
    }));
    BUDCORE_TRY(each_record(kHoldKind, [&](const backend::PlatformRecord& r) {
      Hold h{str(r.doc.find("namespace")), str(r.doc.find("name")), str(r.doc.find("uid")),
             str(r.doc.find("admission_check")), {}};
      auto until = core::Timestamp::parse(str(r.doc.find("until")));
      h.until = until ? *until : r.updated_at;
      holds[r.key] = std::move(h);
    }));
    return load_segments();
  }

  core::Status load_segments() {
    open_segments.clear();
    metered.clear();
    swept_at_relists = 0;
    return each_record(kSegmentKind, [&](const backend::PlatformRecord& r) {
      auto tenant = core::Id::parse(str(r.doc.find("tenant_id")));
      auto start = core::Timestamp::parse(str(r.doc.find("start")));
      const Value* wl = r.doc.find("workload");
      if (!tenant || !start || wl == nullptr) return;
      OpenSegment o{r.key, *tenant, *start, std::nullopt, *wl};
      if (auto end = core::Timestamp::parse(str(r.doc.find("end")))) o.end = *end;
      open_segments[str(wl->find_path("metadata.uid"))] = std::move(o);
    });
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
    BUDCORE_TRY(gate());
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
    BUDCORE_TRY(gate());
    BUDCORE_TRY(store.put_platform_record(kHoldKind, key,
                                          core::Map{{"namespace", h.namespace_},
                                                    {"name", h.name},
                                                    {"uid", h.uid},
                                                    {"admission_check", check},
                                                    {"until", until.to_string()}}));
    holds[key] = h;
    Value patch = core::Map{{"metadata", core::Map{{"annotations", core::Map{{std::string(kHeldUntilAnnotation), until.to_string()}}}}},
                            {"spec", core::Map{{"active", false}}}};
    BUDCORE_TRY(gate());
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
        BUDCORE_TRY(gate());
        auto r = client.patch(kubernetes::resources::workloads(), h.namespace_, h.name, patch);
        if (!r && r.error().code != core::ErrorCode::NotFound) return std::move(r).error();
      }
      BUDCORE_TRY(gate());
      BUDCORE_TRY(store.delete_platform_record(kHoldKind, key));
      holds.erase(key);
    }
    return {};
  }


  // ---- metering (companion.hpp "metering") ----

  core::Status save_segment(const std::string& uid, const OpenSegment& o) {
    core::Map doc{{"tenant_id", o.tenant.to_string()}, {"start", o.start.to_string()}, {"workload", o.workload}};
    if (o.end) doc.set("end", o.end->to_string());
    BUDCORE_TRY(gate());
    BUDCORE_TRY(store.put_platform_record(kSegmentKind, o.key, doc));
    open_segments[uid] = o;
    return {};
  }

  core::Status drop_segment(const std::string& uid, const std::string& key) {
    auto it = open_segments.find(uid);
    if (it == open_segments.end() || it->second.key != key) return {};
    BUDCORE_TRY(gate());
    BUDCORE_TRY(store.delete_platform_record(kSegmentKind, key));
    open_segments.erase(uid);
    return {};
  }

  // The pod sets of the segment whose rows the Store already has.
  core::Result<std::set<std::string>> stored_pod_sets(const core::Id& tenant, const core::Id& job, const std::string& key) {
    backend::UsageQuery q;
    q.job_id = job;
    std::vector<cost::Usage> rows;
    BUDCORE_TRY_ASSIGN(rows, cost::load_usage(store, tenant, q));
    std::set<std::string> out;
    for (const auto& u : rows) {
      auto seg = u.interval.labels.find(std::string(kSegmentLabel));
      auto ps = u.interval.labels.find(std::string(kPodSetLabel));
      if (seg != u.interval.labels.end() && seg->second == key && ps != u.interval.labels.end()) out.insert(ps->second);
    }
    return out;
  }

  // The usage rows of a run that ended, each written once: rows already in the Store (an earlier
  // leader's, or a write cut short) are found by the segment key and not written again.
  core::Status close_segment(const Value& wl, core::Timestamp start, core::Timestamp end) {
    std::string uid = str(wl.find_path("metadata.uid"));
    std::string key = segment_key(uid, start);
    auto facts = read_workload(wl);
    std::optional<core::Id> tenant = facts ? tenant_of(config, *facts) : std::nullopt;
    if (!tenant || metered.contains(key) || end <= start) {
      // Nothing to write claims no key: a run shorter than the timestamps' second leaves its key
      // to the next run of a Workload evicted and admitted again within that second.
      return drop_segment(uid, key);
    }
    auto intervals = segment_intervals(config, *facts, *tenant, key, start, end);
    std::vector<cost::Usage> priced;
    std::optional<Error> failed;
    if (intervals) {
      for (const auto& i : *intervals) {
        auto u = cost::meter(config.price_book, i);
        if (!u) {
          failed = std::move(u).error();
          break;
        }
        priced.push_back(std::move(*u));
      }
    } else {
      failed = std::move(intervals).error();
    }
    if (failed) {
      // Kept with its end, so that it is priced once the operator fixes the price book.
      BUDCORE_TRY(save_segment(uid, OpenSegment{key, *tenant, start, end, priced_part(wl)}));
      return Error::make(failed->code, "cannot meter Workload " + facts->namespace_ + "/" + facts->name + " from " +
                                           start.to_string() + " to " + end.to_string() + ": " + failed->describe(),
                                       failed->field);
    }
    std::set<std::string> stored;
    BUDCORE_TRY_ASSIGN(stored, stored_pod_sets(*tenant, priced.front().interval.job_id, key));
    for (const auto& u : priced) {
      if (stored.contains(u.interval.labels.at(std::string(kPodSetLabel)))) continue;
      BUDCORE_TRY(gate());
      BUDCORE_TRY(store.append_usage(*tenant, cost::to_record(u)));
    }
    metered.insert(key);
    return drop_segment(uid, key);
  }

  // A run seen going on: kept in the Store (once per admission) until it ends.
  core::Status open_segment(const Value& wl, core::Timestamp start) {
    std::string uid = str(wl.find_path("metadata.uid"));
    std::string key = segment_key(uid, start);
    if (metered.contains(key)) return {};
    if (auto it = open_segments.find(uid); it != open_segments.end() && it->second.key == key) {
      it->second.workload = priced_part(wl);
      return {};
    }
    auto facts = read_workload(wl);
    if (!facts) return {};
    auto tenant = tenant_of(config, *facts);
    if (!tenant) return {};  // no tenant to charge
    return save_segment(uid, OpenSegment{key, *tenant, start, std::nullopt, priced_part(wl)});
  }

  // Meters what a Workload's new version shows: a run begun, a run ended.
  core::Status meter_workload(const Value& wl, core::Timestamp now) {
    std::string uid = str(wl.find_path("metadata.uid"));
    AdmissionState st = admission_state(wl);
    std::optional<OpenSegment> known;
    if (auto it = open_segments.find(uid); it != open_segments.end()) known = it->second;
    if (st.admitted_at) {
      // A run known from before this admission ended unseen: it ran at most until this one began.
      if (known && known->start != *st.admitted_at)
        BUDCORE_TRY(close_segment(known->workload, known->start, known->end.value_or(*st.admitted_at)));
      if (st.ended_at) return close_segment(wl, *st.admitted_at, *st.ended_at);
      return open_segment(wl, *st.admitted_at);
    }
    if (known) return close_segment(known->workload, known->start, known->end.value_or(st.ended_at.value_or(now)));
    return {};
  }

  // A Workload deleted: its run ends when it finished, else at its deletion.
  core::Status meter_deleted(const Value& wl, core::Timestamp now) {
    std::string uid = str(wl.find_path("metadata.uid"));
    AdmissionState st = admission_state(wl);
    auto deleted = core::Timestamp::parse(str(wl.find_path("metadata.deletionTimestamp")));
    core::Timestamp end = st.ended_at.value_or(deleted ? *deleted : now);
    if (st.admitted_at) return close_segment(wl, *st.admitted_at, end);
    if (auto it = open_segments.find(uid); it != open_segments.end()) {
      OpenSegment o = it->second;
      return close_segment(o.workload, o.start, o.end.value_or(end));
    }
    return {};
  }

  void note(core::Status st) {
    if (!st) retrying.push_back(std::move(st).error());
  }

  // After a full list: runs kept open whose Workload is gone were deleted while no companion
  // watched; they are closed now. Runs that ended but could not be priced are tried again.
  void sweep(core::Timestamp now) {
    std::set<std::string> present;
    if (workloads.relists() != swept_at_relists) {
      for (const auto& wl : workloads.snapshot()) present.insert(str(wl.find_path("metadata.uid")));
    }
    std::vector<std::pair<std::string, OpenSegment>> due;
    for (const auto& [uid, o] : open_segments)
      if (o.end || (workloads.relists() != swept_at_relists && !present.contains(uid))) due.emplace_back(uid, o);
    swept_at_relists = workloads.relists();
    for (const auto& [uid, o] : due) note(close_segment(o.workload, o.start, o.end.value_or(now)));
  }

  // What the running Workloads cost so far: their open runs priced up to now.
  std::vector<cost::Usage> accrued(core::Timestamp now) {
    std::vector<cost::Usage> out;
    for (const auto& [uid, o] : open_segments) {
      if (o.end || o.start >= now) continue;
      auto facts = read_workload(o.workload);
      if (!facts) continue;
      auto intervals = segment_intervals(config, *facts, o.tenant, o.key, o.start, now);
      if (!intervals) continue;
      for (const auto& i : *intervals)
        if (auto u = cost::meter(config.price_book, i)) out.push_back(std::move(*u));
    }
    return out;
  }

  core::Status persist(const std::string& key, const Stored& s) {
    Value doc = core::Map{{"workload", s.workload},
                          {"uid", s.uid},
                          {"admission_check", s.admission_check},
                          {"decision", to_value(s.decision)},
                          {"decided_at", s.decided_at.to_string()}};
    BUDCORE_TRY(gate());
    BUDCORE_TRY(store.put_platform_record(kDecisionKind, key, doc));
    decided[key] = s;
    return {};
  }

  // Spend of every budget in its current period: the usage rows in the Store (every Workload
  // metered so far), the running Workloads up to now, and for each Workload this companion let
  // through (Ready) in the period the part of its estimate it has not yet used.
  core::Result<SpendByBudget> spend(core::Timestamp now) {
    SpendByBudget out;
    if (!metered_spend) metered_spend = cost::incremental_store_spend(store, config.price_book);
    std::vector<cost::Usage> running = accrued(now);
    auto running_spend = cost::usage_spend(running, config.price_book);
    for (const auto& b : config.budgets.budgets) {
      auto [from, to] = cost::period_bounds(b.period, now);
      core::Money total, accrual;
      BUDCORE_TRY_ASSIGN(total, metered_spend->spent(b, from, now));
      BUDCORE_TRY_ASSIGN(accrual, running_spend->spent(b, from, now));
      BUDCORE_TRY_ASSIGN(total, total.checked_add(accrual));
      for (const auto& [key, s] : decided) {
        const Decision& d = s.decision;
        if (d.state != CheckState::Ready || !d.estimate || !d.tenant) continue;
        if (!b.covers(*d.tenant, std::nullopt) || s.decided_at < from || s.decided_at >= to) continue;
        if (done_or_gone(s)) continue;  // its usage rows are all it spent
        core::Money est, used;
        BUDCORE_TRY_ASSIGN(est, config.price_book.convert(*d.estimate, b.amount.currency()));
        BUDCORE_TRY_ASSIGN(used, usage_of_workload(b, s.uid, from, now, running));
        // The estimate is committed until the Workload's usage passes it; usage already counts.
        if (used >= est) continue;
        BUDCORE_TRY_ASSIGN(est, est.checked_sub(used));
        BUDCORE_TRY_ASSIGN(total, total.checked_add(est));
      }
      out[b.name] = total;
    }
    return out;
  }

  // A Workload that finished or was deleted commits nothing more than its usage. Unknown until
  // the Workloads were listed.
  bool done_or_gone(const Stored& s) const {
    if (workloads.relists() == 0) return false;
    auto slash = s.workload.find('/');
    if (slash == std::string::npos) return false;
    auto wl = workloads.get(s.workload.substr(0, slash), s.workload.substr(slash + 1));
    if (!wl || str(wl->find_path("metadata.uid")) != s.uid) return true;
    auto finished = kubernetes::find_condition(*wl, "Finished");
    return finished && finished->status == "True";
  }

  // One Workload's usage in [from, to), in the budget's currency: the Store's rows of it (their
  // job_id is its uid; read through the job index, not the period's whole usage) and its
  // running accrual.
  core::Result<core::Money> usage_of_workload(const cost::Budget& b, const std::string& uid, core::Timestamp from,
                                              core::Timestamp to, const std::vector<cost::Usage>& running) {
    std::vector<cost::Usage> rows;
    if (auto id = core::Id::parse(uid)) {
      backend::UsageQuery q;
      q.job_id = *id;
      q.from = from;
      q.to = to;
      BUDCORE_TRY_ASSIGN(rows, cost::load_usage(store, b.tenant_id, q));
    }
    for (const auto& u : running)
      if (u.interval.job_id.to_string() == uid) rows.push_back(u);
    core::Money total = core::Money::from_units(0, b.amount.currency());
    for (const auto& u : rows) {
      if (u.interval.tenant_id != b.tenant_id) continue;
      core::Money c;
      BUDCORE_TRY_ASSIGN(c, config.price_book.convert(u.computed_cost, b.amount.currency()));
      BUDCORE_TRY_ASSIGN(total, total.checked_add(c));
    }
    return total;
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

  // ---- estimates (companion/estimates.hpp) ----

  // One pending Workload's estimate: what it shows (as last written or read), the patch that
  // would change that, and how sending it went.
  struct EstimateWrite {
    const WorkloadEstimate* estimate;
    Value view;
    std::optional<Value> patch;
    core::Status sent;
    bool written = false;
  };

  // Estimates every pending Workload of the informer's cache over the cluster's quota objects
  // and patches the annotations that changed. The patch carries the uid, so a Workload
  // recreated under the same name meanwhile is left for the next refresh (409 Conflict).
  core::Result<std::size_t> refresh_estimates(core::Timestamp now) {
    estimated_at = now;  // a failing refresh is rate-limited too
    quota::KueueImport kueue;
    BUDCORE_TRY_ASSIGN(kueue, kubernetes::read_quota(client));
    std::vector<Value> all = workloads.snapshot();
    refresh_owners(all);
    EstimatesResult r;
    BUDCORE_TRY_ASSIGN(r, estimate_workloads(config, kueue.config, all, now, owners));
    estimates_stale = false;
    estimates_valid_until = r.valid_until;
    std::map<std::string, const Value*> by_uid;
    for (const auto& wl : all) by_uid[str(wl.find_path("metadata.uid"))] = &wl;
    std::vector<EstimateWrite> shown;  // Workloads no longer pending drop out
    for (const auto& e : r.estimates) {
      auto wl = by_uid.find(e.uid);
      if (wl == by_uid.end()) continue;
      auto known = shown_estimates.find(e.uid);
      Value view = known != shown_estimates.end() ? known->second : estimate_view(*wl->second);
      auto patch = estimate_patch(view, e, now);
      if (patch) patch->mutable_map().find("metadata")->mutable_map().set("uid", e.uid);
      shown.push_back({&e, std::move(view), std::move(patch), {}, false});
    }
    send_estimate_patches(shown);
    std::size_t patched = 0;
    std::optional<Error> failed;
    std::map<std::string, Value> kept;
    for (auto& s : shown) {
      if (!s.sent && !failed) failed = s.sent.error();
      patched += s.written ? 1 : 0;
      kept.emplace(s.estimate->uid, std::move(s.view));
    }
    shown_estimates = std::move(kept);
    if (failed) return std::move(*failed);
    return patched;
  }

  // Sends the patches on config.estimates.writers connections at once (the client's rate limit
  // still applies). A Workload gone or recreated meanwhile (404, 409) is left for the next
  // refresh; any other failure is kept on its entry, and the writes already made still count.
  void send_estimate_patches(std::vector<EstimateWrite>& shown) {
    core::for_each_index_parallel(shown.size(), static_cast<unsigned>(config.estimates.writers), [&](std::size_t i) {
      if (shown[i].patch) shown[i].sent = send_estimate_patch(shown[i]);
    });
  }

  core::Status send_estimate_patch(EstimateWrite& s) {
    BUDCORE_TRY(gate());
    auto res = client.patch(kubernetes::resources::workloads(), s.estimate->namespace_, s.estimate->name, *s.patch);
    if (res) {
      s.written = true;
      s.view = estimate_view(*res);
      return {};
    }
    if (res.error().code == core::ErrorCode::NotFound || res.error().code == core::ErrorCode::Conflict) return {};
    return std::move(res).error();
  }

  // What of a Workload the estimates compare with: its three estimate annotations.
  static Value estimate_view(const Value& workload) {
    core::Map kept;
    if (const Value* a = workload.find_path("metadata.annotations"); a != nullptr && a->is_map())
      for (std::string_view k : {kEstimatedStartAnnotation, kEstimatedEndAnnotation, kEstimateReasonAnnotation})
        if (const Value* v = a->find(k)) kept.set(std::string(k), *v);
    return Value(core::Map{{"metadata", core::Map{{"annotations", std::move(kept)}}}});
  }

  // Owner annotations of the Workloads not seen before; those of Workloads gone are dropped.
  // The GETs go out on config.estimates.writers connections at once, as the patches do.
  void refresh_owners(const std::vector<Value>& all) {
    OwnerAnnotations kept;
    std::vector<std::pair<const Value*, std::map<std::string, std::string>*>> unknown;
    for (const auto& wl : all) {
      std::string uid = str(wl.find_path("metadata.uid"));
      auto finished = kubernetes::find_condition(wl, "Finished");
      if (finished && finished->status == "True") continue;  // not estimated: no GET for it
      auto [slot, fresh] = kept.try_emplace(uid);
      if (!fresh) continue;
      if (auto it = owners.find(uid); it != owners.end()) slot->second = std::move(it->second);
      else unknown.emplace_back(&wl, &slot->second);
    }
    core::for_each_index_parallel(unknown.size(), static_cast<unsigned>(config.estimates.writers),
                                  [&](std::size_t i) { *unknown[i].second = owner_annotations(*unknown[i].first); });
    owners = std::move(kept);
  }

  // After Workload events or once an expected start or end has passed, at most once per
  // refresh_seconds. Errors are kept for the caller; the decisions go on.
  void refresh_estimates_if_due(core::Timestamp now) {
    if (!config.estimates.enabled) return;
    bool due = estimates_stale || (estimates_valid_until && now >= *estimates_valid_until);
    if (!due) return;
    if (estimated_at && now < *estimated_at + core::Duration::seconds(config.estimates.refresh_seconds)) return;
    auto n = refresh_estimates(now);
    if (n) return;
    Error e = std::move(n).error();
    e.message = "refreshing the estimates: " + e.message;  // the same channel carries metering's errors
    retrying.push_back(std::move(e));
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
    BUDCORE_TRY(m.gate());
    auto r = m.client.apply(kubernetes::resources::admission_checks(), "", status, true, "status");
    if (!r) return std::move(r).error();
  }
  m.checks = std::move(found);
  return names;
}

core::Result<std::vector<Written>> Companion::sync(std::int64_t timeout_seconds) {
  auto& m = *impl_;
  if (!m.leading()) return m.not_leader();
  std::vector<Value> changed;
  // A new term: another replica may have decided meanwhile (the Store) and Workloads may wait
  // that no event will bring, so every Workload is looked at again.
  if (m.elector && m.elector->term() != m.term_listed) {
    BUDCORE_TRY(m.load());
    BUDCORE_TRY(m.workloads.relist([](const kubernetes::WatchEvent&) {}));
    changed = m.workloads.snapshot();
    m.term_listed = m.elector->term();
    m.shown_estimates.clear();  // another leader may have written them meanwhile
  }
  std::vector<Value> deleted;
  if (!m.stopping.load()) m.cut.store(false);
  auto end = m.workloads.sync(
      [&](const kubernetes::WatchEvent& ev) {
        if (ev.type == kubernetes::WatchEvent::Type::Added || ev.type == kubernetes::WatchEvent::Type::Modified)
          changed.push_back(ev.object);
        if (ev.type == kubernetes::WatchEvent::Type::Deleted) deleted.push_back(ev.object);
        m.cut.store(true);
      },
      timeout_seconds, &m.cut);
  // A request cut short may end without a status; what it delivered was applied.
  if (!end && !m.cut.load()) return std::move(end).error();
  // Metered before deciding, so that the budget check sees the runs that just ended. A run
  // that cannot be metered stays open in the Store and is tried again; it does not stop the
  // decisions (the errors go to take_retrying()).
  core::Timestamp now = m.clock->now();
  for (const auto& wl : changed) m.note(m.meter_workload(wl, now));
  for (const auto& wl : deleted) m.note(m.meter_deleted(wl, now));
  m.sweep(now);
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
  if (!changed.empty() || !deleted.empty()) m.estimates_stale = true;
  m.refresh_estimates_if_due(m.clock->now());
  return out;
}

core::Result<std::vector<Written>> Companion::reconcile(const Value& workload) { return impl_->reconcile(workload); }

void Companion::run(const std::function<void(const Written&)>& on_written,
                    const std::function<void(const core::Error&)>& on_error) {
  auto& m = *impl_;
  // The Lease is renewed on its own thread, so a long reconcile never delays a renewal; it is
  // released only after the last write of this loop.
  std::atomic<bool> lease_stop{false};
  std::thread lease;
  if (m.elector) lease = std::thread([&] { m.elector->run(lease_stop, on_error); });
  while (!m.stopping.load()) {
    if (!m.leading()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    auto act = activate_checks();
    core::Result<std::vector<Written>> w = act ? sync(m.options.watch_timeout_seconds) : core::Result<std::vector<Written>>(act.error());
    if (!w) {
      if (m.stopping.load()) break;
      if (on_error && w.error().code != core::ErrorCode::NotLeader) on_error(w.error());
      for (int i = 0; i < 10 && !m.stopping.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    if (on_written)
      for (const auto& x : *w) on_written(x);
    for (auto& e : take_retrying())
      if (on_error && e.code != core::ErrorCode::NotLeader) on_error(e);
  }
  lease_stop.store(true);
  if (lease.joinable()) lease.join();
}

void Companion::stop() noexcept {
  impl_->stopping.store(true);
  impl_->cut.store(true);
}

const std::map<std::string, std::vector<CheckKind>>& Companion::admission_checks() const noexcept { return impl_->checks; }

std::size_t Companion::relists() const noexcept { return impl_->workloads.relists(); }

LeaderElector* Companion::leader() noexcept { return impl_->elector.get(); }

std::uint64_t Companion::writes() const noexcept { return impl_->writes.load(); }

std::vector<core::Error> Companion::take_retrying() { return std::exchange(impl_->retrying, {}); }

std::size_t Companion::open_segments() const noexcept { return impl_->open_segments.size(); }

core::Result<std::size_t> Companion::refresh_estimates() {
  auto& m = *impl_;
  if (!m.leading()) return m.not_leader();
  return m.refresh_estimates(m.clock->now());
}

}  // namespace budcore::companion
