// SimCluster: runs on the clock, admitted by quota::AdmissionEngine (queues and admission in
// sim_admission.cpp). Each live job is one compact
// Run record; only the first `admission_window` queued runs of a ClusterQueue (in Kueue's queue
// order) are in the engine, the rest wait in a sorted set and move up as heads leave.
#include <algorithm>
#include <cmath>
#include <limits>

#include "backends/sim/sim_impl.hpp"
#include "budcore/core/json.hpp"

namespace budcore::backend {

using core::Error;
using core::ErrorCode;
using sim::Phase;
using sim::TimerKind;
using Impl = SimCluster::Impl;
using sim::kNanos;

namespace {

constexpr std::int64_t kDayNanos = 86'400 * kNanos;
constexpr std::int64_t kMaxSimSeconds = std::int64_t{100} * 365 * 86'400;  // 100 years

// splitmix64: the draws of one (seed, job, run, salt) are fixed, so a replay (or a reopened
// platform re-adopting the run) gets the same duration and outcome.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

double draw(std::uint64_t seed, const core::Id& id, std::int64_t run, std::uint64_t salt) {
  std::uint64_t h = mix(seed ^ salt);
  for (auto b : id.bytes()) h = mix(h ^ b);
  h = mix(h ^ static_cast<std::uint64_t>(run));
  return static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);  // [0, 1)
}

// When a daily window that contains t closes (never: INT64_MAX for an all-day window).
std::int64_t window_close(const core::TimeWindow& w, std::int64_t t) {
  if (w.start.seconds == w.end.seconds) return std::numeric_limits<std::int64_t>::max();
  std::int64_t day = t % kDayNanos;
  if (day < 0) day += kDayNanos;
  std::int64_t end = std::int64_t{w.end.seconds} * kNanos;
  std::int64_t until = end > day ? end - day : kDayNanos - day + end;
  return t + until;
}

std::int64_t seconds_to_ns(double s) {
  if (!(s > 0)) return 0;
  if (s > static_cast<double>(kMaxSimSeconds)) s = static_cast<double>(kMaxSimSeconds);
  return static_cast<std::int64_t>(s * 1e9);
}

// Reads spec.sim (documented in sim_cluster.hpp). Errors name the field.
struct SimSpec {
  std::optional<double> duration_seconds;
  std::int64_t fail_attempts = 0;
  double fail_after_seconds = 0;
  std::string fail_message;
  core::Value outputs;
};

core::Result<SimSpec> read_sim_spec(const core::Value& spec) {
  SimSpec out;
  const core::Value* sim = spec.is_map() ? spec.find("sim") : nullptr;
  if (sim == nullptr || sim->is_null()) return out;
  if (!sim->is_map()) return Error::invalid("spec.sim", core::to_json(*sim), "must be a map");
  static constexpr std::string_view kKeys[] = {"duration_seconds", "fail_attempts", "fail_after_seconds",
                                               "fail_message", "outputs"};
  for (const auto& [k, v] : sim->as_map()) {
    if (std::find(std::begin(kKeys), std::end(kKeys), k) == std::end(kKeys))
      return Error::invalid("spec.sim." + k, core::to_json(v),
                            "unknown key (known: duration_seconds, fail_attempts, fail_after_seconds, fail_message, outputs)");
  }
  auto number = [&](std::string_view key, double& dst) -> core::Status {
    const core::Value* v = sim->find(key);
    if (v == nullptr || v->is_null()) return {};
    if (!v->is_number() || !(v->as_float() >= 0) || v->as_float() > static_cast<double>(kMaxSimSeconds))
      return Error::invalid("spec.sim." + std::string(key), core::to_json(*v),
                            "must be a number of seconds between 0 and 100 years");
    dst = v->as_float();
    return {};
  };
  double d = -1;
  BUDCORE_TRY(number("duration_seconds", d));
  if (d >= 0) out.duration_seconds = d;
  BUDCORE_TRY(number("fail_after_seconds", out.fail_after_seconds));
  if (const core::Value* v = sim->find("fail_attempts"); v != nullptr && !v->is_null()) {
    if (!v->is_int() || v->as_int() < 0 || v->as_int() > 1'000'000)
      return Error::invalid("spec.sim.fail_attempts", core::to_json(*v), "must be an integer between 0 and 1000000");
    out.fail_attempts = v->as_int();
  }
  if (const core::Value* v = sim->find("fail_message"); v != nullptr && !v->is_null()) {
    if (!v->is_string()) return Error::invalid("spec.sim.fail_message", core::to_json(*v), "must be a string");
    out.fail_message = v->as_string();
  }
  if (const core::Value* v = sim->find("outputs"); v != nullptr && !v->is_null()) {
    if (!v->is_map()) return Error::invalid("spec.sim.outputs", core::to_json(*v), "must be a map");
    out.outputs = *v;
  }
  return out;
}

std::string shape_key(const quota::PodSet& ps) {
  std::string k = std::to_string(ps.count) + "|";
  for (const auto& [name, q] : ps.requests.items()) k += name + "=" + q.to_string() + ";";
  k += "|";
  for (const auto& [name, v] : ps.node_selector) k += name + "=" + v + ";";
  return k;
}

}  // namespace

