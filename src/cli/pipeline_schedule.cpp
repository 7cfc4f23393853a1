// `budcore pipeline schedule FILE... --until DURATION|TIME [--start TIME]
//   [--event NAME[=JSON]@WHEN ...] [--run PIPELINE[=JSON]@WHEN ...]`
// Registers every document with an Orchestrator on a virtual clock (SimJobRunner,
// SimHttpClient, SimNotifier), posts the events and manual runs at their times, runs to
// --until and prints one JSON line per firing, event and step transition, then a summary.
#include "cli/pipeline_schedule.hpp"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "budcore/core/json.hpp"
#include "budcore/core/limits.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/pipeline/orchestrator.hpp"
#include "budcore/pipeline/simulation.hpp"
#include "cli/command.hpp"

namespace budcore::cli {
namespace {

using core::Error;
using core::Timestamp;
using core::Value;

struct ScheduleArgs {
  std::vector<std::string> files;
  std::string until;
  std::string start = "2026-01-01T00:00:00Z";
  std::vector<std::string> events;
  std::vector<std::string> runs;
};

// Something to do at a moment of the rehearsal: post an event or start a manual run.
struct Action {
  Timestamp at;
  bool is_event = true;
  std::string name;  // event name or pipeline id
  Value payload;
  std::string flag;  // for error messages
};

void print(const Value& v) {
  std::string line = core::to_json(v);
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), stdout);
}

core::Result<Value> read_document(const std::string& file) {
  std::string text;
  BUDCORE_TRY_ASSIGN(text, read_file_arg(file, "FILE"));
  auto v = core::parse_json(text);
  if (v) return v;
  auto y = core::parse_document(text);
  if (!y) return Error::invalid(file, file, "not a JSON or YAML document: " + y.error().message);
  return y;
}

// A time: RFC 3339, or a duration after `start` ("90m", "PT1H").
core::Result<Timestamp> parse_when(const std::string& flag, const std::string& text, Timestamp start) {
  if (auto t = Timestamp::parse(text)) return *t;
  auto d = core::Duration::parse(text);
  if (!d || *d < core::Duration()) {
    return Error::invalid(flag, text, "expected an RFC 3339 time or a non-negative duration after --start (90m, 1h30m, PT2H)");
  }
  return start + *d;
}

// NAME[=JSON]@WHEN
core::Result<Action> parse_action(const std::string& flag, const std::string& text, Timestamp start, bool is_event) {
  auto at_sign = text.rfind('@');
  if (at_sign == std::string::npos)
    return Error::invalid(flag, text, "expected NAME[=JSON]@WHEN, e.g. model.uploaded={\"size\": 3}@2h");
  Action a;
  a.is_event = is_event;
  a.flag = flag;
  std::string head = text.substr(0, at_sign);
  BUDCORE_TRY_ASSIGN(a.at, parse_when(flag, text.substr(at_sign + 1), start));
  auto eq = head.find('=');
  a.name = head.substr(0, eq);
  if (a.name.empty()) return Error::invalid(flag, text, "the name before '=' or '@' is empty");
  if (eq != std::string::npos) {
    auto payload = core::parse_json(head.substr(eq + 1));
    if (!payload) return Error::invalid(flag, text, "the value after '=' is not JSON: " + payload.error().message);
    a.payload = *payload;
  }
  if (!is_event && !a.payload.is_null() && !a.payload.is_map())
    return Error::invalid(flag, text, "run parameters must be a JSON object");
  return a;
}

Value summary(const pipeline::Orchestrator& orch, Timestamp start, Timestamp until) {
  core::List runs;
  core::Map by_status;
  for (const auto& r : orch.runs()) {
    runs.push_back(Value::map({{"run_id", r.run_id},
                               {"pipeline", r.pipeline},
                               {"trigger", std::string(pipeline::to_string(r.trigger))},
                               {"status", std::string(pipeline::to_string(r.status))},
                               {"created_at", r.created_at.to_string()}}));
    std::string status(pipeline::to_string(r.status));
    Value* n = by_status.find(status);
    if (n == nullptr) {
      by_status.set(status, 1);
    } else {
      *n = n->as_int() + 1;
    }
  }
  std::int64_t skipped = 0, errors = 0;
  for (const auto& f : orch.firings()) {
    skipped += f.action == pipeline::FiringAction::Skip ? 1 : 0;
    errors += f.action == pipeline::FiringAction::Error ? 1 : 0;
  }
  return Value::map({{"kind", "summary"},
                     {"start", start.to_string()},
                     {"until", until.to_string()},
                     {"runs", Value(std::move(runs))},
                     {"by_status", Value(std::move(by_status))},
                     {"skipped", skipped},
                     {"errors", errors}});
}

