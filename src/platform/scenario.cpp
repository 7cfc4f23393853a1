// What-if scenarios: parsed into a platform config plus timed submissions and actions, then
// run through a real Platform on an in-memory store and a virtual clock.
#include "budcore/platform/scenario.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <unordered_map>

#include "budcore/backend/sim_cluster.hpp"
#include "budcore/core/json.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/platform/platform.hpp"
#include "core/field_reader.hpp"
#include "platform/platform_impl.hpp"

namespace budcore::platform {

using core::Error;
using core::Value;

namespace {

constexpr double kMaxOffset = 366.0 * 86'400;  // a year of virtual time

core::Status known(const Value& v, std::string_view path, std::initializer_list<std::string_view> keys) {
  std::vector<std::string_view> k(keys);
  auto st = core::detail::Reader(v.as_map()).reject_unknown(k);
  if (!st) return Error(st.error()).at(path);
  return {};
}

core::Result<const Value*> map_at(const Value& v, const std::string& path) {
  if (!v.is_map()) return Error::invalid(path, core::to_json(v), "must be a map");
  return &v;
}

core::Result<double> seconds(const Value* v, const std::string& path, double fallback = 0) {
  if (v == nullptr || v->is_null()) return fallback;
  if (!v->is_number() || !std::isfinite(v->as_float()) || v->as_float() < 0 || v->as_float() > kMaxOffset)
    return Error::invalid(path, core::to_json(*v), "must be a number of seconds between 0 and a year (31622400)");
  return v->as_float();
}

core::Result<std::string> text(const Value* v, const std::string& path, std::string fallback) {
  if (v == nullptr || v->is_null()) return fallback;
  if (!v->is_string() || v->as_string().empty() || v->as_string().size() > 253)
    return Error::invalid(path, core::to_json(*v), "must be a non-empty string of at most 253 bytes");
  return v->as_string();
}

// A path a scenario names: relative, and inside the scenario's directory once resolved (links
// followed), so that a shared scenario reads nothing else on the machine that runs it.
core::Result<std::string> inside(const std::string& base, const std::string& name, const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path p(name);
  if (p.empty() || p.is_absolute())
    return Error::invalid(path, name, "must be a path relative to the scenario's directory");
  std::error_code ec;
  const fs::path root = fs::weakly_canonical(fs::absolute(base, ec), ec);
  const fs::path full = fs::weakly_canonical(root / p, ec);
  auto [r, f] = std::mismatch(root.begin(), root.end(), full.begin(), full.end());
  if (ec || r != root.end())
    return Error::invalid(path, name, "must stay inside the scenario's directory");
  // A plain file with one name: not a pipe (it would block the run) nor a hard link to a file
  // elsewhere.
  if (!fs::is_regular_file(full, ec) || fs::hard_link_count(full, ec) != 1 || ec)
    return Error::invalid(path, name, "must be a regular file (not a pipe or device) with one name (no hard link)");
  return full.string();
}

// An inline document or `file:` relative to the scenario.
core::Result<Value> document(const Value& entry, std::string_view key, const std::string& path, const std::string& base) {
  const Value* inline_doc = entry.find(key);
  const Value* file = entry.find("file");
  if ((inline_doc == nullptr || inline_doc->is_null()) == (file == nullptr || file->is_null()))
    return Error::invalid(path, "", "give either `" + std::string(key) + "` or `file`");
  if (inline_doc != nullptr && !inline_doc->is_null()) return *inline_doc;
  if (!file->is_string()) return Error::invalid(path + ".file", core::to_json(*file), "must be a path");
  if (base.empty()) return Error::invalid(path + ".file", file->as_string(), "file references need a scenario file");
  BUDCORE_TRY_ASSIGN(std::string p, inside(base, file->as_string(), path + ".file"));
  auto loaded = core::load_document_file(p);
  if (!loaded) {
    // Says why, never what the file holds.
    const core::Error& e = loaded.error();
    return Error::invalid(path + ".file", file->as_string(),
                          e.code == core::ErrorCode::Io ? "cannot be read" : "is not a JSON or YAML document");
  }
  return std::move(*loaded);
}

core::Id tenant_id(const std::string& name) {
  if (auto id = core::Id::parse(name)) return *id;
  return derived_id("tenant:" + name);
}

std::string offset_text(std::optional<double> s) {
  if (!s) return "-";
  auto total = static_cast<long long>(std::llround(*s));
  char buf[32];
  std::snprintf(buf, sizeof buf, "+%02lld:%02lld:%02lld", total / 3600, total / 60 % 60, total % 60);
  return buf;
}

}  // namespace

core::Result<Scenario> Scenario::from_value(const Value& doc, const std::string& base_dir) {
  if (!doc.is_map()) return Error::invalid("", core::to_json(doc), "a scenario is a map");
  BUDCORE_TRY(known(doc, "", {"schema_version", "start", "until_seconds", "cluster", "quota", "queues", "retry", "jobs",
                              "pipelines", "actions", "cost"}));
  core::Map cdoc;
  cdoc.set("store", "sqlite::memory:");
  core::Map clock{{"kind", "virtual"}};
  if (const Value* start = doc.find("start"); start != nullptr && !start->is_null()) clock.set("start", *start);
  cdoc.set("clock", Value(std::move(clock)));
  for (const char* k : {"schema_version", "cluster", "quota", "queues", "retry", "cost"})
    if (const Value* v = doc.find(k)) cdoc.set(k, *v);
  // cost.prices / cost.budgets given as relative paths are relative to the scenario, like `file:`.
  if (const Value* cost = doc.find("cost"); cost != nullptr && cost->is_map()) {
    core::Map c = cost->as_map();
    // A what-if sends nothing anywhere: its budget alerts are recorded, not delivered.
    if (const Value* alerts = c.find("alerts"))
      return Error::invalid("cost.alerts", core::to_json(*alerts),
                            "a scenario sends no alerts (it is a what-if): remove cost.alerts; alerts are recorded in its audit log");
    for (const char* k : {"prices", "budgets"})
      if (const Value* v = c.find(k); v != nullptr && v->is_string() && !v->as_string().empty() && v->as_string() != "-") {
        if (base_dir.empty())
          return Error::invalid(std::string("cost.") + k, v->as_string(), "file references need a scenario file");
        BUDCORE_TRY_ASSIGN(std::string p, inside(base_dir, v->as_string(), std::string("cost.") + k));
        c.set(k, p);
      }
    cdoc.set("cost", Value(std::move(c)));
  }
  Scenario s;
  auto config = PlatformConfig::from_value(Value(std::move(cdoc)));
  if (!config) {
    Error e = config.error();
    if (e.field == "clock.start") e.field = "start";
    return e;
  }
  s.config = std::move(*config);
  if (s.config.cluster_backend != "sim")  // a what-if never touches a real cluster
    return Error::invalid("cluster.backend", s.config.cluster_backend, "a scenario runs on the simulated cluster (sim)");
  s.config.store_durable = false;
  // Nor does it read any real secret: every reference resolves to a stand-in value, so that a
  // scenario's author learns nothing of any tenant's secrets (whose names it may choose).
  s.config.security.secret_providers = {SecretProviderConfig{"rehearsal", ""}};
  if (const Value* u = doc.find("until_seconds"); u != nullptr && !u->is_null()) {
    BUDCORE_TRY_ASSIGN(double until, seconds(u, "until_seconds"));
    s.until_seconds = until;
  }
  auto list_of = [&](std::string_view key) -> core::Result<const core::List*> {
    static const core::List kEmpty;
    const Value* v = doc.find(key);
    if (v == nullptr || v->is_null()) return &kEmpty;
    if (!v->is_list()) return Error::invalid(std::string(key), core::to_json(*v), "must be a list");
    return &v->as_list();
  };
  std::int64_t expanded = 0;
  BUDCORE_TRY_ASSIGN(const core::List* jobs, list_of("jobs"));
  for (std::size_t i = 0; i < jobs->size(); ++i) {
    const std::string path = "jobs[" + std::to_string(i) + "]";
    BUDCORE_TRY_ASSIGN(const Value* e, map_at((*jobs)[i], path));
    BUDCORE_TRY(known(*e, path, {"at", "tenant", "key", "count", "every_seconds", "sim", "job", "file"}));
    ScenarioJob j;
    BUDCORE_TRY_ASSIGN(j.at_seconds, seconds(e->find("at"), path + ".at"));
    BUDCORE_TRY_ASSIGN(j.tenant, text(e->find("tenant"), path + ".tenant", "default"));
    BUDCORE_TRY_ASSIGN(j.key, text(e->find("key"), path + ".key", ""));
    BUDCORE_TRY_ASSIGN(j.every_seconds, seconds(e->find("every_seconds"), path + ".every_seconds"));
    if (const Value* c = e->find("count"); c != nullptr && !c->is_null()) {
      if (!c->is_int() || c->as_int() < 1 || c->as_int() > kMaxJobs)
        return Error::invalid(path + ".count", core::to_json(*c), "must be an integer between 1 and 1000000");
      j.count = c->as_int();
    }
    expanded += j.count;
    if (expanded > kMaxJobs) return Error::invalid(path + ".count", std::to_string(j.count), "a scenario submits at most 1000000 jobs");
    BUDCORE_TRY_ASSIGN(Value jd, document(*e, "job", path, base_dir));
    auto parsed = job::Job::from_value(jd);
    if (!parsed) return Error(parsed.error()).at(path + (e->find("file") ? ".file" : ".job"));
    j.job = std::move(*parsed);
    if (const Value* sim = e->find("sim"); sim != nullptr && !sim->is_null()) {
      core::Map spec = j.job.spec.is_map() ? j.job.spec.as_map() : core::Map{};
      spec.set("sim", *sim);
      j.job.spec = Value(std::move(spec));
      if (auto st = backend::SimCluster::check_spec(j.job.spec); !st) {
        Error err = st.error();
        err.field = path + "." + err.field.substr(std::string("spec.").size());
        return err;
      }
    }
    s.jobs.push_back(std::move(j));
  }
  BUDCORE_TRY_ASSIGN(const core::List* pipes, list_of("pipelines"));
  for (std::size_t i = 0; i < pipes->size(); ++i) {
    const std::string path = "pipelines[" + std::to_string(i) + "]";
    BUDCORE_TRY_ASSIGN(const Value* e, map_at((*pipes)[i], path));
    BUDCORE_TRY(known(*e, path, {"at", "tenant", "params", "document", "file"}));
    ScenarioPipeline p;
    BUDCORE_TRY_ASSIGN(p.at_seconds, seconds(e->find("at"), path + ".at"));
    BUDCORE_TRY_ASSIGN(p.tenant, text(e->find("tenant"), path + ".tenant", "default"));
    if (const Value* params = e->find("params"); params != nullptr && !params->is_null()) {
      if (!params->is_map()) return Error::invalid(path + ".params", core::to_json(*params), "must be a map");
      p.params = *params;
    }
    BUDCORE_TRY_ASSIGN(p.document, document(*e, "document", path, base_dir));
    if (!p.document.is_map()) return Error::invalid(path + ".document", "", "a pipeline document is a map");
    s.pipelines.push_back(std::move(p));
  }
  BUDCORE_TRY_ASSIGN(const core::List* acts, list_of("actions"));
  for (std::size_t i = 0; i < acts->size(); ++i) {
    const std::string path = "actions[" + std::to_string(i) + "]";
    BUDCORE_TRY_ASSIGN(const Value* e, map_at((*acts)[i], path));
    BUDCORE_TRY(known(*e, path, {"at", "cancel", "preempt", "priority", "job"}));
    ScenarioAction a;
    BUDCORE_TRY_ASSIGN(a.at_seconds, seconds(e->find("at"), path + ".at"));
    const Value* cancel = e->find("cancel");
    const Value* preempt = e->find("preempt");
    const Value* priority = e->find("priority");
    int kinds = (cancel != nullptr) + (preempt != nullptr) + (priority != nullptr);
    if (kinds != 1) return Error::invalid(path, "", "an action is one of cancel, preempt or priority");
    if (cancel) {
      a.kind = ScenarioAction::Kind::Cancel;
      BUDCORE_TRY_ASSIGN(a.job, text(cancel, path + ".cancel", ""));
    } else if (preempt) {
      a.kind = ScenarioAction::Kind::Preempt;
      BUDCORE_TRY_ASSIGN(a.job, text(preempt, path + ".preempt", ""));
    } else {
      a.kind = ScenarioAction::Kind::Priority;
      BUDCORE_TRY_ASSIGN(std::string pr, text(priority, path + ".priority", ""));
      auto parsed = job::parse_job_priority(pr);
      if (!parsed) return Error(parsed.error()).at(path + ".priority");
      a.priority = *parsed;
      BUDCORE_TRY_ASSIGN(a.job, text(e->find("job"), path + ".job", ""));
    }
    if (a.job.empty()) return Error::invalid(path, "", "an action names its job");
    s.actions.push_back(std::move(a));
  }
  return s;
}

core::Result<Scenario> Scenario::parse(std::string_view text, const std::string& base_dir) {
  if (text.size() > kMaxDocumentBytes)
    return Error::invalid("", std::to_string(text.size()) + " bytes", "a scenario is at most 16 MiB");
  BUDCORE_TRY_ASSIGN(Value doc, core::parse_document(text, core::ParseOptions{.unique_keys = true}));
  return from_value(doc, base_dir);
}

namespace {

// A scenario played on a platform: its submissions and actions in time order, then the virtual
// clock run to the horizon, then the outcome read back from the platform.
class ScenarioRun {
 public:
  ScenarioRun(const Scenario& s, Platform& p, const std::function<void(double)>& progress)
      : s_(s), p_(p), progress_(progress), start_(p.now()) {}