std::string_view to_string(GpuSharing s) noexcept {
  switch (s) {
    case GpuSharing::Full: return "full";
    case GpuSharing::Mig: return "mig";
    case GpuSharing::TimeSlice: return "time_slice";
    case GpuSharing::Fractional: return "fractional";
  }
  return "full";
}

// ---- run records -------------------------------------------------------------------------------

std::uint32_t Impl::alloc_run() {
  if (!free_runs.empty()) {
    std::uint32_t s = free_runs.back();
    free_runs.pop_back();
    return s;
  }
  runs.emplace_back();
  return static_cast<std::uint32_t>(runs.size() - 1);
}

void Impl::free_run(std::uint32_t slot) {
  sim::Run& r = runs[slot];
  set_phase(slot, Phase::Free);
  by_job.erase(r.job_id);
  std::uint32_t epoch = r.epoch + 1, gen = r.gen;
  r = sim::Run{};
  r.epoch = epoch;
  r.gen = gen;
  free_runs.push_back(slot);
}

void Impl::set_phase(std::uint32_t slot, Phase p) {
  sim::Run& r = runs[slot];
  if (r.phase != Phase::Free) --counts[static_cast<int>(r.phase)];
  r.phase = p;
  if (p != Phase::Free) ++counts[static_cast<int>(p)];
  ++r.gen;
}

// How long a started run lasts and how it ends: it fails at fail_after (if it fails before it
// would finish), and a max_duration shorter than that ends it first as a timeout.
Impl::Ending Impl::ending(const sim::Run& r) {
  std::int64_t natural = r.duration_ns;
  Ending e{natural, ClusterEventKind::Succeeded, false};
  if (r.fail_after_ns >= 0) {
    e.after = std::min(natural, r.fail_after_ns);
    e.kind = ClusterEventKind::Failed;
  }
  if (r.max_duration_ns > 0 && r.max_duration_ns < e.after) {
    e.after = r.max_duration_ns;
    e.kind = ClusterEventKind::Failed;
    e.timeout = true;
  }
  return e;
}

sim::QueueKey Impl::key_of(std::uint32_t slot) const {
  const sim::Run& r = runs[slot];
  return sim::QueueKey{-r.priority, r.queue_seq, slot};
}

std::string Impl::engine_key(std::uint32_t slot) const {
  const sim::Run& r = runs[slot];
  return lqs[r.lq].ns + "/" + r.job_id.to_string();
}

quota::Workload Impl::workload_of(std::uint32_t slot) const {
  const sim::Run& r = runs[slot];
  quota::Workload w;
  w.name = r.job_id.to_string();
  w.namespace_ = lqs[r.lq].ns;
  w.queue = lqs[r.lq].name;
  w.priority = r.priority;
  w.creation_seq = r.queue_seq;
  w.pod_sets.push_back(shapes[r.shape]);
  return w;
}

