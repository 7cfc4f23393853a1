// `budcore platform ...`: the Platform from the command line.
//
//   budcore platform simulate SCENARIO [--json] [--metrics]   what-if run on a virtual clock
//   budcore platform submit FILE  [--key K]                    FILE: a job, or {"jobs": [...]}
//   budcore platform get ID | cancel ID [--reason R] | retry ID | preempt ID [--reason R]
//   budcore platform defrag JOB [--apply [--plan FILE]]
//   budcore platform priority ID PRIORITY
//   budcore platform list [--status S]... [--limit N] [--after CURSOR]
//   budcore platform watch [--since SEQ] [--limit N]
//   budcore platform schedule [--html FILE]                  the tenant's timeline (schedule estimate --details)
//   budcore platform pipeline FILE [--params FILE]             start a pipeline run
//   budcore platform run-status ID | run-cancel ID [--reason R] a pipeline run
//   budcore platform run (--for SECONDS | --idle)              move a virtual clock (a system clock: follow the cluster for SECONDS)
//   budcore platform cluster [--tenant T --principal P]         the caller's view (needed with RBAC)
//   budcore platform metrics | check
//   budcore platform bind PRINCIPAL ROLE [--project P] | unbind PRINCIPAL ROLE [--project P]
//   budcore platform bindings [--of PRINCIPAL] | audit [--object ID] [--limit N] [--after C] | audit-verify
//   budcore platform compact                                  retention now (platform admins)
//
// Every command but simulate opens the platform from --config FILE or, by default, the embedded
// one in --dir DIR (default .budcore); job commands need --tenant UUID. JSON on stdout (metrics:
// Prometheus text); errors as {"error": {...}} on stderr, exit 2 for bad input or unknown ids,
// 1 when the platform cannot be opened.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "budcore/backend/store_json.hpp"
#include "budcore/core/json.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/platform/platform.hpp"
#include "budcore/platform/platform_json.hpp"
#include "budcore/platform/scenario.hpp"
#include "budcore/schedule/estimate.hpp"
#include "budcore/schedule/view.hpp"
#include "cli/command.hpp"

