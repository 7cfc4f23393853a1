// core/limits.hpp and core/keys.hpp, and the limits the JSON/YAML readers and writers and
// Value equality enforce with them (docs/limits.md).
#include "budcore/core/limits.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>

#include "budcore/core/json.hpp"
#include "budcore/core/keys.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/yaml.hpp"
#include "support/small_stack.hpp"

namespace budcore::core {
namespace {

using test::on_small_stack;

Value nested_list(int depth) {
  Value v = Value::list({});
  for (int i = 0; i < depth; ++i) v = Value(List{v});
  return v;
}

// Restores the process-wide input cap a test changed.
struct InputCap {
  explicit InputCap(std::size_t bytes) { set_max_input_bytes(bytes); }
  ~InputCap() { set_max_input_bytes(0); }
};

TEST(LimitsTest, StackFloorIsInsideTheThreadStack) {
  std::uintptr_t floor = stack_floor();
  ASSERT_NE(floor, 0u);
  EXPECT_LT(floor, reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0)));
  EXPECT_FALSE(stack_exhausted());
  std::uintptr_t small_floor = 0;
  bool exhausted = true;
  on_small_stack([&] {
    small_floor = stack_floor();
    exhausted = stack_exhausted();
  });
  EXPECT_NE(small_floor, 0u);
  EXPECT_FALSE(exhausted);
}

// A recursion guarded only by the stack check stops cleanly on a 1 MiB thread, however deep
// the count limit would allow it to go.
int recurse_until_refused(int& depth, int& deepest) {
  DepthGuard guard(depth, std::numeric_limits<int>::max());
  if (!guard.ok()) return depth;
  deepest = std::max(deepest, depth);
  volatile char frame[512] = {};  // a frame of realistic size
  (void)frame;
  return recurse_until_refused(depth, deepest) + 0 * frame[0];
}

TEST(LimitsTest, DepthGuardStopsBeforeTheStackEnds) {
  int refused_at = 0, deepest = 0;
  on_small_stack([&] {
    int depth = 0;
    refused_at = recurse_until_refused(depth, deepest);
  });
  EXPECT_GT(deepest, 100);  // a real amount of stack was usable
  EXPECT_EQ(refused_at, deepest + 1);
  int depth = 0;
  {
    DepthGuard a(depth, 1);
    EXPECT_TRUE(a.ok());
    DepthGuard b(depth, 1);
    EXPECT_FALSE(b.ok());
  }
  EXPECT_EQ(depth, 0);
}

TEST(LimitsTest, ReadInputStopsAtTheCap) {
  auto r = read_input("/dev/zero", 1 << 20);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::Invalid);
  EXPECT_NE(r.error().message.find("larger than the input limit of 1048576 bytes"), std::string::npos);

  auto path = std::filesystem::temp_directory_path() / ("budcore_limits_" + std::to_string(::getpid()));
  std::ofstream(path) << std::string(100, 'x');
  EXPECT_EQ(read_input(path.string(), 100)->size(), 100u);
  EXPECT_FALSE(read_input(path.string(), 99));
  std::filesystem::remove(path);
  // One shape for a file that cannot be read: Io, the field that named it, the path as value.
  Error missing = read_input("/nonexistent/budcore", 100, "--prices").error();
  EXPECT_EQ(missing.code, ErrorCode::Io);
  EXPECT_EQ(missing.message, "cannot open file '/nonexistent/budcore': No such file or directory");
  EXPECT_EQ(missing.field, "--prices");
  EXPECT_EQ(missing.value, "/nonexistent/budcore");
  EXPECT_EQ(read_input("/nonexistent/budcore").error().field, "path");
  Error dir = read_input("/").error();
  EXPECT_EQ(dir.code, ErrorCode::Io);
  EXPECT_EQ(dir.message, "cannot open file '/': it is a directory");
}

TEST(LimitsTest, MaxInputBytesIsConfigurable) {
  EXPECT_EQ(max_input_bytes(), kDefaultMaxInputBytes);
  {
    InputCap cap(10);
    EXPECT_EQ(max_input_bytes(), 10u);
    auto j = parse_json("[1, 2, 3, 4, 5]");
    ASSERT_FALSE(j);
    EXPECT_NE(j.error().message.find("over the limit of 10 bytes"), std::string::npos);
    EXPECT_FALSE(parse_yaml("a: 1\nb: 2\nc: 3\n"));
    EXPECT_TRUE(parse_json("[1]"));
  }
  EXPECT_EQ(max_input_bytes(), kDefaultMaxInputBytes);
}

TEST(LimitsTest, TruncateKeepsWholeCharactersAndSaysHowLong) {
  EXPECT_EQ(truncate_text("short", 10), "short");
  std::string big(5'000'000, 'x');
  std::string t = truncate_text(big, 16);
  EXPECT_EQ(t, std::string(16, 'x') + "... (5000000 bytes)");
  EXPECT_EQ(truncate_text("\xC3\xA9\xC3\xA9", 3), "\xC3\xA9... (4 bytes)");  // never half an é

  Error e = Error::invalid("spec.command", big, "too long: " + big);
  Error shown = clamp_for_display(e);
  EXPECT_LE(shown.value.size(), kMaxQuotedBytes + 32);
  EXPECT_LE(shown.message.size(), kMaxMessageBytes + 32);
  EXPECT_EQ(shown.field, "spec.command");
}