const std::string& Impl::never_admitted(std::uint32_t slot) {
  const sim::Run& r = runs[slot];
  const int cq = lqs[r.lq].cq;
  const std::pair<std::uint32_t, int> key{r.shape, cq};
  if (auto it = never_admitted_by.find(key); it != never_admitted_by.end()) return it->second;
  std::string why;
  for (const auto& q : options.quota.cluster_queues)
    if (q.name == cq_names[static_cast<std::size_t>(cq)]) why = engine->capacity_shortfall(q, workload_of(slot));
  if (!why.empty()) why = "can never be admitted as the quota is configured: " + why;
  return never_admitted_by.emplace(key, std::move(why)).first->second;
}

ClusterEvent& Impl::emit(ClusterEventKind kind, std::uint32_t slot, std::int64_t at) {
  const sim::Run& r = runs[slot];
  ClusterEvent e;
  e.seq = ++event_seq;
  e.kind = kind;
  e.tenant = r.tenant;
  e.job_id = r.job_id;
  e.run = r.run;
  e.at = core::Timestamp::from_unix_nanos(at);
  outbox.push_back(std::move(e));
  return outbox.back();
}

void Impl::schedule(std::uint32_t slot, TimerKind kind, std::int64_t at) {
  const sim::Run& r = runs[slot];
  timers.push(sim::Timer{at, slot, r.gen, r.epoch, kind});
}

void Impl::mark_tree_dirty() { std::fill(dirty.begin(), dirty.end(), 1); }

core::Result<std::uint32_t> Impl::add_run(const WorkloadRequest& req) {
  const quota::Workload& w = req.workload;
  if (w.pod_sets.size() != 1)
    return Error::invalid("workload.pod_sets", std::to_string(w.pod_sets.size()),
                          "the simulated cluster runs workloads of exactly one pod set");
  if (req.job.id.is_nil()) return Error::invalid("job.id", "", "a run needs the job's id");
  if (req.run < 1) return Error::invalid("run", std::to_string(req.run), "runs count from 1");
  BUDCORE_TRY_ASSIGN(SimSpec spec, read_sim_spec(req.job.spec));

  // The tenant's LocalQueue: declared in the quota config, or the job-type queue of that name.
  std::string lq_key = w.namespace_ + "/" + w.queue;
  std::uint32_t lq;
  if (auto it = lq_ids.find(lq_key); it != lq_ids.end()) {
    lq = it->second;
  } else {
    std::string cq_name = w.queue;
    for (const auto& l : options.quota.local_queues)
      if (l.key() == lq_key) cq_name = l.cluster_queue;
    auto cq = cq_index.find(cq_name);
    if (cq == cq_index.end())
      return Error::invalid("workload.queue", w.queue,
                            "no ClusterQueue '" + cq_name + "' in the quota configuration admits this job");
    BUDCORE_TRY(engine->add_local_queue(quota::LocalQueue{w.namespace_, w.queue, cq_name}));
    lq = static_cast<std::uint32_t>(lqs.size());
    lqs.push_back(sim::LocalQueueRef{w.namespace_, w.queue, cq->second});
    lq_ids.emplace(lq_key, lq);
  }
  const quota::PodSet& ps = w.pod_sets[0];
  std::string sk = shape_key(ps);
  std::uint32_t shape;
  if (auto it = shape_ids.find(sk); it != shape_ids.end()) {
    shape = it->second;
  } else {
    shape = static_cast<std::uint32_t>(shapes.size());
    shapes.push_back(ps);
    shape_ids.emplace(std::move(sk), shape);
  }

  std::uint32_t slot = alloc_run();
  sim::Run& r = runs[slot];
  r.tenant = req.tenant;
  r.job_id = req.job.id;
  r.run = req.run;
  r.queue_seq = req.queue_seq;
  r.priority = w.priority;
  r.shape = shape;
  r.lq = lq;
  r.name = req.job.name;
  r.window = req.job.time_window;
  r.deadline_ns = req.job.deadline ? req.job.deadline->unix_nanos() : 0;
  r.max_duration_ns = req.job.max_duration_seconds ? seconds_to_ns(static_cast<double>(*req.job.max_duration_seconds)) : 0;
  const SimOutcomeModel& m = options.outcomes;
  double estimate = req.job.estimated_duration_seconds
                        ? static_cast<double>(*req.job.estimated_duration_seconds)
                        : static_cast<double>(m.default_duration.count_ns()) / 1e9;
  double factor = 1.0 + m.duration_spread * (2.0 * draw(m.seed, r.job_id, r.run, 1) - 1.0);
  r.duration_ns = spec.duration_seconds ? seconds_to_ns(*spec.duration_seconds) : seconds_to_ns(estimate * factor);
  // A service without an estimate serves until it is cancelled (a model endpoint, a database).
  if (!spec.duration_seconds && !req.job.estimated_duration_seconds && req.job.job_type == job::JobType::Service)
    r.duration_ns = std::numeric_limits<std::int64_t>::max();
  if (spec.fail_attempts >= r.run) {
    r.fail_after_ns = seconds_to_ns(spec.fail_after_seconds);
  } else if (m.failure_rate > 0 && draw(m.seed, r.job_id, r.run, 2) < m.failure_rate) {
    r.fail_after_ns = static_cast<std::int64_t>(static_cast<double>(r.duration_ns) * draw(m.seed, r.job_id, r.run, 3));
  }
  if (!spec.fail_message.empty() || spec.outputs.is_map()) {
    auto x = std::make_shared<sim::Extras>();
    x->fail_message = spec.fail_message;
    x->outputs = spec.outputs;
    r.extras = std::move(x);
  }
  by_job[r.job_id] = slot;
  if (r.deadline_ns > 0) schedule(slot, TimerKind::Deadline, r.deadline_ns);
  return slot;
}

