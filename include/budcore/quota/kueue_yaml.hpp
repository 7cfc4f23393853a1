// budcore::quota Kueue interchange: Kueue objects (kueue.x-k8s.io/v1beta1 and v1beta2:
// ResourceFlavor, ClusterQueue, LocalQueue, Cohort, WorkloadPriorityClass) to and from
// budcore's QuotaConfig, and budcore's quota configuration JSON (the `quota simulate` shape).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/result.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/quota/config.hpp"

namespace budcore::quota {

enum class KueueApiVersion { V1beta1, V1beta2 };

struct KueueImport {
  QuotaConfig config;
  // Objects skipped (other kinds) and flavors created because a queue named them without a
  // ResourceFlavor document.
  std::vector<std::string> warnings;
};

// Reads Kueue objects, one per document (a "kind: List" with `items` also works). Fields Kueue
// defaults are defaulted as Kueue does; v1beta1's `cohort` and v1beta2's `cohortName` both work.
// Errors are Invalid with the path of the field ("documents[1].spec.resourceGroups[0]
// .flavors[0].resources[0].nominalQuota"), and the result is validated (validate()).
BUDCORE_API core::Result<KueueImport> import_kueue(const std::vector<core::Value>& documents);
// Multi-document YAML (or JSON) text.
BUDCORE_API core::Result<KueueImport> import_kueue_yaml(std::string_view text);
// Every *.yaml / *.yml / *.json file of a directory (sorted by name), or one file ("-":
// standard input). A file that cannot be read: core::read_input's Io error, field "path".
BUDCORE_API core::Result<KueueImport> import_kueue_path(const std::string& path);

// Kueue objects for a configuration, in Kueue's own spelling for the API version: flavors,
// cohorts, cluster queues, local queues, priority classes.
BUDCORE_API std::vector<core::Value> export_kueue(const QuotaConfig& config,
                                                  KueueApiVersion version = KueueApiVersion::V1beta2);
// The same as a multi-document YAML stream ("---" between objects).
BUDCORE_API std::string export_kueue_yaml(const QuotaConfig& config,
                                          KueueApiVersion version = KueueApiVersion::V1beta2);

// budcore's quota configuration as JSON (the configuration keys of docs/cli.md contract 2:
// resource_flavors, cohorts, cluster_queues, local_queues, priority_classes).
BUDCORE_API std::string config_to_json(const QuotaConfig& config, int indent = 2);

}  // namespace budcore::quota