namespace budcore::cli {
namespace {

struct Common {
  std::string config;
  std::string dir = ".budcore";
  std::string tenant;
  std::string principal;
};

void print(const core::Value& v) { std::cout << core::to_json(v) << "\n"; }

// A missing file, a bad document, an unknown id or a refusal is the caller's input (2); a store that
// cannot be opened or fails is budcore's (1).
int fail(const core::Error& e) {
  int rc = report_error(e);
  // A refused call (a missing role, a tenant policy, a rate limit) is the caller's too.
  switch (e.code) {
    case core::ErrorCode::NotFound:
    case core::ErrorCode::Conflict:
    case core::ErrorCode::Security:
    case core::ErrorCode::Gone:
    case core::ErrorCode::RateLimited: return kExitInvalid;
    default: return rc;
  }
}

core::Result<std::unique_ptr<platform::Platform>> open(const Common& c) {
  platform::PlatformConfig config;
  if (!c.config.empty()) {
    BUDCORE_TRY_ASSIGN(auto text, read_file_arg(c.config, "--config"));
    BUDCORE_TRY_ASSIGN(config, platform::PlatformConfig::parse(text));
    // A one-shot command of a replicated platform never leads: it is a follower for the time of
    // one call (its mutations are requests the leader carries out; `platform serve` leads).
    // It speaks as itself, not as the config's replica (whose metrics it would claim).
    if (config.ha) {
      config.ha->lead = false;
      config.ha->replica = "cli-" + std::to_string(::getpid());
    }
  } else {
    std::error_code ec;
    std::filesystem::create_directories(c.dir, ec);
    config = platform::PlatformConfig::embedded(c.dir);
  }
  return platform::Platform::open(std::move(config));
}

core::Result<platform::CallContext> caller(const Common& c) {
  auto id = parse_uuid(c.tenant, "tenant");
  if (!id) return id.error();
  return platform::CallContext::for_tenant(*id, c.principal);
}


// Runs fn(platform, caller) and prints what it returns.
template <class Fn>
int with_platform(const Common& c, bool needs_tenant, Fn&& fn) {
  platform::CallContext ctx;
  if (needs_tenant) {
    auto t = caller(c);
    if (!t) return report_error(t.error());
    ctx = *t;
  }
  auto p = open(c);
  if (!p) {
    int rc = report_error(p.error());
    return p.error().code == core::ErrorCode::Invalid ? kExitInvalid : rc;
  }
  auto out = fn(**p, ctx);
  if (!out) return fail(out.error());
  print(*out);
  return kExitOk;
}

void draw_progress(double fraction) {
  static int last = -1;
  int pct = static_cast<int>(fraction * 100);
  if (pct == last) return;
  last = pct;
  int bars = pct / 5;
  std::fprintf(stderr, "\r[%s%s] %3d%% of jobs ended", std::string(static_cast<std::size_t>(bars), '#').c_str(),
               std::string(static_cast<std::size_t>(20 - bars), '.').c_str(), pct);
  if (pct >= 100) std::fprintf(stderr, "\n");
}

int simulate(const std::string& file, bool json, bool metrics) {
  auto text = read_file_arg(file, "SCENARIO");
  if (!text) return report_error(text.error());
  std::string base = file == "-" ? std::string() : std::filesystem::path(file).parent_path().string();
  if (base.empty() && file != "-") base = ".";
  auto scenario = platform::Scenario::parse(*text, base);
  if (!scenario) return report_error(input_file_error(scenario.error(), {}));
  std::function<void(double)> progress;
  if (::isatty(STDERR_FILENO) && !json) progress = draw_progress;
  auto out = platform::simulate(*scenario, progress);
  if (!out) return fail(out.error());
  if (metrics) {
    std::cout << out->metrics;
  } else if (json) {
    print(out->to_value());
  } else {
    for (const auto& line : out->log) std::cout << line << "\n";
    std::cout << "\n" << out->table();
  }
  return kExitOk;
}

}  // namespace

void add_platform_ha_commands(CLI::App& platform_group);  // cmd_platform_ha.cpp

namespace {

// The `platform` subcommands, registered in groups. Each group's callbacks capture copies of
// the shared options (never the registrar, which is gone when they run).
class PlatformCommands {
 public:
  explicit PlatformCommands(CLI::App& root)
      : group_(root.add_subcommand("platform", "The platform: jobs through admission to completion, pipelines, what-if runs")),
        common_(std::make_shared<Common>()) {
    group_->require_subcommand(1);
  }

  void add_all() {
    add_platform_ha_commands(*group_);
    add_simulate();
    add_job_commands();
    add_view_commands();
    add_admin_commands();
    add_runtime_commands();
  }

 private:
  // --config/--dir, and --tenant/--principal for commands that act for a tenant.
  void add_common(CLI::App* cmd, bool tenant) {
    cmd->add_option("--config", common_->config, "Platform config file (YAML/JSON)");
    cmd->add_option("--dir", common_->dir, "Embedded platform directory (default .budcore)");
    if (tenant) {
      cmd->add_option("--tenant", common_->tenant, "Tenant id (UUID)")->required();
      cmd->add_option("--principal", common_->principal,
                      "Who calls: user:NAME or sa:NAME (checked by RBAC, recorded with events and audit)");
    }
  }

  // simulate
  void add_simulate() {
    CLI::App* group = group_;
    auto* sim = group->add_subcommand("simulate", "Run a what-if scenario on a virtual clock");
    auto sim_file = std::make_shared<std::string>();
    auto sim_json = std::make_shared<bool>(false);
    auto sim_metrics = std::make_shared<bool>(false);
    sim->add_option("SCENARIO", *sim_file, "Scenario file (YAML/JSON, - for stdin)")->required();
    sim->add_flag("--json", *sim_json, "Print the outcome as JSON");
    sim->add_flag("--metrics", *sim_metrics, "Print the platform's metrics at the end (Prometheus text)");
    sim->callback([=] { exit_code() = simulate(*sim_file, *sim_json, *sim_metrics); });

  }

