// Platform::schedule() and the estimated_start / estimated_end of job records
// (docs/schedule.md "The platform's timeline"): a schedule::Timeline of the platform's live
// jobs under its quota configuration. Every tenant's jobs are simulated (they share the quota);
// a caller sees only its own tenant's jobs, and the ids of other tenants' jobs are removed from
// every reason text it is shown.
#include <algorithm>
#include <cctype>
#include <iterator>
#include <set>
#include <tuple>

#include "budcore/quota/job_workload.hpp"
#include "platform/platform_impl.hpp"

namespace budcore::platform {

using core::Error;
using job::JobStatus;
using Impl = Platform::Impl;

namespace {

// A job the timeline must place: it is waiting, admitted or running, or waits for its retry.
bool scheduled(const LiveJob& lj) {
  switch (lj.status) {
    case JobStatus::Pending:
    case JobStatus::Queued:
    case JobStatus::Scheduled:
    case JobStatus::Running:
    case JobStatus::Preempted: return true;
    case JobStatus::Failed: return lj.retry_at_ns > 0;
    default: return false;
  }
}

// Order-independent digest of what the timeline reads of the live jobs: a job's stored
// version moves with every change written for it (status, priority, retry).
std::uint64_t live_digest(const std::unordered_map<core::Id, LiveJob>& live) {
  std::uint64_t sum = live.size();
  for (const auto& [id, lj] : live) {
    std::uint64_t h = std::hash<core::Id>{}(id);
    for (std::uint64_t v : {static_cast<std::uint64_t>(lj.version), static_cast<std::uint64_t>(lj.status),
                            static_cast<std::uint64_t>(lj.run), static_cast<std::uint64_t>(lj.retry_at_ns)}) {
      h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    }
    sum += h * 0xff51afd7ed558ccdULL;
  }
  return sum;
}

bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

// Every id in `text` (8-4-4-4-12 hex digits, not inside a longer run of them) that `visible`
// refuses is replaced by "[hidden]". Candidates are read by core::Id::parse.
template <class Visible>
std::string redact_ids(const std::string& text, const Visible& visible) {
  constexpr std::size_t kLen = 36;
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const bool candidate = i + kLen <= text.size() && text[i + 8] == '-' && text[i + 23] == '-' &&
                           (i == 0 || !is_hex(text[i - 1])) && (i + kLen == text.size() || !is_hex(text[i + kLen]));
    if (candidate) {
      if (auto id = core::Id::parse(std::string_view(text).substr(i, kLen))) {
        out += visible(*id) ? text.substr(i, kLen) : std::string("[hidden]");
        i += kLen;
        continue;
      }
    }
    out += text[i++];
  }
  return out;
}

}  // namespace

core::Result<const Impl::TimelineJobInput*> Impl::timeline_job_input(const LiveJob& lj) {
  auto it = timeline_inputs.find(lj.id);
  if (it != timeline_inputs.end() && it->second.version == lj.version && it->second.queue_seq == lj.queue_seq)
    return &it->second;
  BUDCORE_TRY_ASSIGN(auto doc, job_doc(lj));
  TimelineJobInput t;
  t.version = lj.version;
  t.queue_seq = lj.queue_seq;
  schedule::JobInput& j = t.input;
  BUDCORE_TRY_ASSIGN(j.workload, quota::workload_for(*doc, lj.queue_seq, config.cluster.layout));
  j.workload.name = lj.id.to_string();  // job names repeat; ids do not
  std::int64_t seconds = 3600;
  if (doc->estimated_duration_seconds) seconds = *doc->estimated_duration_seconds;
  else if (doc->max_duration_seconds) seconds = *doc->max_duration_seconds;
  // A serverless worker runs until its endpoint scales it down: shown for the hour its cost
  // estimate prices, without the warning of a guessed duration.
  else if (doc->job_type != job::JobType::Service || quota::serverless_endpoint_of(*doc).empty()) t.assumed_duration = true;
  j.duration = core::Duration::seconds(std::max<std::int64_t>(seconds, 0));
  j.deadline = doc->deadline;
  if (doc->time_window) j.window = schedule::Window{doc->time_window->start, doc->time_window->end, "UTC"};
  if (doc->pipeline_id) j.pipeline = doc->pipeline_id->to_string();
  j.label = doc->name;  // people know their jobs by name; the id stays the key (and the tooltip)
  return &(timeline_inputs[lj.id] = std::move(t));
}

