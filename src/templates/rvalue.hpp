// The evaluator's runtime value: a core::Value borrowed from the context or the compiled
// template (no copy), or a value computed while rendering. Adds what core::Value lacks and
// Jinja2 needs: undefined, tuples and dict views (they print differently), the loop object
// and bound methods.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "budcore/core/value.hpp"

namespace budcore::templates::detail {

class RValue;

// How a sequence prints: [..], (..), dict_keys([..]) ...
// Generator: what Jinja2's map/select/unique/batch/reverse return; it has no len(), cannot be
// indexed and is always true.
enum class SeqFlavor : std::uint8_t { List, Tuple, DictKeys, DictValues, DictItems, Generator };

struct Seq {
  std::vector<RValue> items;
  SeqFlavor flavor = SeqFlavor::List;
};

struct Dict;  // defined below RValue
struct LoopState;
struct Method;

struct Undefined {
  std::string hint;  // message UndefinedError will carry when this value is used
};

class RValue {
 public:
  enum class T : std::uint8_t { Undef, None, Bool, Int, Float, Str, Ref, Seq, Dict, Loop, Method };

  RValue() noexcept : v_(std::monostate{}) {}
  static RValue undefined(std::string hint) { RValue r; r.v_ = Undefined{std::move(hint)}; return r; }
  static RValue ref(const core::Value* v) noexcept { RValue r; r.v_ = v; return r; }
  RValue(bool b) noexcept : v_(b) {}
  RValue(std::int64_t i) noexcept : v_(i) {}
  RValue(int i) noexcept : v_(std::int64_t{i}) {}
  RValue(double d) noexcept : v_(d) {}
  RValue(std::string s) noexcept : v_(std::move(s)) {}
  RValue(std::shared_ptr<Seq> s) noexcept : v_(std::move(s)) {}
  RValue(std::shared_ptr<Dict> d) noexcept : v_(std::move(d)) {}
  RValue(std::shared_ptr<LoopState> l) noexcept : v_(std::move(l)) {}
  RValue(std::shared_ptr<Method> m) noexcept : v_(std::move(m)) {}

  T tag() const noexcept { return static_cast<T>(v_.index()); }
  // The tag with a borrowed core::Value resolved to its own kind (never Ref).
  T kind() const noexcept;

  bool is_undefined() const noexcept { return tag() == T::Undef; }
  bool is_none() const noexcept { return kind() == T::None; }
  bool is_str() const noexcept { return kind() == T::Str; }
  bool is_seq() const noexcept { return kind() == T::Seq; }
  bool is_dict() const noexcept { return kind() == T::Dict; }
  // Python numbers: bool, int, float.
  bool is_number() const noexcept {
    auto k = kind();
    return k == T::Int || k == T::Float || k == T::Bool;
  }

  const Undefined& undef() const { return std::get<Undefined>(v_); }
  const core::Value* core_ref() const noexcept {
    auto p = std::get_if<const core::Value*>(&v_);
    return p ? *p : nullptr;
  }
  bool b() const noexcept;
  std::int64_t i() const noexcept;   // Int (or Bool as 0/1)
  double f() const noexcept;         // Float, Int or Bool as double
  std::string_view s() const noexcept;
  const Seq* seq() const noexcept { auto p = std::get_if<std::shared_ptr<Seq>>(&v_); return p ? p->get() : nullptr; }
  const std::shared_ptr<Seq>* seq_ptr() const noexcept { return std::get_if<std::shared_ptr<Seq>>(&v_); }
  const Dict* dict() const noexcept { auto p = std::get_if<std::shared_ptr<Dict>>(&v_); return p ? p->get() : nullptr; }
  // The runtime dict itself, for `{% set ns.attr = v %}` on a namespace().
  Dict* mutable_dict() const noexcept { auto p = std::get_if<std::shared_ptr<Dict>>(&v_); return p ? p->get() : nullptr; }
  const LoopState* loop() const noexcept { auto p = std::get_if<std::shared_ptr<LoopState>>(&v_); return p ? p->get() : nullptr; }
  const Method* method() const noexcept { auto p = std::get_if<std::shared_ptr<Method>>(&v_); return p ? p->get() : nullptr; }
  // Moves a string out when owned, copies when borrowed.
  std::string take_string() &&;

 private:
  std::variant<Undefined, std::monostate, bool, std::int64_t, double, std::string,
               const core::Value*, std::shared_ptr<Seq>, std::shared_ptr<Dict>,
               std::shared_ptr<LoopState>, std::shared_ptr<Method>>
      v_;
};

// A dict built while rendering (dict literals, dict()); keys may be any hashable scalar.
struct Dict {
  std::vector<std::pair<RValue, RValue>> items;
  bool is_namespace = false;  // made by namespace(): attributes are assignable
};

struct LoopState {
  std::vector<RValue> items;
  std::size_t index0 = 0;
  int depth = 1;
};

// `obj.name` where name is a builtin method; called through eval's call.
struct Method {
  RValue self;
  std::string name;
};

// Sequence access over both representations (core list or runtime Seq).
std::size_t seq_size(const RValue& v) noexcept;
RValue seq_at(const RValue& v, std::size_t i);
SeqFlavor seq_flavor(const RValue& v) noexcept;

// Dict access over both representations.
std::size_t dict_size(const RValue& v) noexcept;
// Lookup by string key; an undefined RValue (hint empty) when absent.
bool dict_find(const RValue& v, std::string_view key, RValue& out);
bool dict_find(const RValue& v, const RValue& key, RValue& out);
// Iteration: key and value of entry i.
RValue dict_key(const RValue& v, std::size_t i);
RValue dict_value(const RValue& v, std::size_t i);

}  // namespace budcore::templates::detail
