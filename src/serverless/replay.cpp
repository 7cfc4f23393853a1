#include "budcore/serverless/replay.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <queue>

#include "budcore/core/clock.hpp"
#include "budcore/serverless/request_queue.hpp"
#include "budcore/serverless/worker_pool.hpp"
#include "serverless/seconds.hpp"

namespace budcore::serverless {

namespace {

// A request's end of service (or of its max_process allowance, whichever is first).
struct Finish {
  core::Timestamp at;
  RequestId request;
  WorkerId worker;
  core::Timestamp started;
  bool operator>(const Finish& o) const { return at != o.at ? at > o.at : request > o.request; }
};

LatencySummary summarize(std::vector<double> v) {
  LatencySummary s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const auto rank = [&](double q) {
    const auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
    return v[std::min(v.size(), std::max<std::size_t>(k, 1)) - 1];
  };
  s.p50 = rank(0.50);
  s.p95 = rank(0.95);
  s.p99 = rank(0.99);
  s.max = v.back();
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  return s;
}

class Simulation {
 public:
  Simulation(const EndpointConfig& c, const std::vector<TraceRequest>& trace, AutoscalePolicy& policy, const ReplayOptions& o)
      : config_(c),
        trace_(trace),
        policy_(policy),
        options_(o),
        clock_(std::make_shared<core::VirtualClock>(trace.empty() ? core::Timestamp() : trace.front().at)),
        queue_(c, clock_),
        pool_(c, clock_),
        dispatcher_(queue_, pool_) {}

  ReplayReport run();

 private:
  core::Timestamp next_time() const;
  void arrive(const TraceRequest& r, std::size_t index);
  void finish(const Finish& f);
  void tick();
  void dispatch();
  void step(core::Timestamp now);
  void record_scaling();
  void scale_down();

