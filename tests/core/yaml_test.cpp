#include "budcore/core/yaml.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "budcore/core/json.hpp"

namespace budcore::core {
namespace {

Value yaml_ok(std::string_view text) {
  auto r = parse_yaml(text);
  EXPECT_TRUE(r.has_value()) << text << " -> " << (r ? "" : r.error().describe());
  return r ? *r : Value();
}

Error yaml_err(std::string_view text) {
  auto r = parse_yaml(text);
  EXPECT_FALSE(r.has_value()) << text << " parsed as " << (r ? to_json(*r) : "");
  if (r) return Error{};
  EXPECT_EQ(r.error().code, ErrorCode::Invalid);
  return r.error();
}

// The value of "v" in a one-key document, so each scalar is read in a realistic position.
Value scalar(std::string_view text) {
  Value doc = yaml_ok("v: " + std::string(text) + "\n");
  const Value* v = doc.find("v");
  EXPECT_NE(v, nullptr) << text;
  return v ? *v : Value("<missing>");
}

TEST(YamlTest, NullScalars) {
  for (const char* s : {"null", "Null", "NULL", "~", ""}) EXPECT_TRUE(scalar(s).is_null()) << s;
  EXPECT_EQ(scalar("nULL"), Value("nULL"));
  EXPECT_TRUE(yaml_ok("").is_null());
  EXPECT_TRUE(yaml_ok("# only a comment\n").is_null());
  EXPECT_TRUE(yaml_ok("~").is_null());
}

TEST(YamlTest, BoolScalars) {
  for (const char* s : {"true", "True", "TRUE"}) EXPECT_EQ(scalar(s), Value(true)) << s;
  for (const char* s : {"false", "False", "FALSE"}) EXPECT_EQ(scalar(s), Value(false)) << s;
  // YAML 1.1 booleans are strings under the 1.2 core schema.
  for (const char* s : {"yes", "no", "on", "off", "y", "n", "tRUE"}) EXPECT_EQ(scalar(s), Value(s)) << s;
}

TEST(YamlTest, IntScalars) {
  EXPECT_EQ(scalar("0"), Value(0));
  EXPECT_EQ(scalar("42"), Value(42));
  EXPECT_EQ(scalar("-17"), Value(-17));
  EXPECT_EQ(scalar("+17"), Value(17));
  EXPECT_EQ(scalar("007"), Value(7));
  EXPECT_EQ(scalar("0x1F"), Value(31));
  EXPECT_EQ(scalar("0xff"), Value(255));
  EXPECT_EQ(scalar("0o17"), Value(15));
  EXPECT_EQ(scalar("9223372036854775807"), Value(std::numeric_limits<std::int64_t>::max()));
  EXPECT_EQ(scalar("-9223372036854775808"), Value(std::numeric_limits<std::int64_t>::min()));
  EXPECT_EQ(scalar("0x7FFFFFFFFFFFFFFF"), Value(std::numeric_limits<std::int64_t>::max()));
  // Not ints under the core schema.
  for (const char* s : {"0x", "0o", "0o8", "0xG", "1_000", "0b101", "-0x1", "12:30", "1,000"}) {
    EXPECT_TRUE(scalar(s).is_string()) << s;
  }
}

TEST(YamlTest, OutOfRangeIntIsAnErrorWithPosition) {
  Error e = yaml_err("a:\n  b: [1, 99999999999999999999]\n");
  EXPECT_EQ(e.field, "a.b[1]");
  EXPECT_EQ(e.value, "99999999999999999999");
  EXPECT_NE(e.message.find("line 2, column 10"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("64-bit"), std::string::npos) << e.message;
  yaml_err("v: -9223372036854775809");
  yaml_err("v: 0x10000000000000000");
  // Quoted, it is a string.
  EXPECT_EQ(yaml_ok("v: '99999999999999999999'").find("v")->as_string(), "99999999999999999999");
}

TEST(YamlTest, FloatScalars) {
  EXPECT_EQ(scalar("1.5"), Value(1.5));
  EXPECT_EQ(scalar("-0.25"), Value(-0.25));
  EXPECT_EQ(scalar("1."), Value(1.0));
  EXPECT_EQ(scalar(".5"), Value(0.5));
  EXPECT_EQ(scalar("+.5"), Value(0.5));
  EXPECT_EQ(scalar("1e3"), Value(1000.0));
  EXPECT_EQ(scalar("1E-2"), Value(0.01));
  EXPECT_EQ(scalar("6.02e+23"), Value(6.02e23));
  EXPECT_EQ(scalar("1e400"), Value(std::numeric_limits<double>::infinity()));
  EXPECT_EQ(scalar("-1e400"), Value(-std::numeric_limits<double>::infinity()));
  EXPECT_EQ(scalar("1e-400"), Value(0.0));
  for (const char* s : {".inf", ".Inf", ".INF", "+.inf"}) {
    EXPECT_EQ(scalar(s), Value(std::numeric_limits<double>::infinity())) << s;
  }
  EXPECT_EQ(scalar("-.inf"), Value(-std::numeric_limits<double>::infinity()));
  for (const char* s : {".nan", ".NaN", ".NAN"}) {
    Value v = scalar(s);
    ASSERT_TRUE(v.is_float()) << s;
    EXPECT_TRUE(std::isnan(v.as_float())) << s;
  }
  for (const char* s : {".", "1.2.3", "e3", "1e", ".inF", "-.nan", "inf", "nan", "1.0f"}) {
    EXPECT_TRUE(scalar(s).is_string()) << s;
  }
}

TEST(YamlTest, QuotedAndTaggedScalarsAreStrings) {
  EXPECT_EQ(scalar("'true'"), Value("true"));
  EXPECT_EQ(scalar("\"42\""), Value("42"));
  EXPECT_EQ(scalar("''"), Value(""));
  EXPECT_EQ(scalar("\"\""), Value(""));
  EXPECT_EQ(scalar("'null'"), Value("null"));
  EXPECT_EQ(scalar("!!str 42"), Value("42"));
  EXPECT_EQ(scalar("!!str true"), Value("true"));
  EXPECT_EQ(scalar("!!str null"), Value("null"));
  EXPECT_EQ(scalar("! 12"), Value("12"));
  EXPECT_EQ(scalar("\"a\\tb\\u00e9\\n\""), Value("a\tb\xC3\xA9\n"));
  EXPECT_EQ(scalar("'it''s'"), Value("it's"));
}

TEST(YamlTest, ExplicitCoreTags) {
  EXPECT_EQ(scalar("!!int 12"), Value(12));
  EXPECT_EQ(scalar("!!float 12"), Value(12.0));
  EXPECT_EQ(scalar("!!float 1.5"), Value(1.5));
  EXPECT_EQ(scalar("!!bool true"), Value(true));
  EXPECT_TRUE(scalar("!!null null").is_null());
  EXPECT_EQ(scalar("!Ref 12"), Value(12));  // application tags do not change resolution
  Error e = yaml_err("v: !!int abc");
  EXPECT_NE(e.message.find("'abc' is not a valid !!int"), std::string::npos) << e.message;
  yaml_err("v: !!bool 1");
  yaml_err("v: !!float x");
  yaml_err("v: !!null 0");
}

TEST(YamlTest, PlainStrings) {
  EXPECT_EQ(scalar("hello world"), Value("hello world"));
  EXPECT_EQ(scalar("img:1.0"), Value("img:1.0"));
  EXPECT_EQ(scalar("http://x/y?z=1"), Value("http://x/y?z=1"));
  EXPECT_EQ(scalar("héllo ✓"), Value("héllo ✓"));
  EXPECT_EQ(scalar("a # comment"), Value("a"));
}

TEST(YamlTest, Collections) {
  Value v = yaml_ok(R"(
name: train
replicas: 2
resources:
  limits: {nvidia.com/gpu: 1, memory: 16Gi}
args:
  - --lr
  - 0.01
  - [nested, 1]
empty_list: []
empty_map: {}
)");
  EXPECT_EQ(to_json(v),
            R"({"name":"train","replicas":2,"resources":{"limits":{"nvidia.com/gpu":1,"memory":"16Gi"}},)"
            R"("args":["--lr",0.01,["nested",1]],"empty_list":[],"empty_map":{}})");
}

TEST(YamlTest, KeysAreKeptAsWritten) {
  Value v = yaml_ok("1: a\ntrue: b\n~: c\n'q': d\n1.50: e\n");
  std::vector<std::string> keys;
  for (const auto& [k, _] : v.as_map()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"1", "true", "null", "q", "1.50"}));
}

TEST(YamlTest, DuplicateKeysLastWins) {
  Value v = yaml_ok("a: 1\nb: 2\na: 3\n");
  EXPECT_EQ(v.size(), 2U);
  EXPECT_EQ(*v.find("a"), Value(3));
  EXPECT_EQ(v.as_map().entries().front().first, "a");
}

TEST(YamlTest, ComplexKeysAreRejected) {
  Error e = yaml_err("? [a, b]\n: v\n");
  EXPECT_NE(e.message.find("mapping keys must be scalars"), std::string::npos) << e.message;
  yaml_err("? {a: 1}\n: v\n");
  yaml_err("base: &b [1]\n*b : v\n");
}

TEST(YamlTest, AnchorsAndAliases) {
  Value v = yaml_ok(R"(
defaults: &defaults
  image: img:1
  gpus: 1
jobs:
  - *defaults
  - name: x
    cfg: *defaults
scalar: &s 42
again: *s
key_anchor: &k name
*k : aliased key
)");
  Value defaults = Value::map({{"image", "img:1"}, {"gpus", 1}});
  EXPECT_EQ(*v.find("defaults"), defaults);
  EXPECT_EQ(*v.find_path("jobs.0"), defaults);
  EXPECT_EQ(*v.find_path("jobs.1.cfg"), defaults);
  EXPECT_EQ(*v.find("again"), Value(42));
  EXPECT_EQ(*v.find("name"), Value("aliased key"));
  // The alias shares storage with its anchor (O(1)), and copy-on-write keeps them apart.
  EXPECT_EQ(&v.find("defaults")->as_map(), &v.find_path("jobs.0")->as_map());
  Value copy = *v.find_path("jobs.0");
  copy.mutable_map().set("gpus", 8);
  EXPECT_EQ(*v.find_path("defaults.gpus"), Value(1));
}

TEST(YamlTest, UnknownAliasIsAnError) {
  Error e = yaml_err("a: *nope\n");
  EXPECT_NE(e.message.find("line 1"), std::string::npos) << e.message;
}

TEST(YamlTest, BillionLaughsIsRefused) {
  std::string doc = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 9; ++i) {
    doc += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) doc += std::string(k ? ", " : "") + "*a" + std::to_string(i - 1);
    doc += "]\n";
  }
  Error e = yaml_err(doc);
  EXPECT_NE(e.message.find("aliases expand to more than"), std::string::npos) << e.message;
}

