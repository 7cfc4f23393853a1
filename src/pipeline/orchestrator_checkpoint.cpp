// Orchestrator checkpoints: the trigger bookkeeping and every run, written as a Value and read
// back into a fresh orchestrator, so a scheduler survives its process.
#include <charconv>
#include <string_view>
#include <system_error>
#include <unordered_set>
#include <utility>

#include "budcore/core/json.hpp"
#include "pipeline/orchestrator_impl.hpp"

namespace budcore::pipeline {

using core::Error;
using core::ErrorCode;
using core::Timestamp;
using core::Value;
using detail::OrchestratedPipeline;

namespace {

constexpr std::int64_t kCheckpointVersion = 1;

// Reads one field of a checkpoint map, naming `path.key` in errors.
class Fields {
 public:
  Fields(const Value& map, std::string path) : map_(map), path_(std::move(path)) {}
  std::string at(std::string_view key) const { return path_ + "." + std::string(key); }

  core::Result<const Value*> get(std::string_view key, Value::Kind kind, bool optional = false) const {
    const Value* v = map_.find(key);
    if (v == nullptr || v->is_null()) {
      if (optional) return static_cast<const Value*>(nullptr);
      return Error::invalid(at(key), "", "missing");
    }
    if (v->kind() != kind) return Error::invalid(at(key), core::to_json(*v), "has the wrong type");
    return v;
  }
  core::Result<std::string> text(std::string_view key) const {
    BUDCORE_TRY_ASSIGN(const Value* v, get(key, Value::Kind::String));
    return v->as_string();
  }
  core::Result<std::optional<std::string>> optional_text(std::string_view key) const {
    BUDCORE_TRY_ASSIGN(const Value* v, get(key, Value::Kind::String, true));
    return v ? std::optional<std::string>(v->as_string()) : std::nullopt;
  }
  core::Result<std::optional<Timestamp>> optional_time(std::string_view key) const {
    BUDCORE_TRY_ASSIGN(const Value* v, get(key, Value::Kind::String, true));
    if (v == nullptr) return std::optional<Timestamp>();
    auto t = Timestamp::parse(v->as_string());
    if (!t) return Error::invalid(at(key), v->as_string(), t.error().message);
    return std::optional<Timestamp>(*t);
  }
  core::Result<Timestamp> time(std::string_view key) const {
    BUDCORE_TRY_ASSIGN(auto t, optional_time(key));
    if (!t) return Error::invalid(at(key), "", "missing");
    return *t;
  }
  core::Result<std::int64_t> count(std::string_view key) const {
    BUDCORE_TRY_ASSIGN(const Value* v, get(key, Value::Kind::Int));
    if (v->as_int() < 0) return Error::invalid(at(key), std::to_string(v->as_int()), "must not be negative");
    return v->as_int();
  }
  core::Result<bool> flag(std::string_view key) const {
    BUDCORE_TRY_ASSIGN(const Value* v, get(key, Value::Kind::Bool, true));
    return v != nullptr && v->as_bool();
  }