  // submit, get, cancel, retry, preempt, pipeline runs by id, priority
  void add_job_commands() {
    CLI::App* group = group_;
    auto common = common_;
    auto add_common = [this](CLI::App* cmd, bool tenant) { this->add_common(cmd, tenant); };
    auto* submit = group->add_subcommand("submit", "Submit a job (or {\"jobs\": [...]} as one batch)");
    add_common(submit, true);
    auto submit_file = std::make_shared<std::string>();
    auto submit_key = std::make_shared<std::string>();
    submit->add_option("FILE", *submit_file, "Job document (- for stdin)")->required();
    submit->add_option("--key", *submit_key, "Idempotency key");
    submit->callback([=] {
      exit_code() = with_platform(*common, true, [&](platform::Platform& p, const platform::CallContext& ctx) -> core::Result<core::Value> {
        BUDCORE_TRY(check_key_option(*submit, "--key", *submit_key));
        BUDCORE_TRY_ASSIGN(auto doc, load_strict_document_arg(*submit_file, "FILE"));
        if (doc.is_list() || (doc.is_map() && doc.find("jobs"))) {
          BUDCORE_TRY_ASSIGN(auto results, p.submit_batch_document(ctx, doc, *submit_key));
          return platform::to_value(results);
        }
        BUDCORE_TRY_ASSIGN(auto r, p.submit_document(ctx, doc, *submit_key));
        return platform::to_value(r);
      });
    });

    auto add_id_command = [&](const char* name, const char* help, bool with_reason,
                              std::function<core::Result<core::Value>(platform::Platform&, const platform::CallContext&,
                                                                      const core::Id&, const std::string&)> act) {
      auto* cmd = group->add_subcommand(name, help);
      add_common(cmd, true);
      auto id = std::make_shared<std::string>();
      auto reason = std::make_shared<std::string>();
      cmd->add_option("ID", *id, "Job id")->required();
      if (with_reason) cmd->add_option("--reason", *reason, "Why (recorded on the job)");
      cmd->callback([=] {
        exit_code() = with_platform(*common, true, [&](platform::Platform& p, const platform::CallContext& ctx) -> core::Result<core::Value> {
          BUDCORE_TRY_ASSIGN(core::Id job, parse_uuid(*id, "id"));
          return act(p, ctx, job, *reason);
        });
      });
    };
    add_id_command("get", "Show a job", false, [](auto& p, auto& ctx, auto& id, auto&) -> core::Result<core::Value> {
      BUDCORE_TRY_ASSIGN(auto r, p.get_job(ctx, id));
      return backend::to_value(r);
    });
    add_id_command("cancel", "Cancel a job", true, [](auto& p, auto& ctx, auto& id, auto& reason) -> core::Result<core::Value> {
      BUDCORE_TRY_ASSIGN(auto r, p.cancel_job(ctx, id, reason));
      return backend::to_value(r);
    });
    add_id_command("retry", "Start another run of a failed job", false, [](auto& p, auto& ctx, auto& id, auto&) -> core::Result<core::Value> {
      BUDCORE_TRY_ASSIGN(auto r, p.retry_job(ctx, id));
      return backend::to_value(r);
    });
    add_id_command("preempt", "Preempt a scheduled or running job (administrators)", true,
                   [](auto& p, auto& ctx, auto& id, auto& reason) -> core::Result<core::Value> {
                     BUDCORE_TRY_ASSIGN(auto r, p.preempt_job(ctx, id, reason));
                     return backend::to_value(r);
                   });
    add_id_command("run-status", "Show a pipeline run", false, [](auto& p, auto& ctx, auto& id, auto&) -> core::Result<core::Value> {
      BUDCORE_TRY_ASSIGN(auto r, p.get_pipeline_run(ctx, id));
      return r.to_value();
    });
    add_id_command("run-cancel", "Cancel a pipeline run and its running jobs", true,
                   [](auto& p, auto& ctx, auto& id, auto& reason) -> core::Result<core::Value> {
                     BUDCORE_TRY_ASSIGN(auto r, p.cancel_pipeline_run(ctx, id, reason));
                     return r.to_value();
                   });

    auto* prio = group->add_subcommand("priority", "Change a job's priority");
    add_common(prio, true);
    auto prio_id = std::make_shared<std::string>();
    auto prio_value = std::make_shared<std::string>();
    prio->add_option("ID", *prio_id, "Job id")->required();
    prio->add_option("PRIORITY", *prio_value, "critical, high, normal, low or spot")->required();
    prio->callback([=] {
      exit_code() = with_platform(*common, true, [&](platform::Platform& p, const platform::CallContext& ctx) -> core::Result<core::Value> {
        BUDCORE_TRY_ASSIGN(core::Id job, parse_uuid(*prio_id, "id"));
        auto pr = job::parse_job_priority(*prio_value);
        if (!pr) return core::Error(pr.error()).at("priority");
        BUDCORE_TRY_ASSIGN(auto r, p.set_priority(ctx, job, *pr));
        return backend::to_value(r);
      });
    });

  }

