#include "budcore/core/value.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace budcore::core {
namespace {

TEST(ValueTest, KindsAndAccessors) {
  EXPECT_TRUE(Value().is_null());
  EXPECT_TRUE(Value(nullptr).is_null());
  EXPECT_TRUE(Value(true).is_bool());
  EXPECT_EQ(Value(7).as_int(), 7);
  EXPECT_EQ(Value(7L).kind(), Value::Kind::Int);
  EXPECT_EQ(Value(7LL).kind(), Value::Kind::Int);
  EXPECT_EQ(Value(7U).as_int(), 7);
  EXPECT_EQ(Value(2.5).as_float(), 2.5);
  EXPECT_EQ(Value(3).as_float(), 3.0);  // Int converts to double on request
  EXPECT_EQ(Value("abc").as_string(), "abc");
  EXPECT_EQ(Value(std::string_view("xy")).as_string(), "xy");
  EXPECT_TRUE(Value::list({1, 2}).is_list());
  EXPECT_TRUE(Value::map({{"a", 1}}).is_map());
  EXPECT_TRUE(Value(1).is_number());
  EXPECT_TRUE(Value(1.0).is_number());
  EXPECT_FALSE(Value("1").is_number());
}

TEST(ValueTest, WrongKindAccessThrowsLogicError) {
  EXPECT_THROW((void)Value(1).as_string(), std::logic_error);
  EXPECT_THROW((void)Value("x").as_int(), std::logic_error);
  EXPECT_THROW((void)Value(1.5).as_int(), std::logic_error);
  EXPECT_THROW((void)Value().as_bool(), std::logic_error);
  EXPECT_THROW((void)Value("x").as_float(), std::logic_error);
  EXPECT_THROW((void)Value(1).as_list(), std::logic_error);
  EXPECT_THROW((void)Value(1).as_map(), std::logic_error);
  Value v = 3;
  EXPECT_THROW(v.mutable_list(), std::logic_error);
  EXPECT_THROW(v.mutable_map(), std::logic_error);
  try {
    (void)Value("x").as_int();
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("expected int, have string"), std::string::npos);
  }
}

TEST(ValueTest, KindNames) {
  EXPECT_EQ(to_string(Value::Kind::Null), "null");
  EXPECT_EQ(to_string(Value::Kind::Bool), "bool");
  EXPECT_EQ(to_string(Value::Kind::Int), "int");
  EXPECT_EQ(to_string(Value::Kind::Float), "float");
  EXPECT_EQ(to_string(Value::Kind::String), "string");
  EXPECT_EQ(to_string(Value::Kind::List), "list");
  EXPECT_EQ(to_string(Value::Kind::Map), "map");
}

TEST(ValueTest, Size) {
  EXPECT_EQ(Value("hello").size(), 5U);
  EXPECT_EQ(Value::list({1, 2, 3}).size(), 3U);
  EXPECT_EQ(Value::map({{"a", 1}, {"b", 2}}).size(), 2U);
  EXPECT_EQ(Value(42).size(), 0U);
  EXPECT_EQ(Value().size(), 0U);
}

TEST(ValueTest, EqualityIsStructuralAndIntIsNotFloat) {
  EXPECT_NE(Value(1), Value(1.0));
  EXPECT_EQ(Value(1), Value(1));
  EXPECT_EQ(Value(1.5), Value(1.5));
  EXPECT_NE(Value(true), Value(1));
  EXPECT_NE(Value(), Value(false));
  EXPECT_NE(Value("1"), Value(1));
  EXPECT_EQ(Value::list({1, "a", Value::map({{"k", nullptr}})}),
            Value::list({1, "a", Value::map({{"k", nullptr}})}));
  EXPECT_NE(Value::list({1, 2}), Value::list({2, 1}));
  EXPECT_NE(Value::list({1, 2}), Value::list({1, 2, 3}));
  // Maps compare by content, not by key order.
  EXPECT_EQ(Value::map({{"a", 1}, {"b", 2}}), Value::map({{"b", 2}, {"a", 1}}));
  EXPECT_NE(Value::map({{"a", 1}, {"b", 2}}), Value::map({{"a", 1}, {"b", 3}}));
  EXPECT_NE(Value::map({{"a", 1}, {"b", 2}}), Value::map({{"a", 1}, {"c", 2}}));
  EXPECT_NE(Value::map({{"a", 1}}), Value::map({{"a", 1}, {"b", 2}}));
  // NaN equals NaN so equality is reflexive; 0.0 == -0.0 as in IEEE.
  double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(Value(nan), Value(nan));
  EXPECT_EQ(Value(0.0), Value(-0.0));
  EXPECT_NE(Value(nan), Value(1.0));
}

TEST(ValueTest, CopyIsSharedUntilMutated) {
  Value original = Value::list({1, 2, 3});
  Value copy = original;
  EXPECT_EQ(&original.as_list(), &copy.as_list());  // O(1) copy: same storage
  copy.mutable_list().push_back(4);
  EXPECT_NE(&original.as_list(), &copy.as_list());
  EXPECT_EQ(original.size(), 3U);
  EXPECT_EQ(copy.size(), 4U);
  EXPECT_EQ(original, Value::list({1, 2, 3}));
}

