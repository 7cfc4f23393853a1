// serve_trace: a request trace served by a ServerlessEndpoint on its platform, one second at a
// time on the platform's virtual clock, with the pool scaled by a policy and metered.
#include <algorithm>
#include <map>

#include "budcore/platform/serverless_endpoint.hpp"

namespace budcore::platform {
namespace {

using serverless::RequestId;

core::Duration whole_seconds(core::Duration d) {
  return core::Duration::seconds((d.count_ns() + 999'999'999) / 1'000'000'000);
}

// A refusal of a worker job that leaves the requests waiting, rather than an error of the run.
bool refusal(const core::Error& e) {
  return e.code == core::ErrorCode::BudgetExceeded || e.code == core::ErrorCode::QuotaExceeded ||
         e.code == core::ErrorCode::RateLimited || e.code == core::ErrorCode::Security;
}

struct Serving {
  Platform& p;
  ServerlessEndpoint& ep;
  const std::vector<serverless::TraceRequest>& trace;
  serverless::AutoscalePolicy& policy;
  PlatformReplayReport rep;
  std::map<RequestId, core::Timestamp> ends;      // in flight
  std::map<RequestId, core::Duration> service;    // admitted: the slot time it needs
  std::vector<cost::Usage> rows;
  std::size_t next = 0;
  core::Timestamp t0;

  core::Timestamp arrival(std::size_t i) const { return t0 + (trace[i].at - trace.front().at); }
  bool busy() const { return next < trace.size() || ep.queue().depth() > 0 || !ends.empty(); }

  core::Status complete_due(core::Timestamp now) {
    for (auto it = ends.begin(); it != ends.end();) {
      const serverless::QueuedRequest* r = ep.queue().get(it->first);
      // A request whose worker was lost or preempted is back in the queue: it gets a new end.
      const bool running = r != nullptr && (r->status == serverless::QueueStatus::Processing ||
                                            r->status == serverless::QueueStatus::Assigned);
      if (running && now < it->second) {
        ++it;
        continue;
      }
      if (running) {
        BUDCORE_TRY(ep.complete(it->first));
        ++rep.completed;
      }
      it = ends.erase(it);
    }
    return {};
  }

  void admit_arrivals(core::Timestamp now) {
    for (; next < trace.size() && arrival(next) <= now; ++next) {
      const auto& t = trace[next];
      serverless::Submission s{"trace", {}, 0, ep.config().service.duration(t.context_tokens, t.generated_tokens),
                               serverless::Priority::Standard};
      auto r = ep.enqueue(s);
      ++rep.requests;
      if (!r.ok()) {
        ++rep.refused;
        continue;
      }
      ++rep.admitted;
      service[r.id] = s.estimated_compute;
    }
  }

  core::Status place(core::Timestamp now) {
    BUDCORE_TRY_ASSIGN(auto placed, ep.dispatch());
    for (const auto& a : placed) {
      if (a.preempted != 0) ends.erase(a.preempted);
      ends[a.request] = now + whole_seconds(service[a.request]);
    }
    return {};
  }

  core::Status tick() {
    const core::Timestamp now = p.now();
    BUDCORE_TRY(ep.sync());
    BUDCORE_TRY(complete_due(now));
    admit_arrivals(now);
    if (auto n = ep.autoscale(policy); !n) {
      if (!refusal(n.error())) return n.error();
      ++rep.worker_refusals;
    }
    BUDCORE_TRY(place(now));
    rep.peak_workers = std::max(rep.peak_workers, static_cast<int>(ep.status().workers.size()));
    BUDCORE_TRY_ASSIGN(auto metered, ep.meter());
    rows.insert(rows.end(), metered.begin(), metered.end());
    return p.run_until(now + core::Duration::seconds(1));
  }

  core::Status finish() {
    BUDCORE_TRY(ep.sync());
    BUDCORE_TRY(ep.scale_to(0));
    BUDCORE_TRY_ASSIGN(auto metered, ep.meter());
    rows.insert(rows.end(), metered.begin(), metered.end());
    for (const auto& r : ep.queue().requests()) rep.timeouts += r.status == serverless::QueueStatus::Timeout;
    BUDCORE_TRY_ASSIGN(rep.usage, cost::summarize(rows));
    rep.status = ep.status();
    return {};
  }
};

}  // namespace

core::Value PlatformReplayReport::to_value() const {
  auto n = [](std::int64_t v) { return core::Value(static_cast<long long>(v)); };
  return core::Value::map({{"endpoint", core::Value(status.endpoint)}, {"policy", core::Value(policy)},
                           {"requests", n(requests)}, {"admitted", n(admitted)}, {"refused", n(refused)},
                           {"completed", n(completed)}, {"timeouts", n(timeouts)},
                           {"worker_refusals", n(worker_refusals)}, {"peak_workers", n(peak_workers)},
                           {"usage", cost::to_value(usage)}, {"status", status.to_value()}});
}

core::Result<PlatformReplayReport> serve_trace(Platform& platform, ServerlessEndpoint& endpoint,
                                               const std::vector<serverless::TraceRequest>& trace,
                                               serverless::AutoscalePolicy& policy, core::Duration tail) {
  Serving s{platform, endpoint, trace, policy, {}, {}, {}, {}, 0, platform.now()};
  s.rep.policy = std::string(policy.name());
  while (s.busy()) BUDCORE_TRY(s.tick());
  for (core::Timestamp end = platform.now() + tail; platform.now() < end;) BUDCORE_TRY(s.tick());
  BUDCORE_TRY(s.finish());
  return std::move(s.rep);
}

}  // namespace budcore::platform