  // list, schedule, defrag, watch
  void add_view_commands() {
    CLI::App* group = group_;
    auto common = common_;
    auto add_common = [this](CLI::App* cmd, bool tenant) { this->add_common(cmd, tenant); };
    auto* list = group->add_subcommand("list", "List a tenant's jobs, newest first");
    add_common(list, true);
    auto statuses = std::make_shared<std::vector<std::string>>();
    auto limit = std::make_shared<int>(100);
    auto after = std::make_shared<std::string>();
    list->add_option("--status", *statuses, "Only jobs in this status (repeatable)");
    list->add_option("--limit", *limit, "Page size (1..1000)");
    list->add_option("--after", *after, "Cursor of the previous page");
    list->callback([=] {
      exit_code() = with_platform(*common, true, [&](platform::Platform& p, const platform::CallContext& ctx) -> core::Result<core::Value> {
        core::List st(statuses->begin(), statuses->end());
        core::Map q{{"limit", *limit}};
        if (!st.empty()) q.set("status", core::Value(std::move(st)));
        if (!after->empty()) q.set("after", *after);
        BUDCORE_TRY_ASSIGN(auto query, backend::parse_job_query(core::Value(std::move(q))));
        BUDCORE_TRY_ASSIGN(auto page, p.list_jobs(ctx, query.filter, query.page));
        return backend::to_value(page);
      });
    });

    auto* sched = group->add_subcommand("schedule", "When each of the tenant's waiting and running jobs starts and ends");
    add_common(sched, true);
    auto sched_html = std::make_shared<std::string>();
    sched->add_option("--html", *sched_html, "Also write the schedule view (one self-contained HTML page) here");
    sched->callback([=] {
      exit_code() = with_platform(*common, true, [&](platform::Platform& p, const platform::CallContext& ctx) -> core::Result<core::Value> {
        BUDCORE_TRY(p.pump());
        BUDCORE_TRY_ASSIGN(auto timeline, p.schedule(ctx));
        if (!sched_html->empty()) BUDCORE_TRY(write_file_arg(*sched_html, schedule::render_html(timeline, {}), "--html"));
        return schedule::to_value(timeline, {-1, true});
      });
    });

    auto* defrag = group->add_subcommand("defrag", "The cheapest plan that lets a job waiting for placement start (advice; --apply applies it)");
    add_common(defrag, true);
    auto defrag_job = std::make_shared<std::string>();
    auto defrag_apply = std::make_shared<bool>(false);
    auto defrag_plan = std::make_shared<std::string>();
    defrag->add_option("JOB", *defrag_job, "The job's id")->required();
    defrag->add_flag("--apply", *defrag_apply, "Apply the plan: move the runs it names and start the job");
    defrag->add_option("--plan", *defrag_plan, "With --apply: the plan to apply, as `defrag JOB` printed it (refused when stale)")
        ->needs(defrag->get_option("--apply"));
    defrag->callback([=] {
      exit_code() = with_platform(*common, true, [&](platform::Platform& p, const platform::CallContext& ctx) -> core::Result<core::Value> {
        auto id = core::Id::parse(*defrag_job);
        if (!id) return core::Error::invalid("job", *defrag_job, "is not a job id");
        BUDCORE_TRY(p.pump());
        if (!*defrag_apply) return p.gpu_defrag(ctx, *id);
        core::Value plan;
        if (!defrag_plan->empty()) {
          BUDCORE_TRY_ASSIGN(plan, load_document_arg(*defrag_plan, "--plan"));
          // An empty or null file (a `defrag JOB > plan.json` that failed) is not "the plan made
          // now": nobody has read that one.
          if (plan.is_null()) return core::Error::invalid("--plan", *defrag_plan, "holds no plan: give the document `defrag JOB` printed");
        }
        return p.gpu_defrag_apply(ctx, *id, plan);
      });
    });

    auto* watch = group->add_subcommand("watch", "The tenant's events after a sequence number");
    add_common(watch, true);
    auto since = std::make_shared<std::int64_t>(0);
    auto wlimit = std::make_shared<int>(1000);
    watch->add_option("--since", *since, "Last sequence number seen (0: from the start)");
    watch->add_option("--limit", *wlimit, "At most this many events (1..10000)");
    watch->callback([=] {
      exit_code() = with_platform(*common, true, [&](platform::Platform& p, const platform::CallContext& ctx) -> core::Result<core::Value> {
        if (*wlimit < 1) return core::Error::invalid("limit", std::to_string(*wlimit), "must be between 1 and 10000");
        BUDCORE_TRY_ASSIGN(auto page, p.watch(ctx, *since, static_cast<std::size_t>(*wlimit)));
        return platform::to_value(page);
      });
    });

    // ---- security: role bindings and the audit log (docs/security.md) ----
    for (const bool grant : {true, false}) {
      auto* cmd = group->add_subcommand(grant ? "bind" : "unbind", grant ? "Grant a role (tenant admins)" : "Revoke a role (tenant admins)");
      add_common(cmd, true);
      auto who = std::make_shared<std::string>();
      auto role = std::make_shared<std::string>();
      auto project = std::make_shared<std::string>();
      cmd->add_option("PRINCIPAL", *who, "user:NAME or sa:NAME")->required();
      cmd->add_option("ROLE", *role, "viewer, editor, admin, tenant-admin or platform-admin")->required();
      cmd->add_option("--project", *project, "Project id (UUID); default: the whole tenant");
      cmd->callback([=] {
        exit_code() = with_platform(*common, true, [&](platform::Platform& p, const platform::CallContext& ctx) -> core::Result<core::Value> {
          platform::RoleBinding b;
          b.principal = *who;
          BUDCORE_TRY_ASSIGN(b.role, platform::parse_role(*role));
          if (!project->empty()) {
            BUDCORE_TRY_ASSIGN(b.project, parse_uuid(*project, "project"));
          }
          if (grant) {
            BUDCORE_TRY_ASSIGN(auto rec, p.bind_role(ctx, b));
            return backend::to_value(rec);
          }
          BUDCORE_TRY(p.unbind_role(ctx, b));
          return core::Value::map({{"unbound", true}});
        });
      });
    }

  }