TEST(LimitsTest, CheckedCastNeverNarrowsSilently) {
  EXPECT_EQ(checked_cast<std::int32_t>(std::int64_t{2147483647}), 2147483647);
  EXPECT_FALSE(checked_cast<std::int32_t>(std::int64_t{4294967297}));
  EXPECT_FALSE(checked_cast<std::int32_t>(std::int64_t{2147483648}));
  EXPECT_FALSE(checked_cast<std::uint32_t>(-1));
  EXPECT_EQ(checked_cast<std::int64_t>(-1.9), -1);
  EXPECT_EQ(checked_cast<std::int64_t>(9.2e18), std::int64_t{9200000000000000000});
  EXPECT_FALSE(checked_cast<std::int64_t>(9.3e18));
  EXPECT_FALSE(checked_cast<std::int64_t>(1e300));
  EXPECT_FALSE(checked_cast<std::int64_t>(std::nan("")));
  EXPECT_FALSE(checked_cast<std::int64_t>(-INFINITY));
  EXPECT_EQ(checked_cast<std::int64_t>(-9223372036854775808.0), INT64_MIN);
  EXPECT_FALSE(checked_cast<std::uint64_t>(-1.0));
  EXPECT_TRUE(check_range(5, 1, 10, "x"));
  auto bad = check_range(11, 1, 10, "pod_sets[0].count");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "pod_sets[0].count");
  EXPECT_EQ(bad.error().message, "must be between 1 and 10");
}

TEST(LimitsTest, DurationFromSecondsIsRangeChecked) {
  EXPECT_EQ(Duration::from_seconds(1.5)->count_ns(), 1'500'000'000);
  EXPECT_EQ(Duration::from_seconds(-2)->count_ns(), -2'000'000'000);
  for (double bad : {1e18, 1e10, -1e10, double(INFINITY), std::nan("")}) {
    auto d = Duration::from_seconds(bad);
    ASSERT_FALSE(d) << bad;
    EXPECT_EQ(d.error().code, ErrorCode::Invalid);
    EXPECT_NE(d.error().message.find("292 years"), std::string::npos);
  }
  EXPECT_TRUE(Duration::from_seconds(9e9));
}

TEST(LimitsTest, WritersAndEqualityRefuseValuesDeeperThanTheLimit) {
  Value ok = nested_list(kMaxValueDepth - 1);
  EXPECT_NO_THROW((void)to_json(ok));
  EXPECT_NO_THROW((void)to_yaml(ok));
  EXPECT_TRUE(ok == nested_list(kMaxValueDepth - 1));
  Value deep = nested_list(kMaxValueDepth + 10);
  EXPECT_THROW((void)to_json(deep), DepthExceeded);
  EXPECT_THROW((void)to_yaml(deep), DepthExceeded);
  Value other = nested_list(kMaxValueDepth + 10);
  EXPECT_THROW((void)(deep == other), DepthExceeded);
  // The same values on a 1 MiB thread: within the limit works, beyond it is refused; no crash.
  bool small_ok = false, small_refused = false;
  on_small_stack([&] {
    small_ok = to_json(ok).size() == 2 * kMaxValueDepth;
    try {
      (void)to_json(deep);
    } catch (const DepthExceeded&) {
      small_refused = true;
    }
  });
  EXPECT_TRUE(small_ok);
  EXPECT_TRUE(small_refused);
}

TEST(LimitsTest, ParsersAcceptTheirDepthLimitOnASmallStack) {
  std::string json = std::string(kMaxValueDepth, '[') + std::string(kMaxValueDepth, ']');
  bool parsed = false, refused = false;
  on_small_stack([&] {
    auto v = parse_json(json);
    parsed = v && to_json(*v) == json;
    refused = !parse_json("[" + json + "]");
  });
  EXPECT_TRUE(parsed);
  EXPECT_TRUE(refused);
}

TEST(LimitsTest, YamlAliasesAreChargedTheirExpandedText) {
  // A 64 KiB scalar aliased 1000 times is 64 MiB of text once expanded (the case is
  // 1 MB x 1000 = 1 GB); the cap is scaled down with it.
  std::string doc = "a: &big " + std::string(1 << 16, 'x') + "\nb: [";
  for (int i = 0; i < 1000; ++i) doc += i ? ", *big" : "*big";
  doc += "]\n";
  InputCap cap(1 << 20);
  auto v = parse_yaml(doc);
  ASSERT_FALSE(v);
  EXPECT_NE(v.error().message.find("aliases expand to more than 1048576 bytes"), std::string::npos) << v.error().message;
  // A few aliases of it fit.
  std::string few = "a: &big " + std::string(1 << 16, 'x') + "\nb: [*big, *big]\n";
  EXPECT_TRUE(parse_yaml(few));
}

TEST(LimitsTest, UnknownKeysGetADidYouMeanHint) {
  constexpr std::string_view kKnown[] = {"requests", "count", "min_count"};
  EXPECT_EQ(suggest("reqests", kKnown), "requests");
  EXPECT_EQ(suggest("zzzzzzzz", kKnown), "");
  EXPECT_EQ(suggest(std::string(1 << 20, 'r'), kKnown), "");  // fast on a huge key
  Map m{{"count", Value(1)}, {"reqests", Value(Map{})}};
  auto st = check_keys(m, kKnown, "workloads[0].pod_sets[0]");
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().field, "workloads[0].pod_sets[0].reqests");
  EXPECT_EQ(st.error().message, "unknown field; did you mean 'requests'?");
  EXPECT_TRUE(check_keys(Map{{"count", Value(1)}}, kKnown));
}

}  // namespace
}  // namespace budcore::core
