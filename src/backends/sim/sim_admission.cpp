// SimCluster's queues and admission: feeding each ClusterQueue's first queued runs to the
// engine, the admission cycles, starts and ends on the clock, and timers.
#include <algorithm>

#include "backends/sim/sim_impl.hpp"
#include "budcore/core/json.hpp"

namespace budcore::backend {

using core::Error;
using core::ErrorCode;
using sim::kNanos;
using sim::Phase;
using sim::TimerKind;
using Impl = SimCluster::Impl;

namespace {
constexpr int kMaxCyclesPerAdmission = 1'000'000;
}  // namespace

// ---- queues and admission ----------------------------------------------------------------------

void Impl::refill(int cq) {
  auto& wait = waiting_heads[static_cast<std::size_t>(cq)];
  auto& heads = engine_heads[static_cast<std::size_t>(cq)];
  const std::size_t cap = options.admission_window;
  auto enter = [&](std::set<sim::QueueKey>::iterator it) {
    std::uint32_t slot = it->slot;
    wait.erase(it);
    auto st = engine->add_workload(workload_of(slot));
    if (!st) {  // cannot happen for a run add_run accepted; fail it rather than lose it
      ClusterEvent& e = emit(ClusterEventKind::Failed, slot, clock->now().unix_nanos());
      e.reason = "Rejected";
      e.message = st.error().describe();
      free_run(slot);
      return;
    }
    set_phase(slot, Phase::Heads);
    heads.insert(key_of(slot));
  };
  while (!wait.empty()) {
    if (heads.size() < cap) {
      enter(wait.begin());
      continue;
    }
    auto worst = std::prev(heads.end());
    if (*wait.begin() < *worst) {
      std::uint32_t out = worst->slot;
      heads.erase(worst);
      (void)engine->remove(engine_key(out));
      set_phase(out, Phase::Queued);
      wait.insert(key_of(out));
      enter(wait.begin());
      continue;
    }
    break;
  }
}

void Impl::refill_dirty() {
  for (std::size_t i = 0; i < dirty.size(); ++i) {
    if (!dirty[i]) continue;
    dirty[i] = 0;
    refill(static_cast<int>(i));
  }
}

void Impl::on_admitted(std::uint32_t slot, std::int64_t now) {
  sim::Run& r = runs[slot];
  engine_heads[static_cast<std::size_t>(lqs[r.lq].cq)].erase(key_of(slot));
  dirty[static_cast<std::size_t>(lqs[r.lq].cq)] = 1;
  auto status = engine->status(engine_key(slot));
  r.placement = std::make_unique<Placement>();
  if (status && status->admission) r.placement->admission = *status->admission;
  r.admitted_ns = now;
  set_phase(slot, Phase::Admitted);
  emit(ClusterEventKind::Admitted, slot, now).placement = *r.placement;
  if (place(slot)) {
    start(slot, now);
  } else {
    unplaced.push_back(slot);
  }
}

// Placed: the pod starts now, or after start_latency.
void Impl::start(std::uint32_t slot, std::int64_t now) {
  sim::Run& r = runs[slot];
  if (r.phase == Phase::Admitted && options.start_latency.count_ns() > 0) {
    set_phase(slot, Phase::Starting);
    schedule(slot, TimerKind::Start, now + options.start_latency.count_ns());
    return;
  }
  set_phase(slot, Phase::Running);
  r.started_ns = now;
  ClusterEvent& e = emit(ClusterEventKind::Started, slot, now);
  e.placement = *r.placement;
  e.outputs = outputs(slot);  // where it serves, known once it runs
  const std::int64_t after = ending(r).after;
  if (after != std::numeric_limits<std::int64_t>::max()) schedule(slot, TimerKind::End, core::detail::saturating_add(r.started_ns, after));
}

core::Value Impl::outputs(std::uint32_t slot) const {
  const sim::Run& r = runs[slot];
  core::Map out;
  out.set("job_id", r.job_id.to_string());
  out.set("url", "http://" + (r.name.empty() ? r.job_id.to_string() : r.name) + "." + lqs[r.lq].ns + ".svc.sim.local");
  out.set("node", r.placement && !r.placement->nodes.empty() ? core::Value(r.placement->nodes[0]) : core::Value());
  if (r.extras && r.extras->outputs.is_map())
    for (const auto& [k, v] : r.extras->outputs.as_map()) out.set(k, v);
  return core::Value(std::move(out));
}

void Impl::end_run(std::uint32_t slot, std::int64_t now) {
  sim::Run& r = runs[slot];
  const Ending how = ending(r);
  usage(slot, now);
  (void)engine->remove(engine_key(slot));
  release_node(slot);
  mark_tree_dirty();
  if (how.timeout) {
    ClusterEvent& e = emit(ClusterEventKind::Failed, slot, now);
    e.reason = "Timeout";
    e.message = "ran longer than max_duration_seconds (" + std::to_string(r.max_duration_ns / kNanos) + " s)";
  } else if (how.kind == ClusterEventKind::Failed) {
    ClusterEvent& e = emit(ClusterEventKind::Failed, slot, now);
    e.reason = "Error";
    e.message = r.extras && !r.extras->fail_message.empty() ? r.extras->fail_message : "simulated failure";
  } else {
    emit(ClusterEventKind::Succeeded, slot, now).outputs = outputs(slot);
  }
  free_run(slot);
}

void Impl::admission(std::int64_t now) {
  refill_dirty();
  for (int i = 0; i < kMaxCyclesPerAdmission; ++i) {
    quota::CycleReport rep = engine->run_until_decision();  // runs of failing cycles in one step
    auto slot_of = [&](const std::string& key) -> std::optional<std::uint32_t> {
      auto slash = key.rfind('/');
      auto id = core::Id::parse(std::string_view(key).substr(slash == std::string::npos ? 0 : slash + 1));
      if (!id) return std::nullopt;
      auto it = by_job.find(*id);
      if (it == by_job.end()) return std::nullopt;
      return it->second;
    };
    for (const auto& key : rep.released) {
      auto slot = slot_of(key);
      if (!slot || runs[*slot].phase != Phase::Evicting) continue;
      sim::Run& r = runs[*slot];
      int cq = lqs[r.lq].cq;
      emit(ClusterEventKind::Queued, *slot, now).reason = "Requeued";
      if (r.window && !r.window->contains(core::Timestamp::from_unix_nanos(now))) {
        (void)engine->remove(engine_key(*slot));
        enqueue(*slot, now);  // Waiting until the window opens again
      } else {
        set_phase(*slot, Phase::Heads);
        engine_heads[static_cast<std::size_t>(cq)].insert(key_of(*slot));
      }
      dirty[static_cast<std::size_t>(cq)] = 1;
    }
    for (const auto& key : rep.preempted) {
      auto slot = slot_of(key);
      if (!slot) continue;
      sim::Run& r = runs[*slot];
      if (r.phase == Phase::Running || r.phase == Phase::Starting) {
        usage(*slot, now);
        release_node(*slot);
      } else {
        unplaced.erase(std::remove(unplaced.begin(), unplaced.end(), *slot), unplaced.end());
      }
      set_phase(*slot, Phase::Evicting);
      ClusterEvent& e = emit(ClusterEventKind::Preempted, *slot, now);
      e.reason = "Preempted";
      e.message = "preempted to make room for a higher-priority workload in ClusterQueue " +
                  (r.placement ? r.placement->admission.cluster_queue : std::string("?"));
    }
    for (const auto& key : rep.admitted) {
      auto slot = slot_of(key);
      if (slot && runs[*slot].phase == Phase::Heads) on_admitted(*slot, now);
    }
    bool refilled = std::any_of(dirty.begin(), dirty.end(), [](char d) { return d != 0; });
    refill_dirty();
    place_waiting(now);
    if (!rep.changed && !refilled) break;
  }
}

void Impl::fire(const sim::Timer& t) {
  if (t.slot >= runs.size()) return;
  sim::Run& r = runs[t.slot];
  if (r.epoch != t.epoch || r.phase == Phase::Free) return;
  switch (t.kind) {
    case TimerKind::WindowOpen:
      if (r.phase == Phase::Waiting && r.gen == t.gen) enqueue(t.slot, t.at);
      break;
    case TimerKind::WindowClose:
      if ((r.phase == Phase::Queued || r.phase == Phase::Heads) && r.window &&
          !r.window->contains(core::Timestamp::from_unix_nanos(t.at))) {
        withdraw(t.slot);
        enqueue(t.slot, t.at);
      }
      break;
    case TimerKind::Start:
      if (r.phase == Phase::Starting && r.gen == t.gen) start(t.slot, t.at);
      break;
    case TimerKind::End:
      if (r.phase == Phase::Running && r.gen == t.gen) end_run(t.slot, t.at);
      break;
    case TimerKind::Deadline:
      if (!r.deadline_reported) {
        r.deadline_reported = true;
        ClusterEvent& e = emit(ClusterEventKind::DeadlineMissed, t.slot, t.at);
        e.reason = "DeadlineExceeded";
        e.message = "deadline " + core::Timestamp::from_unix_nanos(r.deadline_ns).to_string() + " passed before the job ended";
      }
      break;
  }
}

void Impl::advance(std::int64_t now) {
  for (;;) {
    if (timers.empty() || timers.top().at > now) break;
    const std::int64_t t = timers.top().at;
    while (!timers.empty() && timers.top().at == t) {
      sim::Timer timer = timers.top();
      timers.pop();
      fire(timer);
    }
    admission(t);
  }
  admission(now);
}

}  // namespace budcore::backend