void Impl::enqueue(std::uint32_t slot, std::int64_t now) {
  sim::Run& r = runs[slot];
  if (r.gpu) release_node(slot);
  r.placement.reset();
  if (r.window && !r.window->contains(core::Timestamp::from_unix_nanos(now))) {
    set_phase(slot, Phase::Waiting);
    schedule(slot, TimerKind::WindowOpen, r.window->next_open(core::Timestamp::from_unix_nanos(now)).unix_nanos());
    return;
  }
  set_phase(slot, Phase::Queued);
  int cq = lqs[r.lq].cq;
  waiting_heads[cq].insert(key_of(slot));
  dirty[cq] = 1;
  if (r.window) {
    std::int64_t close = window_close(*r.window, now);
    if (close != std::numeric_limits<std::int64_t>::max()) schedule(slot, TimerKind::WindowClose, close);
  }
}

void Impl::usage(std::uint32_t slot, std::int64_t end) {
  const sim::Run& r = runs[slot];
  if (r.phase != Phase::Running) return;
  UsageInterval u = usage_of_run(shapes[r.shape], r.placement.get(), options.layout.gpu_type_label,
                                 core::Timestamp::from_unix_nanos(r.started_ns), core::Timestamp::from_unix_nanos(end));
  if (r.node >= 0) {  // the node pool knows the device and how it is shared
    const NodePool& pool = options.inventory[static_cast<std::size_t>(nodes[static_cast<std::size_t>(r.node)].pool)];
    u.gpu_type = pool.gpu_type;
    u.sharing_mode = std::string(to_string(pool.sharing));
  }
  emit(ClusterEventKind::Usage, slot, end).usage = std::move(u);
}

// Takes the run out of wherever it is (queue, engine, node). Emits its usage when it ran.
void Impl::withdraw(std::uint32_t slot) {
  sim::Run& r = runs[slot];
  int cq = lqs[r.lq].cq;
  const std::int64_t now = clock->now().unix_nanos();
  switch (r.phase) {
    case Phase::Free:
    case Phase::Waiting:
      break;
    case Phase::Queued:
      waiting_heads[cq].erase(key_of(slot));
      break;
    case Phase::Heads:
      engine_heads[cq].erase(key_of(slot));
      (void)engine->remove(engine_key(slot));
      dirty[cq] = 1;
      break;
    case Phase::Evicting:
      (void)engine->remove(engine_key(slot));
      mark_tree_dirty();
      break;
    case Phase::Admitted:
      (void)engine->remove(engine_key(slot));
      unplaced.erase(std::remove(unplaced.begin(), unplaced.end(), slot), unplaced.end());
      mark_tree_dirty();
      break;
    case Phase::Starting:
    case Phase::Running:
      usage(slot, now);
      (void)engine->remove(engine_key(slot));
      release_node(slot);
      mark_tree_dirty();
      break;
  }
}

