#include "budcore/serverless/trace.hpp"

#include <gtest/gtest.h>

#include <string>

namespace budcore::serverless {
namespace {

constexpr const char* kHeader = "TIMESTAMP,ContextTokens,GeneratedTokens\n";

core::Error parse_error(const std::string& body) {
  auto t = parse_azure_trace(std::string(kHeader) + body, "t.csv");
  EXPECT_FALSE(t) << body;
  return t ? core::Error{} : t.error();
}

TEST(AzureTraceTest, ReadsTheSyntheticTrace) {
  auto t = load_azure_trace(std::string(BUDCORE_TEST_DATA_DIR) + "/serverless/trace_small.csv");
  ASSERT_TRUE(t) << t.error().describe();
  ASSERT_EQ(t->size(), 10u);
  EXPECT_EQ((*t)[0].at.to_string(), "2023-11-16T18:00:00Z");
  EXPECT_EQ((*t)[1].at - (*t)[0].at, core::Duration::milliseconds(500));
  EXPECT_EQ((*t)[1].context_tokens, 2000);
  EXPECT_EQ((*t)[1].generated_tokens, 20);
}

TEST(AzureTraceTest, KeepsSevenFractionalDigitsAndCrlfLines) {
  auto t = parse_azure_trace("TIMESTAMP,ContextTokens,GeneratedTokens\r\n2023-11-16 18:17:03.9799600,4808,10\r\n");
  ASSERT_TRUE(t) << t.error().describe();
  ASSERT_EQ(t->size(), 1u);
  EXPECT_EQ((*t)[0].at.unix_nanos() % 1'000'000'000, 979'960'000);
  EXPECT_EQ((*t)[0].context_tokens, 4808);
}

TEST(AzureTraceTest, ErrorsNameTheLineAndTheColumn) {
  core::Error e = parse_error("2023-11-16 18:00:01.0,1,1\n2023-11-16 18:00:00.0,1,1\n");
  EXPECT_EQ(e.field, "t.csv:3.TIMESTAMP");
  EXPECT_EQ(e.value, "2023-11-16 18:00:00.0");
  EXPECT_NE(e.message.find("time order"), std::string::npos) << e.message;

  e = parse_error("2023-11-16 18:00:00.0,12x,1\n");
  EXPECT_EQ(e.field, "t.csv:2.ContextTokens");
  EXPECT_EQ(e.value, "12x");

  e = parse_error("2023-11-16 18:00:00.0,1,-3\n");
  EXPECT_EQ(e.field, "t.csv:2.GeneratedTokens");

  e = parse_error("yesterday,1,1\n");
  EXPECT_EQ(e.field, "t.csv:2.TIMESTAMP");

  e = parse_error("2023-11-16 18:00:00.0,1\n");
  EXPECT_EQ(e.field, "t.csv:2");

  auto bad_header = parse_azure_trace("time,in,out\n", "t.csv");
  ASSERT_FALSE(bad_header);
  EXPECT_EQ(bad_header.error().field, "t.csv:1");
  EXPECT_FALSE(parse_azure_trace(""));
}

}  // namespace
}  // namespace budcore::serverless
