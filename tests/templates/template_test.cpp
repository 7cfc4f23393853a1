// Template language: rendering, Python semantics, strict undefined, errors with positions.
#include "budcore/templates/template.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <thread>

#include "budcore/core/json.hpp"

namespace budcore::templates {
namespace {

core::Value ctx() {
  auto v = core::parse_json(R"({
    "params": {"llm_model": "llama", "enable": true, "top_k": 5, "t": 0.7, "empty": "", "none": null,
               "tags": ["a", "b"], "num": "42"},
    "steps": {"step-1": {"outputs": {"config": {"m": 1}, "url": "http://x"}}},
    "users": [{"name": "alice", "age": 30, "admin": true}, {"name": "bob", "age": 25, "admin": false}],
    "nums": [3, 1, 2], "d": {"b": 2, "a": 1}, "index": 3})");
  return *v;
}

std::string render(std::string_view text, const core::Value& c = ctx()) {
  auto t = Template::compile(text);
  if (!t) return "COMPILE:" + t.error().message;
  std::string out;
  TemplateError err;
  if (!t->render(c, out, err)) return std::string(to_string(err.kind)) + ":" + err.message;
  return out;
}

ErrorKind render_error(std::string_view text) {
  Template t;
  TemplateError err;
  if (!Template::compile(text, t, err)) return err.kind;
  std::string out;
  EXPECT_FALSE(t.render(ctx(), out, err)) << text << " rendered " << out;
  return err.kind;
}

TEST(TemplateTest, RendersPythonReprOfValues) {
  EXPECT_EQ(render("{{ true }} {{ none }} {{ False }}"), "True None False");
  EXPECT_EQ(render("{{ [1, 'a', none, (1,), {'k': 1.0}] }}"), "[1, 'a', None, (1,), {'k': 1.0}]");
  EXPECT_EQ(render("{{ [\"it's\"] }}"), "[\"it's\"]");
  EXPECT_EQ(render("{{ params.tags }}"), "['a', 'b']");
  EXPECT_EQ(render("{{ d.items() }}"), "dict_items([('b', 2), ('a', 1)])");
}

TEST(TemplateTest, FloatReprMatchesPython) {
  EXPECT_EQ(render("{{ 0.1 + 0.2 }}"), "0.30000000000000004");
  EXPECT_EQ(render("{{ 1000.0 }} {{ 7.0 }} {{ 1e16 }} {{ 1e-5 }} {{ 0.0001 }}"), "1000.0 7.0 1e+16 1e-05 0.0001");
  EXPECT_EQ(render("{{ 1e308 * 10 }} {{ -0.0 }} {{ 123456789012345678.0 }}"), "inf -0.0 1.2345678901234568e+17");
}

TEST(TemplateTest, ArithmeticFollowsPython) {
  EXPECT_EQ(render("{{ 7 // 2 }} {{ -7 // 2 }} {{ -7 % 3 }} {{ 7 % -3 }} {{ 7.5 // 2 }}"), "3 -4 2 -2 3.0");
  EXPECT_EQ(render("{{ 1 / 2 }} {{ 4 / 2 }} {{ 2 ** 10 }} {{ 2 ** -1 }} {{ 2 ** 3 ** 2 }}"), "0.5 2.0 1024 0.5 64");
  EXPECT_EQ(render("{{ 'ab' * 2 }} {{ [1] + [2] }} {{ 'a' ~ 1 ~ none }} {{ true + 1 }}"), "abab [1, 2] a1None 2");
  EXPECT_EQ(render("{{ '%s-%05.1f' % ('x', 3.14159) }}"), "x-003.1");
  EXPECT_EQ(render_error("{{ 1 / 0 }}"), ErrorKind::ZeroDivision);
  EXPECT_EQ(render_error("{{ 1 // 0 }}"), ErrorKind::ZeroDivision);
  EXPECT_EQ(render_error("{{ 'a' + 1 }}"), ErrorKind::Type);
  EXPECT_EQ(render_error("{{ 1 < 'a' }}"), ErrorKind::Type);
  EXPECT_EQ(render_error("{{ 9223372036854775807 + 1 }}"), ErrorKind::TemplateRuntime);
}

TEST(TemplateTest, LogicReturnsOperands) {
  EXPECT_EQ(render("{{ 0 or 'x' }} {{ 1 and 2 }} {{ not 0 }} {{ 1 < 2 < 3 }} {{ 1 < 3 < 2 }}"), "x 2 True True False");
  EXPECT_EQ(render("{{ 'a' in 'cat' }} {{ 4 not in nums }} {{ 'a' in d }}"), "True True True");
  EXPECT_EQ(render("{{ 1 if false else 2 }}|{{ 'y' if false }}|"), "2||");
}

TEST(TemplateTest, StrictUndefined) {
  EXPECT_EQ(render_error("{{ missing }}"), ErrorKind::Undefined);
  EXPECT_EQ(render_error("{{ params.missing }}"), ErrorKind::Undefined);
  EXPECT_EQ(render_error("{% if missing %}x{% endif %}"), ErrorKind::Undefined);
  EXPECT_EQ(render_error("{{ missing.x is defined }}"), ErrorKind::Undefined);
  EXPECT_EQ(render("{{ missing | default('d') }} {{ params.x | d('e') }} {{ params.empty | default('f', true) }}"), "d e f");
  EXPECT_EQ(render("{{ missing is defined }} {{ params.x is undefined }} {{ missing is none }}"), "False True False");
  EXPECT_EQ(render("{% if params.nope is defined %}a{% else %}b{% endif %}"), "b");
  EXPECT_EQ(render("{{ missing }}"), "UndefinedError:'missing' is undefined");
}

TEST(TemplateTest, DashedKeysResolveAgainstContext) {
  EXPECT_EQ(render("{{ steps.step-1.outputs.config }}"), "{'m': 1}");
  EXPECT_EQ(render("{{ steps.step-1.outputs.url | default('') }}"), "http://x");
  // Plain Jinja2 meaning when no such key exists: subtraction.
  EXPECT_EQ(render("{{ index-1 }} {{ params.top_k-1 }} {{ params.top_k-1 * 2 }}"), "2 4 3");
}

TEST(TemplateTest, StatementsAndLoops) {
  EXPECT_EQ(render("{% for u in users %}{{ loop.index }}{{ u.name }}{{ loop.last }} {% endfor %}"), "1aliceFalse 2bobTrue ");
  EXPECT_EQ(render("{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}"), "b=2;a=1;");
  EXPECT_EQ(render("{% for x in [] %}x{% else %}empty{% endfor %}"), "empty");
  EXPECT_EQ(render("{% for x in nums if x > 1 %}{{ x }}/{{ loop.length }} {% endfor %}"), "3/2 2/2 ");
  EXPECT_EQ(render("{% set x = 1 %}{% for i in [1] %}{% set x = 2 %}{% endfor %}{{ x }}"), "1");
  EXPECT_EQ(render("{% set ns = namespace(n=0) %}{% for v in nums %}{% set ns.n = ns.n + v %}{% endfor %}{{ ns.n }}"), "6");
  EXPECT_EQ(render("{% set a, b = 1, 2 %}{{ a }}{{ b }}{% set c %}[{{ a }}]{% endset %}{{ c }}"), "12[1]");
  EXPECT_EQ(render("{% if 0 %}a{% elif params.top_k %}b{% else %}c{% endif %}"), "b");
  EXPECT_EQ(render("{% raw %}{{ x }}{% endraw %}"), "{{ x }}");
  EXPECT_EQ(render_error("{% for a, b in nums %}{% endfor %}"), ErrorKind::Type);
}

TEST(TemplateTest, WhitespaceControlAndTrailingNewline) {
  EXPECT_EQ(render("a\n"), "a");
  EXPECT_EQ(render("a\n\n"), "a\n");
  EXPECT_EQ(render("a  {{- 'b' -}}  c"), "abc");
  EXPECT_EQ(render("a\n{% if true %}\nb\n{% endif %}\nc"), "a\n\nb\n\nc");
  EXPECT_EQ(render("{% for i in nums -%}\n{{ i }}\n{%- endfor %}"), "312");
  EXPECT_EQ(render("x {#- comment -#} y"), "xy");
  EXPECT_EQ(render("a\r\nb"), "a\nb");
}

TEST(TemplateTest, FiltersAndMethods) {
  EXPECT_EQ(render("{{ 'hello world-x' | title }} {{ 'hELLO' | capitalize }} {{ '  t ' | trim }}"), "Hello World-X Hello t");
  EXPECT_EQ(render("{{ users | map(attribute='name') | join(',') }}"), "alice,bob");
  EXPECT_EQ(render("{{ users | selectattr('admin') | map(attribute='name') | list }}"), "['alice']");
  EXPECT_EQ(render("{{ nums | sort }} {{ nums | sort(reverse=true) | first }} {{ nums | sum }} {{ nums | max }}"), "[1, 2, 3] 3 6 3");
  EXPECT_EQ(render("{{ d | dictsort }} {{ d | tojson }}"), "[('a', 1), ('b', 2)] {\"a\": 1, \"b\": 2}");
  EXPECT_EQ(render("{{ params.num | int + 1 }} {{ 'x' | int }} {{ '2.5' | float }} {{ 2.5 | round }} {{ 2.675 | round(2) }}"), "43 0 2.5 2.0 2.67");
  EXPECT_EQ(render("{{ nums | batch(2) | list }} {{ 'abcdefghij' | truncate(7, true, leeway=0) }}"), "[[3, 1], [2]] abcd...");
  EXPECT_EQ(render("{{ 'a,b'.split(',') }} {{ 'X'.lower() }} {{ d.get('z', 0) }} {{ 'ab'.startswith('a') }}"), "['a', 'b'] x 0 True");
  EXPECT_EQ(render("{{ '%s=%s' | format('a', 1) }} {{ 'ab' | center(6) }}|"), "a=1   ab  |");
  EXPECT_EQ(render("{{ 'a\nb' | indent(2, true) }}"), "  a\n  b");
  EXPECT_EQ(render("{{ 3 is odd }} {{ 4 is divisibleby 2 }} {{ 'x' is string }} {{ d is mapping }} {{ 1 is in nums }}"), "True True True True True");
  EXPECT_EQ(render_error("{{ nums | unique | length }}"), ErrorKind::Type);  // a generator in Jinja2
}

TEST(TemplateTest, CompileErrorsCarryPositionAndKind) {
  Template t;
  TemplateError err;
  ASSERT_FALSE(Template::compile("line1\n{{ 1 + }}", t, err));
  EXPECT_EQ(err.kind, ErrorKind::TemplateSyntax);
  EXPECT_EQ(err.line, 2);
  EXPECT_GT(err.column, 1);
  ASSERT_FALSE(Template::compile("{{ x | nosuch }}", t, err));
  EXPECT_EQ(err.kind, ErrorKind::TemplateAssertion);
  EXPECT_EQ(err.message, "No filter named 'nosuch'.");
  ASSERT_FALSE(Template::compile("{{ x is nosuch }}", t, err));
  EXPECT_EQ(err.kind, ErrorKind::TemplateAssertion);
  // Inside an if block Jinja2 defers the unknown filter to the call.
  ASSERT_TRUE(Template::compile("{% if false %}{{ x | nosuch }}{% endif %}", t, err));
  EXPECT_EQ(render_error("{% if true %}{{ 1 | nosuch }}{% endif %}"), ErrorKind::TemplateRuntime);
  for (auto bad : {"{% if x %}", "{% endif %}", "{{ 'abc }}", "{% nosuchtag %}", "{{ }}", "{{ (1 }}", "{# open"})
    EXPECT_FALSE(Template::compile(bad, t, err)) << bad;
  auto r = Template::compile("{{ 1 + }}");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "template");
  EXPECT_NE(r.error().message.find("TemplateSyntaxError"), std::string::npos);
}

