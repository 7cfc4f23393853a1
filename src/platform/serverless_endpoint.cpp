// ServerlessEndpoint: an endpoint's warm workers as platform SERVICE jobs in the serverless
// ClusterQueue, the assignment order over them, and per-worker busy/idle metering into usage.
#include "budcore/platform/serverless_endpoint.hpp"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "budcore/core/int128.hpp"
#include "budcore/platform/cost_controls.hpp"
#include "budcore/quota/job_workload.hpp"

namespace budcore::platform {
namespace {

using serverless::Priority;
using serverless::RequestId;
using serverless::WorkerId;

// The queue's clock is the platform's: a virtual platform clock moves the queue's deadlines.
class PlatformClock final : public core::Clock {
 public:
  explicit PlatformClock(const Platform& p) : p_(p) {}
  core::Timestamp now() const override { return p_.now(); }

 private:
  const Platform& p_;
};

bool ended(job::JobStatus s) { return job::is_final(s) || s == job::JobStatus::Failed; }

}  // namespace

std::string_view to_string(WorkerState s) noexcept {
  switch (s) {
    case WorkerState::Queued: return "queued";
    case WorkerState::Starting: return "starting";
    case WorkerState::Ready: return "ready";
  }
  return "queued";
}

core::Value EndpointStatus::to_value() const {
  core::List ws;
  for (const auto& w : workers) {
    ws.push_back(core::Value::map({{"id", core::Value(static_cast<long long>(w.id))},
                                   {"job", core::Value(w.job.to_string())},
                                   {"name", core::Value(w.name)},
                                   {"state", core::Value(std::string(to_string(w.state)))},
                                   {"status", core::Value(std::string(job::to_string(w.status)))},
                                   {"in_flight", core::Value(static_cast<long long>(w.running.size()))}}));
  }
  auto n = [](std::int64_t v) { return core::Value(static_cast<long long>(v)); };
  return core::Value::map({{"endpoint", core::Value(endpoint)}, {"queued", n(queued)}, {"starting", n(starting)},
                           {"ready", n(ready)}, {"busy", n(busy)}, {"pending", n(pending)},
                           {"in_flight", n(in_flight)}, {"cold_starts", n(cold_starts)}, {"stopped", n(stopped)},
                           {"lost", n(lost)}, {"failed_starts", n(failed_starts)}, {"preemptions", n(preemptions)}, {"metered_rows", n(metered_rows)},
                           {"last_refusal", core::Value(last_refusal)}, {"workers", core::Value(std::move(ws))}});
}

struct ServerlessEndpoint::Impl {
  Platform& platform;
  CallContext owner;
  serverless::EndpointConfig config;
  EndpointOptions options;
  std::shared_ptr<PlatformClock> clock;
  serverless::RequestQueue queue;
  std::vector<EndpointWorker> workers;   // live: submitted, not ended
  std::vector<EndpointWorker> segments;  // ended runs whose GPU time is not metered yet
  WorkerId next_id = 1;
  std::int64_t cold_starts = 0, stopped = 0, lost = 0, failed_starts = 0, preemptions = 0, metered_rows = 0;
  std::int64_t arrivals = 0;
  core::Duration arrived_work;
  std::string last_refusal;
  // What the platform's metrics() reads (under its own lock, on its caller's thread): copied
  // after each call that changes the endpoint, so the reader never sees it mid-change. Shared
  // with the platform's source, which outlives the endpoint (closed: the source is dropped).
  struct Published {
    std::mutex mu;
    std::vector<MetricSample> samples;
    bool closed = false;
  };
  std::shared_ptr<Published> published = std::make_shared<Published>();

  Impl(Platform& p, CallContext o, serverless::EndpointConfig c, EndpointOptions opt)
      : platform(p),
        owner(std::move(o)),
        config(std::move(c)),
        options(std::move(opt)),
        clock(std::make_shared<PlatformClock>(p)),
        queue(config, clock) {}