// ---- the backend -------------------------------------------------------------------------------

SimCluster::SimCluster(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

core::Status SimCluster::check_spec(const core::Value& job_spec) {
  BUDCORE_TRY(read_sim_spec(job_spec));
  return {};
}
SimCluster::~SimCluster() = default;

core::Result<std::unique_ptr<SimCluster>> SimCluster::create(const core::Clock& clock, SimClusterOptions options) {
  BUDCORE_TRY(options.validate());
  auto impl = std::make_unique<Impl>();
  impl->clock = &clock;
  BUDCORE_TRY_ASSIGN(auto engine, quota::AdmissionEngine::create(options.quota, options.engine));
  impl->engine = std::make_unique<quota::AdmissionEngine>(std::move(engine));
  impl->options = std::move(options);
  for (const auto& cq : impl->options.quota.cluster_queues) {
    impl->cq_index.emplace(cq.name, static_cast<int>(impl->cq_names.size()));
    impl->cq_names.push_back(cq.name);
  }
  impl->waiting_heads.resize(impl->cq_names.size());
  impl->engine_heads.resize(impl->cq_names.size());
  impl->dirty.assign(impl->cq_names.size(), 0);
  BUDCORE_TRY(impl->build_inventory());
  return std::unique_ptr<SimCluster>(new SimCluster(std::move(impl)));
}

core::Status SimCluster::submit(const WorkloadRequest& request) {
  Impl& m = *impl_;
  if (auto it = m.by_job.find(request.job.id); it != m.by_job.end()) {
    sim::Run& r = m.runs[it->second];
    if (r.run >= request.run) return {};  // the same run again (or an older one): nothing to do
    m.withdraw(it->second);               // a newer run replaces the old one
    m.free_run(it->second);
  }
  BUDCORE_TRY_ASSIGN(std::uint32_t slot, m.add_run(request));
  const std::int64_t now = m.clock->now().unix_nanos();
  m.enqueue(slot, now);
  // Kueue keeps such a workload pending (the quota may grow); say so instead of "waiting".
  const std::string& never = m.never_admitted(slot);
  ClusterEvent& e = m.emit(ClusterEventKind::Queued, slot, now);
  e.reason = m.runs[slot].phase == Phase::Waiting ? "WindowClosed" : "Submitted";
  if (m.runs[slot].phase == Phase::Waiting) e.message = "waiting for its time window to open";
  if (!never.empty()) {
    e.reason = "Inadmissible";
    e.message = never;
  }
  return {};
}

core::Status SimCluster::cancel(const core::Id& job_id, std::string_view reason) {
  Impl& m = *impl_;
  auto it = m.by_job.find(job_id);
  if (it == m.by_job.end()) return {};
  std::uint32_t slot = it->second;
  m.withdraw(slot);
  ClusterEvent& e = m.emit(ClusterEventKind::Cancelled, slot, m.clock->now().unix_nanos());
  e.reason = "Cancelled";
  e.message = std::string(reason);
  m.free_run(slot);
  return {};
}

core::Status SimCluster::evict(const core::Id& job_id, std::string_view reason) {
  Impl& m = *impl_;
  auto it = m.by_job.find(job_id);
  if (it == m.by_job.end()) return Error::make(ErrorCode::NotFound, "the cluster holds no run of job " + job_id.to_string(), "id");
  std::uint32_t slot = it->second;
  Phase p = m.runs[slot].phase;
  if (p == Phase::Evicting) return {};
  if (p != Phase::Admitted && p != Phase::Starting && p != Phase::Running)
    return Error::make(ErrorCode::Conflict, "job " + job_id.to_string() + " is queued, not admitted: nothing to preempt", "status");
  const std::int64_t now = m.clock->now().unix_nanos();
  m.withdraw(slot);
  ClusterEvent& e = m.emit(ClusterEventKind::Preempted, slot, now);
  e.reason = "Evicted";
  e.message = reason.empty() ? "evicted by an administrator" : std::string(reason);
  m.enqueue(slot, now);
  m.emit(ClusterEventKind::Queued, slot, now).reason = "Requeued";
  return {};
}

core::Status SimCluster::set_priority(const core::Id& job_id, std::int32_t priority) {
  Impl& m = *impl_;
  auto it = m.by_job.find(job_id);
  if (it == m.by_job.end()) return Error::make(ErrorCode::NotFound, "the cluster holds no run of job " + job_id.to_string(), "id");
  std::uint32_t slot = it->second;
  sim::Run& r = m.runs[slot];
  int cq = m.lqs[r.lq].cq;
  switch (r.phase) {
    case Phase::Queued:
      m.waiting_heads[static_cast<std::size_t>(cq)].erase(m.key_of(slot));
      r.priority = priority;
      m.waiting_heads[static_cast<std::size_t>(cq)].insert(m.key_of(slot));
      m.dirty[static_cast<std::size_t>(cq)] = 1;
      break;
    case Phase::Heads:
      m.engine_heads[static_cast<std::size_t>(cq)].erase(m.key_of(slot));
      (void)m.engine->remove(m.engine_key(slot));
      r.priority = priority;
      m.set_phase(slot, Phase::Queued);
      m.waiting_heads[static_cast<std::size_t>(cq)].insert(m.key_of(slot));
      m.dirty[static_cast<std::size_t>(cq)] = 1;
      break;
    default:  // admitted or waiting for its window: applies when it is next queued
      r.priority = priority;
      break;
  }
  return {};
}

core::Result<std::size_t> SimCluster::poll(std::vector<ClusterEvent>& out, std::size_t max_events) {
  Impl& m = *impl_;
  m.advance(m.clock->now().unix_nanos());
  std::size_t n = std::min(max_events, m.outbox.size());
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(std::move(m.outbox.front()));
    m.outbox.pop_front();
  }
  return n;
}