  core::Result<ScenarioOutcome> play() {
    for (const Entry& e : entries()) {
      BUDCORE_TRY(p_.run_until(at(e.at)));
      if (e.kind == Entry::Job) BUDCORE_TRY(submit_job(e));
      else if (e.kind == Entry::Pipeline) BUDCORE_TRY(start_pipeline(e));
      else BUDCORE_TRY(act(e));
      report(0, submitted_.size());
    }
    BUDCORE_TRY(run_to_horizon());
    ScenarioOutcome out;
    out.start = start_;
    out.end = p_.now();
    for (const Submitted& sub : submitted_) {
      BUDCORE_TRY_ASSIGN(auto o, job_outcome(sub));
      out.jobs.push_back(std::move(o));
    }
    BUDCORE_TRY_ASSIGN(out.pipelines, pipeline_outcomes());
    BUDCORE_TRY(tell_story(out));
    out.metrics = p_.metrics();
    return out;
  }

 private:
  struct Entry {
    enum Kind { Job, Pipeline, Action };  // the order at equal times
    double at;
    Kind kind;
    std::size_t index;
    std::int64_t copy;
  };
  struct Submitted {
    core::Id id;
    core::Id tenant;
    std::string tenant_name;
    double at;
  };

  core::Timestamp at(double offset) const {
    return start_ + core::Duration::nanoseconds(static_cast<std::int64_t>(offset * 1e9));
  }
  double offset(core::Timestamp t) const { return static_cast<double>((t - start_).count_ns()) / 1e9; }
  void report(std::size_t done, std::size_t total) const {
    if (progress_ && total > 0) progress_(static_cast<double>(done) / static_cast<double>(total));
  }

