// The simulated cluster's node inventory: validation, GPU slots per node (whole GPUs, MIG
// instances, time-slice replicas) and first-fit placement of admitted runs, or, with a
// placement policy, the gpu layer's Pool per flavor and the policy's placements.
#include <algorithm>
#include <cctype>
#include <set>

#include "budcore/gpu/mig.hpp"
#include "budcore/gpu/mig_place.hpp"

#include "backends/sim/sim_impl.hpp"

namespace budcore::backend {

using core::Error;
using Impl = SimCluster::Impl;

namespace {
constexpr std::int64_t kMaxNodesPerPool = 100'000;
constexpr std::int64_t kMaxGpusPerNode = 1'024;
constexpr std::int64_t kMaxMigInstances = 7;  // A100/H100 MIG: at most 7 instances per GPU
constexpr std::int64_t kMaxTimeSliceReplicas = 64;

bool is_gpu_resource(std::string_view name) {
  return name != core::kResourceCpu && name != core::kResourceMemory && name != core::kResourceEphemeralStorage;
}

constexpr std::string_view kMigPrefix = "nvidia.com/mig-";
bool is_mig_resource(std::string_view name) { return name.substr(0, kMigPrefix.size()) == kMigPrefix; }
}  // namespace

std::string NodePool::gpu_resource() const {
  if (sharing == GpuSharing::Mig) return "nvidia.com/mig-" + mig_profile;
  return std::string(core::kResourceNvidiaGpu);
}

std::int64_t NodePool::slots_per_node() const {
  switch (sharing) {
    case GpuSharing::Full: return gpus_per_node;
    case GpuSharing::Mig: return gpus_per_node * mig_instances_per_gpu;
    case GpuSharing::TimeSlice: return gpus_per_node * time_slice_replicas;
    case GpuSharing::Fractional: return gpus_per_node;
  }
  return gpus_per_node;
}

std::string NodePool::resolved_gpu_model() const {
  auto lower = [](std::string_view v) {
    std::string out(v);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  if (!gpu_model.empty()) return gpu::is_known_gpu_model(gpu_model) ? gpu_model : std::string();
  std::string type = lower(gpu_type);
  if (type.rfind("nvidia-", 0) == 0) type = type.substr(7);
  for (const auto& m : gpu::known_gpu_models())
    if (lower(m) == type) return m;
  return {};
}

namespace {

// mig_instances_per_gpu instances of the pool's profile, each at the first start it may take
// that no earlier instance covers.
std::vector<gpu::MigInstance> mig_layout(const NodePool& p, const std::string& model) {
  std::vector<gpu::MigInstance> layout;
  const gpu::MigProfile* prof = gpu::find_mig_profile(model, p.mig_profile);
  if (prof == nullptr) {
    layout.push_back({p.mig_profile, 0});  // refused by validate_mig_layout, naming the profile
    return layout;
  }
  std::vector<char> used(gpu::kMigMemorySlices, 0);
  for (std::int64_t i = 0; i < p.mig_instances_per_gpu; ++i) {
    int at = -1;
    for (int s : prof->starts) {
      bool free = s + prof->memory_slices <= gpu::kMigMemorySlices;
      for (int k = s; free && k < s + prof->memory_slices; ++k) free = used[static_cast<std::size_t>(k)] == 0;
      if (free) {
        at = s;
        break;
      }
    }
    if (at < 0) at = prof->starts.empty() ? 0 : prof->starts.back();  // refused as an overlap or one too many
    for (int k = at; k < at + prof->memory_slices && k < gpu::kMigMemorySlices; ++k) used[static_cast<std::size_t>(k)] = 1;
    layout.push_back({p.mig_profile, at});
  }
  return layout;
}

// Whether some GPU model of the pool has the MIG profile (place_mig may then make an instance).
bool offers_profile(const gpu::Pool& pool, const std::string& profile) {
  for (std::size_t n = 0; n < pool.size(); ++n)
    if (gpu::find_mig_profile(pool.node(n).model, profile) != nullptr) return true;
  return false;
}

std::string known_models_text() {
  std::string out;
  for (const auto& m : gpu::known_gpu_models()) out += (out.empty() ? "" : ", ") + m;
  return out;
}

constexpr std::int64_t kUnlimited = std::int64_t{1} << 52;  // cpu or memory that does not limit placement
constexpr std::int64_t kMiB = std::int64_t{1} << 20;

}  // namespace

core::Status SimClusterOptions::validate() const {
  BUDCORE_TRY(quota::validate(quota));
  if (admission_window < 1) return Error::invalid("admission_window", "0", "must be at least 1");
  if (start_latency.count_ns() < 0) return Error::invalid("start_latency", start_latency.to_string(), "must not be negative");
  if (!(outcomes.duration_spread >= 0 && outcomes.duration_spread <= 1))
    return Error::invalid("outcomes.duration_spread", std::to_string(outcomes.duration_spread), "must be between 0 and 1");
  if (!(outcomes.failure_rate >= 0 && outcomes.failure_rate <= 1))
    return Error::invalid("outcomes.failure_rate", std::to_string(outcomes.failure_rate), "must be between 0 and 1");
  if (outcomes.default_duration.count_ns() <= 0)
    return Error::invalid("outcomes.default_duration", outcomes.default_duration.to_string(), "must be positive");
  std::set<std::string> flavors;
  for (const auto& f : quota.resource_flavors) flavors.insert(f.name);
  std::set<std::string> names;
  if (!placement_policy.empty()) {
    const auto& known = gpu::policy_names();
    if (std::find(known.begin(), known.end(), placement_policy) == known.end()) {
      std::string list;
      for (const auto& n : known) list += (list.empty() ? "" : ", ") + n;
      return Error::invalid("placement_policy", placement_policy, "is not a placement policy (known: " + list + ")");
    }
  }
  for (std::size_t i = 0; i < inventory.size(); ++i) {
    const NodePool& p = inventory[i];
    const std::string path = "inventory[" + std::to_string(i) + "]";
    if (p.name.empty()) return Error::invalid(path + ".name", "", "a node pool needs a name");
    if (!names.insert(p.name).second) return Error::invalid(path + ".name", p.name, "duplicate node pool name");
    if (!flavors.count(p.flavor))
      return Error::invalid(path + ".flavor", p.flavor, "is not a resource flavor of the quota configuration");
    if (p.nodes < 0 || p.nodes > kMaxNodesPerPool)
      return Error::invalid(path + ".nodes", std::to_string(p.nodes), "must be between 0 and 100000");
    if (p.gpus_per_node < 0 || p.gpus_per_node > kMaxGpusPerNode)
      return Error::invalid(path + ".gpus_per_node", std::to_string(p.gpus_per_node), "must be between 0 and 1024");
    if (p.gpus_per_node > 0 && p.gpu_type.empty())
      return Error::invalid(path + ".gpu_type", "", "a pool with GPUs names their type");
    if (p.sharing == GpuSharing::Mig) {
      if (p.mig_profile.empty()) return Error::invalid(path + ".mig_profile", "", "a MIG pool names its profile (\"1g.10gb\")");
      if (p.mig_instances_per_gpu < 1 || p.mig_instances_per_gpu > kMaxMigInstances)
        return Error::invalid(path + ".mig_instances_per_gpu", std::to_string(p.mig_instances_per_gpu),
                              "must be between 1 and 7");
    }
    if (p.sharing == GpuSharing::TimeSlice && (p.time_slice_replicas < 1 || p.time_slice_replicas > kMaxTimeSliceReplicas))
      return Error::invalid(path + ".time_slice_replicas", std::to_string(p.time_slice_replicas), "must be between 1 and 64");
    if (p.cpu_per_node && p.cpu_per_node->sign() < 0)
      return Error::invalid(path + ".cpu_per_node", p.cpu_per_node->to_string(), "must not be negative");
    if (p.memory_per_node && p.memory_per_node->sign() < 0)
      return Error::invalid(path + ".memory_per_node", p.memory_per_node->to_string(), "must not be negative");
    if (p.sharing == GpuSharing::Fractional && placement_policy.empty())
      return Error::invalid(path + ".sharing", "fractional", "fractional sharing needs a placement_policy");
    if (placement_policy.empty() || p.gpus_per_node == 0) continue;
    const std::string model = p.resolved_gpu_model();
    if (model.empty())
      return Error::invalid(path + ".gpu_model", p.gpu_model.empty() ? p.gpu_type : p.gpu_model,
                            "is not a known GPU model (" + known_models_text() + "); a placement policy needs one");
    if (p.gpus_per_node > gpu::kMaxGpusPerNode)
      return Error::invalid(path + ".gpus_per_node", std::to_string(p.gpus_per_node), "at most 64 under a placement policy");
    if (p.sharing == GpuSharing::Mig) {
      if (!gpu::supports_mig(model)) return Error::invalid(path + ".gpu_model", model, "has no MIG profiles");
      if (auto st = gpu::validate_mig_layout(model, mig_layout(p, model)); !st)
        return Error::invalid(path + ".mig_instances_per_gpu", std::to_string(p.mig_instances_per_gpu),
                              p.mig_profile + " x " + std::to_string(p.mig_instances_per_gpu) + " is not a MIG layout of " +
                                  model + ": " + st.error().message);
    }
  }
  return {};
}

core::Status Impl::build_inventory() {
  for (std::size_t p = 0; p < options.inventory.size(); ++p) {
    const NodePool& pool = options.inventory[p];
    std::int64_t cpu = -1, mem = -1;
    if (pool.cpu_per_node) {
      BUDCORE_TRY_ASSIGN(cpu, pool.cpu_per_node->milli_value());
    }
    if (pool.memory_per_node) {
      BUDCORE_TRY_ASSIGN(mem, pool.memory_per_node->milli_value());
      mem /= 1000;
    }
    if (!pool.gpu_type.empty()) flavor_gpu_resource[pool.flavor] = pool.gpu_resource();
    for (std::int64_t n = 0; n < pool.nodes; ++n) {
      sim::Node node;
      node.name = pool.name + "-" + std::to_string(n);
      node.pool = static_cast<int>(p);
      node.free_cpu_milli = cpu;
      node.free_memory = mem;
      node.used.assign(static_cast<std::size_t>(pool.slots_per_node()), 0);
      node.free_slots = pool.slots_per_node();
      nodes_by_flavor[pool.flavor].push_back(static_cast<int>(nodes.size()));
      if (!options.placement_policy.empty() && pool.gpus_per_node > 0) {
        auto [it, added] = gpu_flavor_of.emplace(pool.flavor, static_cast<int>(gpu_flavors.size()));
        if (added) gpu_flavors.emplace_back().flavor = pool.flavor;
        sim::GpuFlavor& gf = gpu_flavors[static_cast<std::size_t>(it->second)];
        gpu::Node gn;
        gn.name = node.name;
        gn.model = pool.resolved_gpu_model();
        gn.cpu_milli = cpu < 0 ? kUnlimited : cpu;
        gn.memory_mib = mem < 0 ? kUnlimited : mem / kMiB;
        for (std::int64_t g = 0; g < pool.gpus_per_node; ++g) {
          gpu::Device d;
          switch (pool.sharing) {
            case GpuSharing::Full: d.sharing = gpu::Sharing::Whole; break;
            case GpuSharing::Fractional: d.sharing = gpu::Sharing::Fractional; break;
            case GpuSharing::TimeSlice:
              d.sharing = gpu::Sharing::TimeSlice;
              d.replicas = static_cast<int>(pool.time_slice_replicas);
              break;
            case GpuSharing::Mig:
              d.sharing = gpu::Sharing::Mig;
              d.mig = mig_layout(pool, gn.model);
              break;
          }
          gn.gpus.push_back(std::move(d));
        }
        if (auto st = gf.pool.add_node(std::move(gn)); !st)
          return std::move(st).error().at("inventory[" + std::to_string(p) + "]");
        gf.sim_nodes.push_back(static_cast<int>(nodes.size()));
      }
      nodes.push_back(std::move(node));
    }
  }
  return {};
}

// First fit over the nodes of the pools of the run's flavor (its GPU flavor, else its first
// flavor), the node it ran on before first (adoption). A run whose flavors have no pool is not
// constrained by the inventory.
bool Impl::place(std::uint32_t slot) {
  sim::Run& r = runs[slot];
  if (!r.placement) return true;
  const quota::PodSet& ps = shapes[r.shape];
  const auto& adm = r.placement->admission;
  auto fl = adm.flavors.find(ps.name);
  std::int32_t count = ps.count;
  if (auto c = adm.count.find(ps.name); c != adm.count.end()) count = c->second;
  std::string flavor, gpu_res;
  if (fl != adm.flavors.end()) {
    for (const auto& [res, f] : fl->second)
      if (is_gpu_resource(res) && ps.requests.get(res).sign() > 0) {
        flavor = f;
        gpu_res = res;
      }
    if (flavor.empty() && !fl->second.empty()) flavor = fl->second.begin()->second;
  }
  auto pools = nodes_by_flavor.find(flavor);
  if (pools == nodes_by_flavor.end()) {
    r.node = -1;
    return true;
  }
  auto milli = [&](std::string_view res) {
    auto v = ps.requests.get(res).milli_value();
    return (v ? *v : 0) * count;
  };
  std::int64_t need_slots = 0;
  if (!gpu_res.empty()) {
    auto it = flavor_gpu_resource.find(flavor);
    if (it != flavor_gpu_resource.end() && it->second == gpu_res) need_slots = milli(gpu_res) / 1000;
  }
  const std::int64_t need_cpu = milli(core::kResourceCpu);
  const std::int64_t need_mem = milli(core::kResourceMemory) / 1000;
  if (auto gf = gpu_flavor_of.find(flavor); gf != gpu_flavor_of.end()) {
    auto res = flavor_gpu_resource.find(flavor);
    // A MIG flavor takes any MIG profile: place_mig re-partitions its GPUs on demand.
    const bool offered = res != flavor_gpu_resource.end() &&
                         (res->second == gpu_res || (is_mig_resource(res->second) && is_mig_resource(gpu_res)));
    return place_gpu(slot, gf->second, offered ? gpu_res : std::string(), count, need_cpu, need_mem);
  }
  auto fits = [&](const sim::Node& n) {
    return n.free_slots >= need_slots && (n.free_cpu_milli < 0 || n.free_cpu_milli >= need_cpu) &&
           (n.free_memory < 0 || n.free_memory >= need_mem);
  };
  std::vector<int> order = pools->second;
  if (!r.placement->nodes.empty()) {
    auto it = std::find_if(order.begin(), order.end(), [&](int n) { return nodes[static_cast<std::size_t>(n)].name == r.placement->nodes[0]; });
    if (it != order.end()) std::rotate(order.begin(), it, it + 1);
  }
  for (int ni : order) {
    sim::Node& n = nodes[static_cast<std::size_t>(ni)];
    if (!fits(n)) continue;
    const NodePool& pool = options.inventory[static_cast<std::size_t>(n.pool)];
    r.node = ni;
    r.slots.clear();
    r.placement->nodes.assign(1, n.name);
    r.placement->devices.clear();
    for (std::size_t s = 0; s < n.used.size() && static_cast<std::int64_t>(r.slots.size()) < need_slots; ++s) {
      if (n.used[s]) continue;
      n.used[s] = 1;
      r.slots.push_back(static_cast<std::int32_t>(s));
      std::string lane = n.name + "/gpu";
      switch (pool.sharing) {
        case GpuSharing::Full: lane += std::to_string(s); break;
        case GpuSharing::Mig:
          lane += std::to_string(static_cast<std::int64_t>(s) / pool.mig_instances_per_gpu) + "/mig" +
                  std::to_string(static_cast<std::int64_t>(s) % pool.mig_instances_per_gpu);
          break;
        case GpuSharing::TimeSlice:
          lane += std::to_string(static_cast<std::int64_t>(s) / pool.time_slice_replicas) + "/slice" +
                  std::to_string(static_cast<std::int64_t>(s) % pool.time_slice_replicas);
          break;
        case GpuSharing::Fractional: lane += std::to_string(s); break;
      }
      r.placement->devices.push_back(std::move(lane));
    }
    n.free_slots -= need_slots;
    if (n.free_cpu_milli >= 0) n.free_cpu_milli -= need_cpu;
    if (n.free_memory >= 0) n.free_memory -= need_mem;
    r.node_cpu = need_cpu;
    r.node_memory = need_mem;
    return true;
  }
  return false;
}

void Impl::release_node(std::uint32_t slot) {
  sim::Run& r = runs[slot];
  if (r.gpu) {
    if (r.gpu->placed) {
      gpu::Pool& pool = gpu_flavors[static_cast<std::size_t>(r.gpu->flavor)].pool;
      gpu::Task cpu_only = r.gpu->task;
      if (!r.gpu->mig.empty()) cpu_only.num_gpu = 0, cpu_only.gpu_milli = 0;
      (void)pool.release(cpu_only, r.gpu->placement);
      for (const auto& [g, inst] : r.gpu->mig) (void)pool.release_mig(r.gpu->placement.node, g, inst);
    }
    r.gpu.reset();
    r.node = -1;
    r.slots.clear();
    r.node_cpu = r.node_memory = 0;
    return;
  }
  if (r.node < 0) return;
  sim::Node& n = nodes[static_cast<std::size_t>(r.node)];
  for (auto s : r.slots) n.used[static_cast<std::size_t>(s)] = 0;
  n.free_slots += static_cast<std::int64_t>(r.slots.size());
  if (n.free_cpu_milli >= 0) n.free_cpu_milli += r.node_cpu;
  if (n.free_memory >= 0) n.free_memory += r.node_memory;
  r.node = -1;
  r.slots.clear();
  r.node_cpu = r.node_memory = 0;
}

// Through the gpu layer: the run's pod set as one gpu::Task (its pods together on one node, as
// the first-fit inventory places them): whole GPUs, or one pod's share of a GPU, or MIG
// instances of the pool's profile (the first node with enough free ones), placed where the
// policy says. FGD measures against the distinct requests placed on the flavor so far.
bool Impl::place_gpu(std::uint32_t slot, int flavor_index, const std::string& gpu_res, std::int64_t count,
                     std::int64_t need_cpu, std::int64_t need_mem) {
  sim::Run& r = runs[slot];
  sim::GpuFlavor& gf = gpu_flavors[static_cast<std::size_t>(flavor_index)];
  const quota::PodSet& ps = shapes[r.shape];
  if (!r.gpu) {
    auto hold = std::make_unique<sim::GpuHold>();
    hold->flavor = flavor_index;
    gpu::Task& t = hold->task;
    t.name = r.name;
    t.cpu_milli = need_cpu;
    t.memory_mib = (need_mem + kMiB - 1) / kMiB;
    if (!gpu_res.empty()) {
      const std::int64_t per_pod = ps.requests.get(gpu_res).milli_value().value_or(0);
      const std::int64_t total = per_pod * count;
      const std::string mig_prefix = "nvidia.com/mig-";
      if (gpu_res.rfind(mig_prefix, 0) == 0) {
        hold->mig_profile = gpu_res.substr(mig_prefix.size());
        t.num_gpu = static_cast<int>(std::min<std::int64_t>(total / 1000, gpu::kMaxGpusPerNode * 7));
        if (total % 1000 != 0) hold->waiting = "asks for a part of a MIG instance";
      } else if (count == 1 && per_pod > 0 && per_pod < 1000) {
        t.num_gpu = 1;
        t.gpu_milli = static_cast<int>(per_pod);
      } else if (total % 1000 == 0 && total / 1000 <= gpu::kMaxGpusPerNode) {
        t.num_gpu = static_cast<int>(total / 1000);
        t.gpu_milli = t.num_gpu > 0 ? gpu::kMilliPerGpu : 0;
      } else if (total % 1000 != 0) {
        hold->waiting = "asks for " + std::to_string(total) + " milli-GPU over " + std::to_string(count) +
                        " pods: only a single pod may ask for a share of a GPU";
      } else {
        hold->waiting = "asks for " + std::to_string(total / 1000) + " GPUs on one node; a node has at most 64";
      }
    }
    if (!hold->mig_profile.empty() && hold->waiting.empty() && !offers_profile(gf.pool, hold->mig_profile))
      hold->waiting = "asks for MIG profile " + hold->mig_profile + ", which no GPU of flavor " + gf.flavor + " has";
    if (!hold->waiting.empty()) {
      hold->never = true;
      hold->waiting = "admitted by quota; waiting for placement: " + hold->waiting;
    }
    r.gpu = std::move(hold);
  }
  sim::GpuHold& h = *r.gpu;
  if (h.placed) return true;
  if (h.never) return false;
  const gpu::Task& t = h.task;
  gpu::Pool& pool = gf.pool;
  std::optional<gpu::Placement> where;
  // An adopted run goes back to the node and devices it had ("<node>/gpu<g>[/mig<i>|/slice<k>]").
  if (!r.placement->nodes.empty()) {
    const std::string& prev = r.placement->nodes[0];
    for (std::size_t n = 0; n < gf.sim_nodes.size() && !where; ++n) {
      if (nodes[static_cast<std::size_t>(gf.sim_nodes[n])].name != prev) continue;
      gpu::Placement pl{n, {}};
      std::vector<std::pair<int, std::size_t>> mig;
      const std::string prefix = prev + "/gpu";
      for (const auto& lane : r.placement->devices) {
        if (lane.rfind(prefix, 0) != 0) continue;
        std::size_t end = prefix.size();
        while (end < lane.size() && std::isdigit(static_cast<unsigned char>(lane[end]))) ++end;
        if (end == prefix.size()) continue;
        const int g = std::stoi(lane.substr(prefix.size(), end - prefix.size()));
        if (lane.compare(end, 4, "/mig") == 0 && end + 4 < lane.size())
          mig.emplace_back(g, static_cast<std::size_t>(std::stoul(lane.substr(end + 4))));
        else
          pl.gpus.push_back(g);
      }
      if (h.mig_profile.empty()) {
        if (static_cast<int>(pl.gpus.size()) == t.num_gpu && pool.allocate(t, pl)) where = pl;
      } else if (static_cast<int>(mig.size()) == t.num_gpu) {
        gpu::Task cpu_only = t;
        cpu_only.num_gpu = 0;
        cpu_only.gpu_milli = 0;
        const auto& gpus = pool.node(n).gpus;
        bool free = true;
        for (const auto& [g, i] : mig)
          free = free && g >= 0 && static_cast<std::size_t>(g) < gpus.size() && i < gpus[static_cast<std::size_t>(g)].mig.size() &&
                 gpus[static_cast<std::size_t>(g)].mig_state[i] == 0 && gpus[static_cast<std::size_t>(g)].mig[i].profile == h.mig_profile;
        if (free && pool.allocate(cpu_only, gpu::Placement{n, {}})) {
          for (const auto& [g, i] : mig) (void)pool.allocate_mig(n, g, i);
          h.mig = std::move(mig);
          where = gpu::Placement{n, {}};
        } else if (place_mig_on(pool, n, h)) {
          // Its GPU was re-partitioned before the restart: the same node, instances made again.
          where = gpu::Placement{n, {}};
        }
      }
    }
  }
  // The distinct requests of the flavor: FGD's task mix (a new one makes FGD's policy again).
  auto remember = [&] {
    if (t.num_gpu > 0 && h.mig_profile.empty() && std::none_of(gf.seen.begin(), gf.seen.end(), [&](const gpu::Task& s) {
          return s.cpu_milli == t.cpu_milli && s.memory_mib == t.memory_mib && s.num_gpu == t.num_gpu && s.gpu_milli == t.gpu_milli;
        })) {
      gf.seen.push_back(t);
      if (options.placement_policy == "fgd") gf.stale = true;
    }
  };
  if (where) {
    remember();  // placed where it was
  } else if (!h.mig_profile.empty()) {
    if (place_mig_run(gf, h)) where = h.placement;
  } else {
    remember();
    if (!gf.policy || gf.stale) {
      gpu::PolicyOptions po;
      po.seed = options.outcomes.seed;
      po.workload = gpu::Workload::from_tasks(gf.seen.empty() ? std::vector<gpu::Task>{t} : gf.seen);
      auto made = gpu::make_policy(options.placement_policy, po);
      if (!made) return false;  // validate() accepted the name
      gf.policy = std::move(*made);
      gf.stale = false;
    }
    where = gf.policy->place(pool, t);
    if (where && !pool.allocate(t, *where)) where.reset();
  }
  if (!where) {
    h.waiting = placement_wait(gf, h);
    return false;
  }
  h.placement = *where;
  h.placed = true;
  h.waiting.clear();
  r.node_cpu = need_cpu;
  r.node_memory = need_mem;
  set_gpu_lanes(slot);
  return true;
}

void Impl::set_gpu_lanes(std::uint32_t slot) {
  sim::Run& r = runs[slot];
  const sim::GpuHold& h = *r.gpu;
  const gpu::Pool& pool = gpu_flavors[static_cast<std::size_t>(h.flavor)].pool;
  const std::size_t n = h.placement.node;
  r.node = gpu_flavors[static_cast<std::size_t>(h.flavor)].sim_nodes[n];
  r.slots.clear();
  const std::string& name = nodes[static_cast<std::size_t>(r.node)].name;
  r.placement->nodes.assign(1, name);
  r.placement->devices.clear();
  const auto& gpus = pool.node(n).gpus;
  for (const auto& [g, i] : h.mig) r.placement->devices.push_back(name + "/gpu" + std::to_string(g) + "/mig" + std::to_string(i));
  for (int g : h.placement.gpus) {
    std::string lane = name + "/gpu" + std::to_string(g);
    const gpu::Device& d = gpus[static_cast<std::size_t>(g)];
    if (d.sharing == gpu::Sharing::TimeSlice) lane += "/slice" + std::to_string(d.replicas_used - 1);
    r.placement->devices.push_back(std::move(lane));
  }
}

// One instance: where place_mig puts it on the whole flavor (a free instance anywhere first).
// Several: the first node that takes them all, each where place_mig puts it on that node.
bool Impl::place_mig_run(sim::GpuFlavor& gf, sim::GpuHold& h) {
  if (h.task.num_gpu == 1) {
    auto where = gpu::place_mig(gf.pool, h.task, h.mig_profile);
    return where && place_mig_on(gf.pool, where->node, h);
  }
  for (std::size_t n = 0; n < gf.pool.size(); ++n)
    if (place_mig_on(gf.pool, n, h)) return true;
  return false;
}

bool Impl::place_mig_on(gpu::Pool& pool, std::size_t n, sim::GpuHold& h) {
  if (n >= pool.size()) return false;
  gpu::Pool next = pool;
  gpu::Task rest = h.task;
  rest.cpu_milli = 0;
  rest.memory_mib = 0;
  std::vector<std::pair<int, std::size_t>> mig;
  std::vector<std::pair<int, std::vector<gpu::MigInstance>>> repartitioned;  // (GPU, layout before)
  for (int k = 0; k < h.task.num_gpu; ++k) {
    const gpu::Task& t = k == 0 ? h.task : rest;
    auto where = gpu::place_mig(next, n, t, h.mig_profile);
    if (!where) return false;
    const auto before = next.node(n).gpus[static_cast<std::size_t>(where->gpu)].mig;
    auto instance = gpu::allocate_mig_placement(next, t, *where);
    if (!instance) return false;
    if (!where->instance) {
      gpu::remap_mig(mig, where->gpu, before, where->layout);  // this run's own earlier instances
      const bool seen = std::any_of(repartitioned.begin(), repartitioned.end(), [&](const auto& e) { return e.first == where->gpu; });
      if (!seen) repartitioned.emplace_back(where->gpu, before);  // the layout the other runs' indices refer to
    }
    mig.emplace_back(where->gpu, *instance);
  }
  pool = std::move(next);
  h.mig = std::move(mig);
  h.placement = gpu::Placement{n, {}};
  for (const auto& [g, before] : repartitioned) remap_mig(h.flavor, n, g, before);
  return true;
}

void Impl::remap_mig(int f, std::size_t n, int g, const std::vector<gpu::MigInstance>& before) {
  const auto& after = gpu_flavors[static_cast<std::size_t>(f)].pool.node(n).gpus[static_cast<std::size_t>(g)].mig;
  for (std::uint32_t slot = 0; slot < runs.size(); ++slot) {
    sim::Run& r = runs[slot];
    if (!r.gpu || !r.gpu->placed || r.gpu->flavor != f || r.gpu->placement.node != n || r.gpu->mig.empty()) continue;
    gpu::remap_mig(r.gpu->mig, g, before, after);
    set_gpu_lanes(slot);
  }
}

std::string Impl::placement_wait(const sim::GpuFlavor& gf, const sim::GpuHold& h) const {
  const gpu::Task& t = h.task;
  const gpu::Pool& pool = gf.pool;
  // Why: the most the flavor's nodes offer on one node, against what the run asks.
  int most = 0;
  for (std::size_t n = 0; n < pool.size(); ++n) {
    int c = 0;
    for (const auto& d : pool.node(n).gpus) {
      if (!h.mig_profile.empty()) {
        for (std::size_t i = 0; i < d.mig.size(); ++i) c += d.mig_state[i] == 0 && d.mig[i].profile == h.mig_profile;
      } else if (t.shares_gpu() ? gpu::Pool::gpu_fits(d, t) : d.milli_free() == gpu::kMilliPerGpu) {
        ++c;
      }
    }
    most = std::max(most, c);
  }
  std::string asks, unit;
  if (!h.mig_profile.empty()) {
    asks = std::to_string(t.num_gpu) + " " + h.mig_profile + " instances";
    unit = "free " + h.mig_profile + " instances";
  } else if (t.shares_gpu()) {
    asks = std::to_string(t.gpu_milli) + " milli-GPU of one GPU";
    unit = "GPUs with that much free";
  } else {
    asks = std::to_string(t.num_gpu) + " GPUs";
    unit = "free GPUs";
  }
  return "admitted by quota; waiting for placement: no node of flavor " + gf.flavor + " can take " + asks + " with " +
         std::to_string(t.cpu_milli) + "m CPU and " + std::to_string(t.memory_mib) + " MiB (policy " +
         options.placement_policy + "; the most " + unit + " on one node: " + std::to_string(most) + ")";
}

// Admitted runs waiting for a node, in admission order; each that fits now starts.
void Impl::place_waiting(std::int64_t now) {
  if (unplaced.empty()) return;
  std::deque<std::uint32_t> still;
  while (!unplaced.empty()) {
    std::uint32_t slot = unplaced.front();
    unplaced.pop_front();
    if (runs[slot].phase != sim::Phase::Admitted) continue;
    if (place(slot)) {
      start(slot, now);
    } else {
      still.push_back(slot);
    }
  }
  unplaced = std::move(still);
}

}  // namespace budcore::backend
