// The MIG tables of NVIDIA's MIG user guide ("Supported MIG Profiles"), with the placements
// NVML's nvmlDeviceGetGpuInstancePossiblePlacements reports; docs/gpu.md cites both.
#include "budcore/gpu/mig.hpp"

#include <algorithm>
#include <array>

namespace budcore::gpu {
namespace {

// The three models share one geometry (7 compute slices, 8 memory slices, the same starts);
// only the memory in each profile's name differs.
std::vector<MigProfile> geometry(std::string_view one, std::string_view one_double, std::string_view two,
                                 std::string_view three, std::string_view four, std::string_view seven) {
  const std::vector<int> any_1g = {0, 1, 2, 3, 4, 5, 6};
  return {
      {std::string(one), 1, 1, 7, any_1g},
      {std::string(one) + "+me", 1, 1, 1, any_1g},  // a single 1g instance may take the media engines
      {std::string(one_double), 1, 2, 4, {0, 2, 4, 6}},
      {std::string(two), 2, 2, 3, {0, 2, 4}},
      {std::string(three), 3, 4, 2, {0, 4}},
      {std::string(four), 4, 4, 1, {0}},
      {std::string(seven), 7, 8, 1, {0}},
  };
}

struct ModelTable {
  std::string model;
  std::vector<MigProfile> profiles;
};

const std::vector<ModelTable>& tables() {
  static const std::vector<ModelTable> t = {
      {"A100-40GB", geometry("1g.5gb", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb")},
      {"A100-80GB", geometry("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb")},
      {"H100-80GB", geometry("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb")},
  };
  return t;
}

std::string starts_text(const std::vector<int>& starts) {
  std::string s;
  for (std::size_t i = 0; i < starts.size(); ++i) {
    if (i > 0) s += i + 1 == starts.size() ? " or " : ", ";
    s += std::to_string(starts[i]);
  }
  return s;
}

std::string slices_text(int first, int last) {
  return first == last ? "memory slice " + std::to_string(first)
                       : "memory slices " + std::to_string(first) + "-" + std::to_string(last);
}

}  // namespace

const std::vector<std::string>& mig_models() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& t : tables()) n.push_back(t.model);
    return n;
  }();
  return names;
}

bool supports_mig(std::string_view model) { return !mig_profiles(model).empty(); }

const std::vector<MigProfile>& mig_profiles(std::string_view model) {
  static const std::vector<MigProfile> none;
  for (const auto& t : tables())
    if (t.model == model) return t.profiles;
  return none;
}

const MigProfile* find_mig_profile(std::string_view model, std::string_view profile) {
  for (const auto& p : mig_profiles(model))
    if (p.name == profile) return &p;
  return nullptr;
}

std::string to_string(const MigInstance& instance) { return instance.profile + "@" + std::to_string(instance.start); }

core::Status validate_mig_layout(std::string_view model, const std::vector<MigInstance>& layout) {
  if (!supports_mig(model))
    return core::Error::invalid("model", std::string(model),
                                "has no MIG profiles (MIG models: A100-40GB, A100-80GB, H100-80GB)");
  // Which instance holds each memory slice, so an overlap names the instance it collides with.
  std::array<int, kMigMemorySlices> owner;
  owner.fill(-1);
  for (std::size_t i = 0; i < layout.size(); ++i) {
    const MigInstance& in = layout[i];
    const std::string field = "mig[" + std::to_string(i) + "]";
    const MigProfile* p = find_mig_profile(model, in.profile);
    if (p == nullptr) {
      std::string known;
      for (const auto& q : mig_profiles(model)) known += (known.empty() ? "" : ", ") + q.name;
      return core::Error::invalid(field + ".profile", in.profile, "is not a MIG profile of " + std::string(model) + " (" + known + ")");
    }
    if (std::find(p->starts.begin(), p->starts.end(), in.start) == p->starts.end())
      return core::Error::invalid(field + ".start", std::to_string(in.start),
                                  p->name + " on " + std::string(model) + " starts only at memory slice " + starts_text(p->starts));
    auto same = std::count_if(layout.begin(), layout.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                              [&](const MigInstance& o) { return o.profile == in.profile; });
    if (same > p->max_instances)
      return core::Error::invalid(field, to_string(in),
                                  "at most " + std::to_string(p->max_instances) + " instance" + (p->max_instances == 1 ? "" : "s") +
                                      " of " + p->name + " fit on one " + std::string(model));
    for (int s = in.start; s < in.start + p->memory_slices; ++s) {
      if (owner[static_cast<std::size_t>(s)] < 0) continue;
      const auto j = static_cast<std::size_t>(owner[static_cast<std::size_t>(s)]);
      int last = s;
      while (last + 1 < in.start + p->memory_slices && owner[static_cast<std::size_t>(last + 1)] == static_cast<int>(j)) ++last;
      return core::Error::invalid(field, to_string(in),
                                  "overlaps mig[" + std::to_string(j) + "] (" + to_string(layout[j]) + ") on " + slices_text(s, last));
    }
    for (int s = in.start; s < in.start + p->memory_slices; ++s) owner[static_cast<std::size_t>(s)] = static_cast<int>(i);
  }
  return {};
}

}  // namespace budcore::gpu