  // Every submission and action, in time order (jobs first at equal times, then pipelines, actions).
  std::vector<Entry> entries() const {
    std::vector<Entry> out;
    for (std::size_t i = 0; i < s_.jobs.size(); ++i)
      for (std::int64_t c = 0; c < s_.jobs[i].count; ++c)
        out.push_back({s_.jobs[i].at_seconds + s_.jobs[i].every_seconds * static_cast<double>(c), Entry::Job, i, c});
    for (std::size_t i = 0; i < s_.pipelines.size(); ++i) out.push_back({s_.pipelines[i].at_seconds, Entry::Pipeline, i, 0});
    for (std::size_t i = 0; i < s_.actions.size(); ++i) out.push_back({s_.actions[i].at_seconds, Entry::Action, i, 0});
    std::stable_sort(out.begin(), out.end(),
                     [](const Entry& a, const Entry& b) { return a.at != b.at ? a.at < b.at : a.kind < b.kind; });
    return out;
  }

  core::Status submit_job(const Entry& e) {
    const ScenarioJob& sj = s_.jobs[e.index];
    job::Job job = sj.job;
    if (sj.count > 1) job.name = job.name + "-" + std::to_string(e.copy);
    std::string key = sj.key.empty() ? "" : (sj.count > 1 ? sj.key + "-" + std::to_string(e.copy) : sj.key);
    core::Id tenant = tenant_id(sj.tenant);
    tenants_[sj.tenant] = tenant;
    auto r = p_.submit(CallContext::for_tenant(tenant, "scenario"), std::move(job), key);
    if (!r) return Error(r.error()).at("jobs[" + std::to_string(e.index) + "]");
    by_name_.emplace(r->record.job.name, submitted_.size());
    submitted_.push_back({r->record.job.id, tenant, sj.tenant, e.at});
    return {};
  }

