#include "budcore/serverless/worker_pool.hpp"

#include <algorithm>

#include "budcore/core/int128.hpp"

namespace budcore::serverless {

WorkerPool::WorkerPool(EndpointConfig config, std::shared_ptr<const core::Clock> clock)
    : config_(std::move(config)), clock_(std::move(clock)) {}

Worker* WorkerPool::find(WorkerId id) noexcept { return id == 0 || id > workers_.size() ? nullptr : &workers_[id - 1]; }

void WorkerPool::account(Worker& w, core::Timestamp now) {
  if (w.stopped || now <= w.accounted_at) return;
  const std::int64_t ns = (now - w.accounted_at).count_ns();
  if (!w.ready) {
    w.starting_ns += ns;
  } else if (w.running.empty()) {
    w.idle_ns += ns;
  } else {
    w.busy_ns += ns;
  }
  w.accounted_at = now;
}

void WorkerPool::stop(Worker& w, core::Timestamp now) {
  account(w, now);
  w.stopped = true;
  w.stopped_at = now;
  --live_;
}

std::optional<WorkerId> WorkerPool::cold_start() {
  if (live_ >= config_.warm_pool.max_warm_workers) return std::nullopt;
  const core::Timestamp now = clock_->now();
  Worker w;
  w.id = workers_.size() + 1;
  w.created_at = now;
  w.ready_at = now + config_.cold_start.duration();
  w.accounted_at = now;
  workers_.push_back(std::move(w));
  ++live_;
  ++cold_starts_;
  peak_ = std::max<std::int64_t>(peak_, live_);
  return workers_.back().id;
}

std::vector<WorkerId> WorkerPool::advance() {
  std::vector<WorkerId> became_ready;
  const core::Timestamp now = clock_->now();
  const core::Duration limit = config_.warm_pool.warmup_timeout;
  for (Worker& w : workers_) {
    if (w.stopped || w.ready) continue;
    if (w.ready_at - w.created_at > limit) {
      if (now - w.created_at >= limit) {  // never warms in time: given up as a failed start
        stop(w, w.created_at + limit);
        ++failed_starts_;
      }
      continue;
    }
    if (w.ready_at <= now) {
      account(w, w.ready_at);
      w.ready = true;
      w.idle_since = w.ready_at;
      account(w, now);
      became_ready.push_back(w.id);
    }
  }
  return became_ready;
}

std::optional<core::Timestamp> WorkerPool::next_change() const {
  std::optional<core::Timestamp> next;
  for (const Worker& w : workers_) {
    if (w.stopped || w.ready) continue;
    const core::Timestamp t = std::min(w.ready_at, w.created_at + config_.warm_pool.warmup_timeout);
    if (!next || t < *next) next = t;
  }
  return next;
}

std::optional<WorkerId> WorkerPool::warm_slot() const {
  const auto cap = static_cast<std::size_t>(config_.concurrency_per_worker);
  const Worker* best = nullptr;
  for (const Worker& w : workers_) {
    if (w.stopped || !w.ready || w.running.size() >= cap) continue;
    if (best == nullptr || w.running.size() > best->running.size()) best = &w;
  }
  return best == nullptr ? std::nullopt : std::optional<WorkerId>(best->id);
}

std::optional<std::pair<WorkerId, RequestId>> WorkerPool::preemption_victim(Priority p) const {
  std::optional<std::pair<WorkerId, RequestId>> victim;
  Priority lowest = p;
  for (const Worker& w : workers_) {
    if (w.stopped || !w.ready) continue;
    for (const auto& [r, rp] : w.running) {
      // Lower class means a larger enum value; among equals the latest started (largest id) loses least work.
      if (rp > lowest || (victim && rp == lowest && r > victim->second)) {
        lowest = rp;
        victim = std::make_pair(w.id, r);
      }
    }
  }
  return victim;
}

void WorkerPool::occupy(WorkerId id, RequestId r, Priority p) {
  Worker* w = find(id);
  if (w == nullptr || w->stopped) return;
  account(*w, clock_->now());
  w->running.emplace_back(r, p);
}

void WorkerPool::release(WorkerId id, RequestId r) {
  Worker* w = find(id);
  if (w == nullptr) return;
  const core::Timestamp now = clock_->now();
  account(*w, now);
  auto it = std::find_if(w->running.begin(), w->running.end(), [r](const auto& e) { return e.first == r; });
  if (it == w->running.end()) return;
  w->running.erase(it);
  if (w->running.empty()) w->idle_since = now;
}

int WorkerPool::scale_to(int desired) {
  desired = std::clamp(desired, config_.warm_pool.min_warm_workers, config_.warm_pool.max_warm_workers);
  while (live_ < desired && cold_start()) {
  }
  if (live_ <= desired) return live_;
  std::vector<Worker*> idle;
  for (Worker& w : workers_) {
    if (!w.stopped && w.ready && w.running.empty()) idle.push_back(&w);
  }
  std::sort(idle.begin(), idle.end(), [](const Worker* a, const Worker* b) {
    return a->idle_since != b->idle_since ? a->idle_since < b->idle_since : a->id < b->id;
  });
  const core::Timestamp now = clock_->now();
  for (Worker* w : idle) {
    if (live_ <= desired) break;
    stop(*w, now);
  }
  return live_;
}

int WorkerPool::ready() const noexcept {
  int n = 0;
  for (const Worker& w : workers_) n += !w.stopped && w.ready;
  return n;
}

int WorkerPool::busy() const noexcept {
  int n = 0;
  for (const Worker& w : workers_) n += !w.stopped && !w.running.empty();
  return n;
}

std::int64_t WorkerPool::slots() const noexcept { return std::int64_t{live_} * config_.concurrency_per_worker; }
std::int64_t WorkerPool::starting_slots() const noexcept {
  return std::int64_t{starting()} * config_.concurrency_per_worker;
}

core::Duration WorkerPool::next_ready_in() const {
  if (ready() > 0) return core::Duration();
  if (auto t = next_change()) return std::max(core::Duration(), *t - clock_->now());
  return config_.cold_start.duration();
}

Metering WorkerPool::meter() {
  const core::Timestamp now = clock_->now();
  Metering m;
  const int gpus = config_.gpus_per_worker;
  std::int64_t billed = 0;
  for (Worker& w : workers_) {
    account(w, now);
    m.busy_gpu_seconds += static_cast<double>(w.busy_ns) * gpus / 1e9;
    m.idle_gpu_seconds += static_cast<double>(w.idle_ns) * gpus / 1e9;
    m.starting_gpu_seconds += static_cast<double>(w.starting_ns) * gpus / 1e9;
    const std::int64_t life_ns = ((w.stopped ? w.stopped_at : now) - w.created_at).count_ns();
    billed += (life_ns + 999'999'999) / 1'000'000'000 * gpus;
  }
  m.billed_gpu_seconds = billed;
  // price per hour x seconds / 3600, exact in pico-units (half up).
  const core::int128 units = config_.price_per_gpu_hour.units() * billed;
  m.cost = core::Money::from_units((units + 1800) / 3600, config_.price_per_gpu_hour.currency());
  m.cold_starts = cold_starts_;
  m.failed_starts = failed_starts_;
  m.peak_workers = peak_;
  return m;
}

void Dispatcher::refresh_capacity() {
  queue_.set_capacity({pool_.slots(), pool_.next_ready_in()});
}

std::vector<Assignment> Dispatcher::dispatch() {
  std::vector<Assignment> out;
  while (auto head = queue_.peek()) {
    const Priority p = queue_.get(*head)->priority;
    Assignment a;
    a.request = *head;
    if (auto w = pool_.warm_slot()) {
      a.worker = *w;
    } else if (queue_.depth() > pool_.starting_slots() && pool_.cold_start()) {
      // Start as many as the queue needs beyond the slots already coming, then wait for them.
      while (queue_.depth() > pool_.starting_slots() && pool_.cold_start()) {
      }
      break;
    } else if (pool_.starting_slots() > 0) {
      break;  // a worker is on its way
    } else if (auto v = pool_.preemption_victim(p)) {
      (void)queue_.requeue(v->second);
      pool_.release(v->first, v->second);
      a.worker = v->first;
      a.placement = Placement::Preempted;
      a.preempted = v->second;
    } else {
      break;
    }
    (void)queue_.assign(a.request, a.worker);
    (void)queue_.start(a.request);
    pool_.occupy(a.worker, a.request, p);
    out.push_back(a);
  }
  refresh_capacity();
  return out;
}

}  // namespace budcore::serverless