TEST(YamlTest, SyntaxErrorsNameLineAndColumn) {
  Error e = yaml_err("a: 1\nb: [1, 2\nc: 3\n");
  EXPECT_NE(e.message.find("invalid YAML at line"), std::string::npos) << e.message;
  e = yaml_err("a: 1\n  b: 2\n");
  EXPECT_NE(e.message.find("line 2, column"), std::string::npos) << e.message;
  e = yaml_err("a: b: c\n");
  EXPECT_NE(e.message.find("line 1, column 5"), std::string::npos) << e.message;
  yaml_err("- a\nb: c\n");
  yaml_err("{a: 1");
}

TEST(YamlTest, DepthLimit) {
  std::string ok(100, '[');
  ok += std::string(100, ']');
  EXPECT_TRUE(parse_yaml(ok).has_value());
  std::string deep(600, '[');
  deep += std::string(600, ']');
  Error e = yaml_err(deep);
  EXPECT_NE(e.message.find("nesting deeper than"), std::string::npos) << e.message;
  std::string hostile(200000, '[');
  yaml_err(hostile);
  std::string block;
  for (int i = 0; i < 700; ++i) block += std::string(static_cast<std::size_t>(i), ' ') + "k:\n";
  yaml_err(block);
}

TEST(YamlTest, MalformedInputThatStallsTheParserIsAnError) {
  // Found by fuzzing: yaml-cpp 0.7 reports this stream's first document forever.
  const char bytes[] = ",\xf7\xf7\xf7\xf7" "cW Ac: ~}&\0d:\xe2\xf5" "d:\xe2\xf5&\x8b\n";
  std::string_view text(bytes, sizeof bytes - 1);
  auto all = parse_yaml_all(text);
  ASSERT_FALSE(all.has_value());
  EXPECT_NE(all.error().message.find("invalid YAML at line 1"), std::string::npos) << all.error().message;
  EXPECT_FALSE(parse_yaml(text).has_value());
}