core::Result<schedule::TimelineInput> Impl::timeline_input(std::vector<std::string>* warnings) {
  schedule::TimelineInput in;
  in.config = config.cluster.quota;
  in.engine_options = config.cluster.engine;
  in.now = clock->now();
  std::set<std::string> declared, queues;
  for (const auto& lq : in.config.local_queues) declared.insert(lq.key());
  for (const auto& cq : in.config.cluster_queues) queues.insert(cq.name);
  // Live jobs in queue order, so that equal inputs give equal timelines.
  std::vector<const LiveJob*> jobs;
  for (const auto& [id, lj] : live)
    if (scheduled(lj)) jobs.push_back(&lj);
  std::sort(jobs.begin(), jobs.end(), [](const LiveJob* a, const LiveJob* b) {
    return a->queue_seq != b->queue_seq ? a->queue_seq < b->queue_seq : a->id < b->id;
  });
  // Inputs of jobs that left the timeline are dropped (they are re-read if they come back).
  for (auto it = timeline_inputs.begin(); it != timeline_inputs.end();) {
    auto lj = live.find(it->first);
    it = lj == live.end() || !scheduled(lj->second) ? timeline_inputs.erase(it) : std::next(it);
  }
  for (const LiveJob* lj : jobs) {
    BUDCORE_TRY_ASSIGN(const TimelineJobInput* cached, timeline_job_input(*lj));
    schedule::JobInput j = cached->input;
    // The job-type queue of a tenant exists implicitly (the cluster creates it on first use);
    // without its ClusterQueue the job is `never`, with the LocalQueue named.
    if (queues.count(j.workload.queue) && declared.insert(j.workload.namespace_ + "/" + j.workload.queue).second)
      in.config.local_queues.push_back({j.workload.namespace_, j.workload.queue, j.workload.queue});
    if (cached->assumed_duration && warnings) warnings->push_back(j.workload.name + ": no estimated_duration_seconds; assumed 3600 s");
    const bool holds_quota = (lj->status == JobStatus::Scheduled || lj->status == JobStatus::Running) && lj->placement;
    if (holds_quota) {
      j.workload.admitted = lj->placement->admission;
      const std::int64_t since = lj->started_ns > 0 ? lj->started_ns : lj->admitted_ns;
      j.started_at = core::Timestamp::from_unix_nanos(std::min(since, in.now.unix_nanos()));
    } else if (lj->status == JobStatus::Failed) {
      j.submit_at = core::Timestamp::from_unix_nanos(lj->retry_at_ns);
    }
    in.jobs.push_back(std::move(j));
  }
  return in;
}

core::Result<const schedule::TimelineResult*> Impl::current_timeline() {
  const std::uint64_t digest = live_digest(live);
  const core::Timestamp now = clock->now();
  // The cached timeline stands until a live job changes or time passes an instant at which it
  // expected something (a start or an end) that the platform has not reported.
  if (timeline_cache && timeline_digest == digest && now <= timeline_valid_until) return &*timeline_cache;
  std::vector<std::string> warnings;
  BUDCORE_TRY_ASSIGN(auto input, timeline_input(&warnings));
  BUDCORE_TRY_ASSIGN(auto tl, schedule::Timeline::create(std::move(input)));
  schedule::TimelineResult r = tl.result();
  r.warnings.insert(r.warnings.begin(), warnings.begin(), warnings.end());
  core::Timestamp until = core::Timestamp::from_unix_nanos(INT64_MAX);
  for (const auto& e : r.jobs) {
    if (e.finished) continue;
    if (e.start > now) until = std::min(until, e.start);
    if (e.end > now) until = std::min(until, e.end);
  }
  timeline_index.clear();
  for (std::size_t i = 0; i < r.jobs.size(); ++i) timeline_index.emplace(r.jobs[i].name, i);
  timeline_cache = std::move(r);
  timeline_digest = digest;
  timeline_valid_until = until;
  return &*timeline_cache;
}

std::string Impl::redact_for(const std::string& text, const core::Id& tenant) const {
  return redact_ids(text, [&](const core::Id& id) {
    auto it = live.find(id);
    return id == tenant || (it != live.end() && it->second.tenant == tenant);
  });
}