core::Result<std::vector<WorkloadInfo>> SimCluster::list() {
  Impl& m = *impl_;  // never_admitted() memoizes
  std::vector<WorkloadInfo> out;
  for (std::size_t s = 0; s < m.runs.size(); ++s) {
    const sim::Run& r = m.runs[s];
    if (r.phase == Phase::Free) continue;
    WorkloadInfo w;
    w.tenant = r.tenant;
    w.job_id = r.job_id;
    w.run = r.run;
    switch (r.phase) {
      case Phase::Running: w.phase = WorkloadInfo::Phase::Running; break;
      case Phase::Admitted:
      case Phase::Starting: w.phase = WorkloadInfo::Phase::Admitted; break;
      default: w.phase = WorkloadInfo::Phase::Queued; break;
    }
    if (r.placement && w.phase != WorkloadInfo::Phase::Queued) w.placement = *r.placement;
    if (r.phase == Phase::Running) w.started_at = core::Timestamp::from_unix_nanos(r.started_ns);
    const std::string* never = w.phase == WorkloadInfo::Phase::Queued ? &m.never_admitted(static_cast<std::uint32_t>(s)) : nullptr;
    if (never != nullptr && !never->empty()) {
      w.message = *never;
    } else if (r.phase == Phase::Waiting) {
      w.message = "waiting for its time window to open";
    } else if (r.phase == Phase::Heads || r.phase == Phase::Evicting) {
      auto st = m.engine->status(m.engine_key(static_cast<std::uint32_t>(s)));
      if (st) w.message = st->pending_reason;
    } else if (r.phase == Phase::Queued) {
      w.message = "waiting in ClusterQueue " + m.cq_names[static_cast<std::size_t>(m.lqs[r.lq].cq)] + " behind the queue's heads";
    } else if (r.phase == Phase::Admitted) {
      w.message = r.gpu && !r.gpu->waiting.empty() ? r.gpu->waiting
                                                   : "admitted by quota; waiting for placement: no node with free devices";
    }
    out.push_back(std::move(w));
  }
  return out;
}