TEST(TemplateTest, NativeModeKeepsTypes) {
  auto native = [](std::string_view text) {
    auto t = Template::compile(text);
    EXPECT_TRUE(t) << text;
    auto v = t->render_native(ctx());
    EXPECT_TRUE(v) << text;
    return v ? core::to_json(*v) : std::string("ERR");
  };
  EXPECT_EQ(native("{{ params.enable }}"), "true");
  EXPECT_EQ(native("{{ params.top_k }}"), "5");
  EXPECT_EQ(native("{{ steps.step-1.outputs.config }}"), "{\"m\":1}");
  EXPECT_EQ(native("{{ params.num }}"), "42");  // literal_eval of the string, as NativeEnvironment
  EXPECT_EQ(native("{{ params.llm_model }}"), "\"llama\"");
  EXPECT_EQ(native("{{ params.top_k }} items"), "\"5 items\"");
  EXPECT_EQ(native("{{ 1 }}{{ 2 }}"), "12");
  EXPECT_EQ(native("{{ (1, 'a') }}"), "[1,\"a\"]");
  EXPECT_EQ(native("{{ params.none }}"), "null");
  auto t = Template::compile("{{ missing }}");
  EXPECT_FALSE(t->render_native(ctx()));
}

TEST(TemplateTest, ReferencesListContextPaths) {
  auto t = Template::compile(
      "{{ params.llm_model }}{{ steps.step-1.outputs.config }}{% for u in users %}{{ u.name }}{% endfor %}"
      "{% set x = params.top_k %}{{ x }}{{ d['a'] }}{{ range(3) | list }}{{ params.llm_model }}"
      "{{ params.tags.split(',') }}{{ nums[index] }}");
  ASSERT_TRUE(t);
  std::vector<std::string> want = {"params.llm_model", "steps.step-1.outputs.config", "users", "params.top_k", "d.a",
                                   "params.tags", "nums", "index"};
  EXPECT_EQ(t->references(), want);
}

