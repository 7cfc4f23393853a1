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

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::templates::detail {

class RValue;

// The allocation budget of the render running on this thread (Limits::max_alloc_bytes). Lists,
// tuples, dicts and loops charge it through their allocator before they grow, and strings when
// they become values or are copied as values, so a template cannot build more than the budget
// however it combines operations (`[[1]*n]*n`, padding, `l + [x]` in a loop). Going over raises
// SecurityError. Nothing is charged outside a render. One budget per render; a render on
// another thread has its own.
class AllocBudget {
 public:
  // Becomes this thread's budget. text_limit is Limits::max_output_bytes, which printers of
  // nested values (which have no Evaluator at hand) check as they go.
  AllocBudget(std::size_t limit, std::size_t text_limit) noexcept;
  AllocBudget(const AllocBudget&) = delete;
  AllocBudget& operator=(const AllocBudget&) = delete;
  ~AllocBudget();  // restores the previous one
  void add(std::size_t bytes) {
    used_ += bytes;
    if (used_ > limit_) over();
  }
  static AllocBudget* current() noexcept { return current_; }
  std::size_t text_limit() const noexcept { return text_limit_; }

 private:
  [[noreturn]] void over();
  std::size_t limit_;
  std::size_t text_limit_;
  std::size_t used_ = 0;
  AllocBudget* previous_;
  static constinit inline thread_local AllocBudget* current_ = nullptr;  // constinit: no TLS init wrapper (clang links hidden ones badly)
};

inline void charge_alloc(std::size_t bytes) {
  if (AllocBudget* b = AllocBudget::current()) b->add(bytes);
}

// std::allocator that charges the render's budget first.
template <class T>
struct Charged {
  using value_type = T;
  Charged() noexcept = default;
  template <class U>
  Charged(const Charged<U>&) noexcept {}
  T* allocate(std::size_t n) {
    charge_alloc(n * sizeof(T));
    return std::allocator<T>().allocate(n);
  }
  void deallocate(T* p, std::size_t n) noexcept { std::allocator<T>().deallocate(p, n); }
  template <class U>
  friend bool operator==(const Charged&, const Charged<U>&) noexcept { return true; }
};

using Items = std::vector<RValue, Charged<RValue>>;
using DictItems = std::vector<std::pair<RValue, RValue>, Charged<std::pair<RValue, RValue>>>;

// How a sequence prints: [..], (..), dict_keys([..]) ...
// Generator: what Jinja2's map/select/unique/batch/reverse return; it has no len(), cannot be
// indexed and is always true.
enum class SeqFlavor : std::uint8_t { List, Tuple, DictKeys, DictValues, DictItems, Generator };

// Seq, Dict and LoopState free nested values without deep recursion (release_nested).
struct Seq {
  Seq() = default;
  Seq(const Seq&) = delete;
  Seq& operator=(const Seq&) = delete;
  ~Seq();
  Items items;
  SeqFlavor flavor = SeqFlavor::List;
};

struct Dict;  // defined below RValue
struct LoopState;
struct Method;

struct Undefined {
  std::string hint;  // message UndefinedError will carry when this value is used
};

class RValue {
  using Variant = std::variant<Undefined, std::monostate, bool, std::int64_t, double, std::string,
                               const core::Value*, std::shared_ptr<Seq>, std::shared_ptr<Dict>,
                               std::shared_ptr<LoopState>, std::shared_ptr<Method>>;

 public:
  enum class T : std::uint8_t { Undef, None, Bool, Int, Float, Str, Ref, Seq, Dict, Loop, Method };

  RValue() noexcept : v_(std::monostate{}) {}
  static RValue undefined(std::string hint) { RValue r; r.v_ = Undefined{std::move(hint)}; return r; }
  static RValue ref(const core::Value* v) noexcept { RValue r; r.v_ = v; return r; }
  RValue(bool b) noexcept : v_(b) {}
  RValue(std::int64_t i) noexcept : v_(i) {}
  RValue(int i) noexcept : v_(std::int64_t{i}) {}
  RValue(double d) noexcept : v_(d) {}
  RValue(std::string s) : v_(std::monostate{}) {
    charge_alloc(s.size());
    v_.emplace<std::string>(std::move(s));
  }
  // Copying a string value copies its text: charged like any allocation, and copied before it
  // enters the variant (see core::Value: a throwing std::variant copy crashes libstdc++ 12).
  RValue(const RValue& o) { copy_from(o); }
  RValue(RValue&&) noexcept = default;
  RValue& operator=(const RValue& o) {
    if (this != &o) copy_from(o);
    return *this;
  }
  RValue& operator=(RValue&&) noexcept = default;
  ~RValue() = default;
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
  const std::shared_ptr<Dict>* dict_ptr() const noexcept { return std::get_if<std::shared_ptr<Dict>>(&v_); }
  // The runtime dict itself, for `{% set ns.attr = v %}` on a namespace().
  Dict* mutable_dict() const noexcept { auto p = std::get_if<std::shared_ptr<Dict>>(&v_); return p ? p->get() : nullptr; }
  const LoopState* loop() const noexcept { auto p = std::get_if<std::shared_ptr<LoopState>>(&v_); return p ? p->get() : nullptr; }
  const Method* method() const noexcept { auto p = std::get_if<std::shared_ptr<Method>>(&v_); return p ? p->get() : nullptr; }
  // Moves a string out when owned, copies when borrowed.
  std::string take_string() &&;
  // When this is the last owner of a list, dict, loop or method, moves the values inside it
  // that hold values themselves to `out`, so they can be freed one by one (rvalue.cpp).
  void give_nested(std::vector<RValue>& out);

 private:
  void copy_from(const RValue& o) {
    if (const std::string* p = std::get_if<std::string>(&o.v_)) {
      charge_alloc(p->size());
      std::string text(*p);
      v_.emplace<std::string>(std::move(text));
    } else if (const Undefined* u = std::get_if<Undefined>(&o.v_)) {
      Undefined copy{u->hint};
      v_.emplace<Undefined>(std::move(copy));
    } else {
      v_ = o.v_;  // no allocation: scalars, borrowed values and shared pointers
    }
  }
  Variant v_;
};

// A dict built while rendering (dict literals, dict()); keys may be any hashable scalar.
struct Dict {
  Dict() = default;
  Dict(const Dict&) = delete;
  Dict& operator=(const Dict&) = delete;
  ~Dict();
  DictItems items;
  bool is_namespace = false;  // made by namespace(): attributes are assignable
};

struct LoopState {
  LoopState() = default;
  LoopState(const LoopState&) = delete;
  LoopState& operator=(const LoopState&) = delete;
  ~LoopState();
  Items items;
  std::size_t index0 = 0;
  int depth = 1;
};

// `obj.name` where name is a builtin method; called through eval's call.
struct Stmt;
struct Method {
  RValue self;
  std::string name;
  // A macro (or a call block's caller): its definition, and the scope region it was defined in
  // (Evaluator::frames), where its body looks up names it does not bind itself.
  const Stmt* macro = nullptr;
  std::size_t region = 0;
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

#pragma GCC visibility pop