core::Status SimCluster::adopt(std::span<const AdoptedRun> batch) {
  Impl& m = *impl_;
  const std::int64_t now = m.clock->now().unix_nanos();
  for (const AdoptedRun& a : batch) {
    if (m.by_job.count(a.request.job.id)) continue;  // adopted already
    auto added = m.add_run(a.request);
    if (!added) {
      // A record the cluster cannot hold any more (its queue left the configuration): fail it
      // rather than keep a job that can never run.
      ClusterEvent e;
      e.seq = ++m.event_seq;
      e.kind = ClusterEventKind::Failed;
      e.tenant = a.request.tenant;
      e.job_id = a.request.job.id;
      e.run = a.request.run;
      e.at = core::Timestamp::from_unix_nanos(now);
      e.reason = "Rejected";
      e.message = added.error().describe();
      m.outbox.push_back(std::move(e));
      continue;
    }
    std::uint32_t slot = *added;
    sim::Run& r = m.runs[slot];
    if (a.phase == AdoptedRun::Phase::Queued || !a.placement) {
      m.enqueue(slot, now);
      continue;
    }
    quota::Workload w = m.workload_of(slot);
    w.admitted = a.placement->admission;
    if (auto st = m.engine->add_workload(w); !st) {
      m.enqueue(slot, now);  // its admission no longer holds: queue it again
      m.emit(ClusterEventKind::Preempted, slot, now).reason = "Evicted";
      m.emit(ClusterEventKind::Queued, slot, now).reason = "Requeued";
      continue;
    }
    r.placement = std::make_unique<Placement>(*a.placement);
    r.admitted_ns = a.admitted_at ? a.admitted_at->unix_nanos() : now;
    m.set_phase(slot, Phase::Admitted);
    if (a.phase == AdoptedRun::Phase::Running) {
      if (!m.place(slot)) {
        // The node it ran on is taken by an earlier adoption: let it run unplaced.
        r.node = -1;
      }
      m.set_phase(slot, Phase::Running);
      r.started_ns = a.started_at ? a.started_at->unix_nanos() : now;
      const std::int64_t after = Impl::ending(r).after;
      if (after != std::numeric_limits<std::int64_t>::max())
        m.schedule(slot, TimerKind::End, core::detail::saturating_add(r.started_ns, after));
    } else if (m.gpu_flavors.empty() && m.place(slot)) {
      m.start(slot, now);
    } else {
      // Under a placement policy an admitted run is placed after every running one is back on
      // its node (the next admission cycle), so that it cannot take their devices.
      m.unplaced.push_back(slot);
    }
  }
  return {};
}

core::Status SimCluster::adoption_complete() {
  impl_->mark_tree_dirty();
  return {};
}

std::optional<core::Timestamp> SimCluster::next_change() const {
  Impl& m = *impl_;
  if (!m.outbox.empty() || std::any_of(m.dirty.begin(), m.dirty.end(), [](char d) { return d != 0; })) return m.clock->now();
  while (!m.timers.empty()) {
    const sim::Timer& t = m.timers.top();
    bool stale = t.slot >= m.runs.size() || m.runs[t.slot].epoch != t.epoch || m.runs[t.slot].phase == Phase::Free;
    if (!stale && t.kind != TimerKind::Deadline && t.kind != TimerKind::WindowClose) stale = m.runs[t.slot].gen != t.gen;
    if (!stale) return core::Timestamp::from_unix_nanos(t.at);
    m.timers.pop();
  }
  return std::nullopt;
}

quota::UsageView SimCluster::cluster_queue_usage() const { return impl_->engine->cluster_queue_usage(); }

