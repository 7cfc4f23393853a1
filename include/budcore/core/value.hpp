// budcore::core::Value — the dynamic value (null, bool, int, float, string, list, ordered map)
// that specs, templates, step outputs and parameters are made of.
//
// Why our own type rather than nlohmann::ordered_json: copies of lists and maps are O(1)
// (shared, copy-on-write), which the template engine and the pipeline engine rely on when
// they pass outputs around; map lookup is indexed for large maps (ordered_json searches
// linearly); and the public headers stay free of the JSON library. JSON parsing still uses
// nlohmann's SAX parser underneath (src/core/json.cpp), so we write no JSON grammar ourselves.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "budcore/export.h"

namespace budcore::core {

class Value;
using List = std::vector<Value>;

// Insertion-ordered string -> Value map. Lookups are linear for small maps and hashed once a
// map grows past kIndexThreshold entries. Inserting an existing key replaces its value in place.
// The index is maintained eagerly by set/erase, so const lookups never write and concurrent
// readers of a shared (const) Value are safe; writers need exclusive access as usual.
class BUDCORE_API Map {
 public:
  using Entry = std::pair<std::string, Value>;
  static constexpr std::size_t kIndexThreshold = 12;

  Map() = default;
  Map(std::initializer_list<Entry> entries);

  // size/empty/begin/end are defined below Value: they need Value complete (clang insists).
  std::size_t size() const noexcept;
  bool empty() const noexcept;
  const Value* find(std::string_view key) const noexcept;
  Value* find(std::string_view key) noexcept;
  bool contains(std::string_view key) const noexcept { return find(key) != nullptr; }
  // Inserts or replaces; returns the stored value.
  Value& set(std::string key, Value value);
  // Returns the value for key, inserting null first when absent.
  Value& operator[](std::string_view key);
  bool erase(std::string_view key);

  std::vector<Entry>::const_iterator begin() const noexcept;
  std::vector<Entry>::const_iterator end() const noexcept;
  const std::vector<Entry>& entries() const noexcept { return entries_; }

  friend BUDCORE_API bool operator==(const Map& a, const Map& b);

 private:
  std::ptrdiff_t index_of(std::string_view key) const noexcept;
  void rebuild_index();

  std::vector<Entry> entries_;
  struct KeyHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, std::size_t, KeyHash, std::equal_to<>> index_;  // built past threshold
};

class BUDCORE_API Value {
 public:
  enum class Kind : std::uint8_t { Null, Bool, Int, Float, String, List, Map };

  Value() noexcept = default;
  Value(std::nullptr_t) noexcept {}
  Value(bool b) noexcept : v_(b) {}
  Value(int i) noexcept : v_(std::int64_t{i}) {}
  Value(long i) noexcept : v_(std::int64_t{i}) {}
  Value(long long i) noexcept : v_(std::int64_t{i}) {}
  Value(unsigned i) noexcept : v_(std::int64_t{i}) {}
  Value(double d) noexcept : v_(d) {}
  Value(std::string s) : v_(std::move(s)) {}
  Value(std::string_view s) : v_(std::string(s)) {}
  Value(const char* s) : v_(std::string(s)) {}
  Value(List l) : v_(std::make_shared<List>(std::move(l))) {}
  Value(Map m) : v_(std::make_shared<Map>(std::move(m))) {}

  // A string's text is copied before it enters the variant: libstdc++ 12 crashes while
  // unwinding when a std::variant copy throws (bad_alloc under a memory cap), so running out
  // of memory while copying a Value stays a clean std::bad_alloc.
  Value(const Value& other) { copy_from(other); }
  Value& operator=(const Value& other) {
    if (this != &other) copy_from(other);
    return *this;
  }
  Value(Value&&) noexcept = default;
  Value& operator=(Value&&) noexcept = default;
  ~Value() = default;

  static Value list(std::initializer_list<Value> items) { return Value(List(items)); }
  static Value map(std::initializer_list<Map::Entry> entries) { return Value(Map(entries)); }

  Kind kind() const noexcept { return static_cast<Kind>(v_.index()); }
  bool is_null() const noexcept { return kind() == Kind::Null; }
  bool is_bool() const noexcept { return kind() == Kind::Bool; }
  bool is_int() const noexcept { return kind() == Kind::Int; }
  bool is_float() const noexcept { return kind() == Kind::Float; }
  bool is_number() const noexcept { return is_int() || is_float(); }
  bool is_string() const noexcept { return kind() == Kind::String; }
  bool is_list() const noexcept { return kind() == Kind::List; }
  bool is_map() const noexcept { return kind() == Kind::Map; }

  // Checked accessors: calling one on the wrong kind is a bug and throws std::logic_error.
  bool as_bool() const;
  std::int64_t as_int() const;
  double as_float() const;            // Int converts to double; Float as is
  const std::string& as_string() const;
  const List& as_list() const;
  const Map& as_map() const;
  // Mutable access; clones a shared list/map first (copy-on-write).
  List& mutable_list();
  Map& mutable_map();

  // Map member lookup; nullptr when this is not a map or the key is absent.
  const Value* find(std::string_view key) const noexcept;
  // Dotted path lookup over maps and list indices ("outputs.urls.0"); nullptr when absent.
  const Value* find_path(std::string_view dotted) const noexcept;

  std::size_t size() const noexcept;  // list/map/string length, 0 otherwise

  // Structural equality; Int and Float are different kinds (1 != 1.0) so round trips stay exact.
  // Maps compare by content regardless of key order; NaN equals NaN (equality is reflexive).
  friend BUDCORE_API bool operator==(const Value& a, const Value& b);

 private:
  void copy_from(const Value& other) {
    if (const std::string* s = std::get_if<std::string>(&other.v_)) {
      std::string text(*s);  // may throw; v_ is untouched then
      v_.emplace<std::string>(std::move(text));
    } else {
      v_ = other.v_;  // no allocation: scalars and shared pointers
    }
  }

  std::variant<std::monostate, bool, std::int64_t, double, std::string, std::shared_ptr<List>,
               std::shared_ptr<Map>>
      v_;
};

BUDCORE_API std::string_view to_string(Value::Kind kind) noexcept;

inline std::size_t Map::size() const noexcept { return entries_.size(); }
inline bool Map::empty() const noexcept { return entries_.empty(); }
inline std::vector<Map::Entry>::const_iterator Map::begin() const noexcept { return entries_.begin(); }
inline std::vector<Map::Entry>::const_iterator Map::end() const noexcept { return entries_.end(); }

}  // namespace budcore::core