  const EndpointConfig& config_;
  const std::vector<TraceRequest>& trace_;
  AutoscalePolicy& policy_;
  ReplayOptions options_;
  std::shared_ptr<core::VirtualClock> clock_;
  RequestQueue queue_;
  WorkerPool pool_;
  Dispatcher dispatcher_;
  std::priority_queue<Finish, std::vector<Finish>, std::greater<>> finishes_;
  std::vector<std::size_t> trace_index_;  // request id - 1 -> trace line
  std::size_t next_arrival_ = 0;
  core::Timestamp next_tick_;
  std::int64_t arrivals_ = 0;
  core::Duration arrived_work_;
  core::Timestamp start_;
  ReplayReport report_;
};

core::Timestamp Simulation::next_time() const {
  core::Timestamp t = next_tick_;
  if (next_arrival_ < trace_.size()) t = std::min(t, trace_[next_arrival_].at);
  if (!finishes_.empty()) t = std::min(t, finishes_.top().at);
  if (auto w = pool_.next_change()) t = std::min(t, *w);
  return t;
}

void Simulation::arrive(const TraceRequest& r, std::size_t index) {
  Submission s;
  s.tenant = options_.tenant;
  s.priority = options_.priority;
  s.estimated_compute = config_.service.duration(r.context_tokens, r.generated_tokens);
  EnqueueResult e = queue_.enqueue(s);
  if (!e.ok()) {
    ++report_.refusals[std::string(to_string(*e.refusal))];
    if (*e.refusal == Refusal::EstimatedWaitOverSla) ++report_.sla_misses;
    return;
  }
  trace_index_.push_back(index);
  ++arrivals_;
  arrived_work_ = arrived_work_ + s.estimated_compute;
}

void Simulation::finish(const Finish& f) {
  const QueuedRequest* r = queue_.get(f.request);
  // Stale when the request was preempted or failed and has run again since.
  if (r == nullptr || r->status != QueueStatus::Processing || r->assigned_worker != f.worker || r->started_at != f.started) return;
  if (f.at - f.started >= r->max_process) {
    (void)queue_.fail(f.request, "processing took longer than sla.max_process_seconds");
  } else {
    (void)queue_.complete(f.request);
  }
  pool_.release(f.worker, f.request);
}

void Simulation::tick() {
  Observation o;
  o.now = clock_->now();
  o.workers = pool_.size();
  o.ready = pool_.ready();
  o.starting = pool_.starting();
  o.busy = pool_.busy();
  o.pending = queue_.depth();
  o.in_flight = queue_.in_flight();
  o.arrivals = arrivals_;
  o.arrived_work = arrived_work_;
  arrivals_ = 0;
  arrived_work_ = core::Duration();
  pool_.scale_to(policy_.desired(o));
  report_.max_idle_workers = std::max<std::int64_t>(report_.max_idle_workers, pool_.ready() - pool_.busy());
  next_tick_ = next_tick_ + options_.tick;
}

void Simulation::dispatch() {
  for (const Assignment& a : dispatcher_.dispatch()) {
    if (a.placement == Placement::Preempted) ++report_.preemptions;
    const TraceRequest& t = trace_[trace_index_[a.request - 1]];
    const core::Duration service = config_.service.duration(t.context_tokens, t.generated_tokens);
    const core::Timestamp now = clock_->now();
    finishes_.push({now + std::min(service, config_.sla.max_process), a.request, a.worker, now});
  }
}

void Simulation::step(core::Timestamp now) {
  clock_->set(now);
  pool_.advance();
  while (!finishes_.empty() && finishes_.top().at <= now) {
    const Finish f = finishes_.top();
    finishes_.pop();
    finish(f);
  }
  while (next_arrival_ < trace_.size() && trace_[next_arrival_].at <= now) {
    arrive(trace_[next_arrival_], next_arrival_);
    ++next_arrival_;
  }
  (void)queue_.expire();
  if (now >= next_tick_) tick();
  dispatch();
  record_scaling();
}

// Runs at every event of the replay: the busy count (a walk over the workers) only for a change.
void Simulation::record_scaling() {
  const ScalePoint& last = report_.scaling.back();
  const int workers = pool_.size(), ready = pool_.ready();
  if (workers == last.workers && ready == last.ready) return;
  report_.scaling.push_back(
      {seconds(clock_->now() - start_), workers, ready, pool_.busy(), static_cast<std::int64_t>(queue_.depth())});
}

// Ticks on with no traffic until the policy has brought the pool down to its minimum.
void Simulation::scale_down() {
  const core::Timestamp limit = clock_->now() + core::Duration::seconds(24 * 3600);
  while (pool_.size() > config_.warm_pool.min_warm_workers && clock_->now() < limit) step(next_time());
}

ReplayReport Simulation::run() {
  report_.endpoint = config_.name;
  report_.policy = std::string(policy_.name());
  report_.requests = static_cast<std::int64_t>(trace_.size());
  if (trace_.empty()) return report_;
  start_ = trace_.front().at;
  next_tick_ = start_;
  report_.scaling.push_back({});
  while (next_arrival_ < trace_.size() || queue_.depth() > 0 || queue_.in_flight() > 0) step(next_time());
  if (options_.until_scaled_down) scale_down();
  const core::Timestamp end = clock_->now();
  report_.virtual_seconds = seconds(end - start_);
  report_.metering = pool_.meter();
  std::vector<double> waits, e2e;
  for (const QueuedRequest& r : queue_.requests()) {
    ++report_.admitted;
    if (r.status == QueueStatus::Completed) {
      ++report_.completed;
      waits.push_back(seconds(r.started_at - r.enqueued_at));
      e2e.push_back(seconds(r.completed_at - r.enqueued_at));
    } else if (r.status == QueueStatus::Timeout) {
      ++report_.timeouts;
      ++report_.sla_misses;
    } else if (r.status == QueueStatus::Failed) {
      ++report_.failed;
    }
  }
  report_.dead_letters = static_cast<std::int64_t>(queue_.dead_letters().size());
  report_.wait = summarize(std::move(waits));
  report_.end_to_end = summarize(std::move(e2e));
  return report_;
}

core::Value latency_value(const LatencySummary& s) {
  return core::Value(core::Map{{"p50", core::Value(s.p50)},
                               {"p95", core::Value(s.p95)},
                               {"p99", core::Value(s.p99)},
                               {"max", core::Value(s.max)},
                               {"mean", core::Value(s.mean)}});
}

core::Value scaling_value(const std::vector<ScalePoint>& points) {
  core::List out;
  for (const ScalePoint& p : points) {
    out.emplace_back(core::Map{{"at_seconds", core::Value(p.at_seconds)},
                               {"workers", core::Value(p.workers)},
                               {"ready", core::Value(p.ready)},
                               {"busy", core::Value(p.busy)},
                               {"pending", core::Value(p.pending)}});
  }
  return core::Value(std::move(out));
}

}  // namespace

core::Result<ReplayReport> replay(const EndpointConfig& endpoint, const std::vector<TraceRequest>& trace,
                                  AutoscalePolicy& policy, const ReplayOptions& options) {
  if (options.tick <= core::Duration()) {
    return core::Error::invalid("tick", options.tick.to_string(), "the control-loop tick must be positive");
  }
  Simulation sim(endpoint, trace, policy, options);
  return sim.run();
}

core::Result<std::vector<ReplayReport>> replay_all(const EndpointConfig& endpoint, const std::vector<TraceRequest>& trace,
                                                  std::vector<std::unique_ptr<AutoscalePolicy>>& policies,
                                                  const ReplayOptions& options) {
  std::vector<ReplayReport> out;
  for (auto& p : policies) {
    BUDCORE_TRY_ASSIGN(ReplayReport r, replay(endpoint, trace, *p, options));
    out.push_back(std::move(r));
  }
  return out;
}

core::Value to_value(const ReplayReport& r) {
  core::Map refusals;
  for (const auto& [k, n] : r.refusals) refusals.set(k, core::Value(static_cast<std::int64_t>(n)));
  const Metering& m = r.metering;
  const auto n = [](std::int64_t v) { return core::Value(static_cast<std::int64_t>(v)); };
  return core::Value(core::Map{
      {"endpoint", core::Value(r.endpoint)},
      {"policy", core::Value(r.policy)},
      {"requests", n(r.requests)},
      {"admitted", n(r.admitted)},
      {"completed", n(r.completed)},
      {"timeouts", n(r.timeouts)},
      {"failed", n(r.failed)},
      {"dead_letters", n(r.dead_letters)},
      {"sla_misses", n(r.sla_misses)},
      {"refusals", core::Value(std::move(refusals))},
      {"preemptions", n(r.preemptions)},
      {"wait_seconds", latency_value(r.wait)},
      {"end_to_end_seconds", latency_value(r.end_to_end)},
      {"cold_starts", n(m.cold_starts)},
      {"failed_starts", n(m.failed_starts)},
      {"peak_workers", n(m.peak_workers)},
      {"max_idle_workers", n(r.max_idle_workers)},
      {"busy_gpu_seconds", core::Value(m.busy_gpu_seconds)},
      {"idle_gpu_seconds", core::Value(m.idle_gpu_seconds)},
      {"starting_gpu_seconds", core::Value(m.starting_gpu_seconds)},
      {"billed_gpu_seconds", n(m.billed_gpu_seconds)},
      {"cost", core::Value(m.cost.amount_string(2))},
      {"currency", core::Value(m.cost.currency())},
      {"virtual_seconds", core::Value(r.virtual_seconds)},
      {"scaling", scaling_value(r.scaling)},
  });
}

core::Value reports_document(const std::vector<ReplayReport>& reports) {
  core::List rows;
  for (const auto& r : reports) rows.push_back(to_value(r));
  return core::Value(core::Map{{"reports", core::Value(std::move(rows))}});
}

core::Result<std::vector<std::unique_ptr<AutoscalePolicy>>> make_policies(std::string_view text,
                                                                          const EndpointConfig& c,
                                                                          std::string_view field) {
  std::vector<std::string_view> names;
  if (text == "all") {
    names.assign(std::begin(kPolicyNames), std::end(kPolicyNames));
  } else {
    std::size_t start = 0;
    while (true) {
      std::size_t end = text.find(',', start);
      names.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
      if (end == std::string_view::npos) break;
      start = end + 1;
    }
  }
  std::vector<std::unique_ptr<AutoscalePolicy>> out;
  for (std::string_view name : names) {
    auto p = make_policy(name, c, field);
    if (!p) return std::move(p).error();
    out.push_back(std::move(*p));
  }
  return out;
}

std::string to_table(const std::vector<ReplayReport>& reports) {
  static constexpr const char* kHead[] = {"policy",   "done",    "wait p50", "wait p95", "wait p99", "e2e p50",
                                          "e2e p95",  "e2e p99", "sla miss", "cold",     "failed",   "dead",     "busy GPU-s",
                                          "idle+cold GPU-s", "cost"};
  constexpr std::size_t kCols = std::size(kHead);
  std::vector<std::vector<std::string>> rows;
  rows.emplace_back(std::begin(kHead), std::end(kHead));
  const auto f = [](double v, int prec) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", prec, v);
    return std::string(buf);
  };
  for (const ReplayReport& r : reports) {
    const Metering& m = r.metering;
    rows.push_back({r.policy, std::to_string(r.completed), f(r.wait.p50, 2), f(r.wait.p95, 2), f(r.wait.p99, 2),
                    f(r.end_to_end.p50, 2), f(r.end_to_end.p95, 2), f(r.end_to_end.p99, 2), std::to_string(r.sla_misses),
                    std::to_string(m.cold_starts), std::to_string(m.failed_starts), std::to_string(r.dead_letters), f(m.busy_gpu_seconds, 0),
                    f(m.idle_gpu_seconds + m.starting_gpu_seconds, 0), m.cost.round_to(2).to_string()});
  }
  std::size_t width[kCols] = {};
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < kCols; ++i) width[i] = std::max(width[i], row[i].size());
  }
  std::string out;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    for (std::size_t i = 0; i < kCols; ++i) {
      const std::string& cell = rows[k][i];
      const std::string pad(width[i] - cell.size(), ' ');
      out += i == 0 ? cell + pad : "  " + pad + cell;  // first column left, numbers right
    }
    out += '\n';
    if (k == 0) {
      for (std::size_t i = 0; i < kCols; ++i) out += (i ? "  " : "") + std::string(width[i], '-');
      out += '\n';
    }
  }
  return out;
}

}  // namespace budcore::serverless
