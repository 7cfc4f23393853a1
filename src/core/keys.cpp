#include "budcore/core/keys.hpp"

#include <algorithm>
#include <vector>

#include "budcore/core/limits.hpp"

namespace budcore::core {
namespace {

// Levenshtein distance, one row at a time; keys are short, and suggest() stops early on long ones.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string_view suggest(std::string_view key, std::span<const std::string_view> candidates) {
  std::string_view best;
  std::size_t best_d = std::max<std::size_t>(2, key.size() / 3) + 1;
  for (auto c : candidates) {
    // A distance below best_d needs lengths within best_d of each other; this also keeps a
    // megabyte-long key from costing a megabyte-squared comparison.
    std::size_t gap = key.size() > c.size() ? key.size() - c.size() : c.size() - key.size();
    if (gap >= best_d) continue;
    std::size_t d = edit_distance(key, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

Error unknown_key(std::string_view parent, std::string_view key, std::span<const std::string_view> known) {
  std::string why = "unknown field";
  if (auto s = suggest(key, known); !s.empty()) {
    why += "; did you mean '";
    why += s;
    why += "'?";
  }
  return Error::invalid(join_path(parent, truncate_text(key)), {}, std::move(why));
}

Status check_keys(const Map& map, std::span<const std::string_view> known, std::string_view parent) {
  for (const auto& [key, value] : map) {
    if (std::find(known.begin(), known.end(), key) == known.end()) return unknown_key(parent, key, known);
  }
  return {};
}

}  // namespace budcore::core
