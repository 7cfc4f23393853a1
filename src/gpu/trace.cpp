// The openb CSV files of the Alibaba GPU trace: header by name, one record per line, every
// error naming the file, the line and the column.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <functional>

#include "budcore/gpu/trace.hpp"

namespace budcore::gpu {
namespace {

std::vector<std::string_view> split(std::string_view line, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    std::size_t end = line.find(sep, start);
    out.push_back(line.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

std::string at_line(std::string_view source, std::size_t line) { return std::string(source) + ":" + std::to_string(line); }

// Splits the text into lines (the last may lack its newline; a trailing \r is dropped).
std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    std::string_view l = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    lines.push_back(l);
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return lines;
}

// The index of each wanted column in the header, or an error naming the missing one.
core::Result<std::vector<std::size_t>> columns(const std::vector<std::string_view>& header, std::string_view source,
                                               std::initializer_list<std::string_view> wanted) {
  std::vector<std::size_t> idx;
  for (auto w : wanted) {
    std::size_t i = 0;
    while (i < header.size() && header[i] != w) ++i;
    if (i == header.size())
      return core::Error::invalid(at_line(source, 1), std::string(w), "the header has no column " + std::string(w));
    idx.push_back(i);
  }
  return idx;
}

core::Result<std::int64_t> integer(std::string_view text, const std::string& field) {
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    return core::Error::invalid(field, std::string(text), "is not a whole number");
  return v;
}

core::Result<std::int64_t> count(std::string_view text, const std::string& field, std::int64_t max) {
  std::int64_t v = 0;
  BUDCORE_TRY_ASSIGN(v, integer(text, field));
  if (v < 0) return core::Error::invalid(field, std::string(text), "must not be negative");
  if (v > max) return core::Error::invalid(field, std::string(text), "must be at most " + std::to_string(max));
  return v;
}

// One data line: its cells (as many as the header's) and where it is, for errors.
struct Row {
  std::vector<std::string_view> cells;
  std::string where;
};

// Reads the header into `header` and the wanted columns' indices into `col`, then calls `fn`
// for every non-empty line after it, refusing a line whose column count differs.
core::Status for_each_row(std::string_view text, std::string_view source, std::string_view records,
                          std::initializer_list<std::string_view> wanted, std::vector<std::string_view>& header,
                          std::vector<std::size_t>& col, const std::function<core::Status(const Row&)>& fn) {
  auto lines = lines_of(text);
  if (lines.empty())
    return core::Error::invalid(std::string(source), "", "is empty: a header and one " + std::string(records) + " per line");
  header = split(lines[0], ',');
  BUDCORE_TRY_ASSIGN(col, columns(header, source, wanted));
  for (std::size_t li = 1; li < lines.size(); ++li) {
    if (lines[li].empty()) continue;
    Row row{split(lines[li], ','), at_line(source, li + 1)};
    if (row.cells.size() != header.size())
      return core::Error::invalid(row.where, std::string(lines[li]),
                                  "has " + std::to_string(row.cells.size()) + " columns, the header " +
                                      std::to_string(header.size()));
    BUDCORE_TRY(fn(row));
  }
  return {};
}

constexpr std::int64_t kMaxCpuMilli = std::int64_t{1} << 40;  // far above any node, far below overflow
constexpr std::int64_t kMaxMemoryMib = std::int64_t{1} << 40;

}  // namespace

core::Result<Pool> parse_nodes_csv(std::string_view text, std::string_view source) {
  std::vector<std::string_view> header;
  std::vector<std::size_t> col;
  Pool pool;
  BUDCORE_TRY(for_each_row(text, source, "node", {"sn", "cpu_milli", "memory_mib", "gpu", "model"}, header, col,
                           [&](const Row& row) -> core::Status {
                             const auto& cells = row.cells;
                             const std::string& where = row.where;
                             Node n;
                             n.name = std::string(cells[col[0]]);
                             BUDCORE_TRY_ASSIGN(n.cpu_milli, count(cells[col[1]], where + ".cpu_milli", kMaxCpuMilli));
                             BUDCORE_TRY_ASSIGN(n.memory_mib, count(cells[col[2]], where + ".memory_mib", kMaxMemoryMib));
                             std::int64_t gpus = 0;
                             BUDCORE_TRY_ASSIGN(gpus, count(cells[col[3]], where + ".gpu", kMaxGpusPerNode));
                             n.model = std::string(cells[col[4]]);
                             if (gpus > 0 && !is_known_gpu_model(n.model)) {
                               std::string known;
                               for (const auto& m : known_gpu_models()) known += (known.empty() ? "" : ", ") + m;
                               return core::Error::invalid(where + ".model", n.model,
                                                           "is not a known GPU model (" + known + ")");
                             }
                             n.gpus.assign(static_cast<std::size_t>(gpus), Device{});
                             if (auto st = pool.add_node(std::move(n)); !st) return std::move(st).error().at(where);
                             return {};
                           }));
  return pool;
}

core::Result<std::vector<Task>> parse_pods_csv(std::string_view text, std::string_view source) {
  std::vector<std::string_view> header;
  std::vector<std::size_t> col;
  std::vector<Task> tasks;
  BUDCORE_TRY(for_each_row(
      text, source, "pod", {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"}, header, col,
      [&](const Row& row) -> core::Status {
        const auto& cells = row.cells;
        const std::string& where = row.where;
        // gpu_spec is optional: the trace's multigpu50 list has none (every task takes any model).
        const auto spec = static_cast<std::size_t>(std::find(header.begin(), header.end(), "gpu_spec") - header.begin());
        Task t;
        t.name = std::string(cells[col[0]]);
        BUDCORE_TRY_ASSIGN(t.cpu_milli, count(cells[col[1]], where + ".cpu_milli", kMaxCpuMilli));
        BUDCORE_TRY_ASSIGN(t.memory_mib, count(cells[col[2]], where + ".memory_mib", kMaxMemoryMib));
        std::int64_t v = 0;
        BUDCORE_TRY_ASSIGN(v, count(cells[col[3]], where + ".num_gpu", kMaxGpusPerNode));
        t.num_gpu = static_cast<int>(v);
        BUDCORE_TRY_ASSIGN(v, integer(cells[col[4]], where + ".gpu_milli"));
        if (v < 0 || v > kMilliPerGpu)
          return core::Error::invalid(where + ".gpu_milli", std::string(cells[col[4]]),
                                      "must be 0-1000 (milli-GPU of one GPU)");
        t.gpu_milli = static_cast<int>(v);
        if (spec < cells.size() && !cells[spec].empty())
          for (auto m : split(cells[spec], '|')) t.gpu_spec.emplace_back(m);
        if (auto st = validate_task(t); !st) return std::move(st).error().at(where);
        tasks.push_back(std::move(t));
        return {};
      }));
  if (tasks.empty()) return core::Error::invalid(std::string(source), "", "has no pods");
  return tasks;
}

}  // namespace budcore::gpu