  // bindings, audit, audit-verify, compact (administrators)
  void add_admin_commands() {
    CLI::App* group = group_;
    auto common = common_;
    auto add_common = [this](CLI::App* cmd, bool tenant) { this->add_common(cmd, tenant); };
    auto* bindings = group->add_subcommand("bindings", "The tenant's role bindings (tenant admins)");
    add_common(bindings, true);
    auto of = std::make_shared<std::string>();
    bindings->add_option("--of", *of, "Only this principal's");
    bindings->callback([=] {
      exit_code() = with_platform(*common, true, [&](platform::Platform& p, const platform::CallContext& ctx) -> core::Result<core::Value> {
        std::optional<std::string> who;
        if (!of->empty()) who = *of;
        BUDCORE_TRY_ASSIGN(auto list, p.list_role_bindings(ctx, who));
        core::List items;
        for (const auto& b : list) items.push_back(backend::to_value(b));
        return core::Value::map({{"items", core::Value(std::move(items))}});
      });
    });

    auto* audit = group->add_subcommand("audit", "The tenant's audit log, oldest first (tenant admins)");
    add_common(audit, true);
    auto object = std::make_shared<std::string>();
    auto alimit = std::make_shared<int>(100);
    auto aafter = std::make_shared<std::string>();
    audit->add_option("--object", *object, "Only entries about this object id");
    audit->add_option("--limit", *alimit, "Page size (1..1000)");
    audit->add_option("--after", *aafter, "Cursor of the previous page");
    audit->callback([=] {
      exit_code() = with_platform(*common, true, [&](platform::Platform& p, const platform::CallContext& ctx) -> core::Result<core::Value> {
        if (*alimit < 1 || *alimit > 1000) return core::Error::invalid("limit", std::to_string(*alimit), "must be between 1 and 1000");
        backend::AuditQuery q;
        if (!object->empty()) q.object_id = *object;
        BUDCORE_TRY_ASSIGN(auto page, p.list_audit(ctx, q, backend::PageRequest{static_cast<std::size_t>(*alimit), *aafter}));
        return backend::to_value(page);
      });
    });

    auto* verify = group->add_subcommand("audit-verify",
                                        "Check every tenant's audit chain and head (a platform admin's call: --tenant and "
                                        "--principal name the caller)");
    add_common(verify, true);
    auto verify_anchors = std::make_shared<std::vector<std::string>>();
    verify->add_option("--expect-head", *verify_anchors,
                       "An entry hash kept outside the store (a head published earlier): it must still be chained")
        ->take_all();
    verify->callback([=] {
      exit_code() = with_platform(*common, true, [&](platform::Platform& p, const platform::CallContext& ctx) -> core::Result<core::Value> {
        BUDCORE_TRY_ASSIGN(auto report, p.verify_audit(ctx, *verify_anchors));
        if (!report.ok) {
          core::Error e = core::Error::make(core::ErrorCode::Invalid, "the audit chain is broken: " + report.problems.front(), "audit_log");
          e.value = std::to_string(report.problems.size()) + " problems";
          return e;
        }
        return backend::to_value(report);
      });
    });

    auto* compact = group->add_subcommand("compact", "Remove what the config's retention lets go, now (platform admins)");
    add_common(compact, true);
    compact->callback([=] {
      exit_code() = with_platform(*common, true, [&](platform::Platform& p, const platform::CallContext& ctx) -> core::Result<core::Value> {
        BUDCORE_TRY_ASSIGN(auto report, p.compact(ctx));
        return backend::to_value(report);
      });
    });

  }