  core::Status start_pipeline(const Entry& e) {
    const ScenarioPipeline& sp = s_.pipelines[e.index];
    core::Id tenant = tenant_id(sp.tenant);
    tenants_[sp.tenant] = tenant;
    auto r = p_.run_pipeline(CallContext::for_tenant(tenant, "scenario"), sp.document, sp.params);
    if (!r) return Error(r.error()).at("pipelines[" + std::to_string(e.index) + "]");
    runs_.emplace_back(r->id, sp.tenant);
    return {};
  }

  // An action the platform refuses is part of the story, not an error of the scenario.
  core::Status act(const Entry& e) {
    const ScenarioAction& a = s_.actions[e.index];
    const std::string path = "actions[" + std::to_string(e.index) + "]";
    auto it = by_name_.find(a.job);
    if (it == by_name_.end())
      return Error::invalid(path + ".job", a.job, "no job of that name was submitted before the action");
    const Submitted& target = submitted_[it->second];
    auto ctx = CallContext::for_tenant(target.tenant, "scenario");
    core::Result<backend::JobRecord> r = core::Error{};
    if (a.kind == ScenarioAction::Kind::Cancel) r = p_.cancel_job(ctx, target.id, "scenario action");
    else if (a.kind == ScenarioAction::Kind::Preempt) r = p_.preempt_job(ctx, target.id, "scenario action");
    else r = p_.set_priority(ctx, target.id, a.priority);
    actions_.push_back({e.at, offset_text(e.at) + "  action " + path + " on " + a.job + ": " + (r ? "done" : r.error().message)});
    return {};
  }