TEST(YamlTest, AliasesCannotBuildUnboundedDepth) {
  // Each anchor nests the previous one 200 levels deeper: a short text, a very deep value.
  std::string doc = "a0: &a0 x\n";
  for (int i = 1; i <= 5; ++i) {
    doc += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " " + std::string(200, '[') + "*a" +
           std::to_string(i - 1) + std::string(200, ']') + "\n";
  }
  Error e = yaml_err(doc);
  EXPECT_NE(e.message.find("alias nests values deeper than 512"), std::string::npos) << e.message;
  // Two levels (400 deep) are fine.
  std::string ok = "a0: &a0 x\na1: &a1 " + std::string(200, '[') + "*a0" + std::string(200, ']') + "\n" +
                   "a2: " + std::string(200, '[') + "*a1" + std::string(200, ']') + "\n";
  EXPECT_TRUE(parse_yaml(ok).has_value());
}

TEST(YamlTest, MultiDocument) {
  auto docs = parse_yaml_all("a: 1\n---\nb: 2\n---\n---\n# empty\n...\n--- [3]\n");
  ASSERT_TRUE(docs.has_value()) << docs.error().describe();
  ASSERT_EQ(docs->size(), 3U);
  EXPECT_EQ((*docs)[0], Value::map({{"a", 1}}));
  EXPECT_EQ((*docs)[1], Value::map({{"b", 2}}));
  EXPECT_EQ((*docs)[2], Value::list({3}));
  auto none = parse_yaml_all("");
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(none->empty());
  Error e = yaml_err("a: 1\n---\nb: 2\n");
  EXPECT_NE(e.message.find("parse_yaml_all"), std::string::npos) << e.message;
  auto bad = parse_yaml_all("a: 1\n---\nb: [\n");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("line"), std::string::npos);
}