TEST(ValueTest, SoleOwnerMutatesInPlace) {
  Value v = Value::list({1});
  const List* before = &v.as_list();
  v.mutable_list().push_back(2);
  EXPECT_EQ(before, &v.as_list());
  Value m = Value::map({{"a", 1}});
  const Map* mbefore = &m.as_map();
  m.mutable_map().set("b", 2);
  EXPECT_EQ(mbefore, &m.as_map());
}

TEST(ValueTest, NestedCopyOnWriteLeavesOriginalIntact) {
  Value original = Value::map({{"spec", Value::map({{"gpus", 1}, {"tags", Value::list({"a"})}})}});
  Value copy = original;
  Map& spec = copy.mutable_map()["spec"].mutable_map();
  spec.set("gpus", 8);
  spec["tags"].mutable_list().push_back("b");
  EXPECT_EQ(*original.find_path("spec.gpus"), Value(1));
  EXPECT_EQ(original.find_path("spec.tags")->size(), 1U);
  EXPECT_EQ(*copy.find_path("spec.gpus"), Value(8));
  EXPECT_EQ(copy.find_path("spec.tags")->size(), 2U);
}

TEST(ValueTest, MapKeepsInsertionOrderAndReplacesInPlace) {
  Map m;
  m.set("z", 1);
  m.set("a", 2);
  m.set("m", 3);
  m.set("a", 20);  // replace keeps position
  std::vector<std::string> keys;
  for (const auto& [k, v] : m) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"z", "a", "m"}));
  EXPECT_EQ(*m.find("a"), Value(20));
  EXPECT_EQ(m.size(), 3U);
  EXPECT_TRUE(m.contains("m"));
  EXPECT_FALSE(m.contains("q"));
  EXPECT_EQ(m.find("q"), nullptr);
}

TEST(ValueTest, MapInitializerListDuplicateKeysLastWins) {
  Map m{{"a", 1}, {"b", 2}, {"a", 3}};
  EXPECT_EQ(m.size(), 2U);
  EXPECT_EQ(*m.find("a"), Value(3));
  EXPECT_EQ(m.entries().front().first, "a");
}

TEST(ValueTest, MapSubscriptInsertsNull) {
  Map m;
  Value& slot = m["x"];
  EXPECT_TRUE(slot.is_null());
  slot = 5;
  EXPECT_EQ(*m.find("x"), Value(5));
  m["x"] = 6;
  EXPECT_EQ(m.size(), 1U);
  EXPECT_EQ(*m.find("x"), Value(6));
}

TEST(ValueTest, MapEraseSmall) {
  Map m{{"a", 1}, {"b", 2}, {"c", 3}};
  EXPECT_TRUE(m.erase("b"));
  EXPECT_FALSE(m.erase("b"));
  EXPECT_EQ(m.size(), 2U);
  EXPECT_EQ(m.entries()[1].first, "c");
  EXPECT_EQ(*m.find("c"), Value(3));
}

std::string key_of(std::size_t i) { return "key" + std::to_string(i); }

// Checks every key resolves to its own entry, whether the map is indexed or scanned.
void expect_consistent(const Map& m) {
  for (std::size_t i = 0; i < m.entries().size(); ++i) {
    const auto& [k, v] = m.entries()[i];
    const Value* found = m.find(k);
    ASSERT_NE(found, nullptr) << k;
    EXPECT_EQ(found, &m.entries()[i].second) << k;
  }
}

TEST(ValueTest, MapIndexPastThresholdStaysConsistent) {
  const std::size_t n = Map::kIndexThreshold * 4;
  Map m;
  for (std::size_t i = 0; i < n; ++i) {
    m.set(key_of(i), static_cast<long long>(i));
    expect_consistent(m);
  }
  EXPECT_EQ(m.size(), n);
  for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(*m.find(key_of(i)), Value(static_cast<long long>(i)));
  EXPECT_EQ(m.find("absent"), nullptr);

  // Replacing keeps size and order.
  m.set(key_of(5), "five");
  EXPECT_EQ(m.size(), n);
  EXPECT_EQ(m.entries()[5].second, Value("five"));

  // Erasing from the front shifts every later position; the index must follow.
  for (std::size_t i = 0; i < n; i += 2) {
    EXPECT_TRUE(m.erase(key_of(i)));
    expect_consistent(m);
  }
  EXPECT_EQ(m.size(), n / 2);
  for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(m.contains(key_of(i)), i % 2 == 1) << i;

  // Shrink below the threshold and grow again.
  for (std::size_t i = 1; i < n; i += 2) {
    if (m.size() <= 3) break;
    EXPECT_TRUE(m.erase(key_of(i)));
    expect_consistent(m);
  }
  for (std::size_t i = 0; i < n; ++i) {
    m.set("again" + std::to_string(i), 1);
    expect_consistent(m);
  }
  EXPECT_EQ(m.size(), 3 + n);
}