  // Run to the horizon, an hour of virtual time at a time so progress can be shown.
  core::Status run_to_horizon() {
    const core::Timestamp horizon = s_.until_seconds ? at(*s_.until_seconds) : start_ + core::Duration::hours(24 * 366);
    for (;;) {
      auto next = p_.next_wakeup();
      if (!next || *next > horizon) break;
      core::Timestamp step = std::min(horizon, *next + core::Duration::hours(1));
      BUDCORE_TRY(p_.run_until(step));
      auto held = p_.cluster().workloads.size();
      report(submitted_.size() - std::min(submitted_.size(), held), submitted_.size());
    }
    if (s_.until_seconds) BUDCORE_TRY(p_.run_until(horizon));
    report(1, 1);
    return {};
  }

  // The queue, flavor and wait a job's admissions recorded in its history.
  void read_history(const job::Job& j, ScenarioJobOutcome& o) const {
    std::optional<core::Timestamp> queued_since;
    for (const auto& t : j.status_history) {
      if (t.to == job::JobStatus::Queued) {
        if (!o.queued_at) o.queued_at = offset(t.at);
        queued_since = t.at;
      }
      if (t.to == job::JobStatus::Scheduled) {
        o.admitted_at = offset(t.at);
        if (queued_since) o.wait_seconds += static_cast<double>((t.at - *queued_since).count_ns()) / 1e9;
        queued_since.reset();
        auto q = t.message.find("ClusterQueue ");
        if (q != std::string::npos) {
          std::string rest = t.message.substr(q + 13);
          o.cluster_queue = rest.substr(0, rest.find(' '));
          auto eq = rest.find("nvidia.com/");
          if (eq == std::string::npos) eq = rest.find('=');
          else eq = rest.find('=', eq);
          if (eq != std::string::npos) o.flavor = rest.substr(eq + 1, rest.find_first_of(",)", eq) - eq - 1);
        }
      }
      if (t.to == job::JobStatus::Preempted) ++o.preemptions;
    }
  }

