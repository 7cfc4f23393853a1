// budcore::quota::Scenario — the `budcore quota simulate` contract (docs/cli.md contract 2):
// a configuration, workloads and a number of cycles in; admitted, preempted, pending and usage out.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/result.hpp"
#include "budcore/export.h"
#include "budcore/quota/admission.hpp"
#include "budcore/quota/config.hpp"
#include "budcore/quota/workload.hpp"

namespace budcore::quota {

struct Scenario {
  QuotaConfig config;
  std::vector<Workload> workloads;
  std::optional<int> cycles = 1;  // nullopt: "until_quiescent"
  bool fair_sharing = false;
  // "fair_sharing": {"enable": true, "preemption_strategies": [...]}; empty: Kueue's default.
  std::vector<FairSharingStrategy> fair_sharing_strategies;
};

struct AdmittedOutcome {
  std::string cluster_queue;
  std::map<std::string, std::map<std::string, std::string>> flavors;  // pod set -> resource -> flavor
  std::map<std::string, std::int32_t> count;  // only pod sets whose count partial admission reduced
  bool borrowing = false;
};

struct SimulationResult {
  std::map<std::string, AdmittedOutcome> admitted;  // keyed by output name
  std::vector<std::string> preempted;
  std::map<std::string, std::string> pending;
  // cluster queue -> flavor -> resource -> used quantity (string, the configured format)
  std::map<std::string, std::map<std::string, std::map<std::string, std::string>>> usage;
  int cycles_run = 0;
};

// Parses the contract JSON; errors are Invalid with the JSON path of the field ("workloads[2].pod_sets[0].count").
BUDCORE_API core::Result<Scenario> parse_scenario(std::string_view json);
// Validates, builds an engine, runs the cycles and collects the contract output.
BUDCORE_API core::Result<SimulationResult> simulate(const Scenario& scenario);
BUDCORE_API std::string to_json(const SimulationResult& result, int indent = -1);

}  // namespace budcore::quota
