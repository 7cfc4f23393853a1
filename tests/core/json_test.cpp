#include "budcore/core/json.hpp"
#include "budcore/core/json_string.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace budcore::core {
namespace {

Value parse_ok(std::string_view text) {
  auto r = parse_json(text);
  EXPECT_TRUE(r.has_value()) << text << " -> " << (r ? "" : r.error().describe());
  return r ? *r : Value();
}

Error parse_err(std::string_view text) {
  auto r = parse_json(text);
  EXPECT_FALSE(r.has_value()) << text;
  if (r) return Error{};
  EXPECT_EQ(r.error().code, ErrorCode::Invalid);
  return r.error();
}

TEST(JsonTest, Scalars) {
  EXPECT_EQ(parse_ok("null"), Value());
  EXPECT_EQ(parse_ok("true"), Value(true));
  EXPECT_EQ(parse_ok("false"), Value(false));
  EXPECT_EQ(parse_ok("0"), Value(0));
  EXPECT_EQ(parse_ok("-12"), Value(-12));
  EXPECT_EQ(parse_ok("\"hi\""), Value("hi"));
  EXPECT_EQ(parse_ok("  42  \n"), Value(42));
}

TEST(JsonTest, IntegersStayIntAndOthersFloat) {
  EXPECT_TRUE(parse_ok("1").is_int());
  EXPECT_TRUE(parse_ok("1.0").is_float());
  EXPECT_TRUE(parse_ok("1e2").is_float());
  EXPECT_TRUE(parse_ok("1E2").is_float());
  EXPECT_TRUE(parse_ok("-0").is_int());
  EXPECT_TRUE(parse_ok("-0.0").is_float());
  EXPECT_EQ(parse_ok("1e2").as_float(), 100.0);
  EXPECT_EQ(parse_ok("0.1").as_float(), 0.1);
}

TEST(JsonTest, Int64Limits) {
  EXPECT_EQ(parse_ok("9223372036854775807"), Value(std::numeric_limits<std::int64_t>::max()));
  EXPECT_EQ(parse_ok("-9223372036854775808"), Value(std::numeric_limits<std::int64_t>::min()));
}

TEST(JsonTest, OutOfRangeIntegersAreRejectedWithPointer) {
  Error e = parse_err("{\"a\": [1, {\"b/c~\": 9223372036854775808}]}");
  EXPECT_EQ(e.field, "/a/1/b~1c~0");
  EXPECT_EQ(e.value, "9223372036854775808");
  EXPECT_NE(e.message.find("outside the 64-bit signed range"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("/a/1/b~1c~0"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("line 1, column 20"), std::string::npos) << e.message;

  e = parse_err("[\n  -9223372036854775809\n]");
  EXPECT_EQ(e.field, "/0");
  EXPECT_NE(e.message.find("line 2, column 3"), std::string::npos) << e.message;

  e = parse_err("123456789012345678901234567890");
  EXPECT_EQ(e.field, "");
  EXPECT_EQ(e.value, "123456789012345678901234567890");
  EXPECT_NE(e.message.find("line 1, column 1"), std::string::npos) << e.message;

  e = parse_err("18446744073709551615");  // fits uint64, not int64
  EXPECT_EQ(e.value, "18446744073709551615");
}

TEST(JsonTest, FloatOverflowIsAnError) {
  Error e = parse_err("[1e400]");
  EXPECT_NE(e.message.find("line 1"), std::string::npos) << e.message;
}

TEST(JsonTest, SyntaxErrorsNameLineAndColumn) {
  Error e = parse_err("{\n  \"a\": 1,\n  \"b\": tru\n}");
  EXPECT_NE(e.message.find("invalid JSON at line 3, column"), std::string::npos) << e.message;
  EXPECT_EQ(e.message.find("[json.exception"), std::string::npos) << e.message;

  e = parse_err("[1, 2,]");
  EXPECT_NE(e.message.find("line 1, column 7"), std::string::npos) << e.message;

  e = parse_err("");
  EXPECT_NE(e.message.find("line 1, column 1"), std::string::npos) << e.message;

  e = parse_err("{\"a\": 1} x");
  EXPECT_NE(e.message.find("line 1, column 10"), std::string::npos) << e.message;

  parse_err("{\"a\" 1}");
  parse_err("[1 2]");
  parse_err("{'a': 1}");
  parse_err("01");
  parse_err("NaN");
  parse_err("Infinity");
  parse_err("\"unterminated");
  parse_err("\"bad \\x escape\"");
  parse_err("\"raw\ncontrol\"");
  parse_err("\"\\ud800\"");     // lone surrogate
  parse_err("\"\xff\xfe\"");     // invalid UTF-8
  parse_err("// comment\n1");  // comments are not JSON
}

TEST(JsonTest, DepthLimit) {
  std::string ok(512, '[');
  ok += std::string(512, ']');
  auto r = parse_json(ok);
  ASSERT_TRUE(r.has_value()) << r.error().describe();

  std::string deep(513, '[');
  deep += std::string(513, ']');
  Error e = parse_err(deep);
  EXPECT_NE(e.message.find("nesting deeper than 512"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("line 1, column 513"), std::string::npos) << e.message;

  // Hostile: a million open brackets must fail fast, not overflow the stack.
  std::string hostile(1'000'000, '[');
  parse_err(hostile);
  std::string hostile_maps;
  for (int i = 0; i < 100000; ++i) hostile_maps += "{\"a\":";
  parse_err(hostile_maps);
}

TEST(JsonTest, DuplicateKeysLastWinsAtFirstPosition) {
  Value v = parse_ok(R"({"a": 1, "b": 2, "a": 3})");
  ASSERT_EQ(v.size(), 2U);
  EXPECT_EQ(v.as_map().entries()[0].first, "a");
  EXPECT_EQ(*v.find("a"), Value(3));
  EXPECT_EQ(to_json(v), R"({"a":3,"b":2})");
}

TEST(JsonTest, KeyOrderIsKept) {
  Value v = parse_ok(R"({"z": 1, "a": 2, "m": 3})");
  EXPECT_EQ(to_json(v), R"({"z":1,"a":2,"m":3})");
}

TEST(JsonTest, CompactRoundTripIsIdentity) {
  const std::vector<std::string> docs = {
      "null", "true", "false", "0", "-1", "1.0", "-0.0", "0.1", "1e+300", "1e-07", "1.5e-300",
      "123.456", "9223372036854775807", "-9223372036854775808", "3.141592653589793",
      "2.2250738585072014e-308", "5e-324", "1.7976931348623157e+308", "1e+16", "123456789.0",
      R"("")", R"("plain")", R"("quote \" backslash \\ slash /")", R"("\n\r\t\b\f")",
      R"("\u0000\u0001\u001f")", R"("héllo wörld ✓ 😀")", "[]", "{}", "[[]]", "[{}]", "{\"\":{}}",
      R"([1,2.5,"x",null,true,false,[],{}])",
      R"({"a":{"b":{"c":[1,{"d":"e"}]}},"f":[[[[]]]],"g":-0.5})",
      R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"train","labels":{"kueue.x-k8s.io/queue-name":"lq"}},"spec":{"parallelism":2,"template":{"spec":{"containers":[{"name":"main","image":"img:1","resources":{"limits":{"nvidia.com/gpu":"1"}}}]}}}})",
  };
  for (const auto& doc : docs) {
    auto v = parse_json(doc);
    ASSERT_TRUE(v.has_value()) << doc << ": " << v.error().describe();
    EXPECT_EQ(to_json(*v), doc);
  }
}

