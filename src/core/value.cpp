#include "budcore/core/value.hpp"

#include <atomic>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>

#include "budcore/core/limits.hpp"

namespace budcore::core {

// ---------------------------------------------------------------------------------------------
// Map

Map::Map(std::initializer_list<Entry> entries) {
  entries_.reserve(entries.size());
  for (const auto& e : entries) set(e.first, e.second);
}

std::ptrdiff_t Map::index_of(std::string_view key) const noexcept {
  if (!index_.empty()) {
    auto it = index_.find(key);
    return it == index_.end() ? -1 : static_cast<std::ptrdiff_t>(it->second);
  }
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].first == key) return static_cast<std::ptrdiff_t>(i);
  }
  return -1;
}

const Value* Map::find(std::string_view key) const noexcept {
  auto i = index_of(key);
  return i < 0 ? nullptr : &entries_[static_cast<std::size_t>(i)].second;
}

Value* Map::find(std::string_view key) noexcept {
  auto i = index_of(key);
  return i < 0 ? nullptr : &entries_[static_cast<std::size_t>(i)].second;
}

Value& Map::set(std::string key, Value value) {
  if (auto i = index_of(key); i >= 0) {
    auto& slot = entries_[static_cast<std::size_t>(i)].second;
    slot = std::move(value);
    return slot;
  }
  entries_.emplace_back(std::move(key), std::move(value));
  // The index is kept up to date eagerly (never built lazily inside a const lookup), so
  // concurrent readers of a const Map never write.
  if (entries_.size() > kIndexThreshold) {
    if (index_.empty()) {
      rebuild_index();
    } else {
      index_.emplace(entries_.back().first, entries_.size() - 1);
    }
  }
  return entries_.back().second;
}

Value& Map::operator[](std::string_view key) {
  if (Value* v = find(key)) return *v;
  return set(std::string(key), Value());
}

bool Map::erase(std::string_view key) {
  auto i = index_of(key);
  if (i < 0) return false;
  entries_.erase(entries_.begin() + i);
  if (entries_.size() > kIndexThreshold) {
    rebuild_index();  // positions after i shifted down
  } else {
    index_.clear();
  }
  return true;
}

void Map::rebuild_index() {
  index_.clear();
  index_.reserve(entries_.size());
  for (std::size_t i = 0; i < entries_.size(); ++i) index_.emplace(entries_[i].first, i);
}