  // The counts status() reports and publish() samples (no worker list).
  EndpointStatus counts() const {
    EndpointStatus s;
    s.endpoint = config.name;
    s.queued = count(WorkerState::Queued);
    s.starting = count(WorkerState::Starting);
    s.ready = count(WorkerState::Ready);
    for (const auto& w : workers) s.busy += !w.running.empty();
    s.pending = queue.depth();
    s.in_flight = queue.in_flight();
    s.cold_starts = cold_starts;
    s.stopped = stopped;
    s.lost = lost;
    s.failed_starts = failed_starts;
    s.preemptions = preemptions;
    s.metered_rows = metered_rows;
    s.last_refusal = last_refusal;
    return s;
  }

  void publish() {
    const EndpointStatus s = counts();
    const std::vector<std::pair<std::string, std::string>> id{{"endpoint", config.name}, {"tenant", owner.tenant.to_string()}};
    auto with_state = [&](const char* state) {
      auto l = id;
      l.emplace_back("state", state);
      return l;
    };
    auto d = [](std::int64_t v) { return static_cast<double>(v); };
    std::vector<MetricSample> now{
        {"budcore_serverless_cold_starts_total", id, d(s.cold_starts)},
        {"budcore_serverless_failed_starts_total", id, d(s.failed_starts)},
        {"budcore_serverless_workers_lost_total", id, d(s.lost)},
        {"budcore_serverless_workers_stopped_total", id, d(s.stopped)},
        {"budcore_serverless_preemptions_total", id, d(s.preemptions)},
        {"budcore_serverless_workers", with_state("queued"), d(s.queued)},
        {"budcore_serverless_workers", with_state("starting"), d(s.starting)},
        {"budcore_serverless_workers", with_state("ready"), d(s.ready)},
        {"budcore_serverless_workers", with_state("busy"), d(s.busy)},
        {"budcore_serverless_queue_depth", id, d(s.pending)},
        {"budcore_serverless_in_flight", id, d(s.in_flight)}};
    std::lock_guard lock(published->mu);
    published->samples = std::move(now);
  }

  int live() const { return static_cast<int>(workers.size()); }
  int count(WorkerState s) const {
    return static_cast<int>(std::count_if(workers.begin(), workers.end(), [s](const auto& w) { return w.state == s; }));
  }
  std::int64_t coming_slots() const {
    return std::int64_t{live() - count(WorkerState::Ready)} * config.concurrency_per_worker;
  }

  job::Job worker_job(WorkerId id) const {
    job::Job j;
    j.name = config.name + "-w" + std::to_string(id);
    j.job_type = job::JobType::Service;
    j.deployment_type = job::DeploymentType::Docker;
    j.gpu_type = config.gpu_type;
    j.gpu_count = config.gpus_per_worker;
    j.priority = options.worker_priority;
    j.max_retries = 0;  // a failed worker is replaced by the endpoint, not retried by the platform
    core::Map spec;
    spec.set(std::string(quota::kServerlessEndpointKey), core::Value(config.name));
    spec.set("model", core::Value(config.model));
    if (!options.image.empty()) spec.set("image", core::Value(options.image));
    j.spec = core::Value(std::move(spec));
    return j;
  }

  core::Status submit_worker() {
    job::Job j = worker_job(next_id);
    auto r = platform.submit(owner, j);
    if (!r) {
      last_refusal = r.error().describe();
      return r.error();
    }
    EndpointWorker w;
    w.id = next_id++;
    w.job = r->record.job.id;
    w.name = j.name;
    w.status = r->record.job.status;
    w.submitted_at = platform.now();
    workers.push_back(std::move(w));
    ++cold_starts;
    return {};
  }

  // GPU time from the worker's start to `now`: busy while a request is in flight, else idle.
  static void account(EndpointWorker& w, core::Timestamp now) {
    if (!w.started_at) return;
    const core::Timestamp from = std::max(w.accounted_at, *w.started_at);
    if (!(from < now)) return;
    (w.running.empty() ? w.idle_ns : w.busy_ns) += (now - from).count_ns();
    w.accounted_at = now;
  }