schedule::TimelineResult Impl::tenant_view(const schedule::TimelineResult& all, const core::Id& tenant) const {
  std::set<core::Id> mine{tenant};
  for (const auto& [id, lj] : live)
    if (lj.tenant == tenant) mine.insert(id);
  auto visible = [&](const core::Id& id) { return mine.count(id) > 0; };
  auto own = [&](std::string_view name) {  // timeline names are job ids
    auto id = core::Id::parse(name);
    return id && visible(*id);
  };
  const std::string ns = config.cluster.layout.tenant_namespace_prefix + tenant.to_string() + "/";
  schedule::TimelineResult out;
  out.now = all.now;
  core::Timestamp last = all.now;
  // The tenant's own usage over time, from its own jobs only: queue totals would tell it the
  // size and the end of every other tenant's job.
  std::map<std::tuple<std::string, std::string, std::string>, std::map<core::Timestamp, std::int64_t>> deltas;
  for (const auto& e : all.jobs) {
    if (!own(e.name)) continue;
    if (auto id = core::Id::parse(e.name); id)
      if (auto in = timeline_inputs.find(*id); in != timeline_inputs.end() && !e.finished)
        for (const auto& ps : in->second.input.workload.pod_sets) {
          auto fl = e.flavors.find(ps.name);
          if (fl == e.flavors.end()) continue;
          for (const auto& [res, q] : ps.requests.items()) {
            auto f = fl->second.find(res);
            if (f == fl->second.end()) continue;
            const std::int64_t milli = q.milli_value().value_or(0) * ps.count;
            auto& d = deltas[{e.cluster_queue, f->second, res}];
            d[std::max(e.start, all.now)] += milli;
            d[e.end] -= milli;
          }
        }
    schedule::JobEstimate v = e;
    if (v.key.rfind(ns, 0) == 0) v.key = v.key.substr(ns.size());
    v.wait_detail = redact_ids(v.wait_detail, visible);
    last = std::max(last, v.end);
    out.jobs.push_back(std::move(v));
  }
  for (const auto& [name, why] : all.never)
    if (own(name)) out.never.emplace(name, redact_ids(why, visible));
  for (const auto& w : all.warnings) {
    const std::string name = w.substr(0, w.find(':'));
    if (own(name)) out.warnings.push_back(redact_ids(w, visible));
  }
  for (const auto& [k, steps] : deltas) {
    std::int64_t used = 0;
    for (const auto& [at, d] : steps) {
      used += d;
      out.usage.push_back(schedule::UsageStep{at, std::get<0>(k), std::get<1>(k), std::get<2>(k), used});
    }
  }
  std::stable_sort(out.usage.begin(), out.usage.end(), [](const auto& a, const auto& b) { return a.at < b.at; });
  out.makespan = out.jobs.empty() ? core::Duration() : last - all.now;
  return out;
}

void Impl::fill_estimates(backend::JobRecord& rec) {
  auto lj = live.find(rec.job.id);
  if (lj == live.end() || !scheduled(lj->second)) return;
  auto tl = current_timeline();
  if (!tl) return;  // the record is still right without estimates; schedule() reports why
  auto at = timeline_index.find(rec.job.id.to_string());
  if (at == timeline_index.end()) return;  // it can never run (the timeline's `never`)
  const schedule::JobEstimate& e = (*tl)->jobs[at->second];
  rec.job.estimated_start = e.start;
  rec.job.estimated_end = e.end;
}

core::Result<schedule::TimelineResult> Platform::schedule(const CallContext& caller) {
  std::lock_guard lock(impl_->mu);
  BUDCORE_TRY(impl_->guard(caller, "list", "jobs"));
  BUDCORE_TRY(impl_->refresh_view());  // a follower reads the live jobs from the store
  BUDCORE_TRY_ASSIGN(const schedule::TimelineResult* all, impl_->current_timeline());
  schedule::TimelineResult view = impl_->tenant_view(*all, caller.tenant);
  impl_->mark_waiting_for_placement(view);
  return view;
}

// A job the quota admitted but no node takes yet waits for placement, not quota: the timeline
// counts it as started at admission, so it is moved to start now, its length kept.
void Impl::mark_waiting_for_placement(schedule::TimelineResult& view) const {
  if (sim == nullptr) return;
  const auto waiting = sim->waiting_for_placement();
  if (waiting.empty()) return;
  std::map<std::string, const std::string*> why;
  for (const auto& [id, text] : waiting) why.emplace(id.to_string(), &text);
  for (auto& e : view.jobs) {
    auto it = why.find(e.name);
    if (it == why.end() || e.finished) continue;
    e.wait = schedule::WaitReason::Placement;
    e.wait_detail = *it->second;
    e.running = false;
    if (e.start < view.now) {
      e.end = view.now + (e.end - e.start);
      e.start = view.now;
    }
  }
}

}  // namespace budcore::platform