TEST(TemplateTest, SandboxLimitsRaiseSecurityError) {
  EXPECT_EQ(render_error("{{ range(100001) | length }}"), ErrorKind::Security);
  EXPECT_EQ(render_error("{{ 'x' * 100000000 }}"), ErrorKind::Security);
  RenderOptions few_loops;
  few_loops.limits.max_loop_iterations = 1000;
  auto nested = Template::compile("{% for i in range(100) %}{% for j in range(100) %}{% endfor %}{% endfor %}");
  std::string out;
  TemplateError err;
  EXPECT_FALSE(nested->render(ctx(), out, err, few_loops));
  EXPECT_EQ(err.kind, ErrorKind::Security);
  RenderOptions small;
  small.limits.max_output_bytes = 10;
  auto t = Template::compile("{% for i in range(20) %}{{ i }}{% endfor %}");
  EXPECT_FALSE(t->render(ctx(), out, err, small));
  EXPECT_EQ(err.kind, ErrorKind::Security);
  RenderOptions few_steps;
  few_steps.limits.max_steps = 10;
  EXPECT_FALSE(t->render(ctx(), out, err, few_steps));
  EXPECT_EQ(err.kind, ErrorKind::Security);
  // Deep nesting is a syntax error, never a crash.
  std::string deep(100000, '(');
  Template d;
  EXPECT_FALSE(Template::compile("{{ " + deep + " }}", d, err));
  EXPECT_EQ(err.kind, ErrorKind::TemplateSyntax);
  std::string blocks;
  for (int i = 0; i < 5000; ++i) blocks += "{% if true %}";
  EXPECT_FALSE(Template::compile(blocks, d, err));
}

