// libFuzzer target: the Alibaba trace's node and pod readers either refuse an input with an
// Invalid error naming where (file:line[.column]) or read it; when the input holds a node list
// and a pod list (split at a line "---") that both read, a small replay runs to its end.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "budcore/gpu/trace.hpp"

namespace gpu = budcore::gpu;
using budcore::core::ErrorCode;

namespace {

template <class R>
bool read_or_refused(const R& r) {
  if (r) return true;
  if (r.error().code != ErrorCode::Invalid || r.error().field.empty()) std::abort();
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)read_or_refused(gpu::parse_nodes_csv(text));
  (void)read_or_refused(gpu::parse_pods_csv(text));
  const std::size_t cut = text.find("\n---\n");
  if (cut == std::string_view::npos) return 0;
  auto pool = gpu::parse_nodes_csv(text.substr(0, cut));
  auto tasks = gpu::parse_pods_csv(text.substr(cut + 5));
  if (!read_or_refused(pool) || !read_or_refused(tasks)) return 0;
  // Small clusters only: a replay places up to a cluster's capacity in milli-GPU.
  if (pool->size() > 32 || pool->total_gpus() > 16 || tasks->size() > 64) return 0;
  gpu::ReplayOptions options;
  options.max_load = 1.0;
  options.step = 0.25;
  for (const char* policy : {"first_fit", "fgd"}) {
    auto r = gpu::replay(*pool, *tasks, policy, options);
    if (!r && r.error().code != ErrorCode::Invalid) std::abort();
    if (r && r->points.size() > 4) std::abort();
  }
  return 0;
}