  // The worker's run ended at `end` (cancelled, preempted, failed): its GPU time waits for
  // meter() as a segment of its own, and its requests go back to the queue.
  void close_run(EndpointWorker& w, core::Timestamp end) {
    account(w, end);
    if (w.busy_ns + w.idle_ns > 0) segments.push_back(w);
    w.busy_ns = w.idle_ns = 0;
    w.started_at.reset();
    for (const auto& e : w.running) (void)queue.requeue(e.first);
    w.running.clear();
  }

  void observe(EndpointWorker& w, const job::Job& j, core::Timestamp now) {
    w.status = j.status;
    if (j.status == job::JobStatus::Running && j.actual_start) {
      if (!w.started_at) {
        // A run after a preemption starts no earlier than the last one was accounted to.
        w.started_at = std::max(*j.actual_start, w.accounted_at);
        w.accounted_at = w.metered_at = *w.started_at;
        w.idle_since = *w.started_at;
      }
      account(w, now);
      // A cold start longer than warmup_timeout never ends: once the timeout has passed (also
      // when nothing looked since), sync() fails the worker.
      if (warms_too_late()) {
        w.state = WorkerState::Starting;
        w.warmup_failed = now - *w.started_at >= config.warm_pool.warmup_timeout;
        return;
      }
      w.state = now - *w.started_at >= config.cold_start.duration() ? WorkerState::Ready : WorkerState::Starting;
      return;
    }
    if (w.started_at) close_run(w, now);  // lost its quota: back in the queue
    w.state = WorkerState::Queued;
  }

  // The cold start takes longer than warm_pool.warmup_timeout: every worker's warm-up fails.
  bool warms_too_late() const { return config.cold_start.duration() > config.warm_pool.warmup_timeout; }

  // The owner's live worker jobs of this endpoint that an earlier process left (its endpoint
  // object is gone, its jobs are not): they become this endpoint's workers, so that reopening
  // neither loses their quota nor starts the pool again.
  core::Status adopt() {
    backend::JobFilter live;
    live.job_type = job::JobType::Service;
    live.statuses = {job::JobStatus::Queued, job::JobStatus::Scheduled, job::JobStatus::Running,
                     job::JobStatus::Preempted};
    backend::PageRequest page;
    page.limit = backend::PageRequest::kMaxPageSize;
    const std::string prefix = config.name + "-w";
    do {
      BUDCORE_TRY_ASSIGN(auto listed, platform.list_jobs(owner, live, page));
      for (const auto& j : listed.items) {
        if (!j.name.starts_with(prefix)) continue;
        BUDCORE_TRY_ASSIGN(auto rec, platform.get_job(owner, j.id));
        if (quota::serverless_endpoint_of(rec.job) != config.name) continue;
        EndpointWorker w;
        w.id = std::strtoull(j.name.c_str() + prefix.size(), nullptr, 10);
        w.job = j.id;
        w.name = j.name;
        w.status = j.status;
        w.submitted_at = j.created_at;
        if (rec.job.status == job::JobStatus::Running && rec.job.actual_start) {
          // Its time before now was the earlier process's to meter.
          w.started_at = *rec.job.actual_start;
          w.accounted_at = w.metered_at = w.idle_since = platform.now();
        }
        next_id = std::max(next_id, w.id + 1);
        workers.push_back(std::move(w));
      }
      page.after = listed.next_cursor;
    } while (!page.after.empty());
    return sync();
  }

  core::Status sync() {
    const core::Timestamp now = platform.now();
    for (std::size_t i = 0; i < workers.size();) {
      EndpointWorker& w = workers[i];
      auto rec = platform.get_job(owner, w.job);
      if (!rec) return rec.error();
      if (ended(rec->job.status)) {
        w.status = rec->job.status;
        close_run(w, rec->job.actual_end.value_or(now));
        ++lost;
        workers.erase(workers.begin() + static_cast<std::ptrdiff_t>(i));
        continue;
      }
      observe(w, rec->job, now);
      if (w.warmup_failed) {
        // Its warm-up passed warmup_timeout: the job is cancelled (its GPU time until now is
        // metered) and counted; the requests waiting for it stay in the queue, where the next
        // dispatch() starts a replacement for them or their max_wait times them out.
        BUDCORE_TRY(stop(i, "its warm-up passed warm_pool.warmup_timeout_seconds (" +
                                std::to_string(config.warm_pool.warmup_timeout.whole_seconds()) + " s)"));
        --stopped;
        ++failed_starts;
        continue;
      }
      ++i;
    }
    return {};
  }