TEST(TemplateTest, RenderIsThreadSafe) {
  auto t = Template::compile("{% for u in users %}{{ u.name | upper }}{{ loop.index }}{% endfor %}{{ params.t * 2 }}");
  ASSERT_TRUE(t);
  const core::Value c = ctx();
  std::vector<std::thread> threads;
  std::atomic<int> bad{0};
  for (int k = 0; k < 4; ++k) {
    threads.emplace_back([&] {
      for (int i = 0; i < 500; ++i) {
        auto r = t->render(c);
        if (!r || *r != "ALICE1BOB21.4") ++bad;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(bad.load(), 0);
}

}  // namespace
}  // namespace budcore::templates

namespace budcore::templates {
namespace {

// Deterministic mutation smoke test over the corpus (the libFuzzer target does this
// open-ended): truncations, byte flips and splices must fail cleanly, never crash.
TEST(TemplateTest, MutatedCorpusNeverCrashes) {
  std::FILE* f = std::fopen(BUDCORE_SOURCE_DIR "/tests/templates/data/corpus.jsonl", "rb");
  ASSERT_NE(f, nullptr);
  std::string all;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) all.append(buf, n);
  std::fclose(f);
  std::vector<std::string> templates;
  core::Value context;
  std::size_t pos = 0;
  while (pos < all.size()) {
    auto nl = all.find('\n', pos);
    auto doc = core::parse_json(std::string_view(all).substr(pos, nl - pos));
    pos = nl == std::string::npos ? all.size() : nl + 1;
    ASSERT_TRUE(doc);
    if (const auto* c = doc->find("context")) context = *c;
    else templates.push_back(doc->find("template")->as_string());
  }
  ASSERT_GT(templates.size(), 300u);
  Limits limits;
  limits.max_steps = 100000;
  limits.max_loop_iterations = 5000;
  RenderOptions options{limits};
  std::uint32_t seed = 12345;
  auto rnd = [&] { return seed = seed * 1664525u + 1013904223u; };
  int compiled = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string t = templates[rnd() % templates.size()];
    switch (rnd() % 4) {
      case 0: t = t.substr(0, rnd() % (t.size() + 1)); break;
      case 1: if (!t.empty()) t[rnd() % t.size()] = static_cast<char>(rnd() % 128); break;
      case 2: t += templates[rnd() % templates.size()]; break;
      default: t.insert(rnd() % (t.size() + 1), templates[rnd() % templates.size()].substr(0, 8)); break;
    }
    Template tmpl;
    TemplateError err;
    if (!Template::compile(t, tmpl, err, limits)) {
      EXPECT_TRUE(err.kind == ErrorKind::TemplateSyntax || err.kind == ErrorKind::TemplateAssertion) << t;
      continue;
    }
    ++compiled;
    std::string out;
    (void)tmpl.render(context, out, err, options);
    core::Value v;
    (void)tmpl.render_native(context, v, err, options);
  }
  EXPECT_GT(compiled, 100);
}

}  // namespace
}  // namespace budcore::templates