  core::Result<ScenarioJobOutcome> job_outcome(const Submitted& sub) {
    BUDCORE_TRY_ASSIGN(auto rec, p_.get_job(CallContext::for_tenant(sub.tenant), sub.id));
    const job::Job& j = rec.job;
    job_names_[j.id] = j.name;
    ScenarioJobOutcome o;
    o.name = j.name;
    o.tenant = sub.tenant_name;
    o.job_type = std::string(job::to_string(j.job_type));
    o.priority = std::string(job::to_string(j.priority));
    o.status = std::string(job::to_string(j.status));
    o.submitted_at = sub.at;
    o.retries = j.retry_count;
    o.message = j.status_message.value_or("");
    if (j.actual_cost) o.actual_cost = j.actual_cost->amount_string(2) + " " + j.actual_cost->currency();
    read_history(j, o);
    if (j.actual_start) o.started_at = offset(*j.actual_start);
    if (j.actual_end && job::is_terminal(j.status)) o.ended_at = offset(*j.actual_end);
    return o;
  }

  core::Result<Value> pipeline_outcomes() {
    core::List pipes;
    for (const auto& [id, tenant] : runs_) {
      BUDCORE_TRY_ASSIGN(auto run, p_.get_pipeline_run(CallContext::for_tenant(tenant_id(tenant)), id));
      core::Map steps;
      if (const Value* list = run.state.find("steps"); list != nullptr && list->is_list())
        for (const auto& st : list->as_list()) steps.set(st.find("id")->as_string(), *st.find("state"));
      pipes.push_back(Value::map({{"name", run.pipeline},
                                  {"tenant", tenant},
                                  {"status", std::string(pipeline::to_string(run.status))},
                                  {"steps", Value(std::move(steps))}}));
    }
    return Value(std::move(pipes));
  }

  // One line of the story for a transition or a missed deadline ("" for other events).
  std::string story_line(const backend::EventRecord& ev, const std::string& tenant_name) const {
    if (ev.type != "job.transition" && ev.type != "job.deadline_missed") return {};
    auto text = [&](std::string_view key) {
      const Value* v = ev.data.find(key);
      return v && v->is_string() ? v->as_string() : std::string();
    };
    std::string what = ev.type == "job.deadline_missed" ? "deadline missed" : text("from") + " -> " + text("to");
    std::string msg = text("message");
    std::string job_name = text("name");
    if (job_name.empty()) {  // events that carry no name
      auto it = job_names_.find(ev.object_id);
      job_name = it != job_names_.end() ? it->second : ev.object_id.to_string();
    }
    return offset_text(offset(ev.at)) + "  " + job_name + " [" + tenant_name + "] " + what + (msg.empty() ? "" : ": " + msg);
  }

  // The story, from every tenant's event log merged in commit order, each action's outcome
  // before the events of its instant.
  core::Status tell_story(ScenarioOutcome& out) {
    struct Line {
      std::int64_t seq;
      double at;
      std::string text;
    };
    std::vector<Line> lines;
    for (const auto& [name, tenant] : tenants_) {
      std::int64_t since = 0;
      for (;;) {
        BUDCORE_TRY_ASSIGN(auto page, p_.watch(CallContext::for_tenant(tenant), since, 10'000));
        if (page.events.empty()) break;
        for (const auto& ev : page.events) {
          ++out.events;
          if (std::string line = story_line(ev, name); !line.empty()) lines.push_back({ev.seq, offset(ev.at), std::move(line)});
        }
        since = page.last_seq;
      }
    }
    std::sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) { return a.seq < b.seq; });
    auto action = actions_.begin();
    for (auto& line : lines) {
      for (; action != actions_.end() && action->first <= line.at; ++action) out.log.push_back(std::move(action->second));
      out.log.push_back(std::move(line.text));
    }
    for (; action != actions_.end(); ++action) out.log.push_back(std::move(action->second));
    return {};
  }