 private:
  const Value& map_;
  std::string path_;
};

// A run read back: its record, its engine's saved state and the orchestrator's flags.
struct SavedRun {
  RunRecord record;
  Value state;
  bool completion_fired = false;
  bool cancel_requested = false;
};

core::Result<SavedRun> read_run(const Value& v, const std::string& path) {
  if (!v.is_map()) return Error::invalid(path, core::to_json(v), "must be a map");
  Fields f(v, path);
  SavedRun out;
  RunRecord& r = out.record;
  BUDCORE_TRY_ASSIGN(r.run_id, f.text("run_id"));
  BUDCORE_TRY_ASSIGN(r.pipeline, f.text("pipeline"));
  BUDCORE_TRY_ASSIGN(auto trigger, f.text("trigger"));
  auto t = parse_trigger_type(trigger);
  if (!t) return Error::invalid(f.at("trigger"), trigger, t.error().message);
  r.trigger = *t;
  BUDCORE_TRY_ASSIGN(r.cause, f.text("cause"));
  BUDCORE_TRY_ASSIGN(auto status, f.text("status"));
  auto st = parse_pipeline_status(status);
  if (!st) return Error::invalid(f.at("status"), status, st.error().message);
  r.status = *st;
  BUDCORE_TRY_ASSIGN(r.scheduled_time, f.optional_time("scheduled_time"));
  BUDCORE_TRY_ASSIGN(r.triggered_by_run_id, f.optional_text("triggered_by_run_id"));
  BUDCORE_TRY_ASSIGN(auto depth, f.count("chain_depth"));
  r.chain_depth = static_cast<int>(depth);
  BUDCORE_TRY_ASSIGN(const Value* params, f.get("params", Value::Kind::Map));
  r.params = *params;
  BUDCORE_TRY_ASSIGN(r.created_at, f.time("created_at"));
  BUDCORE_TRY_ASSIGN(r.finished_at, f.optional_time("finished_at"));
  BUDCORE_TRY_ASSIGN(const Value* state, f.get("state", Value::Kind::Map));
  out.state = *state;
  BUDCORE_TRY_ASSIGN(out.completion_fired, f.flag("completion_fired"));
  BUDCORE_TRY_ASSIGN(out.cancel_requested, f.flag("cancel_requested"));
  return out;
}

// The cron and counter state of one pipeline, read back.
struct SavedPipeline {
  Timestamp created;
  std::optional<Timestamp> last_schedule_time;
  std::optional<Timestamp> missed_until;
  int runs_started = 0;
};

core::Result<SavedPipeline> read_pipeline(const Value& v, const std::string& path) {
  if (!v.is_map()) return Error::invalid(path, core::to_json(v), "must be a map");
  Fields f(v, path);
  SavedPipeline out;
  BUDCORE_TRY_ASSIGN(out.created, f.time("created"));
  BUDCORE_TRY_ASSIGN(out.last_schedule_time, f.optional_time("last_schedule_time"));
  BUDCORE_TRY_ASSIGN(out.missed_until, f.optional_time("missed_until"));
  BUDCORE_TRY_ASSIGN(auto n, f.count("runs_started"));
  out.runs_started = static_cast<int>(n);
  return out;
}

}  // namespace

Value Orchestrator::checkpoint() const {
  const Impl& m = *impl_;
  core::Map pipelines;
  for (const auto& p : m.pipelines) {
    pipelines.set(p.id, Value::map({{"created", p.cron.created.to_string()},
                                    {"last_schedule_time", detail::optional_time(p.cron.last_schedule_time)},
                                    {"missed_until", detail::optional_time(p.missed_until)},
                                    {"runs_started", p.runs_started}}));
  }
  core::List runs;
  for (std::size_t i = 0; i < m.records.size(); ++i) {
    Value run = m.records[i].to_value();
    core::Map& fields = run.mutable_map();
    fields.set("state", m.live[i].engine->state().to_value());
    fields.set("completion_fired", m.live[i].finish_handled);
    fields.set("cancel_requested", m.live[i].cancel_requested);
    runs.push_back(std::move(run));
  }
  return Value::map({{"version", kCheckpointVersion}, {"pipelines", Value(std::move(pipelines))}, {"runs", Value(std::move(runs))}});
}

core::Status Orchestrator::restore(const Value& checkpoint, const std::map<std::string, Value, std::less<>>& newer_states) {
  Impl& m = *impl_;
  if (!m.records.empty())
    return Error{ErrorCode::Conflict, "restore needs an orchestrator without runs", "checkpoint", ""};
  if (!checkpoint.is_map()) return Error::invalid("checkpoint", core::to_json(checkpoint), "must be a map");
  Fields top(checkpoint, "checkpoint");
  BUDCORE_TRY_ASSIGN(const Value* version, top.get("version", Value::Kind::Int));
  if (version->as_int() != kCheckpointVersion)
    return Error::invalid("checkpoint.version", std::to_string(version->as_int()), "this library reads version 1");

  // Read and check everything first; only then change anything.
  BUDCORE_TRY_ASSIGN(const Value* saved_pipelines, top.get("pipelines", Value::Kind::Map));
  std::vector<std::pair<OrchestratedPipeline*, SavedPipeline>> pipelines;
  for (const auto& [id, v] : saved_pipelines->as_map()) {
    std::string path = "checkpoint.pipelines." + id;
    OrchestratedPipeline* p = m.find_pipeline(id);
    if (p == nullptr) return Error{ErrorCode::NotFound, "no pipeline with this id is registered", path, id};
    BUDCORE_TRY_ASSIGN(auto saved, read_pipeline(v, path));
    pipelines.emplace_back(p, std::move(saved));
  }
  BUDCORE_TRY_ASSIGN(const Value* saved_runs, top.get("runs", Value::Kind::List));
  std::vector<RunRecord> records;
  std::vector<Impl::Live> live;
  for (std::size_t i = 0; i < saved_runs->as_list().size(); ++i) {
    std::string path = "checkpoint.runs[" + std::to_string(i) + "]";
    BUDCORE_TRY_ASSIGN(SavedRun run, read_run(saved_runs->as_list()[i], path));
    const OrchestratedPipeline* p = m.find_pipeline(run.record.pipeline);
    if (p == nullptr)
      return Error{ErrorCode::NotFound, "no pipeline with this id is registered", path + ".pipeline", run.record.pipeline};
    auto sink = std::make_unique<detail::RunSink>(m, i);
    EngineDeps engine_deps = m.deps;
    engine_deps.sink = sink.get();
    EngineOptions options;
    options.run_id = run.record.run_id;
    options.params = run.record.params;
    auto newer = newer_states.find(run.record.run_id);
    const Value& state = newer != newer_states.end() ? newer->second : run.state;
    auto engine = Engine::restore(p->document, engine_deps, state, std::move(options));
    if (!engine) return std::move(engine.error().at(path + ".state"));
    records.push_back(std::move(run.record));
    records.back().status = engine->status();
    live.push_back(Impl::Live{std::move(sink), std::make_unique<Engine>(std::move(*engine)), run.cancel_requested,
                              run.completion_fired});
  }

  // Run ids must stay unique: no id twice, and every "<pipeline>-<n>" within its counter.
  std::unordered_set<std::string_view> seen_ids;  // a set: the pairwise check was quadratic
  for (std::size_t i = 0; i < records.size(); ++i) {
    const RunRecord& r = records[i];
    if (!seen_ids.insert(r.run_id).second)
      return Error::invalid("checkpoint.runs[" + std::to_string(i) + "].run_id", r.run_id, "is used by an earlier run");
    std::string_view id = r.run_id;
    if (!id.starts_with(r.pipeline + "-")) continue;
    id.remove_prefix(r.pipeline.size() + 1);
    std::int64_t n = 0;
    auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), n);
    if (ec != std::errc() || end != id.data() + id.size()) continue;
    int counter = m.find_pipeline(r.pipeline)->runs_started;
    std::string field = "checkpoint.pipelines." + r.pipeline + ".runs_started";
    for (const auto& [p, saved] : pipelines) {
      if (p->id == r.pipeline) counter = saved.runs_started;
    }
    if (n > counter)
      return Error::invalid(field, std::to_string(counter),
                            "is lower than run " + r.run_id + " of the checkpoint, so run ids would repeat");
  }

  for (auto& [p, saved] : pipelines) {
    p->cron.created = saved.created;
    p->cron.last_schedule_time = saved.last_schedule_time;
    p->missed_until = saved.missed_until;
    p->runs_started = saved.runs_started;
    // The next decision: the first schedule time after the last one handled (possibly missed
    // while the process was down, so due now).
    if (p->schedule && !p->policy.suspend) p->next_cron = p->schedule->next(saved.last_schedule_time.value_or(saved.created));
  }
  m.records = std::move(records);
  m.live = std::move(live);
  m.reindex_open();
  m.finished_seq = 0;
  for (const auto& l : m.live)
    if (l.finish_handled) m.finished_seq += l.engine->state().seq;
  return {};
}

}  // namespace budcore::pipeline