TEST(ValueTest, MapCopyKeepsIndexUsable) {
  Map m;
  for (std::size_t i = 0; i < 40; ++i) m.set(key_of(i), static_cast<long long>(i));
  Map copy = m;
  copy.erase(key_of(0));
  copy.set("new", 1);
  expect_consistent(copy);
  expect_consistent(m);
  EXPECT_TRUE(m.contains(key_of(0)));
  EXPECT_FALSE(m.contains("new"));
  EXPECT_EQ(*copy.find(key_of(39)), Value(39));

  // Copy-on-write through Value clones the index with the entries.
  Value v(m);
  Value w = v;
  w.mutable_map().erase(key_of(1));
  expect_consistent(w.as_map());
  expect_consistent(v.as_map());
  EXPECT_TRUE(v.as_map().contains(key_of(1)));
  EXPECT_FALSE(w.as_map().contains(key_of(1)));

  Map moved = std::move(copy);
  expect_consistent(moved);
  EXPECT_TRUE(moved.contains("new"));
}

TEST(ValueTest, LargeMapEqualityIgnoresOrder) {
  Map a;
  Map b;
  for (std::size_t i = 0; i < 30; ++i) a.set(key_of(i), static_cast<long long>(i));
  for (std::size_t i = 30; i-- > 0;) b.set(key_of(i), static_cast<long long>(i));
  EXPECT_EQ(a, b);
  b.set(key_of(3), -1);
  EXPECT_NE(a, b);
}

TEST(ValueTest, FindOnMapsOnly) {
  Value v = Value::map({{"a", 1}});
  ASSERT_NE(v.find("a"), nullptr);
  EXPECT_EQ(*v.find("a"), Value(1));
  EXPECT_EQ(v.find("b"), nullptr);
  EXPECT_EQ(Value::list({1}).find("0"), nullptr);
  EXPECT_EQ(Value(1).find("a"), nullptr);
}

TEST(ValueTest, FindPath) {
  Value v = Value::map({
      {"outputs", Value::map({{"urls", Value::list({"u0", "u1", Value::map({{"deep", true}})})}})},
      {"a.b", Value::map({{"c", 1}})},  // a key with a dot in it
      {"a", Value::map({{"x", 2}})},
      {"matrix", Value::list({Value::list({1, 2}), Value::list({3, 4})})},
  });
  EXPECT_EQ(v.find_path(""), &v);
  EXPECT_EQ(*v.find_path("outputs.urls.0"), Value("u0"));
  EXPECT_EQ(*v.find_path("outputs.urls.1"), Value("u1"));
  EXPECT_EQ(*v.find_path("outputs.urls.2.deep"), Value(true));
  EXPECT_EQ(*v.find_path("outputs.urls[2].deep"), Value(true));
  EXPECT_EQ(*v.find_path("outputs.urls[0]"), Value("u0"));
  EXPECT_EQ(*v.find_path("matrix.1.0"), Value(3));
  EXPECT_EQ(*v.find_path("matrix[1][1]"), Value(4));
  EXPECT_EQ(*v.find_path("a.b.c"), Value(1));  // falls back to the dotted key
  EXPECT_EQ(*v.find_path("a.x"), Value(2));
  EXPECT_EQ(*v.find_path("a.b"), Value::map({{"c", 1}}));
  EXPECT_EQ(v.find_path("outputs.urls.3"), nullptr);
  EXPECT_EQ(v.find_path("outputs.urls.-1"), nullptr);
  EXPECT_EQ(v.find_path("outputs.urls.x"), nullptr);
  EXPECT_EQ(v.find_path("outputs.urls[1"), nullptr);
  EXPECT_EQ(v.find_path("outputs.urls.0."), nullptr);
  EXPECT_EQ(v.find_path("outputs.urls.0.x"), nullptr);  // a string has no members
  EXPECT_EQ(v.find_path("missing"), nullptr);
  EXPECT_EQ(v.find_path("outputs.missing"), nullptr);
  EXPECT_EQ(v.find_path("matrix.99999999999999999999999"), nullptr);
  EXPECT_EQ(Value(1).find_path("a"), nullptr);
}

TEST(ValueTest, ConcurrentReadersOfSharedValue) {
  Map big;
  for (std::size_t i = 0; i < 200; ++i) big.set(key_of(i), Value::list({static_cast<long long>(i)}));
  const Value shared(big);
  std::vector<std::thread> threads;
  std::vector<int> hits(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 50; ++round) {
        Value mine = shared;  // copies race on the refcount only
        for (std::size_t i = 0; i < 200; ++i) {
          const Value* x = shared.find_path(key_of(i) + ".0");
          if (x != nullptr && x->as_int() == static_cast<long long>(i)) ++hits[static_cast<std::size_t>(t)];
        }
        mine.mutable_map().set("private", t);  // clones; never touches `shared`
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int h : hits) EXPECT_EQ(h, 50 * 200);
  EXPECT_FALSE(shared.as_map().contains("private"));
}

}  // namespace
}  // namespace budcore::core
