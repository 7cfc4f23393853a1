// budcore_demo <examples dir>: the platform on embedded defaults. Runs examples/specs/
// demo-scenario.yaml — the enterprise RAG pipeline plus standalone batch and training jobs on a
// simulated GPU cluster with the source design's job-type quotas, on a virtual clock — through
// budcore::platform::simulate, and prints what happened (admissions, waits, preemptions,
// failures and retries) and the final job table. Uses the public C++ API only.
//
// Exit 0 when the scenario ran, 1 when it could not, 2 on a usage error.
#include <iostream>
#include <string>

#include "budcore/c/version.h"
#include "budcore/core/yaml.hpp"
#include "budcore/platform/scenario.hpp"

namespace {

// The story a person reads: every admission, preemption, failure, retry and completion.
bool worth_telling(const std::string& line) {
  for (const char* key : {"-> scheduled", "-> preempted", "-> failed", "failed -> queued", "-> completed",
                          "-> cancelled", "deadline missed", "action"})
    if (line.find(key) != std::string::npos) return true;
  return false;
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
  return 0;
}
