// `budcore schedule estimate FILE` (docs/cli.md contract 6), `schedule replay`, `schedule view`.
#include <fstream>
#include <iostream>
#include <memory>

#include "budcore/core/json.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/schedule/estimate.hpp"
#include "budcore/schedule/replay.hpp"
#include "budcore/schedule/view.hpp"
#include "cli/command.hpp"

namespace budcore::cli {
namespace {

core::Result<schedule::Timeline> timeline_of(const std::string& file) {
  core::Value doc;
  BUDCORE_TRY_ASSIGN(doc, load_document_arg(file, "FILE"));
  schedule::TimelineInput in;
  BUDCORE_TRY_ASSIGN(in, schedule::parse_estimate_document(doc));
  return schedule::Timeline::create(std::move(in));
}

int run_estimate(const std::string& file, bool details) {
  auto tl = timeline_of(file);
  if (!tl) return report_error(tl.error());
  for (const auto& w : tl->result().warnings) std::cerr << "warning: " << w << "\n";
  std::cout << schedule::to_json(tl->result(), {-1, details}) << "\n";
  return kExitOk;
}

int run_view(const std::string& file, const std::string& html) {
  auto tl = timeline_of(file);
  if (!tl) return report_error(tl.error());
  if (auto st = write_file_arg(html, schedule::render_html(tl->result(), {}), "--html"); !st) return report_error(st.error());
  std::cout << core::to_json(core::Value(core::Map{{"html", core::Value(html)},
                                                   {"jobs", core::Value(static_cast<std::int64_t>(tl->result().jobs.size()))},
                                                   {"never", core::Value(static_cast<std::int64_t>(tl->result().never.size()))}}))
            << "\n";
  return kExitOk;
}

int run_replay(const std::string& source) {
  schedule::ReplayConfig config;
  if (source == "baseline") {
    config = schedule::kueue_baseline();
  } else {
    auto doc = load_document_arg(source, "CONFIG");
    if (!doc) return report_error(doc.error());
    auto parsed = schedule::parse_replay_config(*doc);
    if (!parsed) return report_error(parsed.error());
    config = std::move(*parsed);
  }
  auto report = schedule::replay(config);
  if (!report) return report_error(report.error());
  std::cout << core::to_json(schedule::to_value(*report), {2, false}) << "\n";
  return kExitOk;
}

const bool registered = register_commands([](CLI::App& root) {
  auto* sched = root.add_subcommand("schedule", "Schedule timeline: estimated start and end of every job");
  sched->require_subcommand(1);

  auto* est = sched->add_subcommand("estimate", "Estimate every job's start and end (docs/cli.md contract 6)");
  auto file = std::make_shared<std::string>();
  auto details = std::make_shared<bool>(false);
  est->add_option("FILE", *file, "scenario (JSON or YAML; - for stdin)")->required();
  est->add_flag("--details", *details, "add wait reasons, warnings and per-queue utilization");
  est->callback([file, details] { exit_code() = run_estimate(*file, *details); });

  auto* view = sched->add_subcommand("view", "Write the timeline as one self-contained HTML page");
  auto vfile = std::make_shared<std::string>();
  auto html = std::make_shared<std::string>();
  view->add_option("FILE", *vfile, "scenario (JSON or YAML; - for stdin)")->required();
  view->add_option("--html", *html, "the page to write")->required();
  view->callback([vfile, html] { exit_code() = run_view(*vfile, *html); });

  auto* rep = sched->add_subcommand("replay", "Replay a Kueue scheduler-performance configuration in virtual time");
  auto src = std::make_shared<std::string>();
  rep->add_option("CONFIG", *src, "\"baseline\" (Kueue's baseline) or a generator file (JSON or YAML)")->required();
  rep->callback([src] { exit_code() = run_replay(*src); });
});

}  // namespace
}  // namespace budcore::cli
