// The C ABI entry points, called as a C caller would: one-shot renders, compiled templates
// shared by threads, and failures whose kind, line and column are fields.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "budcore/budcore.h"

namespace {

int call(budcore_buf* out, const std::string& tmpl, const std::string& ctx, int native) {
  return budcore_template_render(out, tmpl.data(), tmpl.size(), ctx.data(), ctx.size(), native);
}

TEST(TemplateCapiTest, RendersTextAndNativeJson) {
  budcore_buf out = BUDCORE_BUF_INIT;
  ASSERT_EQ(call(&out, "Hi {{ name }} {{ flags }}", R"({"name": "x", "flags": [true, null]})", 0), BUDCORE_OK);
  EXPECT_STREQ(out.ptr, "Hi x [True, None]");
  budcore_buf_dispose(&out);
  ASSERT_EQ(call(&out, "{{ cfg }}", R"({"cfg": {"a": 1}})", 1), BUDCORE_OK);
  EXPECT_STREQ(out.ptr, "{\"a\":1}");
  budcore_buf_dispose(&out);
  ASSERT_EQ(budcore_template_render(&out, "{{ 1 + 1 }}", 11, nullptr, 0, 1), BUDCORE_OK);
  EXPECT_STREQ(out.ptr, "2");
  budcore_buf_dispose(&out);
}

TEST(TemplateCapiTest, ReportsErrorsByKind) {
  budcore_buf out = BUDCORE_BUF_INIT;
  EXPECT_EQ(call(&out, "{{ missing }}", "{}", 0), BUDCORE_EINVALID);
  EXPECT_EQ(std::strncmp(budcore_error_last()->message, "UndefinedError", 14), 0);
  EXPECT_STREQ(budcore_error_last()->field, "template");
  EXPECT_EQ(call(&out, "{{ range(10000000) | list }}", "{}", 0), BUDCORE_ESECURITY);
  EXPECT_EQ(call(&out, "{{ x }}", "{not json", 0), BUDCORE_EINVALID);
  EXPECT_EQ(std::string(budcore_error_last()->field).rfind("context", 0), 0u);
  EXPECT_EQ(call(&out, "{{ x }}", "[1]", 0), BUDCORE_EINVALID);
  EXPECT_EQ(budcore_template_render(nullptr, "", 0, nullptr, 0, 0), BUDCORE_EINVALID);
  EXPECT_EQ(out.ptr, nullptr);
}

TEST(TemplateCapiTest, FailuresCarryKindLineAndColumnOnTheError) {
  budcore_buf out = BUDCORE_BUF_INIT;
  EXPECT_EQ(call(&out, "line one\n  {{ missing }}", "{}", 0), BUDCORE_EINVALID);
  const budcore_error* e = budcore_error_last();
  EXPECT_STREQ(e->kind, "UndefinedError");
  EXPECT_EQ(e->line, 2);
  EXPECT_GT(e->column, 0);
  EXPECT_EQ(budcore_error_problem(0), e);
  EXPECT_EQ(call(&out, "{% if x %}", "{}", 0), BUDCORE_EINVALID);
  EXPECT_STREQ(budcore_error_last()->kind, "TemplateSyntaxError");
  EXPECT_EQ(budcore_error_last()->line, 1);
  EXPECT_EQ(call(&out, "{{ x | nosuchfilter }}", "{}", 0), BUDCORE_EINVALID);
  EXPECT_STREQ(budcore_error_last()->kind, "TemplateAssertionError");
  EXPECT_EQ(call(&out, "{{ 1 // 0 }}", "{}", 0), BUDCORE_EINVALID);
  EXPECT_STREQ(budcore_error_last()->kind, "ZeroDivisionError");
  EXPECT_EQ(call(&out, "{{ range(10000000) | list }}", "{}", 0), BUDCORE_ESECURITY);
  EXPECT_STREQ(budcore_error_last()->kind, "SecurityError");
  // Not a template failure, and a success: no kind, no position.
  EXPECT_EQ(call(&out, "{{ x }}", "[1]", 0), BUDCORE_EINVALID);
  EXPECT_STREQ(budcore_error_last()->kind, "");
  ASSERT_EQ(call(&out, "ok", "{}", 0), BUDCORE_OK);
  EXPECT_STREQ(budcore_error_last()->kind, "");
  EXPECT_EQ(budcore_error_last()->line, 0);
  EXPECT_EQ(budcore_error_last()->column, 0);
  budcore_buf_dispose(&out);
}

// The deprecated second channel reads the same values, for programs built against older headers.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
TEST(TemplateCapiTest, DeprecatedTemplateErrorLastAgreesWithTheError) {
  budcore_buf out = BUDCORE_BUF_INIT;
  EXPECT_EQ(call(&out, "line one\n  {{ missing }}", "{}", 0), BUDCORE_EINVALID);
  const budcore_template_error* t = budcore_template_error_last();
  ASSERT_NE(t, nullptr);
  EXPECT_STREQ(t->kind, "UndefinedError");
  EXPECT_EQ(t->line, budcore_error_last()->line);
  EXPECT_EQ(t->column, budcore_error_last()->column);
  ASSERT_EQ(call(&out, "ok", "{}", 0), BUDCORE_OK);
  EXPECT_STREQ(budcore_template_error_last()->kind, "");
  EXPECT_EQ(budcore_template_error_last()->line, 0);
  budcore_buf_dispose(&out);
}
#pragma GCC diagnostic pop

TEST(TemplateCapiTest, CompiledTemplatesRenderManyTimesFromManyThreads) {
  budcore_template* t = nullptr;
  const std::string text = "{{ name }}:{{ n * 2 }}";
  ASSERT_EQ(budcore_template_compile(&t, text.data(), text.size()), BUDCORE_OK);
  ASSERT_NE(t, nullptr);
  std::vector<std::thread> threads;
  std::vector<int> ok(8, 0);
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&, i] {
      for (int k = 0; k < 50; ++k) {
        budcore_buf out = BUDCORE_BUF_INIT;
        std::string ctx = R"({"name": "t)" + std::to_string(i) + R"(", "n": )" + std::to_string(k) + "}";
        if (budcore_template_render_compiled(&out, t, ctx.data(), ctx.size(), 0) == BUDCORE_OK &&
            std::string(out.ptr) == "t" + std::to_string(i) + ":" + std::to_string(2 * k))
          ++ok[static_cast<std::size_t>(i)];
        budcore_buf_dispose(&out);
      }
    });
  for (auto& th : threads) th.join();
  for (int v : ok) EXPECT_EQ(v, 50);
  budcore_buf out = BUDCORE_BUF_INIT;
  ASSERT_EQ(budcore_template_render_compiled(&out, t, R"({"name": "x", "n": 1})", 21, 1), BUDCORE_OK);
  EXPECT_STREQ(out.ptr, "\"x:2\"");
  budcore_buf_dispose(&out);
  EXPECT_EQ(budcore_template_render_compiled(&out, t, "{}", 2, 0), BUDCORE_EINVALID);
  EXPECT_STREQ(budcore_error_last()->kind, "UndefinedError");
  EXPECT_EQ(budcore_template_render_compiled(&out, nullptr, "{}", 2, 0), BUDCORE_EINVALID);
  EXPECT_STREQ(budcore_error_last()->field, "tmpl");
  budcore_template_free(t);
  budcore_template_free(nullptr);

  budcore_template* bad = reinterpret_cast<budcore_template*>(&out);
  EXPECT_EQ(budcore_template_compile(&bad, "{% for %}", 9), BUDCORE_EINVALID);
  EXPECT_EQ(bad, nullptr);
  EXPECT_STREQ(budcore_error_last()->kind, "TemplateSyntaxError");
  EXPECT_EQ(budcore_template_compile(nullptr, "x", 1), BUDCORE_EINVALID);
  EXPECT_STREQ(budcore_error_last()->field, "out");
}

}  // namespace
