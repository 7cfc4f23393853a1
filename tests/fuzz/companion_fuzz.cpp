// libFuzzer: what the Kueue companion reads from outside. Any tenant who may create a Job
// shapes a Workload (its labels, annotations, pod sets, priority, conditions), and an operator
// writes the configuration. The first byte picks the input: a configuration (refused naming its
// field, or summarized), a request to decide both checks for one Workload, or a list of
// Workloads estimated on a fixed cluster whose every estimate must give a patch that, applied,
// leaves nothing more to patch. Nothing may crash, hang or throw.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/companion/companion_json.hpp"
#include "budcore/companion/estimates.hpp"
#include "budcore/core/json.hpp"
#include "budcore/quota/kueue_yaml.hpp"

namespace {

using namespace budcore;

const char* const kConfig =
    "controllers: [{name: budcore.io/budget, checks: [budget, window]}]\n"
    "cluster_queues: [fifo, cq-a]\n"
    "tenants: [{namespace: team, tenant_id: 0190d5a0-0000-7000-8000-000000000001}]\n"
    "price_book: {currency: USD, gpu_hour: {gpu-x: {on_demand: \"10.00\"}}}\n"
    "budgets: {budgets: [{name: b, tenant_id: 0190d5a0-0000-7000-8000-000000000001, amount: \"100\", hard_limit: true}]}\n"
    "flavor_gpu_types: {default: gpu-x}\n"
    "default_duration: 1h\n"
    "estimates: {enabled: true, refresh_seconds: 1}\n";

const char* const kQuota = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: fifo}
spec:
  queueingStrategy: StrictFIFO
  resourceGroups: [{coveredResources: [cpu, nvidia.com/gpu], flavors: [{name: default, resources: [{name: cpu, nominalQuota: 4}, {name: nvidia.com/gpu, nominalQuota: 2}]}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq-a}
spec:
  cohortName: pool
  resourceGroups: [{coveredResources: [cpu], flavors: [{name: default, resources: [{name: cpu, nominalQuota: 2}]}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: team}
spec: {clusterQueue: fifo}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq-a, namespace: team}
spec: {clusterQueue: cq-a}
)";

void config_input(std::string_view text) {
  auto c = companion::CompanionConfig::from_text(text);
  if (!c) {
    if (c.error().message.empty()) std::abort();
    return;
  }
  (void)core::to_json(companion::config_summary(*c));
}

void decide_input(const companion::CompanionConfig& config, std::string_view text) {
  auto request = core::parse_json(text);
  if (!request) return;
  auto decided = companion::decide_request(config, *request);
  if (!decided && decided.error().message.empty()) std::abort();
}

// `workload` with a merge patch of metadata.annotations applied (null removes), as the API
// server would apply it.
core::Value patched(core::Value workload, const core::Value& patch) {
  const core::Value* changes = patch.find_path("metadata.annotations");
  if (changes == nullptr || !changes->is_map() || !workload.is_map()) return workload;
  core::Value& metadata = workload.mutable_map()["metadata"];
  if (!metadata.is_map()) metadata = core::Map{};
  core::Value& annotations = metadata.mutable_map()["annotations"];
  if (!annotations.is_map()) annotations = core::Map{};
  for (const auto& [k, v] : changes->as_map()) {
    if (v.is_null()) annotations.mutable_map().erase(k);
    else annotations.mutable_map().set(k, v);
  }
  return workload;
}

void estimate_input(const companion::CompanionConfig& config, const quota::QuotaConfig& quota, std::string_view text) {
  auto doc = core::parse_json(text);
  if (!doc) return;
  std::vector<core::Value> workloads;
  if (doc->is_list())
    for (const auto& w : doc->as_list()) workloads.push_back(w);
  else
    workloads.push_back(*doc);
  const auto now = *core::Timestamp::parse("2026-11-29T12:00:00Z");
  auto r = companion::estimate_workloads(config, quota, workloads, now);
  if (!r) {
    if (r.error().message.empty()) std::abort();
    return;
  }
  for (const auto& e : r->estimates) {
    for (const auto& w : workloads) {
      const core::Value* uid = w.find_path("metadata.uid");
      if (uid == nullptr || !uid->is_string() || uid->as_string() != e.uid) continue;
      auto patch = companion::estimate_patch(w, e, now);
      if (patch && companion::estimate_patch(patched(w, *patch), e, now)) std::abort();  // writes only on change
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const companion::CompanionConfig config = *companion::CompanionConfig::from_text(kConfig);
  static const quota::QuotaConfig quota = quota::import_kueue_yaml(kQuota)->config;
  if (size == 0) return 0;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0: config_input(text); break;
    case 1: decide_input(config, text); break;
    default: estimate_input(config, quota, text); break;
  }
  return 0;
}
