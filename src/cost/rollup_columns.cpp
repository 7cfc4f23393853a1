// The columnar rollup: bucket x tenant x gpu_type sums over millions of records.
//
// Two passes over contiguous chunks, one chunk per thread: the first finds the key ranges (and
// rejects negative codes), the second sums each chunk into a dense array of its own, indexed
// [bucket][tenant][gpu_type]; the arrays are then added and read out in key order. When the
// key space is too large for dense arrays (sparse codes, a long range at a fine granularity)
// each thread sums into a hash map instead. Sums are 128-bit, so no record count overflows.
#include <algorithm>
#include <chrono>
#include <exception>
#include <limits>
#include <tuple>
#include <thread>
#include <unordered_map>

#include "budcore/cost/rollup.hpp"
#include "core/civil.hpp"

namespace budcore::cost {
namespace {

using core::detail::floor_div;

using core::Error;
using core::int128;

constexpr std::size_t kMaxDenseCells = std::size_t{1} << 18;  // 12 MiB of cells per thread
constexpr std::size_t kMinRowsPerThread = 1u << 18;

struct Cell {
  int128 gpu = 0;
  int128 cost = 0;
  std::int64_t records = 0;
};

// Months since 1970-01 of a Unix time.
std::int64_t month_index(std::int64_t unix_seconds) {
  int y = 0, m = 0, d = 0;
  core::detail::civil_from_days(core::detail::floor_div(unix_seconds, 86'400), y, m, d);
  return (static_cast<std::int64_t>(y) - 1970) * 12 + (m - 1);
}

std::int64_t month_start_seconds(std::int64_t index) {
  using namespace std::chrono;
  const year_month ym = year{1970} / January + months{index};
  return sys_days{ym / 1d}.time_since_epoch().count() * 86'400LL;
}

// Bucket index of a start time, and the bucket's start back from an index.
struct Bucketing {
  Granularity g;
  std::int64_t width = 0;
  std::int64_t index(std::int64_t s) const {
    if (g == Granularity::Month) return month_index(s);
    if (g == Granularity::Total) return 0;
    return floor_div(s, width);
  }
  std::int64_t start(std::int64_t i) const {
    if (g == Granularity::Month) return month_start_seconds(i);
    return g == Granularity::Total ? 0 : i * width;
  }
};

struct Ranges {  // starts (seconds) until merged, then bucket indexes
  std::int64_t min_bucket = std::numeric_limits<std::int64_t>::max();
  std::int64_t max_bucket = std::numeric_limits<std::int64_t>::min();
  std::int32_t max_tenant = -1;
  std::int32_t max_gpu = -1;
  bool negative = false;
};

// Runs fn(chunk_index, begin, end) on `threads` threads over [0, n).
template <class Fn>
void parallel_chunks(std::size_t n, unsigned threads, Fn fn) {
  if (threads <= 1) {
    fn(0u, std::size_t{0}, n);
    return;
  }
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> errors(threads);
  const std::size_t per = (n + threads - 1) / threads;
  for (unsigned t = 0; t < threads; ++t) {
    const std::size_t begin = std::min(n, t * per), end = std::min(n, begin + per);
    pool.emplace_back([&, t, begin, end] {
      try {
        fn(t, begin, end);
      } catch (...) {
        errors[t] = std::current_exception();
      }
    });
  }
  for (auto& th : pool) th.join();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

struct Key {
  std::int64_t bucket;
  std::int32_t tenant, gpu;
  bool operator==(const Key&) const = default;
};
struct KeyHash {
  std::size_t operator()(const Key& k) const noexcept {
    std::uint64_t h = static_cast<std::uint64_t>(k.bucket) * 0x9E3779B97F4A7C15ULL;
    h ^= (static_cast<std::uint64_t>(static_cast<std::uint32_t>(k.tenant)) << 32 |
          static_cast<std::uint32_t>(k.gpu)) + 0x632BE59BD9B4E019ULL + (h << 6) + (h >> 2);
    return static_cast<std::size_t>(h);
  }
};

}  // namespace

core::Result<std::vector<ColumnRollupRow>> rollup_columns(const UsageColumns& c, Granularity granularity,
                                                          unsigned threads) {
  const std::size_t n = c.start_seconds.size();
  for (auto [name, size] : {std::pair{"tenant", c.tenant.size()}, std::pair{"gpu_type", c.gpu_type.size()},
                            std::pair{"gpu_nanos", c.gpu_nanos.size()}, std::pair{"cost_pico", c.cost_pico.size()}}) {
    if (size != n) {
      return Error::invalid(name, std::to_string(size) + " values",
                            "every column must have as many values as start_seconds (" + std::to_string(n) + ")");
    }
  }
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = std::min<unsigned>({threads, 8u, static_cast<unsigned>(std::max<std::size_t>(1, n / kMinRowsPerThread))});
  const Bucketing b{granularity, granularity == Granularity::Minute ? 60 : granularity == Granularity::Hour ? 3'600 : 86'400};

  std::vector<Ranges> ranges(threads);
  parallel_chunks(n, threads, [&](unsigned t, std::size_t begin, std::size_t end) {
    Ranges r;
    std::int32_t code_or = 0;
    for (std::size_t i = begin; i < end; ++i) {
      r.min_bucket = std::min(r.min_bucket, c.start_seconds[i]);
      r.max_bucket = std::max(r.max_bucket, c.start_seconds[i]);
      r.max_tenant = std::max(r.max_tenant, c.tenant[i]);
      r.max_gpu = std::max(r.max_gpu, c.gpu_type[i]);
      code_or |= c.tenant[i] | c.gpu_type[i];
    }
    r.negative = code_or < 0;
    ranges[t] = r;
  });
  Ranges all;
  for (const auto& r : ranges) {
    all.min_bucket = std::min(all.min_bucket, r.min_bucket);
    all.max_bucket = std::max(all.max_bucket, r.max_bucket);
    all.max_tenant = std::max(all.max_tenant, r.max_tenant);
    all.max_gpu = std::max(all.max_gpu, r.max_gpu);
    all.negative = all.negative || r.negative;
  }
  if (all.negative) return Error::invalid("tenant", {}, "dictionary codes of tenant and gpu_type must not be negative");
  std::vector<ColumnRollupRow> out;
  if (n == 0) return out;
  // Timestamps cover years 1677..2262; the extremes of the starts bound the buckets (monotone).
  constexpr std::int64_t kMaxSeconds = std::numeric_limits<std::int64_t>::max() / 1'000'000'000;
  if (all.min_bucket < -kMaxSeconds || all.max_bucket > kMaxSeconds) {
    return Error::invalid("start_seconds", std::to_string(all.min_bucket < -kMaxSeconds ? all.min_bucket : all.max_bucket),
                          "is outside the years 1677 to 2262");
  }
  all.min_bucket = b.index(all.min_bucket);
  all.max_bucket = b.index(all.max_bucket);

  const auto tenants = static_cast<std::uint64_t>(all.max_tenant) + 1;
  const auto gpus = static_cast<std::uint64_t>(all.max_gpu) + 1;
  const auto buckets = static_cast<std::uint64_t>(all.max_bucket - all.min_bucket) + 1;
  const bool dense = buckets <= kMaxDenseCells && tenants * gpus <= kMaxDenseCells &&
                     buckets * tenants * gpus <= kMaxDenseCells;

  if (dense) {
    const std::size_t cells = buckets * tenants * gpus;
    std::vector<std::vector<Cell>> sums(threads);
    parallel_chunks(n, threads, [&](unsigned t, std::size_t begin, std::size_t end) {
      std::vector<Cell>& s = sums[t];
      s.assign(cells, Cell{});
      for (std::size_t i = begin; i < end; ++i) {
        const auto bi = static_cast<std::uint64_t>(b.index(c.start_seconds[i]) - all.min_bucket);
        Cell& cell = s[(bi * tenants + static_cast<std::uint64_t>(c.tenant[i])) * gpus + static_cast<std::uint64_t>(c.gpu_type[i])];
        cell.gpu += c.gpu_nanos[i];
        cell.cost += c.cost_pico[i];
        ++cell.records;
      }
    });
    for (unsigned t = 1; t < threads; ++t) {
      for (std::size_t k = 0; k < cells; ++k) {
        sums[0][k].gpu += sums[t][k].gpu;
        sums[0][k].cost += sums[t][k].cost;
        sums[0][k].records += sums[t][k].records;
      }
    }
    for (std::size_t k = 0; k < cells; ++k) {
      const Cell& cell = sums[0][k];
      if (cell.records == 0) continue;
      const auto g = static_cast<std::int32_t>(k % gpus);
      const auto tn = static_cast<std::int32_t>((k / gpus) % tenants);
      const auto bi = static_cast<std::int64_t>(k / gpus / tenants) + all.min_bucket;
      out.push_back(ColumnRollupRow{b.start(bi), tn, g, cell.records, cell.gpu, cell.cost});
    }
    return out;
  }

  std::vector<std::unordered_map<Key, Cell, KeyHash>> maps(threads);
  parallel_chunks(n, threads, [&](unsigned t, std::size_t begin, std::size_t end) {
    auto& m = maps[t];
    for (std::size_t i = begin; i < end; ++i) {
      Cell& cell = m[Key{b.index(c.start_seconds[i]), c.tenant[i], c.gpu_type[i]}];
      cell.gpu += c.gpu_nanos[i];
      cell.cost += c.cost_pico[i];
      ++cell.records;
    }
  });
  for (unsigned t = 1; t < threads; ++t) {
    for (const auto& [k, cell] : maps[t]) {
      Cell& into = maps[0][k];
      into.gpu += cell.gpu;
      into.cost += cell.cost;
      into.records += cell.records;
    }
  }
  out.reserve(maps[0].size());
  for (const auto& [k, cell] : maps[0]) out.push_back(ColumnRollupRow{k.bucket, k.tenant, k.gpu, cell.records, cell.gpu, cell.cost});
  std::sort(out.begin(), out.end(), [](const ColumnRollupRow& a, const ColumnRollupRow& b2) {
    return std::tie(a.bucket_start, a.tenant, a.gpu_type) < std::tie(b2.bucket_start, b2.tenant, b2.gpu_type);
  });
  for (auto& row : out) row.bucket_start = b.start(row.bucket_start);
  return out;
}

}  // namespace budcore::cost
