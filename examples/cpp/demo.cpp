// budcore_demo <examples dir>: the platform on embedded defaults. Runs examples/specs/
// demo-scenario.yaml — the enterprise RAG pipeline plus standalone batch and training jobs on a
// simulated GPU cluster with job-type quotas (one ClusterQueue per job type), on a virtual
// clock — through budcore::platform::simulate, and prints what happened (admissions, waits, preemptions,
// failures and retries) and the final job table; then a platform's schedule timeline (when each
// waiting job will start and end, against what then happened); a serverless endpoint scaling from
// zero and back on a burst of requests; then the same platform with its `security` section on:
// roles, a tenant policy, a rate limit and the hash-chained audit log; then GPU placement: a gang
// the quota admits that no node can take yet (it waits for placement), the pools' fragmentation
// and the defragmentation plan that frees it, applied. Uses the public C++ API only.
//
// Exit 0 when the scenario ran, 1 when it could not, 2 on a usage error.
#include <iostream>
#include <map>
#include <string>
#include <tuple>

#include "budcore/c/version.h"
#include "budcore/core/yaml.hpp"
#include "budcore/platform/platform.hpp"
#include "budcore/platform/scenario.hpp"
#include "budcore/serverless/replay.hpp"

namespace {

// The story a person reads: every admission, preemption, failure, retry and completion.
bool worth_telling(const std::string& line) {
  for (const char* key : {"-> scheduled", "-> preempted", "-> failed", "failed -> queued", "-> completed",
                          "-> cancelled", "deadline missed", "action"})
    if (line.find(key) != std::string::npos) return true;
  return false;
}

// A job on A100 GPUs of the embedded inventory, with its estimated length.
budcore::job::Job a100_job(const char* name, int gpus, int minutes) {
  budcore::job::Job j;
  j.name = name;
  j.gpu_count = gpus;
  j.gpu_type = "nvidia-a100-80gb";
  j.estimated_duration_seconds = minutes * 60;
  return j;
}

// A serverless endpoint scaling from zero and back (docs/serverless.md): a burst of chat requests
// replayed on a virtual clock under the queue-depth policy, until the pool is down to zero again.
int show_serverless() {
  using namespace budcore;
  auto doc = core::parse_document(R"(
name: chat
model: llama-3-8b
gpu_type: nvidia-a100-80gb
concurrency_per_worker: 4
price_per_gpu_hour: "2.49"
cold_start: {container_seconds: 4, model_gib: 16, load_gib_per_second: 1, warmup_seconds: 2}
service: {prefill_tokens_per_second: 1000, decode_tokens_per_second: 20}
warm_pool: {min_warm_workers: 0, max_warm_workers: 4, idle_timeout_seconds: 60})");
  if (!doc) return std::cerr << doc.error().describe() << "\n", 1;
  auto endpoint = serverless::EndpointConfig::from_value(*doc);
  if (!endpoint) return std::cerr << endpoint.error().describe() << "\n", 1;
  std::vector<serverless::TraceRequest> burst;
  for (int i = 0; i < 12; ++i)
    burst.push_back({core::Timestamp::from_unix_seconds(1'700'000'000) + core::Duration::milliseconds(500 * i), 800, 200});
  serverless::QueueDepthPolicy policy(*endpoint);
  serverless::ReplayOptions options;
  options.until_scaled_down = true;
  auto r = serverless::replay(*endpoint, burst, policy, options);
  if (!r) return std::cerr << r.error().describe() << "\n", 1;
  std::cout << "\nServerless (endpoint chat: 12 requests in 6 s from zero workers, 4 per worker, queue-depth policy)\n";
  for (const auto& p : r->scaling)
    std::cout << "  t=" << p.at_seconds << " s: " << p.workers << " workers (" << p.ready << " ready, " << p.busy
              << " busy), " << p.pending << " waiting\n";
  std::cout << "  " << r->completed << " completed, wait p99 " << r->wait.p99 << " s; " << r->metering.cold_starts
            << " cold starts; billed " << r->metering.billed_gpu_seconds << " GPU-seconds = " << r->metering.cost.to_string()
            << "\n"
            << "Try: budcore serverless simulate --endpoint benchmarks/serverless_endpoint.yaml --trace T.csv --policy all "
               "--until-scaled-down\n";
  return 0;
}

// RBAC, a tenant policy, backpressure and the audit chain on a platform of its own (docs/security.md).
int show_security() {
  using namespace budcore;
  auto config = platform::PlatformConfig::parse(R"(
store: "sqlite::memory:"
security:
  rbac: true
  platform_admins: ["user:root"]
  tenants: {"*": {max_gpus_per_job: 4, submits_per_second: 1, submit_burst: 3}})");
  if (!config) return std::cerr << config.error().describe() << "\n", 1;
  auto p = platform::Platform::open(*config);
  if (!p) return std::cerr << p.error().describe() << "\n", 1;
  const core::Id tenant = core::Id::parse("3f6b2a1e-8c4d-4e5f-9a0b-1c2d3e4f5a6b").value();
  const core::Id project = core::Id::parse("0190e6f4-5c3a-7abc-8def-0123456789ab").value();
  auto as = [&](const char* who) { return platform::CallContext::for_tenant(tenant, who, "demo"); };
  auto job = [&](const char* name, int gpus) {
    job::Job j;
    j.name = name;
    j.project_id = project;
    j.gpu_count = gpus;
    if (gpus > 0) j.gpu_type = "nvidia-a100-80gb";
    return j;
  };
  auto show = [](const char* what, const core::Status& st) {
    std::cout << "  " << what << ": " << (st ? std::string("ok") : st.error().describe()) << "\n";
  };
  auto status = [](const auto& r) -> core::Status {
    if (!r) return r.error();
    return {};
  };
  std::cout << "\nSecurity (the same platform with security.rbac, a tenant policy and a rate limit)\n";
  show("user:erin submits before any role", status((*p)->submit(as("user:erin"), job("eval-a", 1))));
  show("user:root grants user:erin editor on the project",
       status((*p)->bind_role(as("user:root"), {"user:erin", platform::Role::Editor, project})));
  show("user:erin submits", status((*p)->submit(as("user:erin"), job("eval-a", 1))));
  show("user:erin submits 8 GPUs", status((*p)->submit(as("user:erin"), job("eval-big", 8))));
  show("user:erin submits again", status((*p)->submit(as("user:erin"), job("eval-b", 1))));
  show("user:erin submits once more within the second", status((*p)->submit(as("user:erin"), job("eval-c", 1))));
  auto log = (*p)->list_audit(as("user:root"), {});
  if (!log) return std::cerr << log.error().describe() << "\n", 1;
  std::cout << "  audit log:";
  for (const auto& e : log->items) std::cout << " " << e.action << "(" << e.detail.find("outcome")->as_string() << ")";
  auto chain = (*p)->verify_audit(as("user:root"));
  if (!chain || !chain->ok) return std::cerr << "the audit chain does not verify\n", 1;
  std::cout << "\n  audit chain: " << chain->entries << " entries verified, head " << chain->head_hash.substr(0, 16)
            << "...\n";
  return 0;
}

// The schedule timeline of a platform's queue: when each waiting job will
// start and end, then what really happened (docs/schedule.md "The platform's timeline").
int show_schedule() {
  using namespace budcore;
  auto config = platform::PlatformConfig::parse(R"({"store": "sqlite::memory:"})");
  if (!config) return std::cerr << config.error().describe() << "\n", 1;
  auto p = platform::Platform::open(*config);
  if (!p) return std::cerr << p.error().describe() << "\n", 1;
  const auto as = platform::CallContext::for_tenant(core::Id::parse("3f6b2a1e-8c4d-4e5f-9a0b-1c2d3e4f5a6b").value(), "user:demo");
  std::map<std::string, std::string> names;  // job id -> name
  for (auto [name, gpus, minutes] : {std::tuple{"pretrain", 8, 60}, {"finetune-a", 8, 20}, {"finetune-b", 8, 20},
                                     {"eval", 4, 10}, {"sweep", 8, 30}}) {
    auto r = (*p)->submit(as, a100_job(name, gpus, minutes));
    if (!r) return std::cerr << r.error().describe() << "\n", 1;
    names[r->record.job.id.to_string()] = name;
  }
  if (auto st = (*p)->pump(); !st) return std::cerr << st.error().describe() << "\n", 1;
  auto tl = (*p)->schedule(as);
  if (!tl) return std::cerr << tl.error().describe() << "\n", 1;
  const core::Timestamp t0 = tl->now;
  auto minutes = [&](core::Timestamp t) { return std::to_string((t - t0).whole_seconds() / 60); };
  if (auto idle = (*p)->run_until_idle(); !idle) return std::cerr << idle.error().describe() << "\n", 1;
  std::cout << "\nSchedule (Platform::schedule: 5 A100 jobs on the embedded quota; minutes from submission)\n";
  for (const auto& e : tl->jobs) {
    auto rec = (*p)->get_job(as, core::Id::parse(e.name).value());
    if (!rec || !rec->job.actual_start || !rec->job.actual_end) return std::cerr << "a job did not run\n", 1;
    std::cout << "  " << names[e.name] << ": estimated " << minutes(e.start) << "-" << minutes(e.end)
              << (e.wait == schedule::WaitReason::Quota ? " (waited for quota)" : "") << ", ran "
              << minutes(*rec->job.actual_start) << "-" << minutes(*rec->job.actual_end) << "\n";
  }
  return 0;
}

// The plan applied (budcore platform defrag JOB --apply): the job it moves is evicted and
// placed where it says, and the gang starts at once instead of when eval-a ends.
int apply_plan(budcore::platform::Platform& p, const budcore::platform::CallContext& as, const std::string& gang,
               const budcore::core::Value& plan, const std::map<std::string, std::string>& names) {
  using namespace budcore;
  const core::Id id = core::Id::parse(gang).value();
  auto applied = p.gpu_defrag_apply(as, id, plan);
  if (!applied) return std::cerr << applied.error().describe() << "\n", 1;
  auto rec = p.get_job(as, id);
  if (!rec || rec->job.status != job::JobStatus::Running) return std::cerr << "the gang does not run after the plan\n", 1;
  std::string node;
  for (const auto& w : p.cluster().workloads)
    if (w.job_id == id && w.placement && !w.placement->nodes.empty()) node = w.placement->nodes[0];
  for (const auto& m : applied->find("plan")->find("moves")->as_list()) {
    const std::string& moved = m.find("workload")->as_string();
    auto named = names.find(moved);
    std::cout << "  applied (budcore platform defrag JOB --apply): " << (named != names.end() ? named->second : moved)
              << " evicted and restarted on " << m.find("to")->as_string() << "\n";
  }
  std::cout << "  gang-4gpu runs now on " << node << " (without the plan it would start when eval-a ends, in 5 minutes)\n";
  if (auto idle = p.run_until_idle(); !idle) return std::cerr << idle.error().describe() << "\n", 1;
  for (const auto& [job_id, name] : names) {
    auto done = p.get_job(as, core::Id::parse(job_id).value());
    if (!done || done->job.status != job::JobStatus::Completed) return std::cerr << name << " did not complete\n", 1;
  }
  return 0;
}

// GPU placement (docs/gpu.md "In the platform"): two A100 nodes of 4 GPUs under worst_fit; two
// 1-GPU jobs land one per node, so a 4-GPU gang the quota admits finds at most 3 free GPUs on one
// node and waits for placement. The defragmentation plan says what frees it, and is then applied.
int show_placement() {
  using namespace budcore;
  auto config = platform::PlatformConfig::parse(R"(
store: "sqlite::memory:"
cluster:
  placement_policy: worst_fit
  inventory:
    - {name: a100, flavor: a100-80gb, nodes: 2, gpu_type: nvidia-a100-80gb, gpus_per_node: 4, cpu_per_node: "96", memory_per_node: 1Ti})");
  if (!config) return std::cerr << config.error().describe() << "\n", 1;
  auto p = platform::Platform::open(*config);
  if (!p) return std::cerr << p.error().describe() << "\n", 1;
  const auto as = platform::CallContext::for_tenant(core::Id::parse("3f6b2a1e-8c4d-4e5f-9a0b-1c2d3e4f5a6b").value(), "user:demo");
  std::map<std::string, std::string> names;  // job id -> name
  std::string gang;
  for (auto [name, gpus, minutes] : {std::tuple{"eval-a", 1, 5}, {"eval-b", 1, 10}, {"gang-4gpu", 4, 10}}) {
    auto r = (*p)->submit(as, a100_job(name, gpus, minutes));
    if (!r) return std::cerr << r.error().describe() << "\n", 1;
    names[r->record.job.id.to_string()] = name;
    gang = r->record.job.id.to_string();
  }
  if (auto st = (*p)->pump(); !st) return std::cerr << st.error().describe() << "\n", 1;
  std::cout << "\nGPU placement (two A100 nodes of 4 GPUs, cluster.placement_policy: worst_fit)\n";
  auto tl = (*p)->schedule(as);
  if (!tl) return std::cerr << tl.error().describe() << "\n", 1;
  bool waits = false;
  for (const auto& e : tl->jobs) {
    if (e.wait != schedule::WaitReason::Placement) continue;
    waits = true;
    std::cout << "  " << names[e.name] << " waits for placement, not quota: " << e.wait_detail << "\n";
  }
  if (!waits) return std::cerr << "the gang does not wait for placement\n", 1;
  for (const auto& f : (*p)->gpu_report())
    std::cout << "  " << f.flavor << ": unallocated share " << f.report.cluster.unallocated_share << ", fragmentation "
              << f.report.cluster.fragmentation_milli << " milli-GPU, largest gang on one node "
              << f.report.cluster.largest_gang_node << " GPUs\n";
  auto doc = (*p)->gpu_defrag(as, core::Id::parse(gang).value());
  if (!doc) return std::cerr << doc.error().describe() << "\n", 1;
  const core::Value* plan = doc->find("plan");
  if (plan == nullptr || !plan->is_map()) return std::cerr << "no defragmentation plan\n", 1;
  std::string summary = plan->find("summary")->as_string();
  for (const auto& [id, name] : names)
    for (std::size_t at; (at = summary.find(id)) != std::string::npos;) summary.replace(at, id.size(), name);
  std::cout << "  the plan that frees it (advice; budcore platform defrag JOB): " << summary << "\n";
  return apply_plan(**p, as, gang, *doc, names);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: budcore_demo <examples dir>\n";
    return 2;
  }
  const std::string specs = std::string(argv[1]) + "/specs";
  std::cout << "budcore " << budcore_version_string() << " demo: a GPU platform on embedded defaults\n"
            << "(SQLite store, simulated cluster admitted by budcore's Kueue engine, virtual clock)\n\n";
  auto doc = budcore::core::load_document_file(specs + "/demo-scenario.yaml");
  if (!doc) {
    std::cerr << "demo-scenario.yaml: " << doc.error().describe() << "\n";
    return 1;
  }
  auto scenario = budcore::platform::Scenario::from_value(*doc, specs);
  if (!scenario) {
    std::cerr << "demo-scenario.yaml: " << scenario.error().describe() << "\n";
    return 1;
  }
  auto out = budcore::platform::simulate(*scenario);
  if (!out) {
    std::cerr << "the scenario failed: " << out.error().describe() << "\n";
    return 1;
  }
  std::cout << "What happened (virtual time since " << out->start.to_string() << ")\n";
  for (const auto& line : out->log)
    if (worth_telling(line)) std::cout << "  " << line << "\n";
  std::cout << "\nPipelines\n";
  for (const auto& p : out->pipelines.as_list()) {
    std::cout << "  " << p.find("name")->as_string() << ": " << p.find("status")->as_string() << " (";
    bool first = true;
    for (const auto& [step, state] : p.find("steps")->as_map()) {
      std::cout << (first ? "" : ", ") << step << " " << state.as_string();
      first = false;
    }
    std::cout << ")\n";
  }
  std::cout << "\nJobs at " << out->end.to_string() << " (times since the start; services keep running)\n"
            << out->table();
  std::size_t preempted = 0, retried = 0;
  for (const auto& j : out->jobs) {
    preempted += j.preemptions > 0;
    retried += j.retries > 0;
  }
  std::cout << "\n" << out->jobs.size() << " jobs, " << out->events << " events recorded; " << preempted
            << " preempted and requeued, " << retried << " retried after a failure.\n"
            << "Try: budcore platform simulate examples/specs/demo-scenario.yaml --json\n";
  if (int rc = show_schedule(); rc != 0) return rc;
  if (int rc = show_serverless(); rc != 0) return rc;
  if (int rc = show_security(); rc != 0) return rc;
  return show_placement();
}
