// Job::resources — the Kubernetes requests one job pod makes.
#include <string>

#include "budcore/job/job.hpp"

namespace budcore::job {
namespace {

constexpr core::int128 kNano = 1'000'000'000;
constexpr core::int128 kGiB = core::int128{1} << 30;

// GiB (possibly fractional) -> whole bytes, rounded up, as a BinarySI quantity ("8Gi").
core::Result<core::Quantity> gib_to_bytes(const core::Quantity& gib, std::string_view field) {
  if (gib.sign() < 0 || gib.nano() > core::int128{Job::kMaxGigabytes} * kNano) {
    return core::Error{core::ErrorCode::Overflow, "out of range for a byte count", std::string(field), {}};
  }
  core::int128 scaled = gib.nano() * kGiB;  // nano-bytes; < 2^63 * 1e9 < 2^127
  core::int128 bytes = (scaled + kNano - 1) / kNano;
  return core::Quantity::from_nano(bytes * kNano, core::QuantityFormat::BinarySI);
}

}  // namespace

std::string Job::gpu_resource_name() const {
  if (!gpu_type || gpu_type->empty()) return std::string(core::kResourceNvidiaGpu);
  const std::string& t = *gpu_type;
  if (t.find('/') != std::string::npos) return t;
  for (std::string_view prefix : {"nvidia-mig-", "mig-"}) {
    if (t.size() > prefix.size() && t.compare(0, prefix.size(), prefix) == 0) {
      return "nvidia.com/mig-" + t.substr(prefix.size());
    }
  }
  return std::string(core::kResourceNvidiaGpu);
}

core::Result<core::ResourceList> Job::resources() const { return resources({}); }

core::Result<core::ResourceList> Job::resources(
    const std::map<std::string, std::string, std::less<>>& gpu_resource_names) const {
  core::ResourceList out;
  BUDCORE_TRY(out.set(core::kResourceCpu, cpu_cores));
  BUDCORE_TRY_ASSIGN(auto memory, gib_to_bytes(memory_gb, "memory_gb"));
  BUDCORE_TRY(out.set(core::kResourceMemory, memory));
  if (storage_gb) {
    BUDCORE_TRY_ASSIGN(auto storage, gib_to_bytes(core::Quantity::from_int(*storage_gb), "storage_gb"));
    BUDCORE_TRY(out.set(core::kResourceEphemeralStorage, storage));
  }
  if (gpu_count > 0) {
    std::string name = gpu_resource_name();
    if (gpu_type) {
      if (auto it = gpu_resource_names.find(*gpu_type); it != gpu_resource_names.end()) name = it->second;
    }
    auto st = out.set(name, core::Quantity::from_int(gpu_count));
    if (!st) {
      core::Error e = st.error();
      e.field = "gpu_type";
      e.value = name;
      return e;
    }
  }
  return out;
}

}  // namespace budcore::job
