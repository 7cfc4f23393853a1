// The C ABI entry point, called as a C caller would.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

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

}  // namespace
