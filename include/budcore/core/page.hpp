// budcore::core::PageRequest / Page — keyset paging, for every interface that lists stored rows
// (backend::Store, and the narrower cost::UsageLedger and usecase::CatalogStore it implements).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace budcore::core {

// `after` is the opaque cursor a previous page returned in next_cursor (empty: the first page).
// limit is clamped to [1, kMaxPageSize].
struct PageRequest {
  static constexpr std::size_t kMaxPageSize = 1000;
  std::size_t limit = 100;
  std::string after;
};

template <class T>
struct Page {
  std::vector<T> items;
  std::string next_cursor;  // empty when this is the last page
};

}  // namespace budcore::core
