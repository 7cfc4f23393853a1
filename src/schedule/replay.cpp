// Kueue's scheduler-performance generator replayed as a timeline, scored like its checker.
// Generation follows runner/generator/generator.go: every workload set of every queue runs at
// once, and set k's workloads are created one `creationIntervalMs` apart (the first after one
// interval), one per template in turn. Each workload is one pod asking `request` cpu and runs
// `runtimeMs` after admission (the runner's fake execution); a preempted one starts over.
#include "budcore/schedule/replay.hpp"

#include <array>
#include <chrono>
#include <cmath>

#include "budcore/schedule/timeline.hpp"
#include "core/field_reader.hpp"
#include "quota/kueue_names.hpp"

namespace budcore::schedule {

using core::Error;
using core::Value;

ReplayConfig kueue_baseline() {
  ReplayConfig c;
  c.name = "baseline";
  ReplayQueueSet q;
  q.class_name = "cq";
  q.count = 6;
  q.nominal_quota = core::Quantity::from_int(20);
  q.borrowing_limit = core::Quantity::from_int(100);
  q.reclaim_within_cohort = quota::PreemptionPolicy::Any;
  q.within_cluster_queue = quota::PreemptionPolicy::LowerPriority;
  q.workload_sets = {{350, 100, {{"small", 200, 50, core::Quantity::from_int(1)}}},
                     {100, 500, {{"medium", 500, 100, core::Quantity::from_int(5)}}},
                     {50, 1200, {{"large", 1000, 200, core::Quantity::from_int(20)}}}};
  c.cohorts.push_back({"cohort", 5, {q}});
  c.min_usage_percent = {{"cq", 50.0}};
  c.max_avg_time_to_admission_ms = {{"large", 23'000}, {"medium", 90'000}, {"small", 260'000}};
  c.kueue_wall_ms = 351'116;
  c.kueue_usage_percent = {{"cq", 55.9}};
  c.kueue_avg_time_to_admission_ms = {{"large", 16'501}, {"medium", 76'768}, {"small", 215'468}};
  return c;
}

namespace {

constexpr std::int64_t kMaxWorkloads = 1'000'000;
constexpr std::int64_t kMaxCount = 100'000;

using Reader = core::detail::Reader;

core::Result<std::int64_t> count_of(const Reader& r, std::string_view key, const std::string& path, std::int64_t max) {
  auto v = r.integer(key);
  if (!v) return std::move(v).error().at(path);
  if (!*v) return Error::invalid(path + "." + std::string(key), "", "required field is missing");
  if (**v < 0 || **v > max)
    return Error::invalid(path + "." + std::string(key), std::to_string(**v), "must be between 0 and " + std::to_string(max));
  return **v;
}

core::Result<const core::List*> list_of(const Value& m, std::string_view key, const std::string& path) {
  const Value* v = m.as_map().find(key);
  if (v == nullptr || v->is_null()) return Error::invalid(path + "." + std::string(key), "", "required field is missing");
  if (!v->is_list()) return Error::invalid(path + "." + std::string(key), core::detail::value_text(*v), "expected a list");
  return &v->as_list();
}

core::Result<quota::PreemptionPolicy> policy_of(const Reader& r, std::string_view key, const std::string& path) {
  auto s = r.string(key);
  if (!s) return std::move(s).error().at(path);
  if (!*s) return quota::PreemptionPolicy::Never;
  quota::detail::Names<quota::PreemptionPolicy> allowed =
      key == "withinClusterQueue" ? quota::detail::Names<quota::PreemptionPolicy>(quota::detail::kWithinClusterQueue)
                                  : quota::detail::Names<quota::PreemptionPolicy>(quota::detail::kReclaimWithinCohort);
  if (auto policy = quota::detail::value_named(allowed, **s)) return *policy;
  return Error::invalid(path + "." + std::string(key), **s, "not a preemption policy Kueue allows here");
}

core::Result<core::Quantity> quantity_of(const Reader& r, std::string_view key, const std::string& path) {
  auto q = r.quantity(key, false);
  if (!q) return std::move(q).error().at(path);
  if (!*q) return Error::invalid(path + "." + std::string(key), "", "required field is missing");
  if ((*q)->sign() < 0) return Error::invalid(path + "." + std::string(key), (*q)->to_string(), "must not be negative");
  return **q;
}

core::Result<ReplayWorkloadSet> parse_set(const Value& v, const std::string& path, std::int64_t& total) {
  if (!v.is_map()) return Error::invalid(path, core::detail::value_text(v), "expected an object");
  Reader r(v.as_map());
  constexpr std::array<std::string_view, 3> keys{"count", "creationIntervalMs", "workloads"};
  if (auto st = r.reject_unknown(keys); !st) return std::move(st).error().at(path);
  ReplayWorkloadSet s;
  BUDCORE_TRY_ASSIGN(s.count, count_of(r, "count", path, kMaxCount));
  BUDCORE_TRY_ASSIGN(s.creation_interval_ms, count_of(r, "creationIntervalMs", path, 86'400'000));
  const core::List* wls;
  BUDCORE_TRY_ASSIGN(wls, list_of(v, "workloads", path));
  for (std::size_t i = 0; i < wls->size(); ++i) {
    std::string p = path + ".workloads[" + std::to_string(i) + "]";
    const Value& w = (*wls)[i];
    if (!w.is_map()) return Error::invalid(p, core::detail::value_text(w), "expected an object");
    Reader wr(w.as_map());
    constexpr std::array<std::string_view, 4> wkeys{"className", "runtimeMs", "priority", "request"};
    if (auto st = wr.reject_unknown(wkeys); !st) return std::move(st).error().at(p);
    ReplayWorkloadClass c;
    auto name = wr.string("className");
    if (!name) return std::move(name).error().at(p);
    c.class_name = name->value_or("");
    BUDCORE_TRY_ASSIGN(c.runtime_ms, count_of(wr, "runtimeMs", p, 86'400'000));
    auto prio = wr.integer("priority");
    if (!prio) return std::move(prio).error().at(p);
    if (*prio && (**prio < INT32_MIN || **prio > INT32_MAX)) return Error::invalid(p + ".priority", std::to_string(**prio), "must fit in 32 bits");
    c.priority = static_cast<std::int32_t>(prio->value_or(0));
    BUDCORE_TRY_ASSIGN(c.request, quantity_of(wr, "request", p));
    s.workloads.push_back(std::move(c));
  }
  total += s.count * static_cast<std::int64_t>(s.workloads.size());
  return s;
}

}  // namespace

core::Result<ReplayConfig> parse_replay_config(const Value& doc) {
  if (!doc.is_map()) return Error::invalid("", "", "a generator configuration must be a map with \"cohorts\"");
  Reader root(doc.as_map());
  constexpr std::array<std::string_view, 1> rkeys{"cohorts"};
  if (auto st = root.reject_unknown(rkeys); !st) return std::move(st).error();
  ReplayConfig c;
  std::int64_t total = 0, queues = 0;
  const core::List* cohorts;
  BUDCORE_TRY_ASSIGN(cohorts, list_of(doc, "cohorts", ""));
  for (std::size_t i = 0; i < cohorts->size(); ++i) {
    std::string p = "cohorts[" + std::to_string(i) + "]";
    const Value& cv = (*cohorts)[i];
    if (!cv.is_map()) return Error::invalid(p, core::detail::value_text(cv), "expected an object");
    Reader r(cv.as_map());
    constexpr std::array<std::string_view, 3> ckeys{"className", "count", "queuesSets"};
    if (auto st = r.reject_unknown(ckeys); !st) return std::move(st).error().at(p);
    ReplayCohortSet cs;
    auto name = r.string("className");
    if (!name) return std::move(name).error().at(p);
    cs.class_name = name->value_or("cohort");
    BUDCORE_TRY_ASSIGN(cs.count, count_of(r, "count", p, 10'000));
    const core::List* qsets;
    BUDCORE_TRY_ASSIGN(qsets, list_of(cv, "queuesSets", p));
    for (std::size_t k = 0; k < qsets->size(); ++k) {
      std::string qp = p + ".queuesSets[" + std::to_string(k) + "]";
      const Value& qv = (*qsets)[k];
      if (!qv.is_map()) return Error::invalid(qp, core::detail::value_text(qv), "expected an object");
      Reader qr(qv.as_map());
      constexpr std::array<std::string_view, 7> qkeys{"className", "count", "nominalQuota", "borrowingLimit",
                                                      "reclaimWithinCohort", "withinClusterQueue", "workloadsSets"};
      if (auto st = qr.reject_unknown(qkeys); !st) return std::move(st).error().at(qp);
      ReplayQueueSet qs;
      auto qname = qr.string("className");
      if (!qname) return std::move(qname).error().at(qp);
      qs.class_name = qname->value_or("cq");
      BUDCORE_TRY_ASSIGN(qs.count, count_of(qr, "count", qp, 10'000));
      BUDCORE_TRY_ASSIGN(qs.nominal_quota, quantity_of(qr, "nominalQuota", qp));
      auto bl = qr.quantity("borrowingLimit", false);
      if (!bl) return std::move(bl).error().at(qp);
      qs.borrowing_limit = *bl;
      BUDCORE_TRY_ASSIGN(qs.reclaim_within_cohort, policy_of(qr, "reclaimWithinCohort", qp));
      BUDCORE_TRY_ASSIGN(qs.within_cluster_queue, policy_of(qr, "withinClusterQueue", qp));
      const core::List* sets;
      BUDCORE_TRY_ASSIGN(sets, list_of(qv, "workloadsSets", qp));
      std::int64_t per_queue = 0;
      for (std::size_t s = 0; s < sets->size(); ++s) {
        ReplayWorkloadSet ws;
        BUDCORE_TRY_ASSIGN(ws, parse_set((*sets)[s], qp + ".workloadsSets[" + std::to_string(s) + "]", per_queue));
        qs.workload_sets.push_back(std::move(ws));
      }
      queues += cs.count * qs.count;
      total += cs.count * qs.count * per_queue;
      if (total > kMaxWorkloads || queues > 100'000)
        return Error::invalid(qp, std::to_string(total), "more than 1,000,000 workloads (or 100,000 queues) to replay");
      cs.queue_sets.push_back(std::move(qs));
    }
    c.cohorts.push_back(std::move(cs));
  }
  return c;
}

core::Result<ReplayReport> replay(const ReplayConfig& config) {
  auto wall_start = std::chrono::steady_clock::now();
  TimelineInput in;
  in.config.resource_flavors.push_back({"rf", {}, {}});
  std::map<std::string, std::string> cq_class;        // cluster queue -> class
  std::map<std::string, std::string> wl_class;        // namespace/name -> class
  std::map<std::string, std::int64_t> created_ms;     // namespace/name -> creation time
  std::int64_t seq = 0;
  for (std::size_t ci = 0; ci < config.cohorts.size(); ++ci) {
    const auto& cs = config.cohorts[ci];
    for (std::int64_t c = 0; c < cs.count; ++c) {
      std::string cohort = cs.class_name + "-" + std::to_string(c);
      for (std::size_t qi = 0; qi < cs.queue_sets.size(); ++qi) {
        const auto& qs = cs.queue_sets[qi];
        for (std::int64_t q = 0; q < qs.count; ++q) {
          quota::ClusterQueue cq;
          cq.name = qs.class_name + "-" + std::to_string(qi) + "-" + std::to_string(q) + "-" + cohort;
          cq.cohort = cohort;
          cq.preemption.reclaim_within_cohort = qs.reclaim_within_cohort;
          cq.preemption.within_cluster_queue = qs.within_cluster_queue;
          cq.resource_groups.push_back({{"cpu"}, {{"rf", {{"cpu", qs.nominal_quota, qs.borrowing_limit, std::nullopt}}}}});
          in.config.cluster_queues.push_back(cq);
          in.config.local_queues.push_back({cq.name, cq.name, cq.name});
          cq_class[cq.name] = qs.class_name;
          for (std::size_t si = 0; si < qs.workload_sets.size(); ++si) {
            const auto& ws = qs.workload_sets[si];
            std::int64_t k = 0;
            for (std::int64_t n = 0; n < ws.count; ++n)
              for (std::size_t ti = 0; ti < ws.workloads.size(); ++ti) {
                const auto& t = ws.workloads[ti];
                JobInput j;
                j.workload.name = t.class_name + "-" + std::to_string(si) + "-" + std::to_string(n) + "-" + std::to_string(ti);
                j.workload.namespace_ = cq.name;
                j.workload.queue = cq.name;
                j.workload.priority = t.priority;
                std::int64_t at_ms = (++k) * ws.creation_interval_ms;
                // Queue order follows creation time; same-instant creations keep generation order.
                j.workload.creation_seq = at_ms * 1'000'000 + (seq++ % 1'000'000);
                quota::PodSet ps;
                (void)ps.requests.set("cpu", t.request);
                j.workload.pod_sets.push_back(ps);
                j.submit_at = core::Timestamp::from_unix_nanos(at_ms * 1'000'000);
                j.duration = core::Duration::milliseconds(t.runtime_ms);
                j.pipeline = t.class_name;
                wl_class[j.workload.key()] = t.class_name;
                created_ms[j.workload.key()] = at_ms;
                in.jobs.push_back(std::move(j));
              }
          }
        }
      }
    }
  }
  ReplayReport rep;
  rep.name = config.name;
  rep.workloads = static_cast<std::int64_t>(in.jobs.size());
  rep.cluster_queues = static_cast<std::int64_t>(in.config.cluster_queues.size());
  std::map<std::string, std::int64_t> nominal_of;
  for (const auto& cq : in.config.cluster_queues)
    nominal_of[cq.name] = cq.resource_groups[0].flavors[0].resources[0].nominal.milli_value().value_or(0);
  auto tl = Timeline::create(std::move(in));
  if (!tl) return std::move(tl).error();
  const TimelineResult& r = tl->result();
  if (!r.never.empty())
    return Error::invalid("cohorts", r.never.begin()->first, "a workload can never be admitted: " + r.never.begin()->second);
  // Per workload class: creation -> (last) admission, creation -> end, evictions.
  std::int64_t last_ms = 0;
  std::map<std::string, std::int64_t> admit_sum, finish_sum;
  for (const auto& e : r.jobs) {
    const std::string& cls = wl_class.at(e.key);
    std::int64_t created = created_ms.at(e.key);
    std::int64_t start_ms = e.start.unix_nanos() / 1'000'000, end_ms = e.end.unix_nanos() / 1'000'000;
    auto& w = rep.workload_classes[cls];
    ++w.count;
    admit_sum[cls] += start_ms - created;
    finish_sum[cls] += end_ms - created;
    w.evictions += static_cast<std::int64_t>(e.preempted_at.size());
    last_ms = std::max(last_ms, end_ms);
  }
  for (auto& [cls, w] : rep.workload_classes) {
    w.avg_time_to_admission_ms = admit_sum[cls] / w.count;
    w.avg_time_to_finish_ms = finish_sum[cls] / w.count;
  }
  rep.elapsed_ms = last_ms;
  // Per ClusterQueue class: the integral of cpu usage (mCPU x ms) over the run.
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> level;  // cq -> (used milli, since ms)
  std::map<std::string, core::int128> used;
  for (const auto& u : r.usage) {
    std::int64_t at = u.at.unix_nanos() / 1'000'000;
    auto& [milli, since] = level[u.cluster_queue];
    used[u.cluster_queue] += static_cast<core::int128>(milli) * (at - since);
    milli = u.used;
    since = at;
  }
  for (const auto& [cq, cls] : cq_class) {
    auto& c = rep.cluster_queue_classes[cls];
    c.cpu_used_milli_ms += static_cast<std::int64_t>(used[cq]);
    c.nominal_milli += nominal_of[cq];
  }
  for (auto& [cls, c] : rep.cluster_queue_classes)
    if (c.nominal_milli > 0 && rep.elapsed_ms > 0)
      c.usage_percent = static_cast<double>(c.cpu_used_milli_ms) * 100.0 /
                        (static_cast<double>(c.nominal_milli) * static_cast<double>(rep.elapsed_ms));
  for (const auto& [cls, min] : config.min_usage_percent)
    if (auto it = rep.cluster_queue_classes.find(cls); it == rep.cluster_queue_classes.end() || it->second.usage_percent < min)
      rep.failures.push_back("cluster queue class " + cls + ": usage below " + std::to_string(min) + "%");
  for (const auto& [cls, max] : config.max_avg_time_to_admission_ms)
    if (auto it = rep.workload_classes.find(cls); it == rep.workload_classes.end() || it->second.avg_time_to_admission_ms > max)
      rep.failures.push_back("workload class " + cls + ": average time to admission above " + std::to_string(max) + " ms");
  rep.config = config;
  rep.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall_start).count();
  return rep;
}

Value to_value(const ReplayReport& rep) {
  core::Map cqs;
  for (const auto& [cls, c] : rep.cluster_queue_classes) {
    core::Map m{{"usage_percent", Value(std::round(c.usage_percent * 100) / 100)},
                {"cpu_used_milli_ms", Value(c.cpu_used_milli_ms)},
                {"nominal_milli", Value(c.nominal_milli)}};
    if (auto t = rep.config.min_usage_percent.find(cls); t != rep.config.min_usage_percent.end()) m.set("min_expected", Value(t->second));
    if (auto k = rep.config.kueue_usage_percent.find(cls); k != rep.config.kueue_usage_percent.end()) m.set("kueue_mean", Value(k->second));
    cqs.set(cls, Value(std::move(m)));
  }
  core::Map wls;
  for (const auto& [cls, w] : rep.workload_classes) {
    core::Map m{{"count", Value(w.count)},
                {"avg_time_to_admission_ms", Value(w.avg_time_to_admission_ms)},
                {"avg_time_to_finish_ms", Value(w.avg_time_to_finish_ms)},
                {"evictions", Value(w.evictions)}};
    if (auto t = rep.config.max_avg_time_to_admission_ms.find(cls); t != rep.config.max_avg_time_to_admission_ms.end())
      m.set("max_expected", Value(t->second));
    if (auto k = rep.config.kueue_avg_time_to_admission_ms.find(cls); k != rep.config.kueue_avg_time_to_admission_ms.end())
      m.set("kueue_mean", Value(k->second));
    wls.set(cls, Value(std::move(m)));
  }
  core::Map out{{"name", Value(rep.name)},
                {"workloads", Value(rep.workloads)},
                {"cluster_queues", Value(rep.cluster_queues)},
                {"virtual_elapsed_ms", Value(rep.elapsed_ms)},
                {"wall_ms", Value(std::round(rep.wall_ms * 10) / 10)},
                {"cluster_queue_classes", Value(std::move(cqs))},
                {"workload_classes", Value(std::move(wls))},
                {"passed", Value(rep.failures.empty())},
                {"failures", Value(core::List(rep.failures.begin(), rep.failures.end()))}};
  if (rep.config.kueue_wall_ms) out.set("kueue_wall_ms_mean", Value(*rep.config.kueue_wall_ms));
  return Value(std::move(out));
}

}  // namespace budcore::schedule
