// `budcore serverless queue enqueue|work|status|list`: the durable request queue of an endpoint
// in a store (docs/serverless.md "Durable queue"), from the command line: accept requests,
// serve them as a worker (claim, simulated service time, complete, in batches), and read the
// queue back.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "budcore/backend/queue_backend.hpp"
#include "budcore/backend/store.hpp"
#include "budcore/core/json.hpp"
#include "budcore/serverless/durable_queue.hpp"
#include "budcore/serverless/endpoint.hpp"
#include "cli/command.hpp"

namespace budcore::cli {

namespace {

// The tenant owning the endpoints when --owner is not given.
constexpr const char* kDefaultOwner = "00000000-0000-0000-0000-000000000001";

struct QueueArgs {
  std::string store;
  std::string endpoint;
  std::string owner = kDefaultOwner;
  // enqueue
  std::string tenant = "default";
  std::string priority = "standard";
  std::int64_t count = 1;
  std::int64_t batch = 100;
  std::string payload_hash;  // a prefix: request i gets "<prefix>-<i>"
  std::int64_t payload_bytes = 0;
  double compute_seconds = 1.0;
  // work
  std::string worker;
  double lease_seconds = 30;
  double service_ms = 0;
  std::int64_t max_requests = 0;  // 0: no limit
  bool until_empty = false;
  std::string log;
  double idle_ms = 50;
  // list
  std::vector<std::string> statuses;
  std::int64_t after = 0;
  std::int64_t limit = 1000;
};

struct Opened {
  std::shared_ptr<backend::Store> store;
  std::unique_ptr<backend::StoreQueueBackend> backend;
  std::unique_ptr<serverless::DurableQueue> queue;
};

core::Result<Opened> open_queue(const QueueArgs& a) {
  BUDCORE_TRY_ASSIGN(core::Id owner, parse_uuid(a.owner, "owner"));
  BUDCORE_TRY_ASSIGN(core::Value doc, load_document_arg(a.endpoint, "--endpoint"));
  BUDCORE_TRY_ASSIGN(auto endpoint, serverless::EndpointConfig::from_value(doc));
  BUDCORE_TRY_ASSIGN(auto store, backend::open_store(a.store));
  Opened o;
  o.store = std::shared_ptr<backend::Store>(std::move(store));
  o.backend = std::make_unique<backend::StoreQueueBackend>(o.store, owner);
  o.queue = std::make_unique<serverless::DurableQueue>(std::move(endpoint), *o.backend, core::system_clock());
  return o;
}

core::Result<core::Duration> seconds_arg(double s, const char* field, bool positive) {
  auto d = core::Duration::from_seconds(s);
  if (!d) {
    core::Error e = d.error();
    e.at(field);
    return e;
  }
  if (positive ? *d <= core::Duration() : *d < core::Duration()) {
    return core::Error::invalid(field, core::format_json_float(s), positive ? "must be positive" : "must not be negative");
  }
  return *d;
}

// Prints one JSON line per batch: {"accepted": [ids], "deduplicated": [ids], "refused": [...]},
// after the batch committed, so a killed enqueuer never printed a request it did not store.
int run_enqueue(const QueueArgs& a) {
  if (a.count < 0) return report_error(core::Error::invalid("--count", std::to_string(a.count), "must not be negative"));
  if (a.batch < 1 || a.batch > 10'000) {
    return report_error(core::Error::invalid("--batch", std::to_string(a.batch), "must be in [1, 10000]"));
  }
  auto priority = serverless::parse_priority(a.priority);
  if (!priority) {
    core::Error e = priority.error();
    return report_error(e.at("--priority"));
  }
  auto compute = seconds_arg(a.compute_seconds, "--compute-seconds", false);
  if (!compute) return report_error(compute.error());
  auto q = open_queue(a);
  if (!q) return report_error(q.error());
  for (std::int64_t done = 0; done < a.count;) {
    const std::int64_t n = std::min(a.batch, a.count - done);
    std::vector<serverless::Submission> subs(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      auto& s = subs[static_cast<std::size_t>(i)];
      s.tenant = a.tenant;
      s.priority = *priority;
      s.payload_size_bytes = a.payload_bytes;
      s.estimated_compute = *compute;
      if (!a.payload_hash.empty()) s.payload_hash = a.payload_hash + "-" + std::to_string(done + i);
    }
    auto results = q->queue->enqueue(subs);
    if (!results) return report_error(results.error());
    core::List accepted, dedup, refused;
    for (const auto& r : *results) {
      if (!r.ok()) {
        refused.push_back(error_json(r.error, std::string(serverless::to_string(*r.refusal))));
      } else if (r.deduplicated) {
        dedup.push_back(static_cast<std::int64_t>(r.id));
      } else {
        accepted.push_back(static_cast<std::int64_t>(r.id));
      }
    }
    core::Map line;
    line.set("accepted", core::Value(std::move(accepted)));
    line.set("deduplicated", core::Value(std::move(dedup)));
    line.set("refused", core::Value(std::move(refused)));
    std::cout << core::to_json(core::Value(std::move(line))) << std::endl;
    done += n;
  }
  return kExitOk;
}

// Reports `outcome` (start or renew) for every request of the batch in one transaction, each
// under a fresh lease; a request whose claim is gone (its lease ended and another worker may
// hold it) leaves the batch and is returned, so that it is not served.
core::Result<std::vector<serverless::DurableRequest>> report_batch(serverless::DurableQueue& q,
                                                                    std::vector<serverless::DurableRequest>& batch,
                                                                    serverless::DurableOutcome outcome,
                                                                    core::Duration lease) {
  std::vector<serverless::DurableFinish> reports;
  for (const auto& r : batch) reports.push_back({r.id, r.claim, outcome, {}, lease});
  BUDCORE_TRY_ASSIGN(auto done, q.finish(reports));
  std::vector<serverless::DurableRequest> lost, kept;
  for (std::size_t i = 0; i < batch.size(); ++i) (done[i].ok ? kept : lost).push_back(batch[i]);
  batch = std::move(kept);
  return lost;
}

// Claims up to --batch requests, reports them started (PROCESSING, lease renewed), serves each
// for --service-ms, renewing the whole batch's leases whenever half a lease has passed since
// the last report, and completes the batch in one transaction; repeats. With --log, appends
// "claim <id> <token>" before serving, "complete <id> <token>" once the completion committed,
// and "lost <id> <token>" for a claim that ended before its worker reported (each line written
// whole with one write, so a SIGKILL leaves no torn line).
int run_work(const QueueArgs& a) {
  if (a.batch < 1 || a.batch > 10'000) {
    return report_error(core::Error::invalid("--batch", std::to_string(a.batch), "must be in [1, 10000]"));
  }
  if (a.max_requests < 0) {
    return report_error(core::Error::invalid("--max-requests", std::to_string(a.max_requests), "must not be negative"));
  }
  auto lease = seconds_arg(a.lease_seconds, "--lease-seconds", true);
  if (!lease) return report_error(lease.error());
  auto service = seconds_arg(a.service_ms / 1000.0, "--service-ms", false);
  if (!service) return report_error(service.error());
  auto idle = seconds_arg(a.idle_ms / 1000.0, "--idle-ms", false);
  if (!idle) return report_error(idle.error());
  if (a.worker.empty()) return report_error(core::Error::invalid("--worker", "", "must not be empty"));
  std::FILE* log = nullptr;
  if (!a.log.empty()) {
    log = std::fopen(a.log.c_str(), "a");
    if (log == nullptr) return report_error(core::Error::invalid("--log", a.log, "cannot open the file to append"));
    std::setvbuf(log, nullptr, _IONBF, 0);
  }
  auto write_line = [&](const std::string& s) {
    if (log != nullptr) std::fwrite(s.data(), 1, s.size(), log);
  };
  auto q = open_queue(a);
  if (!q) return report_error(q.error());
  std::int64_t served = 0;
  for (;;) {
    std::int64_t want = a.batch;
    if (a.max_requests > 0) want = std::min(want, a.max_requests - served);
    if (want <= 0) break;
    auto claimed = q->queue->claim(a.worker, want, *lease);
    if (!claimed) return report_error(claimed.error());
    if (claimed->empty()) {
      if (a.until_empty) {
        auto c = q->queue->counts();
        if (!c) return report_error(c.error());
        if (c->pending == 0 && c->in_flight == 0) break;
      }
      std::this_thread::sleep_for(std::chrono::nanoseconds(idle->count_ns()));
      continue;
    }
    std::string lines;
    for (const auto& r : *claimed) lines += "claim " + std::to_string(r.id) + " " + std::to_string(r.claim) + "\n";
    write_line(lines);
    const std::size_t n_claimed = claimed->size();
    auto log_lost = [&](const std::vector<serverless::DurableRequest>& lost) {
      std::string l;
      for (const auto& r : lost) l += "lost " + std::to_string(r.id) + " " + std::to_string(r.claim) + "\n";
      write_line(l);
    };
    auto lost = report_batch(*q->queue, *claimed, serverless::DurableOutcome::Start, *lease);
    if (!lost) return report_error(lost.error());
    log_lost(*lost);
    auto reported = std::chrono::steady_clock::now();
    // The batch is served in order; what is served waits for the batch's completion and keeps
    // its claim too, so a heartbeat renews the whole batch.
    std::set<std::int64_t> done_ids;
    std::size_t served_n = 0;  // claimed[0, served_n) are served (the batch keeps its order)
    while (served_n < claimed->size()) {
      if (std::chrono::steady_clock::now() - reported >= std::chrono::nanoseconds(lease->count_ns() / 2)) {
        auto gone = report_batch(*q->queue, *claimed, serverless::DurableOutcome::Renew, *lease);
        if (!gone) return report_error(gone.error());
        log_lost(*gone);
        served_n = 0;
        while (served_n < claimed->size() && done_ids.count((*claimed)[served_n].id)) ++served_n;
        reported = std::chrono::steady_clock::now();
        continue;
      }
      if (service->count_ns() > 0) std::this_thread::sleep_for(std::chrono::nanoseconds(service->count_ns()));
      done_ids.insert((*claimed)[served_n++].id);
    }
    std::vector<serverless::DurableFinish> reports;
    for (const auto& r : *claimed) reports.push_back({r.id, r.claim, serverless::DurableOutcome::Complete, {}, {}});
    auto finished = q->queue->finish(reports);
    if (!finished) return report_error(finished.error());
    lines.clear();
    for (const auto& f : *finished) {
      lines += std::string(f.ok ? "complete " : "lost ") + std::to_string(f.id) + " " +
               std::to_string(reports[&f - finished->data()].claim) + "\n";
    }
    write_line(lines);
    served += static_cast<std::int64_t>(n_claimed);
  }
  if (log != nullptr) std::fclose(log);
  core::Map out;
  out.set("worker", a.worker);
  out.set("served", served);
  std::cout << core::to_json(core::Value(std::move(out))) << "\n";
  return kExitOk;
}

int run_status(const QueueArgs& a) {
  auto q = open_queue(a);
  if (!q) return report_error(q.error());
  auto c = q->queue->counts();
  if (!c) return report_error(c.error());
  core::Value v = serverless::to_value(*c);
  v.mutable_map().set("endpoint", q->queue->config().name);
  std::cout << core::to_json(v) << "\n";
  return kExitOk;
}

int run_list(const QueueArgs& a) {
  std::vector<serverless::QueueStatus> statuses;
  for (const auto& s : a.statuses) {
    auto st = serverless::parse_queue_status(s);
    if (!st) {
      core::Error e = st.error();
      e.field = "--status";
      return report_error(e);
    }
    statuses.push_back(*st);
  }
  if (a.limit < 1 || a.limit > 10'000) {
    return report_error(core::Error::invalid("--limit", std::to_string(a.limit), "must be in [1, 10000]"));
  }
  auto q = open_queue(a);
  if (!q) return report_error(q.error());
  auto rows = q->queue->list(statuses, a.after, a.limit);
  if (!rows) return report_error(rows.error());
  core::List out;
  for (const auto& r : *rows) out.push_back(serverless::to_value(r));
  std::cout << core::to_json(core::Value(std::move(out))) << "\n";
  return kExitOk;
}

void common(CLI::App* cmd, const std::shared_ptr<QueueArgs>& a) {
  cmd->add_option("--store", a->store, "the store (sqlite:///path.db, postgresql://...)")->required();
  cmd->add_option("--endpoint", a->endpoint, "endpoint (JSON or YAML; - for stdin)")->required();
  cmd->add_option("--owner", a->owner, "the tenant (UUID) owning the endpoint (default " + std::string(kDefaultOwner) + ")");
}

}  // namespace

void add_serverless_queue_commands(CLI::App& group) {
  auto* queue = group.add_subcommand("queue", "The durable request queue of an endpoint in a store");
  queue->require_subcommand(1);
  {
    auto a = std::make_shared<QueueArgs>();
    auto* c = queue->add_subcommand("enqueue", "Accept requests into the queue (prints the ids once committed)");
    common(c, a);
    c->add_option("--tenant", a->tenant, "the requests' tenant (default: default)");
    c->add_option("--priority", a->priority, "premium, standard (default), spot or batch");
    c->add_option("--count", a->count, "how many requests (default 1)");
    c->add_option("--batch", a->batch, "requests per transaction (default 100)");
    c->add_option("--payload-hash", a->payload_hash, "deduplication key prefix: request i gets PREFIX-i");
    c->add_option("--payload-bytes", a->payload_bytes, "payload size of each request");
    c->add_option("--compute-seconds", a->compute_seconds, "estimated compute seconds of each request (default 1)");
    c->callback([a] { exit_code() = run_enqueue(*a); });
  }
  {
    auto a = std::make_shared<QueueArgs>();
    auto* c = queue->add_subcommand("work", "Serve requests: claim, wait the service time, complete, in batches");
    common(c, a);
    c->add_option("--worker", a->worker, "this worker's name")->required();
    c->add_option("--batch", a->batch, "requests per claim and per completing transaction (default 100)");
    c->add_option("--lease-seconds", a->lease_seconds, "claim lease (default 30)");
    c->add_option("--service-ms", a->service_ms, "simulated service time per request (default 0)");
    c->add_option("--max-requests", a->max_requests, "stop after serving this many (default: no limit)");
    c->add_flag("--until-empty", a->until_empty, "stop when nothing is pending or in flight");
    c->add_option("--idle-ms", a->idle_ms, "wait between claims that found nothing (default 50)");
    c->add_option("--log", a->log, "append claim and complete lines to this file");
    c->callback([a] { exit_code() = run_work(*a); });
  }
  {
    auto a = std::make_shared<QueueArgs>();
    auto* c = queue->add_subcommand("status", "Counts by status and each tenant's active requests");
    common(c, a);
    c->callback([a] { exit_code() = run_status(*a); });
  }
  {
    auto a = std::make_shared<QueueArgs>();
    auto* c = queue->add_subcommand("list", "Requests by id (JSON), optionally of some statuses");
    common(c, a);
    c->add_option("--status", a->statuses, "pending, assigned, processing, completed, failed, timeout (repeatable)");
    c->add_option("--after", a->after, "requests with an id above this (default 0)");
    c->add_option("--limit", a->limit, "at most this many (default 1000)");
    c->callback([a] { exit_code() = run_list(*a); });
  }
}

}  // namespace budcore::cli