  core::Status stop(std::size_t i, std::string_view why = "scaled down") {
    EndpointWorker w = std::move(workers[i]);
    workers.erase(workers.begin() + static_cast<std::ptrdiff_t>(i));
    close_run(w, platform.now());
    ++stopped;
    auto r = platform.cancel_job(owner, w.job, "serverless endpoint " + config.name + ": " + std::string(why));
    if (!r && r.error().code != core::ErrorCode::Conflict) return r.error();  // Conflict: it had ended
    return {};
  }

  // Which worker goes first when the pool shrinks: queued, then starting (newest first), then
  // idle ready ones (longest idle first); busy workers never.
  std::optional<std::size_t> shrink_candidate() const {
    std::optional<std::size_t> best;
    auto rank = [](const EndpointWorker& w) { return w.state == WorkerState::Queued ? 0 : w.state == WorkerState::Starting ? 1 : 2; };
    for (std::size_t i = 0; i < workers.size(); ++i) {
      const EndpointWorker& w = workers[i];
      if (!w.running.empty()) continue;
      if (!best) {
        best = i;
        continue;
      }
      const EndpointWorker& b = workers[*best];
      if (rank(w) != rank(b) ? rank(w) < rank(b)
                             : (rank(w) < 2 ? w.id > b.id : w.idle_since < b.idle_since))
        best = i;
    }
    return best;
  }

  core::Result<int> scale_to(int desired) {
    desired = std::clamp(desired, config.warm_pool.min_warm_workers, config.warm_pool.max_warm_workers);
    while (live() < desired) BUDCORE_TRY(submit_worker());
    while (live() > desired) {
      auto i = shrink_candidate();
      if (!i) break;
      BUDCORE_TRY(stop(*i));
    }
    return live();
  }

  EndpointWorker* find(WorkerId id) {
    for (auto& w : workers)
      if (w.id == id) return &w;
    return nullptr;
  }

  // A ready worker with a free slot, the fullest first (packing leaves others idle to remove).
  EndpointWorker* warm_slot() {
    EndpointWorker* best = nullptr;
    for (auto& w : workers) {
      if (w.state != WorkerState::Ready || w.running.size() >= static_cast<std::size_t>(config.concurrency_per_worker))
        continue;
      if (best == nullptr || w.running.size() > best->running.size()) best = &w;
    }
    return best;
  }

  // The running request of the lowest class below `p` (the latest among equals).
  std::optional<std::pair<EndpointWorker*, RequestId>> victim(Priority p) {
    std::optional<std::pair<EndpointWorker*, RequestId>> v;
    Priority lowest = p;
    for (auto& w : workers)
      for (const auto& [r, rp] : w.running)
        if (rp > lowest || (v && rp == lowest && r > v->second)) {
          lowest = rp;
          v = std::make_pair(&w, r);
        }
    return v;
  }

  void occupy(EndpointWorker& w, RequestId r, Priority p) {
    account(w, platform.now());
    w.running.emplace_back(r, p);
  }

  void release(EndpointWorker& w, RequestId r) {
    const core::Timestamp now = platform.now();
    account(w, now);
    std::erase_if(w.running, [r](const auto& e) { return e.first == r; });
    if (w.running.empty()) w.idle_since = now;
  }