int schedule(const ScheduleArgs& args) {
  auto start = Timestamp::parse(args.start);
  if (!start) return report_error(Error::invalid("--start", args.start, "expected an RFC 3339 time"));
  auto until = parse_when("--until", args.until, *start);
  if (!until) return report_error(until.error());
  if (*until < *start) return report_error(Error::invalid("--until", args.until, "is before --start"));

  std::vector<Value> documents;
  std::map<std::string, std::vector<std::string>, std::less<>> output_keys;
  for (const auto& file : args.files) {
    auto doc = read_document(file);
    if (!doc) return report_error(doc.error());
    for (auto& [step, keys] : pipeline::referenced_output_keys(*doc)) {
      auto& all = output_keys[step];
      all.insert(all.end(), keys.begin(), keys.end());
    }
    documents.push_back(std::move(*doc));
  }
  std::vector<Action> actions;
  for (const auto& e : args.events) {
    auto a = parse_action("--event", e, *start, true);
    if (!a) return report_error(a.error());
    actions.push_back(std::move(*a));
  }
  for (const auto& r : args.runs) {
    auto a = parse_action("--run", r, *start, false);
    if (!a) return report_error(a.error());
    actions.push_back(std::move(*a));
  }
  for (const auto& a : actions) {
    if (a.at < *start || a.at > *until)
      return report_error(Error::invalid(a.flag, a.at.to_string(), "falls outside --start .. --until"));
  }
  std::stable_sort(actions.begin(), actions.end(), [](const Action& x, const Action& y) { return x.at < y.at; });

  core::VirtualClock clock(*start);
  pipeline::SimJobOptions sim;
  sim.output_keys = output_keys;
  pipeline::SimJobRunner jobs(clock, sim);
  pipeline::SimHttpClient http(output_keys);
  pipeline::SimNotifier notifier;
  pipeline::FunctionRegistry functions;
  pipeline::OrchestratorOptions options;
  options.on_firing = [](const pipeline::FiringRecord& f) {
    Value v = f.to_value();
    v.mutable_map().set("kind", "firing");
    print(v);
  };
  options.on_transition = [](const pipeline::RunTransition& t) {
    Value v = t.transition->to_value();
    v.mutable_map().set("kind", "transition");
    v.mutable_map().set("pipeline", t.pipeline);
    v.mutable_map().set("run_id", t.run_id);
    print(v);
  };
  pipeline::Orchestrator orch(pipeline::EngineDeps{&clock, &jobs, &http, &notifier, &functions, nullptr}, options);
  for (std::size_t i = 0; i < documents.size(); ++i) {
    if (auto st = orch.add_pipeline(documents[i]); !st) {
      Error e = st.error();
      e.message = args.files[i] + ": " + e.message;
      return report_error(e);
    }
  }
  for (const auto& a : actions) {
    if (auto st = orch.run_virtual(clock, a.at); !st) return report_error(st.error());
    if (a.is_event) {
      print(Value::map({{"kind", "event"}, {"time", clock.now().to_string()}, {"name", a.name}, {"payload", a.payload}}));
      auto started = orch.post_event(pipeline::Event{a.name, a.payload, clock.now(), "cli"});
      if (!started) return report_error(started.error());
    } else {
      auto id = orch.start_run(a.name, a.payload);
      if (!id) return report_error(id.error().field.empty() ? id.error() : Error::invalid("--run", a.name, id.error().message));
    }
  }
  if (auto st = orch.run_virtual(clock, *until); !st) return report_error(st.error());
  print(summary(orch, *start, *until));
  std::fflush(stdout);
  return kExitOk;
}

}  // namespace

void add_pipeline_schedule_command(CLI::App& pipeline_group) {
  auto* cmd = pipeline_group.add_subcommand(
      "schedule",
      "Rehearse triggers (cron, events, pipeline completion) on a virtual clock; prints firings and transitions as JSON lines");
  auto args = std::make_shared<ScheduleArgs>();
  cmd->add_option("FILE", args->files, "Pipeline documents (JSON or YAML); '-' reads standard input")->required();
  cmd->add_option("--until", args->until, "End of the window: an RFC 3339 time or a duration after --start (24h, P7D)")
      ->required();
  cmd->add_option("--start", args->start, "Start of the window (RFC 3339; default 2026-01-01T00:00:00Z)");
  cmd->add_option("--event", args->events, "Post an event: NAME[=JSON]@WHEN (WHEN: a time or a duration after --start)");
  cmd->add_option("--run", args->runs, "Start a manual run: PIPELINE[=JSON params]@WHEN");
  cmd->callback([args] { exit_code() = schedule(*args); });
}

}  // namespace budcore::cli