void expect_round_trip(const Value& v) {
  std::string text = to_yaml(v);
  auto back = parse_yaml(text);
  ASSERT_TRUE(back.has_value()) << text << "\n" << back.error().describe();
  EXPECT_EQ(*back, v) << text << "\nread back as " << to_json(*back);
  if (*back == v) {
    EXPECT_EQ(to_yaml(*back), text);
  }
}

TEST(YamlTest, EmitterLayout) {
  Value v = Value::map({{"name", "train"},
                        {"gpus", 2},
                        {"args", Value::list({"--lr", 0.01, Value::list({1, 2}), Value::map({{"a", 1}, {"b", 2}})})},
                        {"env", Value::map({{"A", "1"}})},
                        {"none", Value()},
                        {"empty", Value::list({})},
                        {"nomap", Value(Map{})}});
  EXPECT_EQ(to_yaml(v),
            "name: train\n"
            "gpus: 2\n"
            "args:\n"
            "  - \"--lr\"\n"
            "  - 0.01\n"
            "  - - 1\n"
            "    - 2\n"
            "  - a: 1\n"
            "    b: 2\n"
            "env:\n"
            "  A: \"1\"\n"
            "none: null\n"
            "empty: []\n"
            "nomap: {}\n");
  EXPECT_EQ(to_yaml(Value(3)), "3\n");
  EXPECT_EQ(to_yaml(Value()), "null\n");
  EXPECT_EQ(to_yaml(Value::list({})), "[]\n");
  EXPECT_EQ(to_yaml(Value::list({Value::list({Value::list({1})})})), "- - - 1\n");
  expect_round_trip(v);
}