  core::Result<std::vector<serverless::Assignment>> dispatch() {
    BUDCORE_TRY(sync());  // place on the workers as the platform has them now
    (void)queue.expire();
    std::vector<serverless::Assignment> out;
    while (auto head = queue.peek()) {
      const Priority p = queue.get(*head)->priority;
      serverless::Assignment a;
      a.request = *head;
      EndpointWorker* w = warm_slot();
      if (w == nullptr && queue.depth() > coming_slots() && live() < config.warm_pool.max_warm_workers) {
        // Cold starts for what the workers already coming cannot take; the request waits for them.
        while (queue.depth() > coming_slots() && live() < config.warm_pool.max_warm_workers)
          if (!submit_worker()) break;  // refused (budget, limits): the request waits; last_refusal says why
        break;
      }
      if (w == nullptr && coming_slots() > 0) break;  // a worker is on its way
      if (w == nullptr) {
        auto v = victim(p);
        if (!v) break;
        (void)queue.requeue(v->second);
        release(*v->first, v->second);
        ++preemptions;
        w = v->first;
        a.placement = serverless::Placement::Preempted;
        a.preempted = v->second;
      }
      a.worker = w->id;
      (void)queue.assign(a.request, a.worker);
      (void)queue.start(a.request);
      occupy(*w, a.request, p);
      out.push_back(a);
    }
    refresh_capacity();
    return out;
  }

  void refresh_capacity() {
    const core::Timestamp now = platform.now();
    core::Duration until_ready = config.cold_start.duration();
    for (const auto& w : workers) {
      if (w.state == WorkerState::Ready) {
        until_ready = core::Duration();
        break;
      }
      if (w.state == WorkerState::Starting)
        until_ready = std::min(until_ready, std::max(core::Duration(), *w.started_at + config.cold_start.duration() - now));
    }
    queue.set_capacity({std::int64_t{live()} * config.concurrency_per_worker, until_ready});
  }

  core::Status finish(RequestId id, std::optional<std::string> failure) {
    const serverless::QueuedRequest* r = queue.get(id);
    if (r == nullptr) return core::Error::make(core::ErrorCode::NotFound, "no request " + std::to_string(id), "request");
    if (EndpointWorker* w = find(r->assigned_worker)) release(*w, id);
    if (!failure) return queue.complete(id);
    auto st = queue.fail(id, std::move(*failure));
    if (!st) return st.error();
    return {};
  }