TEST(JsonTest, EscapesAreNormalisedAndDecoded) {
  EXPECT_EQ(parse_ok(R"("\u00e9")"), Value("é"));
  EXPECT_EQ(parse_ok(R"("\ud83d\ude00")"), Value("😀"));
  EXPECT_EQ(parse_ok(R"("\/")"), Value("/"));
  EXPECT_EQ(to_json(parse_ok(R"("\u0041\/")")), R"("A/")");
  EXPECT_EQ(to_json(Value(std::string("a\0b", 3))), R"("a\u0000b")");
  EXPECT_EQ(to_json(Value("\x7f")), "\"\x7f\"");
  EXPECT_EQ(to_json(Value("\x1b[0m")), R"("\u001b[0m")");
}

TEST(JsonTest, EnsureAscii) {
  JsonOptions ascii;
  ascii.ensure_ascii = true;
  EXPECT_EQ(to_json(Value("é✓😀"), ascii), R"("\u00e9\u2713\ud83d\ude00")");
  EXPECT_EQ(to_json(Value("plain"), ascii), R"("plain")");
  EXPECT_EQ(to_json(Value::map({{"ключ", "значение"}}), ascii),
            R"({"\u043a\u043b\u044e\u0447":"\u0437\u043d\u0430\u0447\u0435\u043d\u0438\u0435"})");
  // Reads back to the same Value.
  Value v = Value::list({"é✓😀", "\x01", "𝄞"});
  EXPECT_EQ(parse_ok(to_json(v, ascii)), v);
  // Agrees with nlohmann's ensure_ascii output.
  EXPECT_EQ(to_json(Value("é✓😀"), ascii), nlohmann::json("é✓😀").dump(-1, ' ', true));
}

TEST(JsonTest, InvalidUtf8InStringsIsReplaced) {
  EXPECT_EQ(to_json(Value("a\xff" "b")), "\"a\xEF\xBF\xBD" "b\"");
  JsonOptions ascii;
  ascii.ensure_ascii = true;
  EXPECT_EQ(to_json(Value("a\xc3"), ascii), R"("a\ufffd")");
  EXPECT_EQ(to_json(Value("\xed\xa0\x80"), ascii), R"("\ufffd\ufffd\ufffd")");  // encoded surrogate
  EXPECT_EQ(to_json(Value("\xc0\xaf"), ascii), R"("\ufffd\ufffd")");           // overlong '/'
  EXPECT_TRUE(parse_json(to_json(Value("x\x80y"))).has_value());
}

TEST(JsonTest, Indented) {
  Value v = parse_ok(R"({"a":[1,2,{}],"b":{"c":"d"},"e":[]})");
  JsonOptions pretty;
  pretty.indent = 2;
  EXPECT_EQ(to_json(v, pretty),
            "{\n  \"a\": [\n    1,\n    2,\n    {}\n  ],\n  \"b\": {\n    \"c\": \"d\"\n  },\n"
            "  \"e\": []\n}");
  pretty.indent = 0;
  EXPECT_EQ(to_json(Value::list({1, 2}), pretty), "[\n1,\n2\n]");
  pretty.indent = 4;
  EXPECT_EQ(parse_ok(to_json(v, pretty)), v);
  // Same layout as nlohmann's dump(4).
  EXPECT_EQ(to_json(v, pretty), nlohmann::ordered_json::parse(to_json(v)).dump(4));
}

TEST(JsonTest, FormatFloat) {
  EXPECT_EQ(format_json_float(1.0), "1.0");
  EXPECT_EQ(format_json_float(-1.0), "-1.0");
  EXPECT_EQ(format_json_float(0.0), "0.0");
  EXPECT_EQ(format_json_float(-0.0), "-0.0");
  EXPECT_EQ(format_json_float(0.1), "0.1");
  EXPECT_EQ(format_json_float(1e300), "1e+300");
  EXPECT_EQ(format_json_float(100.0), "100.0");
  EXPECT_EQ(format_json_float(1.5), "1.5");
  EXPECT_EQ(format_json_float(std::numeric_limits<double>::quiet_NaN()), "null");
  EXPECT_EQ(format_json_float(std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(format_json_float(-std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(to_json(Value::list({std::numeric_limits<double>::quiet_NaN(), 1.0})), "[null,1.0]");
}

TEST(JsonTest, FloatsRoundTripExactly) {
  std::mt19937_64 rng(12345);
  std::uniform_int_distribution<std::uint64_t> bits;
  int checked = 0;
  for (int i = 0; i < 20000; ++i) {
    std::uint64_t b = bits(rng);
    double d;
    std::memcpy(&d, &b, sizeof d);
    if (!std::isfinite(d)) continue;
    std::string s = format_json_float(d);
    Value back = parse_ok(s);
    ASSERT_TRUE(back.is_float()) << s;
    ASSERT_EQ(back.as_float(), d) << s;
    ASSERT_EQ(std::signbit(back.as_float()), std::signbit(d)) << s;
    ++checked;
  }
  EXPECT_GT(checked, 19000);
}

TEST(JsonTest, AgreesWithNlohmannOnParsedContent) {
  const std::string doc =
      R"({"name":"x","n":[1,-2,3.25,1e-5,true,null,"\u00fc\n"],"nested":{"k":{"k2":[{"a":1}]}}})";
  Value v = parse_ok(doc);
  auto reference = nlohmann::ordered_json::parse(doc);
  EXPECT_EQ(nlohmann::ordered_json::parse(to_json(v)), reference);
  JsonOptions pretty;
  pretty.indent = 2;
  EXPECT_EQ(nlohmann::ordered_json::parse(to_json(v, pretty)), reference);
}

TEST(JsonTest, RandomDocumentsRoundTrip) {
  std::mt19937 rng(7);
  std::function<Value(int)> gen = [&](int depth) -> Value {
    int pick = static_cast<int>(rng() % (depth > 4 ? 6 : 8));
    switch (pick) {
      case 0: return Value();
      case 1: return Value(rng() % 2 == 0);
      case 2: return Value(static_cast<long long>(rng()) - (1LL << 31));
      case 3: return Value(static_cast<double>(rng()) / 7.0);
      case 4: {
        std::string s;
        for (unsigned n = rng() % 8; n > 0; --n) s += static_cast<char>(rng() % 128);
        return Value(s + "é");
      }
      case 5: return Value("s" + std::to_string(rng()));
      case 6: {
        List l;
        for (unsigned n = rng() % 5; n > 0; --n) l.push_back(gen(depth + 1));
        return Value(std::move(l));
      }
      default: {
        Map m;
        for (unsigned n = rng() % 16; n > 0; --n) m.set("k" + std::to_string(rng() % 20), gen(depth + 1));
        return Value(std::move(m));
      }
    }
  };
  JsonOptions pretty;
  pretty.indent = 1;
  JsonOptions ascii;
  ascii.ensure_ascii = true;
  for (int i = 0; i < 300; ++i) {
    Value v = gen(0);
    std::string compact = to_json(v);
    Value back = parse_ok(compact);
    ASSERT_EQ(back, v) << compact;
    ASSERT_EQ(to_json(back), compact);
    ASSERT_EQ(parse_ok(to_json(v, pretty)), v);
    ASSERT_EQ(parse_ok(to_json(v, ascii)), v);
  }
}

// The writer for text built directly writes a string as to_json does: escapes, malformed UTF-8
// as U+FFFD, non-ASCII as \uXXXX with ensure_ascii; what it appends reads back as the string.
TEST(JsonTest, AppendJsonStringWritesWhatToJsonWrites) {
  const std::string samples[] = {"plain-id-01", "quote \" back \\ slash", "tab\tnew\nline\x01\x1f",
                                 "caf\xc3\xa9 \xe2\x82\xac", "bad \xff\xc3 bytes", ""};
  for (const auto& s : samples) {
    for (bool ascii : {false, true}) {
      std::string out = "[";
      append_json_string(out, s, ascii);
      JsonOptions o;
      o.ensure_ascii = ascii;
      EXPECT_EQ(out, "[" + to_json(Value(s), o)) << s;
    }
    std::string out;
    append_json_string(out, s);
    auto back = parse_json(out);
    ASSERT_TRUE(back) << out;
    if (s.find('\xff') == std::string::npos) EXPECT_EQ(back->as_string(), s);
    else EXPECT_NE(back->as_string().find("\xef\xbf\xbd"), std::string::npos) << out;  // U+FFFD
  }
}

}  // namespace
}  // namespace budcore::core

