// budcore::gpu MIG rules: the GPU instance profiles of A100-40GB, A100-80GB and H100-80GB, how
// many of each fit, where each may start, and the validation of a GPU's layout. The tables are
// NVIDIA's ("Supported MIG Profiles", MIG user guide); placements are in memory slices, as
// NVML's nvmlGpuInstancePlacement_t reports them (start slice, slice count).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/result.hpp"
#include "budcore/export.h"

namespace budcore::gpu {

// One GPU instance profile of one GPU model.
struct MigProfile {
  std::string name;               // "3g.20gb"
  int compute_slices = 0;         // of 7
  int memory_slices = 0;          // of 8: the placement's size
  int max_instances = 0;          // per GPU
  std::vector<int> starts;        // allowed first memory slices
};

// A GPU instance in a layout: a profile at a start slice.
struct MigInstance {
  std::string profile;
  int start = 0;
  friend bool operator==(const MigInstance&, const MigInstance&) = default;
};

inline constexpr int kMigComputeSlices = 7;
inline constexpr int kMigMemorySlices = 8;

// The GPU models with MIG tables: "A100-40GB", "A100-80GB", "H100-80GB".
BUDCORE_API const std::vector<std::string>& mig_models();
BUDCORE_API bool supports_mig(std::string_view model);
// The model's profiles in the guide's order; empty for a model without MIG.
BUDCORE_API const std::vector<MigProfile>& mig_profiles(std::string_view model);
// The named profile of the model, or nullptr.
BUDCORE_API const MigProfile* find_mig_profile(std::string_view model, std::string_view profile);

// Accepts a layout the driver would create, instance by instance in order: a known profile, at
// one of its starts, no memory slice used twice, no more instances of a profile than fit. The
// error names the instance ("mig[2]", "mig[2].start") and the conflict.
BUDCORE_API core::Status validate_mig_layout(std::string_view model, const std::vector<MigInstance>& layout);

// "3g.20gb@4" — how layouts are written on the command line and in errors.
BUDCORE_API std::string to_string(const MigInstance& instance);

}  // namespace budcore::gpu