  // One usage row for a worker's GPU time since its last row: busy share as gpu_utilization.
  core::Result<cost::Usage> meter_one(CostControls& cc, EndpointWorker& w) {
    const std::int64_t total = w.busy_ns + w.idle_ns;
    job::Job j = worker_job(w.id);
    j.id = w.job;
    j.tenant_id = owner.tenant;
    cost::UsageInterval u = cost::interval_of(j, w.metered_at, w.metered_at + core::Duration::nanoseconds(total));
    u.labels["serverless_endpoint"] = config.name;
    u.gpu_utilization = core::Quantity::from_nano(core::int128(w.busy_ns) * 1'000'000'000 / total);
    BUDCORE_TRY_ASSIGN(cost::Usage usage, cc.record(u));
    w.metered_at = u.end;
    w.busy_ns = w.idle_ns = 0;
    ++metered_rows;
    return usage;
  }

  core::Result<std::vector<cost::Usage>> meter() {
    std::shared_ptr<CostControls> cc = platform.cost_controls();
    if (!cc) return core::Error::make(core::ErrorCode::Unsupported, "the platform has no cost controls (the config's cost section): nothing prices worker time", "cost");
    BUDCORE_TRY(sync());  // meter up to now what the jobs ran, also runs started since the last call
    std::vector<cost::Usage> rows;
    while (!segments.empty()) {
      BUDCORE_TRY_ASSIGN(cost::Usage u, meter_one(*cc, segments.front()));
      rows.push_back(std::move(u));
      segments.erase(segments.begin());
    }
    const core::Timestamp now = platform.now();
    for (auto& w : workers) {
      account(w, now);
      if (w.busy_ns + w.idle_ns == 0) continue;
      BUDCORE_TRY_ASSIGN(cost::Usage u, meter_one(*cc, w));
      rows.push_back(std::move(u));
    }
    if (rows.empty()) return rows;
    // The budgets see the rows now, not at the platform's next metered run segment: threshold
    // alerts, and stop_running budgets that the rows pushed past their amount stop the running
    // jobs they cover (these workers among them: sync() drops them as lost).
    BUDCORE_TRY(platform.check_budgets());
    BUDCORE_TRY(sync());
    return rows;
  }

  serverless::Observation observe_all() {
    serverless::Observation o;
    o.now = platform.now();
    o.workers = live();
    o.ready = count(WorkerState::Ready);
    o.starting = o.workers - o.ready;
    for (const auto& w : workers) o.busy += !w.running.empty();
    o.pending = queue.depth();
    o.in_flight = queue.in_flight();
    o.arrivals = std::exchange(arrivals, 0);
    o.arrived_work = std::exchange(arrived_work, core::Duration());
    return o;
  }
};

core::Result<std::unique_ptr<ServerlessEndpoint>> ServerlessEndpoint::open(Platform& platform, CallContext owner,
                                                                           serverless::EndpointConfig config,
                                                                           EndpointOptions options) {
  // Worker jobs are named <endpoint>-w<id>: the name must leave room in a DNS-1123 label.
  if (config.name.empty() || config.name.size() > 50)
    return core::Error::invalid("name", config.name, "must be 1 to 50 characters (worker jobs are named <name>-w<n>)");
  auto impl = std::make_unique<Impl>(platform, std::move(owner), std::move(config), std::move(options));
  BUDCORE_TRY(impl->adopt());
  impl->refresh_capacity();  // an empty pool: admission counts a cold start before the first request
  impl->publish();
  platform.add_metrics_source([published = impl->published]() -> std::optional<std::vector<MetricSample>> {
    std::lock_guard lock(published->mu);
    if (published->closed) return std::nullopt;
    return published->samples;
  });
  return std::unique_ptr<ServerlessEndpoint>(new ServerlessEndpoint(std::move(impl)));
}

ServerlessEndpoint::ServerlessEndpoint(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
// Touches only the shared samples, not the platform: closing after the platform is harmless.
ServerlessEndpoint::~ServerlessEndpoint() {
  std::lock_guard lock(impl_->published->mu);
  impl_->published->closed = true;
}

namespace {

// Runs a call that changes the endpoint, then publishes its metrics (whatever the call returned).
template <typename Call>
auto publishing(ServerlessEndpoint::Impl& impl, Call&& call) {
  auto result = call();
  impl.publish();
  return result;
}

}  // namespace

core::Status ServerlessEndpoint::sync() {
  return publishing(*impl_, [&] { return impl_->sync(); });
}
core::Result<int> ServerlessEndpoint::scale_to(int desired) {
  return publishing(*impl_, [&] { return impl_->scale_to(desired); });
}
core::Result<int> ServerlessEndpoint::autoscale(serverless::AutoscalePolicy& policy) {
  return publishing(*impl_, [&] { return impl_->scale_to(policy.desired(impl_->observe_all())); });
}

serverless::EnqueueResult ServerlessEndpoint::enqueue(const serverless::Submission& s) {
  return publishing(*impl_, [&] {
    serverless::EnqueueResult r = impl_->queue.enqueue(s);
    if (r.ok() && !r.deduplicated) {
      ++impl_->arrivals;
      impl_->arrived_work = impl_->arrived_work + s.estimated_compute;
    }
    return r;
  });
}

core::Result<std::vector<serverless::Assignment>> ServerlessEndpoint::dispatch() {
  return publishing(*impl_, [&] { return impl_->dispatch(); });
}
core::Status ServerlessEndpoint::complete(serverless::RequestId id) {
  return publishing(*impl_, [&] { return impl_->finish(id, std::nullopt); });
}
core::Status ServerlessEndpoint::fail(serverless::RequestId id, std::string reason) {
  return publishing(*impl_, [&] { return impl_->finish(id, std::move(reason)); });
}
// Its sync() may count failed or lost starts.
core::Result<std::vector<cost::Usage>> ServerlessEndpoint::meter() {
  return publishing(*impl_, [&] { return impl_->meter(); });
}

EndpointStatus ServerlessEndpoint::status() const {
  EndpointStatus s = impl_->counts();
  s.workers = impl_->workers;
  return s;
}

const serverless::EndpointConfig& ServerlessEndpoint::config() const noexcept { return impl_->config; }
const serverless::RequestQueue& ServerlessEndpoint::queue() const noexcept { return impl_->queue; }

}  // namespace budcore::platform