// Key order does not matter for equality (as for JSON objects and Python dicts); order is a
// property of the serialised form, not of the value.
bool operator==(const Map& a, const Map& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.entries_.size(); ++i) {
    const auto& [key, value] = a.entries_[i];
    // Fast path: same key at the same position (the common case for round trips).
    if (b.entries_[i].first == key) {
      if (!(b.entries_[i].second == value)) return false;
      continue;
    }
    const Value* other = b.find(key);
    if (other == nullptr || !(*other == value)) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Value

namespace {

[[noreturn]] void wrong_kind(Value::Kind want, Value::Kind have) {
  throw std::logic_error("Value: expected " + std::string(to_string(want)) + ", have " +
                         std::string(to_string(have)));
}

// Copy-on-write: clone the shared container unless this Value is its only owner. When the
// count reads 1 no other Value can gain a reference without going through this one; the
// acquire fence pairs with the release in another owner's earlier decrement so its reads of
// the container happen before our writes.
template <class T>
T& make_unique(std::shared_ptr<T>& p) {
  if (p.use_count() != 1) {
    p = std::make_shared<T>(*p);
  } else {
#if defined(__SANITIZE_THREAD__) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtsan"  // TSan does not model fences; the fence is still right
#endif
    std::atomic_thread_fence(std::memory_order_acquire);
#if defined(__SANITIZE_THREAD__) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  }
  return *p;
}

const Value* find_path_impl(const Value& cur, std::string_view path) noexcept;

// Parses a list index at the front of path: "3", "3.rest", "3[1]", "[3]", "[3].rest".
const Value* find_in_list(const List& list, std::string_view path) noexcept {
  bool bracket = path.front() == '[';
  std::size_t start = bracket ? 1 : 0;
  std::size_t end = start;
  while (end < path.size() && path[end] >= '0' && path[end] <= '9') ++end;
  if (end == start) return nullptr;
  std::size_t index = 0;
  auto [ptr, ec] = std::from_chars(path.data() + start, path.data() + end, index);
  if (ec != std::errc() || ptr != path.data() + end || index >= list.size()) return nullptr;
  if (bracket) {
    if (end >= path.size() || path[end] != ']') return nullptr;
    ++end;
  }
  std::string_view rest = path.substr(end);
  if (!rest.empty()) {
    if (rest.front() == '.') {
      rest.remove_prefix(1);
      if (rest.empty()) return nullptr;
    } else if (rest.front() != '[') {
      return nullptr;
    }
  }
  return find_path_impl(list[index], rest);
}

// Map keys may themselves contain '.' or '[': try every split point, shortest key first, and
// take the first one under which the rest of the path resolves.
const Value* find_in_map(const Map& map, std::string_view path) noexcept {
  std::size_t from = 0;
  while (true) {
    std::size_t sep = path.find_first_of(".[", from);
    std::string_view key = path.substr(0, sep);
    if (const Value* child = map.find(key)) {
      if (sep == std::string_view::npos) return child;
      std::string_view rest = path.substr(sep);
      if (rest.front() == '.') rest.remove_prefix(1);
      if (!rest.empty()) {
        if (const Value* hit = find_path_impl(*child, rest)) return hit;
      }
    }
    if (sep == std::string_view::npos) return nullptr;
    from = sep + 1;
  }
}

const Value* find_path_impl(const Value& cur, std::string_view path) noexcept {
  if (path.empty()) return &cur;
  if (cur.is_map()) return find_in_map(cur.as_map(), path);
  if (cur.is_list()) return find_in_list(cur.as_list(), path);
  return nullptr;
}

}  // namespace

bool Value::as_bool() const {
  if (!is_bool()) wrong_kind(Kind::Bool, kind());
  return std::get<bool>(v_);
}

std::int64_t Value::as_int() const {
  if (!is_int()) wrong_kind(Kind::Int, kind());
  return std::get<std::int64_t>(v_);
}

double Value::as_float() const {
  if (is_int()) return static_cast<double>(std::get<std::int64_t>(v_));
  if (!is_float()) wrong_kind(Kind::Float, kind());
  return std::get<double>(v_);
}

const std::string& Value::as_string() const {
  if (!is_string()) wrong_kind(Kind::String, kind());
  return std::get<std::string>(v_);
}

const List& Value::as_list() const {
  if (!is_list()) wrong_kind(Kind::List, kind());
  return *std::get<std::shared_ptr<List>>(v_);
}

const Map& Value::as_map() const {
  if (!is_map()) wrong_kind(Kind::Map, kind());
  return *std::get<std::shared_ptr<Map>>(v_);
}

List& Value::mutable_list() {
  if (!is_list()) wrong_kind(Kind::List, kind());
  return make_unique(std::get<std::shared_ptr<List>>(v_));
}

Map& Value::mutable_map() {
  if (!is_map()) wrong_kind(Kind::Map, kind());
  return make_unique(std::get<std::shared_ptr<Map>>(v_));
}

const Value* Value::find(std::string_view key) const noexcept {
  if (!is_map()) return nullptr;
  return std::get<std::shared_ptr<Map>>(v_)->find(key);
}

const Value* Value::find_path(std::string_view dotted) const noexcept {
  return find_path_impl(*this, dotted);
}

std::size_t Value::size() const noexcept {
  switch (kind()) {
    case Kind::String: return std::get<std::string>(v_).size();
    case Kind::List: return std::get<std::shared_ptr<List>>(v_)->size();
    case Kind::Map: return std::get<std::shared_ptr<Map>>(v_)->size();
    default: return 0;
  }
}

// Floats compare by value except that NaN equals NaN, so equality stays reflexive and a
// document containing .nan equals its own round trip.
bool operator==(const Value& a, const Value& b) {
  if (a.v_.index() != b.v_.index()) return false;
  switch (a.kind()) {
    case Value::Kind::Null: return true;
    case Value::Kind::Bool: return std::get<bool>(a.v_) == std::get<bool>(b.v_);
    case Value::Kind::Int: return std::get<std::int64_t>(a.v_) == std::get<std::int64_t>(b.v_);
    case Value::Kind::Float: {
      double x = std::get<double>(a.v_);
      double y = std::get<double>(b.v_);
      return x == y || (std::isnan(x) && std::isnan(y));
    }
    case Value::Kind::String: return std::get<std::string>(a.v_) == std::get<std::string>(b.v_);
    default: break;
  }
  // Containers recurse (through Map's operator== too): one nesting budget per thread.
  thread_local int depth = 0;
  DepthGuard guard(depth, kMaxValueDepth);
  if (!guard.ok()) throw DepthExceeded("values compared are nested deeper than " + std::to_string(kMaxValueDepth) + " levels");
  switch (a.kind()) {
    case Value::Kind::List: {
      const auto& pa = std::get<std::shared_ptr<List>>(a.v_);
      const auto& pb = std::get<std::shared_ptr<List>>(b.v_);
      return pa == pb || *pa == *pb;
    }
    case Value::Kind::Map: {
      const auto& pa = std::get<std::shared_ptr<Map>>(a.v_);
      const auto& pb = std::get<std::shared_ptr<Map>>(b.v_);
      return pa == pb || *pa == *pb;
    }
    default: break;
  }
  return false;
}

std::string_view to_string(Value::Kind kind) noexcept {
  switch (kind) {
    case Value::Kind::Null: return "null";
    case Value::Kind::Bool: return "bool";
    case Value::Kind::Int: return "int";
    case Value::Kind::Float: return "float";
    case Value::Kind::String: return "string";
    case Value::Kind::List: return "list";
    case Value::Kind::Map: return "map";
  }
  return "null";
}

}  // namespace budcore::core