  const Scenario& s_;
  Platform& p_;
  const std::function<void(double)>& progress_;
  const core::Timestamp start_;
  std::vector<Submitted> submitted_;
  std::map<std::string, std::size_t> by_name_;
  std::vector<std::pair<core::Id, std::string>> runs_;
  std::map<std::string, core::Id> tenants_;
  std::unordered_map<core::Id, std::string> job_names_;
  std::vector<std::pair<double, std::string>> actions_;  // (at, the action's outcome)
};

}  // namespace

core::Result<ScenarioOutcome> simulate(const Scenario& s, const std::function<void(double)>& progress) {
  BUDCORE_TRY_ASSIGN(auto platform, Platform::open(s.config));
  return ScenarioRun(s, *platform, progress).play();
}

core::Value ScenarioOutcome::to_value() const {
  auto opt = [](const std::optional<double>& v) { return v ? Value(*v) : Value(); };
  core::List jl;
  for (const auto& j : jobs)
    jl.push_back(Value::map({{"name", j.name},
                             {"tenant", j.tenant},
                             {"job_type", j.job_type},
                             {"priority", j.priority},
                             {"status", j.status},
                             {"cluster_queue", j.cluster_queue.empty() ? Value() : Value(j.cluster_queue)},
                             {"flavor", j.flavor.empty() ? Value() : Value(j.flavor)},
                             {"submitted_at", opt(j.submitted_at)},
                             {"queued_at", opt(j.queued_at)},
                             {"admitted_at", opt(j.admitted_at)},
                             {"started_at", opt(j.started_at)},
                             {"ended_at", opt(j.ended_at)},
                             {"wait_seconds", j.wait_seconds},
                             {"preemptions", j.preemptions},
                             {"retries", j.retries},
                             {"message", j.message},
                             {"actual_cost", j.actual_cost.empty() ? Value() : Value(j.actual_cost)}}));
  core::List lg(log.begin(), log.end());
  return Value::map({{"start", start.to_string()},
                     {"end", end.to_string()},
                     {"elapsed_seconds", static_cast<double>((end - start).count_ns()) / 1e9},
                     {"events", events},
                     {"jobs", Value(std::move(jl))},
                     {"pipelines", pipelines},
                     {"log", Value(std::move(lg))}});
}

std::string ScenarioOutcome::table() const {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"NAME", "TENANT", "TYPE", "PRIORITY", "STATUS", "QUEUE", "FLAVOR", "SUBMITTED", "ADMITTED", "STARTED",
                  "ENDED", "WAIT", "PREEMPT", "RETRY"});
  for (const auto& j : jobs)
    rows.push_back({j.name, j.tenant, j.job_type, j.priority, j.status, j.cluster_queue.empty() ? "-" : j.cluster_queue,
                    j.flavor.empty() ? "-" : j.flavor, offset_text(j.submitted_at), offset_text(j.admitted_at),
                    offset_text(j.started_at), offset_text(j.ended_at), offset_text(j.wait_seconds),
                    std::to_string(j.preemptions), std::to_string(j.retries)});
  std::vector<std::size_t> width(rows[0].size(), 0);
  for (const auto& r : rows)
    for (std::size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
  std::string out;
  for (const auto& r : rows) {
    for (std::size_t c = 0; c < r.size(); ++c) {
      out += r[c];
      if (c + 1 < r.size()) out += std::string(width[c] - r[c].size() + 2, ' ');
    }
    out += "\n";
  }
  return out;
}

}  // namespace budcore::platform