  // pipeline, run, cluster, check, metrics
  void add_runtime_commands() {
    CLI::App* group = group_;
    auto common = common_;
    auto add_common = [this](CLI::App* cmd, bool tenant) { this->add_common(cmd, tenant); };
    auto* pipe = group->add_subcommand("pipeline", "Start a pipeline run");
    add_common(pipe, true);
    auto pipe_file = std::make_shared<std::string>();
    auto params_file = std::make_shared<std::string>();
    pipe->add_option("FILE", *pipe_file, "Pipeline document (- for stdin)")->required();
    pipe->add_option("--params", *params_file, "Parameters (YAML/JSON map)");
    pipe->callback([=] {
      exit_code() = with_platform(*common, true, [&](platform::Platform& p, const platform::CallContext& ctx) -> core::Result<core::Value> {
        BUDCORE_TRY_ASSIGN(auto doc, load_document_arg(*pipe_file, "FILE"));
        core::Value params;
        if (!params_file->empty()) {
          BUDCORE_TRY_ASSIGN(params, load_document_arg(*params_file, "--params"));
        }
        BUDCORE_TRY_ASSIGN(auto run, p.run_pipeline(ctx, doc, params));
        return run.to_value();
      });
    });

    auto* run = group->add_subcommand("run", "Move the platform's virtual clock forward (a system clock: follow the cluster)");
    add_common(run, false);
    auto seconds = std::make_shared<double>(-1);
    auto idle = std::make_shared<bool>(false);
    run->add_option("--for", *seconds, "Seconds of virtual time");
    run->add_flag("--idle", *idle, "Until nothing is scheduled (at most a year)");
    run->callback([=] {
      exit_code() = with_platform(*common, false, [&](platform::Platform& p, const platform::CallContext&) -> core::Result<core::Value> {
        if (*idle == (*seconds >= 0)) return core::Error::invalid("for", "", "give either --for SECONDS or --idle");
        if (*seconds > 366.0 * 86400) return core::Error::invalid("for", std::to_string(*seconds), "at most a year");
        if (*idle) {
          BUDCORE_TRY(p.run_until_idle());
        } else {
          const core::Timestamp until = p.now() + core::Duration::nanoseconds(static_cast<std::int64_t>(*seconds * 1e9));
          core::Status st = p.run_until(until);
          if (!st && st.error().code == core::ErrorCode::Unsupported) {
            // A system clock (a real cluster): follow it for that long of real time, so that a
            // one-shot command sees what the cluster did meanwhile.
            while (p.now() < until) {
              BUDCORE_TRY(p.pump());
              const std::int64_t left_ns = (until - p.now()).count_ns();
              std::this_thread::sleep_for(std::chrono::nanoseconds(std::clamp<std::int64_t>(left_ns, 0, 200'000'000)));
            }
            st = p.pump();
          }
          BUDCORE_TRY(st);
        }
        return core::Value::map({{"now", p.now().to_string()}});
      });
    });

    auto* cluster = group->add_subcommand("cluster", "What the cluster holds, the quota it uses and its GPU pools' fragmentation");
    add_common(cluster, false);
    cluster->add_option("--tenant", common->tenant, "Tenant id (UUID): its runs by id, other tenants' hidden");
    cluster->add_option("--principal", common->principal, "Who calls: user:NAME or sa:NAME (a platform admin sees every run)");
    cluster->callback([=] {
      // With a tenant (needed with security.rbac) the caller's view; without, the operator's.
      const bool scoped = !common->tenant.empty();
      exit_code() = with_platform(*common, scoped, [&](platform::Platform& p, const platform::CallContext& ctx) -> core::Result<core::Value> {
        if (!scoped && p.config().security.rbac)
          return core::Error::invalid("tenant", "", "with security.rbac the cluster is shown to a caller: give --tenant and --principal "
                                                    "(a platform admin sees every tenant's runs)");
        BUDCORE_TRY(p.pump());
        if (!scoped) {
          // The simulated cluster's runs are in the leader's memory: a follower's view is empty.
          if (auto ha = p.ha_status(); p.config().cluster_backend == "sim" && ha && ha->role == "follower")
            return core::Error::make(core::ErrorCode::NotLeader,
                                     "replica " + ha->replica + " is a follower: the simulated cluster's runs are "
                                     "shown by the leader (" + ha->lease.holder + ")", "epoch");
          return platform::to_value(p.cluster(), p.gpu_report());
        }
        BUDCORE_TRY_ASSIGN(auto view, p.cluster(ctx));
        return platform::to_value(view, p.gpu_report());
      });
    });

    auto* check = group->add_subcommand("check", "Check the platform's invariants against its store and cluster");
    add_common(check, false);
    check->callback([=] {
      exit_code() = with_platform(*common, false, [&](platform::Platform& p, const platform::CallContext&) -> core::Result<core::Value> {
        auto st = p.check_invariants();
        // A broken invariant is the answer; any other error (a follower, the store) is not.
        if (!st && st.error().code != core::ErrorCode::Internal) return st.error();
        if (!st) return core::Value::map({{"ok", false}, {"problem", st.error().message}});
        return core::Value::map({{"ok", true}});
      });
    });

    auto* metrics = group->add_subcommand("metrics", "Prometheus text exposition of the platform's metrics");
    add_common(metrics, false);
    metrics->callback([=] {
      auto p = open(*common);
      if (!p) {
        exit_code() = report_error(p.error());
        return;
      }
      if (auto st = (*p)->pump(); !st) {
        exit_code() = report_error(st.error());
        return;
      }
      std::cout << (*p)->metrics();
      exit_code() = kExitOk;
    });
  }

  CLI::App* group_;
  std::shared_ptr<Common> common_;
};

const bool registered = register_commands([](CLI::App& root) { PlatformCommands(root).add_all(); });

}  // namespace
}  // namespace budcore::cli
