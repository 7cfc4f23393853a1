// budcore::quota::ResourceFlavor — Kueue's ResourceFlavor: a named kind of capacity (a GPU model,
// spot vs on-demand) with the node labels and taints that identify its nodes.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace budcore::quota {

struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule | PreferNoSchedule | NoExecute
  friend bool operator==(const Taint&, const Taint&) = default;
};

struct ResourceFlavor {
  std::string name;
  std::map<std::string, std::string> node_labels;
  std::vector<Taint> node_taints;
  friend bool operator==(const ResourceFlavor&, const ResourceFlavor&) = default;
};

}  // namespace budcore::quota