TEST(YamlTest, StringsThatNeedQuotesAreQuoted) {
  const std::vector<std::string> tricky = {
      "", " ", "true", "False", "null", "~", "42", "-1", "0x1F", "0o7", "1.5", ".inf", "-.inf", ".nan", "1e3",
      "yes", "no", "on", "off", "y", "N", "007", "1_000", "2024-01-01", "12:30", "- item", "-", "?", ":", "a: b",
      "a #b", "#c", "[x]", "{y}", "x, y", "&anchor", "*alias", "!tag", "|", ">", "'q'", "\"dq\"", "%p", "@at",
      "`bt", " lead", "trail ", "end:", "line1\nline2", "tab\there", "cr\rhere", std::string("nul\0x", 5),
      "\x01\x7f", "---", "...", "--- x", "<<", "=", "é", "unicode ✓ 😀", "\xC2\x85nel", "\xE2\x80\xA8ls",
      "\xEF\xBB\xBF" "bom", "back\\slash", "a\"b", "+1", ".5", "multi\nline\n", "keep\n\n", "x\n\ny",
  };
  for (const auto& s : tricky) {
    SCOPED_TRACE(s);
    expect_round_trip(Value(s));
    expect_round_trip(Value::map({{"k", s}}));
    expect_round_trip(Value::map({{s, "v"}}));
    expect_round_trip(Value::list({s, Value::list({s})}));
  }
  EXPECT_EQ(to_yaml(Value("true")), "\"true\"\n");
  EXPECT_EQ(to_yaml(Value("")), "\"\"\n");
  EXPECT_EQ(to_yaml(Value("plain text")), "plain text\n");
}

// Malformed UTF-8 built in code cannot be YAML: each bad byte is written as U+FFFD, as to_json
// does, so the output always reads back.
TEST(YamlTest, MalformedUtf8IsWrittenAsReplacementCharacters) {
  const std::string fffd = "\xEF\xBF\xBD";
  for (const std::string& bad : {std::string("\xff\xfe"), std::string("a\xc3"), std::string("x\xc3\nline\n")}) {
    SCOPED_TRACE(bad);
    auto back = parse_yaml(to_yaml(Value::map({{bad, bad}})));
    ASSERT_TRUE(back) << back.error().describe();
    ASSERT_EQ(back->size(), 1u);
    const auto& [key, value] = *back->as_map().begin();
    EXPECT_EQ(key, value.as_string());
    EXPECT_NE(key.find(fffd), std::string::npos) << key;
  }
  EXPECT_EQ(parse_yaml(to_yaml(Value("\xff\xfe")))->as_string(), fffd + fffd);
}

TEST(YamlTest, LongKeysUseExplicitForm) {
  std::string key(1500, 'k');
  Value v = Value::map({{key, Value::map({{key, 1}})}, {"short", Value::list({Value::map({{key, key}})})}});
  std::string text = to_yaml(v);
  EXPECT_EQ(text.substr(0, 2), "? ");
  expect_round_trip(v);
}

TEST(YamlTest, MultiLineStringsUseLiteralBlocks) {
  Value v = Value::map({{"script", "echo a\necho b\n"}, {"list", Value::list({"x\ny"})}});
  EXPECT_EQ(to_yaml(v), "script: |\n  echo a\n  echo b\nlist:\n  - |-\n    x\n    y\n");
  expect_round_trip(v);
  expect_round_trip(Value("a\n\nb\n\n\n"));
  expect_round_trip(Value::map({{"a", Value::map({{"b", "  indented\nfirst"}})}}));
  expect_round_trip(Value::map({{"a", Value::map({{"b", "first\n  indented\n#not comment\n---\n"}})}}));
}

TEST(YamlTest, ScalarsRoundTrip) {
  for (const Value& v :
       {Value(), Value(true), Value(false), Value(0), Value(-5), Value(std::numeric_limits<std::int64_t>::min()),
        Value(1.0), Value(-0.0), Value(0.1), Value(1e300), Value(5e-324), Value(123456789.0),
        Value(std::numeric_limits<double>::infinity()), Value(-std::numeric_limits<double>::infinity()),
        Value(std::numeric_limits<double>::quiet_NaN())}) {
    SCOPED_TRACE(to_yaml(v));
    expect_round_trip(v);
    expect_round_trip(Value::map({{"v", v}}));
  }
  EXPECT_EQ(to_yaml(Value(1.0)), "1.0\n");
  EXPECT_EQ(to_yaml(Value(std::numeric_limits<double>::infinity())), ".inf\n");
}