std::map<std::string, std::map<std::string, std::map<std::string, std::int64_t>>> SimCluster::held_quota() const {
  const Impl& m = *impl_;
  std::map<std::string, std::map<std::string, std::map<std::string, std::int64_t>>> out;
  for (const auto& r : m.runs) {
    if (r.phase != Phase::Admitted && r.phase != Phase::Starting && r.phase != Phase::Running && r.phase != Phase::Evicting)
      continue;
    if (!r.placement) continue;
    const quota::PodSet& ps = m.shapes[r.shape];
    const auto& adm = r.placement->admission;
    std::int32_t count = ps.count;
    if (auto c = adm.count.find(ps.name); c != adm.count.end()) count = c->second;
    auto fl = adm.flavors.find(ps.name);
    if (fl == adm.flavors.end()) continue;
    for (const auto& [res, q] : ps.requests.items()) {
      auto f = fl->second.find(res);
      if (f == fl->second.end()) continue;
      auto milli = q.milli_value();
      out[adm.cluster_queue][f->second][res] += (milli ? *milli : 0) * count;
    }
  }
  return out;
}

std::size_t SimCluster::queued() const noexcept {
  const auto& c = impl_->counts;
  return c[static_cast<int>(Phase::Waiting)] + c[static_cast<int>(Phase::Queued)] + c[static_cast<int>(Phase::Heads)] +
         c[static_cast<int>(Phase::Evicting)];
}
std::size_t SimCluster::admitted() const noexcept {
  const auto& c = impl_->counts;
  return c[static_cast<int>(Phase::Admitted)] + c[static_cast<int>(Phase::Starting)] + c[static_cast<int>(Phase::Running)];
}
std::size_t SimCluster::running() const noexcept { return impl_->counts[static_cast<int>(Phase::Running)]; }
const SimClusterOptions& SimCluster::options() const noexcept { return impl_->options; }

std::vector<SimCluster::GpuPoolView> SimCluster::gpu_pools() const {
  std::vector<GpuPoolView> out;
  for (const auto& gf : impl_->gpu_flavors) out.push_back({gf.flavor, &gf.pool, &gf.seen});
  return out;
}

std::vector<std::pair<core::Id, std::string>> SimCluster::waiting_for_placement() const {
  std::vector<std::pair<core::Id, std::string>> out;
  for (std::uint32_t slot : impl_->unplaced) {
    const sim::Run& r = impl_->runs[slot];
    if (r.phase != Phase::Admitted) continue;
    out.emplace_back(r.job_id, r.gpu && !r.gpu->waiting.empty() ? r.gpu->waiting
                                                              : "admitted by quota; waiting for placement: no node with free devices");
  }
  return out;
}

core::Result<gpu::DefragProblem> SimCluster::defrag_problem(const core::Id& job_id) const {
  const Impl& m = *impl_;
  auto it = m.by_job.find(job_id);
  if (it == m.by_job.end())
    return Error::make(core::ErrorCode::NotFound, "the cluster holds no run of job " + job_id.to_string(), "job");
  const sim::Run& r = m.runs[it->second];
  if (r.phase != Phase::Admitted || !r.gpu || r.gpu->placed)
    return Error::invalid("job", job_id.to_string(), "does not wait for placement under a placement policy");
  const sim::GpuFlavor& gf = m.gpu_flavors[static_cast<std::size_t>(r.gpu->flavor)];
  gpu::DefragProblem p;
  p.pool = gf.pool;
  const std::int64_t now = m.clock->now().unix_nanos();
  for (const sim::Run& o : m.runs) {
    if (!o.gpu || !o.gpu->placed || o.gpu->flavor != r.gpu->flavor) continue;
    gpu::Holder h;
    h.name = o.job_id.to_string();
    h.task = o.gpu->task;
    if (!o.gpu->mig.empty()) h.task.num_gpu = 0, h.task.gpu_milli = 0;
    h.placement = o.gpu->placement;
    h.mig = o.gpu->mig;
    h.priority = o.priority;
    if (o.phase == Phase::Running) h.elapsed_seconds = static_cast<double>(std::max<std::int64_t>(0, now - o.started_ns)) / 1e9;
    p.holders.push_back(std::move(h));
  }
  p.request.task = r.gpu->task;
  p.request.task.name = job_id.to_string();
  p.request.mig_profile = r.gpu->mig_profile;
  if (!p.request.mig_profile.empty()) p.request.task.num_gpu = 0, p.request.task.gpu_milli = 0;
  p.request.priority = r.priority;
  return p;
}

}  // namespace budcore::backend
