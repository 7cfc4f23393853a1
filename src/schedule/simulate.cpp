// The discrete-event simulation behind schedule::Timeline. Events: a job's end, a submission, a
// window opening or closing, a dependency in a tree not being simulated ending. At each instant
// every event is applied first (ends release quota), newly eligible jobs join their queues, and
// then each touched cohort tree's engine runs cycles until one changes nothing -- exactly what
// `quota simulate` with "until_quiescent" does on the same state.
#include <algorithm>
#include <queue>

#include "budcore/core/quantity.hpp"
#include "schedule/timeline_impl.hpp"

namespace budcore::schedule {

using core::Error;
using core::Timestamp;
using State = Job::State;

namespace {

enum class Kind { End, Submit, WindowOpen, WindowClose, DepEnd };

struct Event {
  Timestamp at;
  std::uint64_t seq;
  Kind kind;
  int job;
  std::uint64_t gen;
  bool operator>(const Event& o) const { return at != o.at ? at > o.at : seq > o.seq; }
};

std::string seconds_text(Timestamp t) {
  std::int64_t us = t.unix_nanos() / 1000;
  std::string s = std::to_string(us / 1'000'000);
  if (std::int64_t frac = us % 1'000'000; frac != 0) {
    std::string f = std::to_string(frac < 0 ? -frac : frac);
    f = std::string(6 - f.size(), '0') + f;
    while (!f.empty() && f.back() == '0') f.pop_back();
    s += "." + f;
  }
  return s;
}

// The admitted usage of a workload: (cluster queue, flavor, resource) -> milli-units.
// Sorted by key. A flat list: a workload has a few (pod set, resource) pairs, and one is built
// for every admission.
std::vector<std::pair<UsageKey, std::int64_t>> usage_of(const quota::Workload& w, const quota::Admission& a) {
  std::vector<std::pair<UsageKey, std::int64_t>> sum;
  for (const auto& ps : w.pod_sets) {
    std::int32_t count = ps.count;
    if (auto c = a.count.find(ps.name); c != a.count.end()) count = c->second;
    auto fl = a.flavors.find(ps.name);
    if (fl == a.flavors.end()) continue;
    for (const auto& [res, q] : ps.requests.items()) {
      auto f = fl->second.find(res);
      auto milli = q.milli_value();
      if (f == fl->second.end() || !milli || *milli == 0) continue;
      std::int64_t total;
      if (__builtin_mul_overflow(*milli, static_cast<std::int64_t>(count), &total)) total = INT64_MAX;
      auto it = sum.begin();  // the queue is the same in all
      while (it != sum.end() && !(std::get<1>(it->first) == f->second && std::get<2>(it->first) == res)) ++it;
      if (it == sum.end()) it = sum.insert(sum.end(), {UsageKey{a.cluster_queue, f->second, res}, 0});
      if (__builtin_add_overflow(it->second, total, &it->second)) it->second = INT64_MAX;
    }
  }
  std::sort(sum.begin(), sum.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  return sum;
}

class Simulation {
 public:
  Simulation(Timeline::Impl& m, const std::set<int>& trees) : m_(m), trees_(trees) {}

  core::Status run() {
    for (int t : trees_) {
      auto e = quota::AdmissionEngine::create(m_.trees[t].config, m_.options);
      if (!e) return std::move(e).error().at("config");
      e->reserve(m_.trees[t].jobs.size());
      engines_.emplace(t, std::move(*e));
    }
    horizon_end_ = m_.now + m_.horizon;
    BUDCORE_TRY(start());
    while (!events_.empty()) {
      Timestamp t = events_.top().at;
      if (t > horizon_end_) break;
      while (!events_.empty() && events_.top().at == t) {
        Event ev = events_.top();
        events_.pop();
        BUDCORE_TRY(apply(ev, t));
      }
      BUDCORE_TRY(settle(t));
    }
    finish_never();
    return {};
  }

 private:
  bool in_sim(int j) const { return m_.jobs[j].tree >= 0 && trees_.count(m_.jobs[j].tree) > 0; }
  quota::AdmissionEngine& engine(int j) { return engines_.at(m_.jobs[j].tree); }
  void push(Timestamp at, Kind k, int j, std::uint64_t gen = 0) { events_.push(Event{at, seq_++, k, j, gen}); }

  void reset(Job& j) {
    j.state = State::Waiting;
    j.runs.clear();
    j.preempted_at = j.actual_preemptions;
    j.cluster_queue.clear();
    j.flavors.clear();
    j.wait = WaitReason::None;
    j.wait_detail.clear();
    j.never_reason.clear();
    j.blocked_behind = {};
    j.submitted = false;
    j.deps_left = 0;
    j.enter_cause = WaitReason::None;
    j.enter_detail.clear();
    j.needs_reason = false;
    ++j.end_gen;
    ++j.close_gen;
    ++j.open_gen;
  }

  void set_admission(Job& j, quota::Admission a) {
    j.runs.back().usage = usage_of(j.in.workload, a);
    j.cluster_queue = std::move(a.cluster_queue);
    j.flavors = std::move(a.flavors);
  }

  core::Status start() {
    for (int t : trees_) {
      m_.trees[t].warnings.clear();
      for (int j : m_.trees[t].jobs) reset(m_.jobs[j]);
    }
    // Facts first: finished jobs are done, running ones hold quota from the start.
    for (int t : trees_)
      for (int ji : m_.trees[t].jobs) {
        Job& j = m_.jobs[ji];
        if (ended(j.fact)) {
          j.state = State::Done;
          j.end = j.actual_end;
          if (j.in.workload.admitted) {  // it ran: keep its actual run for the pictures
            j.start = j.in.started_at;
            j.runs.push_back({j.start, j.end, {}});
            set_admission(j, *j.in.workload.admitted);
          }
          continue;
        }
        if (j.fact != Fact::Running) continue;
        quota::Workload w = j.in.workload;
        if (auto st = engine(ji).add_workload(w); !st) return std::move(st).error().at(j.name);
        j.state = State::Running;
        j.start = j.in.started_at;
        j.end = std::max(m_.now, j.in.started_at + j.in.duration);
        j.runs.push_back({j.start, j.end, {}});
        set_admission(j, *w.admitted);
        push(j.end, Kind::End, ji, j.end_gen);
      }
    // Pending jobs: submissions, dependencies, windows.
    for (int t : trees_)
      for (int ji : m_.trees[t].jobs) {
        Job& j = m_.jobs[ji];
        if (j.fact != Fact::Pending) continue;
        for (int d : j.deps) {
          const Job& dep = m_.jobs[d];
          if (dep.fact == Fact::Finished) continue;
          if (dep.fact == Fact::Failed || dep.fact == Fact::Cancelled) {
            j.never_reason = "depends on " + dep.name + ", which " + (dep.fact == Fact::Failed ? "failed" : "was cancelled");
            continue;
          }
          ++j.deps_left;
          if (in_sim(d)) continue;
          // A dependency in a tree not simulated now: its estimate stands.
          if (dep.state == State::Never || (dep.state != State::Running && dep.state != State::Done)) {
            j.never_reason = "depends on " + dep.name + ", which never runs";
            continue;
          }
          push(std::max(m_.now, dep.end), Kind::DepEnd, ji);
        }
        if (!j.never_reason.empty()) continue;
        Timestamp submit = j.in.submit_at ? std::max(*j.in.submit_at, m_.now) : m_.now;
        push(submit, Kind::Submit, ji);
      }
    return {};
  }

  void try_enter(int ji, Timestamp t, WaitReason cause, std::string detail) {
    Job& j = m_.jobs[ji];
    if (j.state != State::Waiting || !j.submitted || j.deps_left > 0 || !j.never_reason.empty()) return;
    if (j.clock && !j.clock->open(t)) {
      j.enter_cause = WaitReason::Window;
      const Window& w = j.clock->window();
      j.enter_detail = "window " + w.start.to_string() + "-" + w.end.to_string() + " " + w.zone;
      push(j.clock->next_open(t), Kind::WindowOpen, ji, ++j.open_gen);
      return;
    }
    if (cause != WaitReason::None) {
      j.enter_cause = cause;
      j.enter_detail = std::move(detail);
    }
    // Validated when the timeline was built. A job running in fact but preempted here comes
    // back without its admission.
    if (!j.in.workload.admitted) {
      (void)engine(ji).add_workload(j.in.workload);
    } else {
      quota::Workload w = j.in.workload;
      w.admitted.reset();
      (void)engine(ji).add_workload(w);
    }
    j.state = State::Queued;
    j.needs_reason = true;
    touched_.insert(j.tree);
    entered_.push_back(ji);
    if (j.clock)
      if (auto close = j.clock->next_close(t)) push(*close, Kind::WindowClose, ji, ++j.close_gen);
  }

  void dependency_ended(int ji, Timestamp t, const std::string& dep_name) {
    Job& j = m_.jobs[ji];
    if (j.deps_left > 0 && --j.deps_left == 0) try_enter(ji, t, WaitReason::Dependency, "waited for " + dep_name + " to end");
  }

  core::Status apply(const Event& ev, Timestamp t) {
    Job& j = m_.jobs[ev.job];
    switch (ev.kind) {
      case Kind::End: {
        if (ev.gen != j.end_gen || j.state != State::Running) return {};
        BUDCORE_TRY(engine(ev.job).finish(j.key));
        j.state = State::Done;
        j.end = t;
        touched_.insert(j.tree);
        for (int d : j.dependents)
          if (in_sim(d)) dependency_ended(d, t, j.name);
        return {};
      }
      case Kind::DepEnd: {
        std::string name;
        for (int d : j.deps)
          if (!in_sim(d) && m_.jobs[d].end == t) name = m_.jobs[d].name;
        dependency_ended(ev.job, t, name);
        return {};
      }
      case Kind::Submit:
        j.submitted = true;
        try_enter(ev.job, t, WaitReason::None, {});
        return {};
      case Kind::WindowOpen:
        if (ev.gen == j.open_gen) try_enter(ev.job, t, WaitReason::None, {});
        return {};
      case Kind::WindowClose:
        if (ev.gen != j.close_gen || j.state != State::Queued) return {};
        BUDCORE_TRY(engine(ev.job).withdraw(j.key));
        j.state = State::Waiting;
        touched_.insert(j.tree);
        try_enter(ev.job, t, WaitReason::None, {});
        return {};
    }
    return {};
  }

  void admitted(int ji, Timestamp t) {
    Job& j = m_.jobs[ji];
    auto s = engine(ji).status(j.key);
    j.state = State::Running;
    j.start = t;
    j.end = t + j.in.duration;
    j.runs.push_back({t, j.end, {}});
    if (s && s->admission) set_admission(j, std::move(*s->admission));
    ++j.close_gen;  // an admitted job no longer cares about its window closing
    // Admitted the instant it joined its queue: it waited only for what held it back before
    // (a dependency, its window). Jobs that stayed queued were marked Quota in settle().
    if (j.wait == WaitReason::None) {
      j.wait = j.enter_cause;
      j.wait_detail = j.enter_detail;
    }
    j.needs_reason = false;
    push(j.end, Kind::End, ji, ++j.end_gen);
  }

  void preempted(int ji, Timestamp t) {
    Job& j = m_.jobs[ji];
    j.state = State::Queued;
    if (!j.runs.empty()) j.runs.back().end = t;
    j.preempted_at.push_back(t);
    ++j.end_gen;
    requeued_.push_back(ji);
  }

  core::Status settle(Timestamp t) {
    preemptions_now_.clear();
    for (int round = 0; !touched_.empty(); ++round) {
      std::set<int> trees = std::move(touched_);
      touched_.clear();
      for (int tree : trees) {
        auto& eng = engines_.at(tree);
        const std::int64_t budget = 16 * static_cast<std::int64_t>(m_.trees[tree].jobs.size()) + 1000;
        for (std::int64_t cycles = 0;;) {
          if (cycles > budget)
            return Error::make(core::ErrorCode::Internal,
                               "the simulation did not settle at " + seconds_text(t) + " s after " + std::to_string(budget) +
                                   " admission cycles (a preemption loop?)",
                               "workloads");
          std::int64_t ran = 0;
          quota::CycleReport rep = eng.run_until_decision(&ran);
          cycles += ran;
          const auto& job_of_key = m_.trees[tree].job_of_key;
          for (const auto& k : rep.admitted) admitted(job_of_key.at(k), t);
          bool livelock = false;
          for (const auto& k : rep.preempted) {
            int ji = job_of_key.at(k);
            preempted(ji, t);
            // Re-admitted and preempted again within one instant, over and over: Kueue's order
            // can do that (the victim sorts before its preemptor once its quota is free). Stop
            // cycling this instant rather than spin; the next event resumes from here.
            if (++preemptions_now_[ji] == kMaxPreemptionsPerInstant) {
              livelock = true;
              m_.trees[tree].warnings.push_back(m_.jobs[ji].name + ": preempted " + std::to_string(kMaxPreemptionsPerInstant) +
                                                " times at " + seconds_text(t) +
                                                " s (re-admitted and preempted again each cycle); estimates after it are approximate");
            }
          }
          if (!rep.changed || livelock) break;
        }
      }
      // Preempted jobs whose window has closed leave the queue until it opens again.
      for (int ji : std::exchange(requeued_, {})) {
        Job& j = m_.jobs[ji];
        if (j.state != State::Queued || !j.clock || j.clock->open(t)) continue;
        (void)engine(ji).withdraw(j.key);
        j.state = State::Waiting;
        touched_.insert(j.tree);
        try_enter(ji, t, WaitReason::None, {});
      }
      if (round > 1000) return Error::make(core::ErrorCode::Internal, "the simulation did not settle", "workloads");
    }
    // Jobs that joined a queue now and stay pending: remember why (the engine's reason).
    for (int ji : std::exchange(entered_, {})) {
      Job& j = m_.jobs[ji];
      if (j.state != State::Queued || !j.needs_reason) continue;
      j.needs_reason = false;
      if (auto s = engine(ji).status(j.key)) {
        j.wait = WaitReason::Quota;
        j.wait_detail = std::move(s->pending_reason);
      }
    }
    return {};
  }

  // Why a job that is neither running nor done at the end can never run (within the horizon).
  // `blocked_behind` gets the StrictFIFO head the job never passes, when that is the reason.
  std::string never_reason(int ji, std::set<int>& seen, QueueBlocker& blocked_behind) {
    Job& j = m_.jobs[ji];
    if (!j.never_reason.empty()) return j.never_reason;
    if (!seen.insert(ji).second) return "waits on itself";
    std::string horizon = "the horizon (" + seconds_text(horizon_end_) + ")";
    for (int d : j.deps) {
      const Job& dep = m_.jobs[d];
      if (dep.state == State::Done || (dep.state == State::Running && dep.end <= horizon_end_)) continue;
      if (dep.state == State::Running) return "depends on " + dep.name + ", which ends after " + horizon;
      return "depends on " + dep.name + ", which never runs";
    }
    if (j.in.submit_at && *j.in.submit_at > horizon_end_) return "submitted after " + horizon;
    if (j.state == State::Waiting && j.clock) return "its window does not open before " + horizon;
    if (j.state == State::Queued) {
      std::string why = impossible(ji);
      if (!why.empty()) return why;
      auto s = engine(ji).status(j.key);
      std::string pending = s ? s->pending_reason : "";
      if (std::string head = strict_fifo_blocker(ji); !head.empty()) {
        blocked_behind = QueueBlocker{head, queue_of(ji)};
        return "blocked behind " + head + " in StrictFIFO ClusterQueue " + queue_of(ji) + " (" + head + " can never be admitted)";
      }
      if (!events_.empty()) return "not admitted before " + horizon + (pending.empty() ? "" : ": " + pending);
      return pending.empty() ? "never admitted" : pending;
    }
    return "not admitted before " + horizon;
  }

  std::string queue_of(int ji) const {
    const Job& j = m_.jobs[ji];
    for (const auto& lq : m_.trees[j.tree].config.local_queues)
      if (lq.namespace_ == j.in.workload.namespace_ && lq.name == j.in.workload.queue) return lq.cluster_queue;
    return {};
  }

  // In a StrictFIFO queue, the job ahead of `ji` that can never be admitted (it blocks the rest).
  std::string strict_fifo_blocker(int ji) {
    const Job& j = m_.jobs[ji];
    std::string cq = queue_of(ji);
    bool strict = false;
    for (const auto& q : m_.trees[j.tree].config.cluster_queues)
      if (q.name == cq) strict = q.queueing_strategy == quota::QueueingStrategy::StrictFIFO;
    if (!strict) return {};
    const auto& me = j.in.workload;
    for (int other : m_.trees[j.tree].jobs) {
      const Job& o = m_.jobs[other];
      const auto& w = o.in.workload;
      bool ahead = w.priority != me.priority ? w.priority > me.priority
                                             : (w.creation_seq != me.creation_seq ? w.creation_seq < me.creation_seq : o.key < j.key);
      if (other == ji || o.state != State::Queued || !ahead || queue_of(other) != cq) continue;
      if (!impossible(other).empty()) return o.name;
    }
    return {};
  }

  // A job its queue could not admit even alone on an empty cluster: the reason, else "".
  std::string impossible(int ji) {
    const Job& j = m_.jobs[ji];
    auto empty = quota::AdmissionEngine::create(m_.trees[j.tree].config, m_.options);
    if (!empty) return {};
    quota::Workload w = j.in.workload;
    w.admitted.reset();
    auto fits = empty->try_reserve(w);
    if (fits) return {};
    for (auto& ps : w.pod_sets)
      if (ps.min_count) ps.count = *ps.min_count;
    if (empty->try_reserve(w)) return {};
    // Name the resource one pod set asks more of than any flavor of its queue can ever give
    // (pod sets are at min_count here).
    std::string cq;
    for (const auto& lq : m_.trees[j.tree].config.local_queues)
      if (lq.namespace_ == w.namespace_ && lq.name == w.queue) cq = lq.cluster_queue;
    for (const auto& q : m_.trees[j.tree].config.cluster_queues)
      if (q.name == cq)
        if (std::string why = empty->capacity_shortfall(q, w); !why.empty()) return why;
    return "can never be admitted: " + fits.error().message;
  }

  void finish_never() {
    // Reasons first (they look at other jobs' final states), then mark.
    struct Never {
      int job;
      std::string why;
      QueueBlocker blocked_behind;
    };
    std::vector<Never> never;
    for (int t : trees_)
      for (int ji : m_.trees[t].jobs) {
        Job& j = m_.jobs[ji];
        if (j.state == State::Running || j.state == State::Done) continue;
        std::set<int> seen;
        Never n{ji, {}, {}};
        n.why = never_reason(ji, seen, n.blocked_behind);
        never.push_back(std::move(n));
      }
    for (auto& n : never) {
      m_.jobs[n.job].never_reason = std::move(n.why);
      m_.jobs[n.job].blocked_behind = std::move(n.blocked_behind);
      m_.jobs[n.job].state = State::Never;
    }
  }

  Timeline::Impl& m_;
  const std::set<int>& trees_;
  std::map<int, quota::AdmissionEngine> engines_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::uint64_t seq_ = 0;
  Timestamp horizon_end_;
  std::set<int> touched_;
  std::vector<int> entered_, requeued_;
  std::map<int, int> preemptions_now_;  // job -> preemptions at the current instant
  static constexpr int kMaxPreemptionsPerInstant = 3;
};

}  // namespace

core::Status Timeline::Impl::simulate(const std::set<int>& which) {
  last_trees = static_cast<int>(which.size());
  Simulation sim(*this, which);
  BUDCORE_TRY(sim.run());
  collect(which);
  return {};
}

}  // namespace budcore::schedule
