// Orchestrator: cron schedules. Each SCHEDULED pipeline keeps its own CronState and gets one
// decide_cron_run() per pump round; the orchestrator applies the decision and logs it.
#include <algorithm>
#include <limits>
#include <utility>

#include "pipeline/orchestrator_impl.hpp"

namespace budcore::pipeline {

using core::Timestamp;
using detail::OrchestratedPipeline;

namespace {

// Stands for "started by something other than this schedule" in CronState::active: it never
// equals a schedule time, so it only counts for the concurrency policy.
constexpr Timestamp kNotScheduled = Timestamp::from_unix_nanos(std::numeric_limits<std::int64_t>::min());

}  // namespace

std::vector<ActiveRun> Orchestrator::Impl::active_of(const std::string& pipeline) const {
  std::vector<ActiveRun> out;
  for (std::size_t i : open) {
    if (records[i].pipeline != pipeline || live[i].finish_handled || live[i].cancel_requested) continue;
    if (live[i].engine->done()) continue;
    bool cron = records[i].trigger == TriggerType::Scheduled && records[i].scheduled_time;
    out.push_back(ActiveRun{records[i].run_id, cron ? *records[i].scheduled_time : kNotScheduled});
  }
  return out;
}

// A firing record of a pipeline's cron schedule, stamped now.
FiringRecord Orchestrator::Impl::cron_record(const OrchestratedPipeline& p, FiringAction action, std::string cause,
                                             std::optional<Timestamp> scheduled_time, std::string message) const {
  FiringRecord f;
  f.time = now();
  f.pipeline = p.id;
  f.trigger = TriggerType::Scheduled;
  f.action = action;
  f.cause = std::move(cause);
  f.scheduled_time = scheduled_time;
  f.message = std::move(message);
  return f;
}

// decide_cron_run() simply stops seeing schedule times older than the starting deadline;
// the log still says that they were missed, once.
void Orchestrator::Impl::log_missed_deadline(OrchestratedPipeline& p) {
  if (!p.policy.starting_deadline || p.policy.suspend) return;
  Timestamp from = std::max(p.cron.last_schedule_time.value_or(p.cron.created), p.missed_until.value_or(p.cron.created));
  Timestamp to = now() - *p.policy.starting_deadline;  // times up to here can no longer start
  std::optional<Timestamp> latest;
  int count = 0;
  for (auto t = p.schedule->next(from); t && *t <= to; t = p.schedule->next(*t)) {
    if (++count > 100) break;
    latest = t;
  }
  if (count == 0) return;
  p.missed_until = count > 100 ? to : *latest;
  log(cron_record(p, FiringAction::Skip, "cron " + p.schedule->expression() + (latest ? " at " + latest->to_string() : ""),
                 count <= 100 ? latest : std::nullopt,
                 "missed the starting deadline of " + std::to_string(p.policy.starting_deadline->whole_seconds()) +
                     " s: " + (count > 100 ? "more than 100" : std::to_string(count)) + " schedule time(s) up to " +
                     p.missed_until->to_string() + " were not started"));
}

bool Orchestrator::Impl::fire_crons() {
  bool started = false;
  for (std::size_t i = 0; i < pipelines.size(); ++i) {
    OrchestratedPipeline& p = pipelines[i];
    if (!p.schedule) continue;
    p.cron.active = active_of(p.id);
    log_missed_deadline(p);
    CronDecision d = decide_cron_run(*p.schedule, p.policy, p.cron, now());
    p.next_cron = p.policy.suspend ? std::nullopt : d.next_schedule_time;
    std::string cause = "cron " + p.schedule->expression() + (d.scheduled_time ? " at " + d.scheduled_time->to_string() : "");
    if (d.action == CronAction::Skip) {
      std::string skip_key = d.scheduled_time->to_string() + " " + d.reason;
      if (p.last_logged_skip == skip_key) continue;
      p.last_logged_skip = skip_key;
      log(cron_record(p, FiringAction::Skip, cause, d.scheduled_time, d.reason));
      continue;
    }
    if (d.action != CronAction::Start) continue;
    for (const auto& victim : d.replace) {
      auto index = find_run(victim);
      if (!index) continue;
      FiringRecord f = cron_record(p, FiringAction::Replace, cause, d.scheduled_time,
                                   "concurrency policy Replace: cancelling the active run");
      f.run_id = victim;
      log(std::move(f));
      live[*index].cancel_requested = true;
      (void)live[*index].engine->cancel("replaced by the run scheduled for " + d.scheduled_time->to_string());
    }
    p.cron.last_schedule_time = d.new_last_schedule_time;
    StartRequest r;
    r.trigger = TriggerType::Scheduled;
    r.cause = cause;
    r.scheduled_time = d.scheduled_time;
    auto id = start(p, std::move(r));
    if (!id) log_error(p, TriggerType::Scheduled, cause, id.error());
    started = true;
  }
  return started;
}

}  // namespace budcore::pipeline
