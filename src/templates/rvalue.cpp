#include "templates/rvalue.hpp"

#include <type_traits>

#include "templates/evaluator.hpp"

namespace budcore::templates::detail {



AllocBudget::AllocBudget(std::size_t limit, std::size_t text_limit) noexcept
    : limit_(limit), text_limit_(text_limit), previous_(current_) {
  current_ = this;
}

AllocBudget::~AllocBudget() { current_ = previous_; }

void AllocBudget::over() {
  // The budget stays exhausted for the rest of the render: any later charge raises again.
  raise(ErrorKind::Security, "the template allocates more than its memory limit of " + std::to_string(limit_) + " bytes");
}

namespace {

bool holds_values(const RValue& v) noexcept {
  auto t = v.tag();
  return t == RValue::T::Seq || t == RValue::T::Dict || t == RValue::T::Loop || t == RValue::T::Method;
}

// Moves the values of `from` that hold values themselves to `out`; scalars stay and are freed
// with their container.
void adopt(Items& from, std::vector<RValue>& out) {
  for (auto& it : from)
    if (holds_values(it)) out.push_back(std::move(it));
}
void adopt(DictItems& from, std::vector<RValue>& out) {
  for (auto& [k, v] : from) {
    if (holds_values(k)) out.push_back(std::move(k));
    if (holds_values(v)) out.push_back(std::move(v));
  }
}

// Frees the values nested in `items` one container at a time, so a list nested 100,000 deep is
// freed without 100,000 nested destructor calls: a container's destructor only ever sees
// children that are scalars, shared with someone else, or already emptied. The work list is
// not charged to the budget.
template <class Vec>
void release_nested(Vec& items) noexcept {
  try {
    std::vector<RValue> work;
    adopt(items, work);
    while (!work.empty()) {
      RValue v = std::move(work.back());
      work.pop_back();
      v.give_nested(work);
    }  // v, now empty of nested values, is freed here
  } catch (...) {
    // No memory for the work list: what is left is freed recursively, as before.
  }
}

}  // namespace

Seq::~Seq() { release_nested(items); }
Dict::~Dict() { release_nested(items); }
LoopState::~LoopState() { release_nested(items); }

void RValue::give_nested(std::vector<RValue>& out) {
  auto sole = [](const auto& p) { return p && p.use_count() == 1; };
  if (auto* s = std::get_if<std::shared_ptr<Seq>>(&v_); s && sole(*s)) {
    adopt((*s)->items, out);
  } else if (auto* d = std::get_if<std::shared_ptr<Dict>>(&v_); d && sole(*d)) {
    adopt((*d)->items, out);
  } else if (auto* l = std::get_if<std::shared_ptr<LoopState>>(&v_); l && sole(*l)) {
    adopt((*l)->items, out);
  } else if (auto* m = std::get_if<std::shared_ptr<Method>>(&v_); m && sole(*m) && holds_values((*m)->self)) {
    out.push_back(std::move((*m)->self));
  }
}

RValue::T RValue::kind() const noexcept {
  auto t = tag();
  if (t != T::Ref) return t;
  switch (core_ref()->kind()) {
    case core::Value::Kind::Null: return T::None;
    case core::Value::Kind::Bool: return T::Bool;
    case core::Value::Kind::Int: return T::Int;
    case core::Value::Kind::Float: return T::Float;
    case core::Value::Kind::String: return T::Str;
    case core::Value::Kind::List: return T::Seq;
    case core::Value::Kind::Map: return T::Dict;
  }
  return T::None;
}

bool RValue::b() const noexcept {
  if (auto r = core_ref()) return r->is_bool() && r->as_bool();
  auto p = std::get_if<bool>(&v_);
  return p && *p;
}

std::int64_t RValue::i() const noexcept {
  if (auto r = core_ref()) return r->is_int() ? r->as_int() : (r->is_bool() ? r->as_bool() : 0);
  if (auto p = std::get_if<std::int64_t>(&v_)) return *p;
  if (auto p = std::get_if<bool>(&v_)) return *p ? 1 : 0;
  return 0;
}

double RValue::f() const noexcept {
  if (auto r = core_ref()) {
    if (r->is_float()) return r->as_float();
    if (r->is_int()) return static_cast<double>(r->as_int());
    return r->is_bool() && r->as_bool() ? 1.0 : 0.0;
  }
  if (auto p = std::get_if<double>(&v_)) return *p;
  return static_cast<double>(i());
}

std::string_view RValue::s() const noexcept {
  if (auto r = core_ref()) return r->is_string() ? std::string_view(r->as_string()) : std::string_view();
  if (auto p = std::get_if<std::string>(&v_)) return *p;
  return {};
}

std::string RValue::take_string() && {
  if (auto p = std::get_if<std::string>(&v_)) return std::move(*p);
  return std::string(s());
}

std::size_t seq_size(const RValue& v) noexcept {
  if (auto r = v.core_ref()) return r->is_list() ? r->as_list().size() : 0;
  auto s = v.seq();
  return s ? s->items.size() : 0;
}

RValue seq_at(const RValue& v, std::size_t i) {
  if (auto r = v.core_ref()) return RValue::ref(&r->as_list()[i]);
  return v.seq()->items[i];
}

SeqFlavor seq_flavor(const RValue& v) noexcept {
  auto s = v.seq();
  return s ? s->flavor : SeqFlavor::List;
}

std::size_t dict_size(const RValue& v) noexcept {
  if (auto r = v.core_ref()) return r->is_map() ? r->as_map().size() : 0;
  auto d = v.dict();
  return d ? d->items.size() : 0;
}

bool dict_find(const RValue& v, std::string_view key, RValue& out) {
  if (auto r = v.core_ref()) {
    if (!r->is_map()) return false;
    const core::Value* f = r->as_map().find(key);
    if (!f) return false;
    out = RValue::ref(f);
    return true;
  }
  if (auto d = v.dict()) {
    for (const auto& [k, val] : d->items) {
      if (k.kind() == RValue::T::Str && k.s() == key) {
        out = val;
        return true;
      }
    }
  }
  return false;
}

bool dict_find(const RValue& v, const RValue& key, RValue& out) {
  auto kk = key.kind();
  if (kk == RValue::T::Str) return dict_find(v, key.s(), out);
  if (auto d = v.dict()) {
    for (const auto& [k, val] : d->items) {
      auto k2 = k.kind();
      bool num1 = kk == RValue::T::Int || kk == RValue::T::Bool || kk == RValue::T::Float;
      bool num2 = k2 == RValue::T::Int || k2 == RValue::T::Bool || k2 == RValue::T::Float;
      if ((num1 && num2 && k.f() == key.f()) || (kk == RValue::T::None && k2 == RValue::T::None)) {
        out = val;
        return true;
      }
    }
  }
  return false;
}

RValue dict_key(const RValue& v, std::size_t i) {
  if (auto r = v.core_ref()) return RValue(std::string(r->as_map().entries()[i].first));
  return v.dict()->items[i].first;
}

RValue dict_value(const RValue& v, std::size_t i) {
  if (auto r = v.core_ref()) return RValue::ref(&r->as_map().entries()[i].second);
  return v.dict()->items[i].second;
}

}  // namespace budcore::templates::detail
