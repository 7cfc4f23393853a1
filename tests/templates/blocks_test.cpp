// Block statements (issue #18): macro/call, with, filter blocks, break/continue and format
// specs. Their outputs are checked against Jinja2 itself in the differential corpus
// (tests/python/test_template_jinja2_diff.py); these tests cover what the corpus cannot:
// scoping details, the sandbox limits on them, and what analysis sees.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "budcore/core/json.hpp"
#include "budcore/templates/template.hpp"

namespace budcore::templates {
namespace {

core::Value ctx() { return *core::parse_json(R"({"items": [1, 2, 3], "name": "ctx"})"); }

std::string render(std::string_view text) {
  Template t;
  TemplateError err;
  std::string out;
  if (!Template::compile(text, t, err) || !t.render(ctx(), out, err)) {
    return std::string(to_string(err.kind)) + ":" + err.message;
  }
  return out;
}

TEST(TemplateBlocksTest, MacrosSeeTheScopeTheyWereDefinedInNotTheCallers) {
  // Lexical scoping: the loop's `name` is invisible to a macro defined outside the loop...
  EXPECT_EQ(render("{% macro m() %}{{ name }}{% endmacro %}{% for name in ['loop'] %}{{ m() }}{% endfor %}"), "ctx");
  // ...and visible to one defined inside it.
  EXPECT_EQ(render("{% for name in ['a', 'b'] %}{% macro m() %}{{ name }}{% endmacro %}{{ m() }}{% endfor %}"), "ab");
  // A call block's body sees the call site, not the macro's parameters of the same name.
  EXPECT_EQ(render("{% macro m(name) %}{{ caller() }}{% endmacro %}{% call m('param') %}{{ name }}{% endcall %}"),
            "ctx");
  // A macro's own assignments stay inside it.
  EXPECT_EQ(render("{% macro m() %}{% set name = 'inner' %}{{ name }}{% endmacro %}{{ m() }}{{ name }}"), "innerctx");
}

TEST(TemplateBlocksTest, ArgumentErrorsAreTypeErrors) {
  EXPECT_EQ(render("{% macro m(a) %}{% endmacro %}{{ m(1, 2) }}"),
            "TypeError:macro 'm' takes not more than 1 argument(s)");
  EXPECT_EQ(render("{% macro m(a) %}{% endmacro %}{{ m(b=1) }}"), "TypeError:macro 'm' takes no keyword argument 'b'");
  EXPECT_EQ(render("{% macro m(a) %}{% endmacro %}{{ m(1, a=2) }}"),
            "TypeError:macro 'm' got multiple values for argument 'a'");
  EXPECT_EQ(render("{% macro m(a) %}{{ a }}{% endmacro %}{{ m() }}"), "UndefinedError:parameter 'a' was not provided");
  EXPECT_EQ(render("{% macro m() %}{{ caller() }}{% endmacro %}{{ m() }}"), "UndefinedError:No caller defined");
}

TEST(TemplateBlocksTest, RunawayMacroRecursionIsASecurityErrorNotACrash) {
  std::string r = render("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}");
  EXPECT_EQ(r.rfind("SecurityError:", 0), 0u) << r;
  // Recursion that ends is fine.
  EXPECT_EQ(render("{% macro down(n) %}{{ n }}{% if n > 0 %}{{ down(n - 1) }}{% endif %}{% endmacro %}{{ down(3) }}"),
            "3210");
}

TEST(TemplateBlocksTest, LoopControlsNeedALoopOfTheirOwnBody) {
  EXPECT_NE(render("{% break %}").find("'break' outside loop"), std::string::npos);
  // A macro body is a function of its own: the loop around its definition does not count.
  EXPECT_NE(render("{% for i in items %}{% macro m() %}{% continue %}{% endmacro %}{% endfor %}")
                .find("'continue' outside loop"),
            std::string::npos);
  // `else` runs unless some iteration reached the end of the body, as in Jinja2.
  EXPECT_EQ(render("{% for i in items %}{% continue %}{% else %}E{% endfor %}"), "E");
  EXPECT_EQ(render("{% for i in items %}{{ i }}{% if i == 2 %}{% break %}{% endif %}{% else %}E{% endfor %}"), "12");
  // break inside with and filter blocks ends the loop and leaves no scope behind.
  EXPECT_EQ(render("{% for i in items %}{% with j = i %}{% if j == 2 %}{% break %}{% endif %}{{ j }}{% endwith %}"
                   "{% endfor %}{{ j is defined }}"),
            "1False");
}

TEST(TemplateBlocksTest, FormatSpecsAreBoundedAndTyped) {
  EXPECT_EQ(render("{{ '{:>8.2f}|{:,}|{:#x}|{!r}'.format(3.14159, 1234567, 255, 'q') }}"), "    3.14|1,234,567|0xff|'q'");
  EXPECT_EQ(render("{{ '{:d}'.format('x') }}"), "ValueError:Unknown format code 'd' for object of type 'str'");
  EXPECT_EQ(render("{{ '{:5}'.format(none) }}"), "TypeError:unsupported format string passed to NoneType.__format__");
  // Zero padding with grouping at the widest width stays linear (it was quadratic).
  EXPECT_EQ(render("{{ '{:0100000,}'.format(7) | length }}"), "100001");
  EXPECT_EQ(render("{{ '{:08,}|{:07,}|{:09_x}'.format(1234, 1234, 255) }}"), "0,001,234|001,234|0000_00ff");
  std::string wide = render("{{ '{:100001}'.format(1) }}");
  EXPECT_EQ(wide.rfind("SecurityError:", 0), 0u) << wide;
}

TEST(TemplateBlocksTest, ReferencesSkipNamesTheBlocksBind) {
  auto t = Template::compile(
      "{% macro m(a, b=c.d) %}{{ a }}{{ b }}{{ e.f }}{% endmacro %}"
      "{% with x = g.h %}{{ x }}{{ m(1) }}{% endwith %}"
      "{% filter upper %}{{ i.j }}{% endfilter %}"
      "{% call(y) m(k.l) %}{{ y }}{{ caller }}{% endcall %}");
  ASSERT_TRUE(t) << t.error().message;
  auto refs = t->references();
  std::sort(refs.begin(), refs.end());
  EXPECT_EQ(refs, (std::vector<std::string>{"c.d", "e.f", "g.h", "i.j", "k.l"}));
}

}  // namespace
}  // namespace budcore::templates