TEST(YamlTest, YamlToValueToYamlToValue) {
  const std::vector<std::string> docs = {
      "a: 1\nb: [x, 'y', \"z\"]\nc: {d: ~, e: 1.5, f: .inf}\n",
      "- name: step-1\n  type: JOB\n  depends_on: []\n- name: step-2\n  depends_on: [step-1]\n",
      "text: |\n  line one\n  line two\nfolded: >\n  a\n  b\n",
      "k8s:\n  apiVersion: v1\n  metadata:\n    labels:\n      app.kubernetes.io/name: x\n",
      "quoted: '0755'\nver: \"1.0\"\nnum: 0755\n",
      "anchors: &a {x: 1}\nuse: *a\n",
      "unicode: \"\\u00e9\\U0001F600\"\nraw: héllo\n",
  };
  for (const auto& doc : docs) {
    SCOPED_TRACE(doc);
    Value v = yaml_ok(doc);
    expect_round_trip(v);
  }
}

TEST(YamlTest, RandomValuesRoundTrip) {
  std::mt19937 rng(99);
  const std::vector<std::string> words = {"a", "true", "", " x", "1", "1.0", "null", "- a", "k: v", "é",
                                          "#", "line\nbreak", "x\n", "q\"", "'", "[", "0x10", ".nan"};
  std::function<Value(int)> gen = [&](int depth) -> Value {
    switch (rng() % (depth > 3 ? 6 : 8)) {
      case 0: return Value();
      case 1: return Value(rng() % 2 == 1);
      case 2: return Value(static_cast<long long>(rng()) - (1LL << 31));
      case 3: return Value(static_cast<double>(rng()) / 3.0);
      case 4: return Value(words[rng() % words.size()]);
      case 5: {
        std::string s;
        for (unsigned n = rng() % 6; n > 0; --n) s += static_cast<char>(1 + rng() % 127);
        return Value(s);
      }
      case 6: {
        List l;
        for (unsigned n = rng() % 4; n > 0; --n) l.push_back(gen(depth + 1));
        return Value(std::move(l));
      }
      default: {
        Map m;
        for (unsigned n = rng() % 4; n > 0; --n) m.set(words[rng() % words.size()], gen(depth + 1));
        return Value(std::move(m));
      }
    }
  };
  for (int i = 0; i < 400; ++i) {
    Value v = gen(0);
    SCOPED_TRACE(to_json(v));
    expect_round_trip(v);
    if (::testing::Test::HasFailure()) break;
  }
}

TEST(YamlTest, ParseDocumentPicksJsonOrYaml) {
  auto j = parse_document("  \n {\"a\": [1, 2.0]}");
  ASSERT_TRUE(j.has_value());
  EXPECT_EQ(*j, Value::map({{"a", Value::list({1, 2.0})}}));
  auto y = parse_document("a: [1, 2.0]\n");
  ASSERT_TRUE(y.has_value());
  EXPECT_EQ(*y, *j);
  auto bom = parse_document("\xEF\xBB\xBF[true]");
  ASSERT_TRUE(bom.has_value()) << bom.error().describe();
  EXPECT_EQ(*bom, Value::list({true}));
  // JSON errors keep positions in the original text.
  auto bad = parse_document("\n\n{\"a\": }");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("invalid JSON at line 3, column 7"), std::string::npos)
      << bad.error().message;
  auto bad_yaml = parse_document("a: [\n");
  ASSERT_FALSE(bad_yaml.has_value());
  EXPECT_NE(bad_yaml.error().message.find("invalid YAML"), std::string::npos);
}

TEST(YamlTest, LoadDocumentFile) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("budcore_yaml_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  {
    std::ofstream(dir / "doc.yaml") << "name: x\nn: 3\n";
    std::ofstream(dir / "doc.json") << "{\"name\": \"x\", \"n\": 3}";
    std::ofstream(dir / "bad.yaml") << "a: 1\nb: [\n";
  }
  auto y = load_document_file((dir / "doc.yaml").string());
  ASSERT_TRUE(y.has_value()) << y.error().describe();
  auto j = load_document_file((dir / "doc.json").string());
  ASSERT_TRUE(j.has_value()) << j.error().describe();
  EXPECT_EQ(*y, *j);
  auto bad = load_document_file((dir / "bad.yaml").string());
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code, ErrorCode::Invalid);
  EXPECT_NE(bad.error().message.find("bad.yaml: invalid YAML at line"), std::string::npos) << bad.error().message;
  auto missing = load_document_file((dir / "missing.yaml").string());
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code, ErrorCode::Io);
  EXPECT_EQ(missing.error().value, (dir / "missing.yaml").string());
  auto directory = load_document_file(dir.string());
  EXPECT_FALSE(directory.has_value());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace budcore::core
