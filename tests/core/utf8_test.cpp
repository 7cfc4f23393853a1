#include "budcore/core/utf8.hpp"

#include <gtest/gtest.h>

#include <string>

#include "budcore/core/yaml.hpp"

namespace budcore::core {
namespace {

TEST(Utf8Test, FindsTheFirstBadByte) {
  EXPECT_EQ(find_invalid_utf8(""), std::nullopt);
  EXPECT_EQ(find_invalid_utf8("plain ascii"), std::nullopt);
  EXPECT_EQ(find_invalid_utf8("h\xC3\xA9llo \xE2\x9C\x93 \xF0\x9F\x98\x80"), std::nullopt);  // é ✓ 😀
  EXPECT_EQ(find_invalid_utf8("ab\xFF"), 2u);
  EXPECT_EQ(find_invalid_utf8("a\xC3"), 1u);              // truncated
  EXPECT_EQ(find_invalid_utf8("a\xC3(b"), 1u);            // bad continuation
  EXPECT_EQ(find_invalid_utf8("\xC0\xAF"), 0u);           // overlong '/'
  EXPECT_EQ(find_invalid_utf8("x\xED\xA0\x80"), 1u);      // a surrogate
  EXPECT_EQ(find_invalid_utf8("\xF4\x90\x80\x80"), 0u);   // past U+10FFFF
  EXPECT_EQ(find_invalid_utf8("\x80"), 0u);               // a lone continuation byte
  EXPECT_EQ(find_invalid_utf8(std::string("a\0b", 3)), std::nullopt);  // NUL is UTF-8
}

// YAML streams must be Unicode: bad bytes are refused with their position, even in comments,
// instead of flowing into strings that later break JSON output (found by kueue_fuzz).
TEST(Utf8Test, YamlRefusesBadBytesNamingWhere) {
  auto r = parse_yaml("name: ok\n# caf\xC3\xA9 comment\nkind: Cl\xFFusterQueue\n");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::Invalid);
  EXPECT_EQ(r.error().field, "utf8");
  EXPECT_EQ(r.error().value, "0xFF");
  EXPECT_NE(r.error().message.find("line 3, column 9"), std::string::npos) << r.error().message;
  EXPECT_FALSE(parse_yaml_all("a: 1\n---\nb: \xC3\n"));
  EXPECT_FALSE(parse_document("x: \xE2\x9C\n"));
  EXPECT_EQ(parse_yaml("v: caf\xC3\xA9\n")->find("v")->as_string(), "caf\xC3\xA9");
  // Leading NULs make yaml-cpp read UTF-32BE, where "S1Y1" is no code point at all (yaml_fuzz).
  auto utf32 = parse_yaml(std::string("\0\0\0~S1Y1", 8));
  ASSERT_FALSE(utf32);
  EXPECT_EQ(utf32.error().field, "utf8");
}

}  // namespace
}  // namespace budcore::core
