// Quantity against Kubernetes resource.Quantity. Test vectors come from the tests and docs of
// k8s.io/apimachinery/pkg/api/resource (quantity_test.go: TestQuantityParse, TestQuantityString,
// TestQuantityParseEmit, TestParseQuantity, TestNewSet, ...) and from a differential run against
// ParseQuantity at apimachinery commit eed236ce (the generated table near the end).
#include "budcore/core/quantity.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace budcore::core {
namespace {

using F = QuantityFormat;

// mantissa x 10^exp10 in nano-units (the decQuantity(m, e, fmt) of the Kubernetes tests).
int128 dec(std::int64_t mantissa, int exp10) {
  int128 v = mantissa;
  for (int e = exp10 + 9; e > 0; --e) v *= 10;
  for (int e = exp10 + 9; e < 0; ++e) v /= 10;
  return v;
}

Quantity parse_ok(std::string_view text) {
  auto q = Quantity::parse(text);
  EXPECT_TRUE(q.has_value()) << text << ": " << (q ? "" : q.error().describe());
  return q ? *q : Quantity{};
}

std::string canon(std::string_view text) { return parse_ok(text).to_string(); }

std::string str(int128 v) { return to_decimal_string(v); }

// --- parse -------------------------------------------------------------------------------

struct ParseCase {
  const char* input;
  int128 nano;
  F format;
};

// TestQuantityParse of quantity_test.go.
const std::vector<ParseCase>& kubernetes_parse_table() {
  static const std::vector<ParseCase> table = {
      {"0", 0, F::DecimalSI},
      {"0n", 0, F::DecimalSI},
      {"0u", 0, F::DecimalSI},
      {"0m", 0, F::DecimalSI},
      {"0Ki", 0, F::BinarySI},
      {"0k", 0, F::DecimalSI},
      {"0Mi", 0, F::BinarySI},
      {"0M", 0, F::DecimalSI},
      {"0Gi", 0, F::BinarySI},
      {"0G", 0, F::DecimalSI},
      {"0Ti", 0, F::BinarySI},
      {"0T", 0, F::DecimalSI},
      {"1", dec(1, 0), F::DecimalSI},
      // Binary suffixes
      {"1Ki", dec(1024, 0), F::BinarySI},
      {"8Ki", dec(8 * 1024, 0), F::BinarySI},
      {"7Mi", dec(7 * 1024 * 1024, 0), F::BinarySI},
      {"6Gi", dec(6LL * 1024 * 1024 * 1024, 0), F::BinarySI},
      {"5Ti", dec(5LL * 1024 * 1024 * 1024 * 1024, 0), F::BinarySI},
      {"4Pi", dec(4LL * 1024 * 1024 * 1024 * 1024 * 1024, 0), F::BinarySI},
      {"3Ei", dec(3LL * 1024 * 1024 * 1024 * 1024 * 1024 * 1024, 0), F::BinarySI},
      {"10Ti", dec(10LL * 1024 * 1024 * 1024 * 1024, 0), F::BinarySI},
      {"100Ti", dec(100LL * 1024 * 1024 * 1024 * 1024, 0), F::BinarySI},
      // Decimal suffixes
      {"5n", dec(5, -9), F::DecimalSI},
      {"4u", dec(4, -6), F::DecimalSI},
      {"3m", dec(3, -3), F::DecimalSI},
      {"9", dec(9, 0), F::DecimalSI},
      {"8k", dec(8, 3), F::DecimalSI},
      {"50k", dec(5, 4), F::DecimalSI},
      {"7M", dec(7, 6), F::DecimalSI},
      {"6G", dec(6, 9), F::DecimalSI},
      {"5T", dec(5, 12), F::DecimalSI},
      {"40T", dec(4, 13), F::DecimalSI},
      {"300T", dec(3, 14), F::DecimalSI},
      {"2P", dec(2, 15), F::DecimalSI},
      {"1E", dec(1, 18), F::DecimalSI},
      // Decimal exponents
      {"1E-3", dec(1, -3), F::DecimalExponent},
      {"1e3", dec(1, 3), F::DecimalExponent},
      {"1E6", dec(1, 6), F::DecimalExponent},
      {"1e9", dec(1, 9), F::DecimalExponent},
      {"1E12", dec(1, 12), F::DecimalExponent},
      {"1e15", dec(1, 15), F::DecimalExponent},
      {"1E18", dec(1, 18), F::DecimalExponent},
      // Nonstandard but still parsable
      {"1e14", dec(1, 14), F::DecimalExponent},
      {"1e13", dec(1, 13), F::DecimalExponent},
      {"100.035k", dec(100035, 0), F::DecimalSI},
      // Things that look like floating point
      {"0.001", dec(1, -3), F::DecimalSI},
      {"0.0005k", dec(5, -1), F::DecimalSI},
      {"0.005", dec(5, -3), F::DecimalSI},
      {"0.05", dec(5, -2), F::DecimalSI},
      {"0.5", dec(5, -1), F::DecimalSI},
      {"0.00050k", dec(5, -1), F::DecimalSI},
      {"0.00500", dec(5, -3), F::DecimalSI},
      {"0.05000", dec(5, -2), F::DecimalSI},
      {"0.50000", dec(5, -1), F::DecimalSI},
      {"0.5e0", dec(5, -1), F::DecimalExponent},
      {"0.5e-1", dec(5, -2), F::DecimalExponent},
      {"0.5e-2", dec(5, -3), F::DecimalExponent},
      {"10.035M", dec(10035, 3), F::DecimalSI},
      {"1.2e3", dec(12, 2), F::DecimalExponent},
      {"1.3E+6", dec(13, 5), F::DecimalExponent},
      {"1.40e9", dec(14, 8), F::DecimalExponent},
      {"1.53E12", dec(153, 10), F::DecimalExponent},
      {"1.6e15", dec(16, 14), F::DecimalExponent},
      {"1.7E18", dec(17, 17), F::DecimalExponent},
      {"9.01", dec(901, -2), F::DecimalSI},
      {"8.1k", dec(81, 2), F::DecimalSI},
      {"7.123456M", dec(7123456, 0), F::DecimalSI},
      {"6.987654321G", dec(6987654321, 0), F::DecimalSI},
      {"5.444T", dec(5444, 9), F::DecimalSI},
      {"40.1T", dec(401, 11), F::DecimalSI},
      {"300.2T", dec(3002, 11), F::DecimalSI},
      {"2.5P", dec(25, 14), F::DecimalSI},
      {"1.01E", dec(101, 16), F::DecimalSI},
      // Things that saturate/round
      {"3.001n", dec(4, -9), F::DecimalSI},
      {"1.1E-9", dec(2, -9), F::DecimalExponent},
      {"0.0000000001", dec(1, -9), F::DecimalSI},
      {"0.0000000005", dec(1, -9), F::DecimalSI},
      {"0.00000000050", dec(1, -9), F::DecimalSI},
      {"0.5e-9", dec(1, -9), F::DecimalExponent},
      {"0.9n", dec(1, -9), F::DecimalSI},
      {"0.00000012345", dec(124, -9), F::DecimalSI},
      {"0.00000012354", dec(124, -9), F::DecimalSI},
      {"9Ei", dec(INT64_MAX, 0), F::BinarySI},
      {"9223372036854775807Ki", dec(INT64_MAX, 0), F::BinarySI},
      {"12E", dec(12, 18), F::DecimalSI},
      // We'll accept fractional binary stuff, too.
      {"100.035Ki", dec(10243584, -2), F::BinarySI},
      {"0.5Mi", dec(512 * 1024, 0), F::BinarySI},
      {"0.05Gi", dec(536870912, -1), F::BinarySI},
      {"0.025Ti", dec(274877906944, -1), F::BinarySI},
      // Things written by trolls
      {"0.000000000001Ki", dec(2, -9), F::DecimalSI},  // rounds up, changes format
      {".001", dec(1, -3), F::DecimalSI},
      {".0001k", dec(100, -3), F::DecimalSI},
      {"1.", dec(1, 0), F::DecimalSI},
      {"1.G", dec(1, 9), F::DecimalSI},
  };
  return table;
}

TEST(QuantityTest, ParsesTheKubernetesTable) {
  for (const auto& c : kubernetes_parse_table()) {
    auto q = Quantity::parse(c.input);
    ASSERT_TRUE(q.has_value()) << c.input << ": " << q.error().describe();
    EXPECT_EQ(str(q->nano()), str(c.nano)) << c.input;
    EXPECT_EQ(q->format(), c.format) << c.input;
  }
}

TEST(QuantityTest, ParsesTheKubernetesTableWithExplicitSigns) {
  for (const auto& c : kubernetes_parse_table()) {
    const std::string neg = std::string("-") + c.input;
    auto n = Quantity::parse(neg);
    ASSERT_TRUE(n.has_value()) << neg;
    EXPECT_EQ(str(n->nano()), str(-c.nano)) << neg;
    EXPECT_EQ(n->format(), c.format) << neg;

    const std::string pos = std::string("+") + c.input;
    auto p = Quantity::parse(pos);
    ASSERT_TRUE(p.has_value()) << pos;
    EXPECT_EQ(str(p->nano()), str(c.nano)) << pos;
    EXPECT_EQ(p->format(), c.format) << pos;
  }
}

TEST(QuantityTest, RejectsMalformedInputNamingTheValue) {
  const char* invalid[] = {
      // TestQuantityParse's invalid list
      "1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i", "-3.01e-", " 1", "1 ",
      // more
      "", "1.5.5", "12XB", "1e", "1E+", "1e--1", "1e1.5", "1e3Ki", "1Kie3", "Ki", "--1", "+-1", "1ki", "1KI",
      "1K", "1mm", "1_000", "1,5", "0x10", "1\t", "\n1", "Non-Numeric", "1Gib", "1 Gi", "∞"};
  for (const char* text : invalid) {
    auto q = Quantity::parse(text);
    ASSERT_FALSE(q.has_value()) << "'" << text << "' parsed as " << q->to_string();
    EXPECT_EQ(q.error().code, ErrorCode::Invalid) << text;
    EXPECT_EQ(q.error().value, text);
    EXPECT_FALSE(q.error().message.empty()) << text;
  }
}

TEST(QuantityTest, ErrorMessagesSayWhy) {
  EXPECT_NE(Quantity::parse("").error().message.find("empty"), std::string::npos);
  EXPECT_NE(Quantity::parse("12XB").error().message.find("suffix \"XB\""), std::string::npos);
  EXPECT_NE(Quantity::parse("1.5.5").error().message.find("suffix \".5\""), std::string::npos);
  EXPECT_NE(Quantity::parse("Ki").error().message.find("number"), std::string::npos);
  const Error e = Quantity::parse("1 ").error();
  EXPECT_NE(e.describe().find("'1 '"), std::string::npos) << e.describe();
}

// Kubernetes' scanner accepts a number without digits as zero ("Ki", ".", "+"); budcore
// requires a digit, like the OpenAPI pattern for Quantity, because such input is a mistake.
TEST(QuantityTest, RequiresAtLeastOneDigit) {
  for (const char* text : {"Ki", "m", ".", "+", "-", "-.", "+.", "e3", "E"}) {
    auto q = Quantity::parse(text);
    ASSERT_FALSE(q.has_value()) << text;
    EXPECT_EQ(q.error().code, ErrorCode::Invalid);
  }
  EXPECT_EQ(canon("0."), "0");
  EXPECT_EQ(canon(".0"), "0");
  EXPECT_EQ(canon("-.5"), "-500m");
}

TEST(QuantityTest, RoundsSubNanoDigitsAwayFromZero) {
  EXPECT_EQ(str(parse_ok("1.0000000001").nano()), "1000000001");
  EXPECT_EQ(str(parse_ok("-1.0000000001").nano()), "-1000000001");
  EXPECT_EQ(str(parse_ok("1.0000000000000000000000000000000000000000000001").nano()), "1000000001");
  EXPECT_EQ(str(parse_ok("1.0000000000000000000000000000000000000000000000").nano()), "1000000000");
  EXPECT_EQ(parse_ok("1e-99999").to_string(), "1e-9");
  EXPECT_EQ(parse_ok("-1e-99999").to_string(), "-1e-9");
  EXPECT_EQ(parse_ok("0.1n").to_string(), "1n");
  EXPECT_EQ(parse_ok("0.1m").to_string(), "100u");
  EXPECT_TRUE(parse_ok("0e-99999").is_zero());
  EXPECT_TRUE(parse_ok("0.000000000000").is_zero());
}

TEST(QuantityTest, CapsBinarySIAtMaxInt64LikeKubernetes) {
  for (const char* text : {"8Ei", "9Ei", "1024Ei", "9223372036854775807Ki", "99999999999999999999999999999999999999999Ei"}) {
    const Quantity q = parse_ok(text);
    EXPECT_EQ(str(q.nano()), str(dec(INT64_MAX, 0))) << text;
    EXPECT_EQ(q.format(), F::BinarySI) << text;
    EXPECT_EQ(q.to_string(), "9223372036854775807") << text;
  }
  EXPECT_EQ(parse_ok("-9Ei").to_string(), "-9223372036854775807");
  EXPECT_EQ(parse_ok("7Ei").to_string(), "7Ei");
  EXPECT_EQ(*parse_ok("7Ei").value(), 7LL << 60);
}

TEST(QuantityTest, OverflowIsAnErrorNotAWrap) {
  for (const char* text : {"1e30", "170141183460469231731687303716", "1000000000000000000000000000000",
                           "1e4294967296", "-1e30", "200000000000E", "1e9223372036854775807"}) {
    auto q = Quantity::parse(text);
    ASSERT_FALSE(q.has_value()) << text;
    EXPECT_EQ(q.error().code, ErrorCode::Overflow) << text;
    EXPECT_EQ(q.error().value, text);
  }
  // The largest representable quantity is about 1.7e29.
  EXPECT_TRUE(Quantity::parse("170141183460469231731.687303715884105727").has_value());
  EXPECT_TRUE(Quantity::parse("100000000000E").has_value());
  // An exponent that does not fit int64 is a malformed suffix, as strconv.ParseInt makes it.
  EXPECT_EQ(Quantity::parse("0e99999999999999999999").error().code, ErrorCode::Invalid);
}

// --- canonical form ----------------------------------------------------------------------

struct StringCase {
  int128 nano;
  F format;
  const char* expect;
  const char* alternate;  // another spelling with the same canonical form, or ""
};

// TestQuantityString of quantity_test.go.
TEST(QuantityTest, FormatsTheKubernetesStringTable) {
  const StringCase table[] = {
      {dec(1024 * 1024 * 1024, 0), F::BinarySI, "1Gi", "1024Mi"},
      {dec(300 * 1024 * 1024, 0), F::BinarySI, "300Mi", "307200Ki"},
      {dec(6 * 1024, 0), F::BinarySI, "6Ki", ""},
      {dec(1001LL * 1024 * 1024 * 1024, 0), F::BinarySI, "1001Gi", "1025024Mi"},
      {dec(1024LL * 1024 * 1024 * 1024, 0), F::BinarySI, "1Ti", "1024Gi"},
      {dec(5, 0), F::BinarySI, "5", "5000m"},
      {dec(500, -3), F::BinarySI, "500m", "0.5"},
      {dec(1, 9), F::DecimalSI, "1G", "1000M"},
      {dec(1000, 6), F::DecimalSI, "1G", "0.001T"},
      {dec(1000000, 3), F::DecimalSI, "1G", ""},
      {dec(1000000000, 0), F::DecimalSI, "1G", ""},
      {dec(1, -3), F::DecimalSI, "1m", "1000u"},
      {dec(80, -3), F::DecimalSI, "80m", ""},
      {dec(1080, -3), F::DecimalSI, "1080m", "1.08"},
      {dec(108, -2), F::DecimalSI, "1080m", "1080000000n"},
      {dec(10800, -4), F::DecimalSI, "1080m", ""},
      {dec(300, 6), F::DecimalSI, "300M", ""},
      {dec(1, 12), F::DecimalSI, "1T", ""},
      {dec(1234567, 6), F::DecimalSI, "1234567M", ""},
      {dec(1234567, -3), F::BinarySI, "1234567m", ""},
      {dec(3, 3), F::DecimalSI, "3k", ""},
      {dec(1025, 0), F::BinarySI, "1025", ""},
      {dec(0, 0), F::DecimalSI, "0", ""},
      {dec(0, 0), F::BinarySI, "0", ""},
      {dec(1, 9), F::DecimalExponent, "1e9", ".001e12"},
      {dec(1, -3), F::DecimalExponent, "1e-3", "0.001e0"},
      {dec(1, -9), F::DecimalExponent, "1e-9", "1000e-12"},
      {dec(80, -3), F::DecimalExponent, "80e-3", ""},
      {dec(300, 6), F::DecimalExponent, "300e6", ""},
      {dec(1, 12), F::DecimalExponent, "1e12", ""},
      {dec(1, 3), F::DecimalExponent, "1e3", ""},
      {dec(3, 3), F::DecimalExponent, "3e3", ""},
      {dec(0, 0), F::DecimalExponent, "0", "00"},
      {dec(1, -9), F::DecimalSI, "1n", ""},
      {dec(80, -9), F::DecimalSI, "80n", ""},
      {dec(1080, -9), F::DecimalSI, "1080n", ""},
      {dec(1, -6), F::DecimalSI, "1u", ""},
      {dec(80, -6), F::DecimalSI, "80u", ""},
      {dec(1080, -6), F::DecimalSI, "1080u", ""},
  };
  for (const auto& c : table) {
    const Quantity q = Quantity::from_nano(c.nano, c.format);
    EXPECT_EQ(q.to_string(), c.expect) << str(c.nano);
    EXPECT_EQ(canon(c.expect), c.expect);
    if (*c.alternate != '\0') {
      EXPECT_EQ(canon(c.alternate), c.expect) << c.alternate;
    }
    if (c.nano != 0) {
      EXPECT_EQ(q.negated().to_string(), std::string("-") + c.expect);
    }
  }
}

// TestQuantityParseEmit of quantity_test.go.
TEST(QuantityTest, ParseEmitTable) {
  const std::pair<const char*, const char*> table[] = {
      {"1Ki", "1Ki"},       {"1Mi", "1Mi"},           {"1Gi", "1Gi"},
      {"1024Mi", "1Gi"},    {"1000M", "1G"},          {".001Ki", "1024m"},
      {".000001Ki", "1024u"}, {".000000001Ki", "1024n"}, {".000000000001Ki", "2n"},
  };
  for (const auto& [in, out] : table) {
    EXPECT_EQ(canon(in), out) << in;
    EXPECT_EQ(canon(std::string("-") + in), std::string("-") + out) << in;
  }
}

TEST(QuantityTest, CanonicalFormExamples) {
  EXPECT_EQ(canon("1.5"), "1500m");
  EXPECT_EQ(canon("1.5Gi"), "1536Mi");
  EXPECT_EQ(canon("0.1"), "100m");
  EXPECT_EQ(canon("100M"), "100M");
  EXPECT_EQ(canon("1e3"), "1e3");
  EXPECT_EQ(canon("1E3"), "1e3");
  EXPECT_EQ(canon("1e4"), "10e3");
  EXPECT_EQ(canon("1e0"), "1");
  EXPECT_EQ(canon("1e-1"), "100e-3");
  EXPECT_EQ(canon("1Ki"), "1Ki");
  EXPECT_EQ(canon("1000Ki"), "1000Ki");  // 1024000 is not a multiple of 1024^2
  EXPECT_EQ(canon("1024Mi"), "1Gi");
  EXPECT_EQ(canon("1024Ki"), "1Mi");
  EXPECT_EQ(canon("1000"), "1k");
  EXPECT_EQ(canon("1000m"), "1");
  EXPECT_EQ(canon("0"), "0");
  EXPECT_EQ(canon("-0"), "0");
  EXPECT_EQ(canon("0Gi"), "0");
  EXPECT_EQ(canon("000123"), "123");
  EXPECT_EQ(canon("+5"), "5");
  EXPECT_EQ(canon("-1.5"), "-1500m");
  EXPECT_EQ(canon("-1.5Gi"), "-1536Mi");
  EXPECT_EQ(canon("1.0E"), "1E");
  EXPECT_EQ(canon("10E"), "10E");
  EXPECT_EQ(canon("1.000000000000000001E"), "1000000000000000001");
  EXPECT_EQ(canon("999999999999999999.1"), "999999999999999999100m");
  EXPECT_EQ(canon("9223372036854775807.1"), "9223372036854775807100m");
  EXPECT_EQ(canon("-9223372036854775808000m"), "-9223372036854775808");
  EXPECT_EQ(canon("10000000000000000000000m"), "10E");
}

TEST(QuantityTest, BinarySIFallsBackToDecimalSI) {
  // Below 1024 in magnitude, or not a whole number: printed as DecimalSI.
  EXPECT_EQ(canon("0.5Ki"), "512");
  EXPECT_EQ(canon("1023Ki"), "1023Ki");
  EXPECT_EQ(canon("1.5Ki"), "1536");
  EXPECT_EQ(canon("1.0001Ki"), "1024102400u");
  EXPECT_EQ(canon("-0.5Ki"), "-512");
  EXPECT_EQ(Quantity::from_int(1023, F::BinarySI).to_string(), "1023");
  EXPECT_EQ(Quantity::from_int(1024, F::BinarySI).to_string(), "1Ki");
  EXPECT_EQ(Quantity::from_int(-1024, F::BinarySI).to_string(), "-1Ki");
  EXPECT_EQ(Quantity::from_int(-1023, F::BinarySI).to_string(), "-1023");
  // The format is kept, so once whole again it prints binary.
  const Quantity half = parse_ok("0.5Gi");
  EXPECT_EQ(half.format(), F::BinarySI);
  EXPECT_EQ(half.to_string(), "512Mi");
}

TEST(QuantityTest, NoSuffixBeyondExaKeepsTheMantissa) {
  // Kubernetes prints "1" for 1000E (no suffix for 10^21); budcore keeps the value readable.
  EXPECT_EQ(canon("1000E"), "1000E");
  EXPECT_EQ(canon("5000000E"), "5000000E");
  EXPECT_EQ(canon("1e21"), "1e21");
  const Quantity big = Quantity::from_nano(dec(1, 18) * 1024, F::DecimalSI);  // 1024 * 1e18
  EXPECT_EQ(big.to_string(), "1024E");
  EXPECT_EQ(Quantity::parse(big.to_string())->nano(), big.nano());
  // A BinarySI sum above the 2^63-1 parse cap prints as DecimalSI so that it reads back exactly
  // (Kubernetes prints "16Ei", which parses back as 2^63-1).
  const Quantity eight = Quantity::from_nano(dec(INT64_MAX, 0), F::BinarySI);
  EXPECT_EQ(eight.to_string(), "9223372036854775807");
  const Quantity sixteen = *parse_ok("7Ei").checked_add(parse_ok("7Ei"));
  EXPECT_EQ(sixteen.format(), F::BinarySI);
  EXPECT_EQ(sixteen.to_string(), "16140901064495857664");
  EXPECT_EQ(parse_ok(sixteen.to_string()), sixteen);
  const Quantity huge_bin = Quantity::from_nano(dec(1LL << 60, 0) * 1024, F::BinarySI);  // 2^70
  EXPECT_EQ(parse_ok(huge_bin.to_string()), huge_bin);
}

// TestParseQuantity of quantity_test.go: values around the int64 limits keep every digit.
TEST(QuantityTest, KeepsEveryDigitAroundInt64Limits) {
  const std::pair<const char*, const char*> table[] = {
      {"-999999999999999999", "-999999999999999999"},
      {"999999999999999999.0", "999999999999999999"},
      {"-999999999999999999.1", "-999999999999999999100m"},
      {"9999999999999999999", "9999999999999999999"},
      {"-1E", "-1E"},
      {"1000000000000000000", "1E"},
      {"9999999999999999999000m", "9999999999999999999"},
      {"-1.0000000000000000001E", "-1000000000000000000100m"},
      {"1000000000000000000.1", "1000000000000000000100m"},
      {"-10.0E", "-10E"},
      {"10.0000000000000000001E", "10000000000000000000100m"},
      {"10000000000000000001", "10000000000000000001"},
      {"-9223372036854775809", "-9223372036854775809"},
      {"9223372036854775806000m", "9223372036854775806"},
      {"-9223372036854775808.1", "-9223372036854775808100m"},
      {"9223372036854775808", "9223372036854775808"},
      {"-9223372036854775807000m", "-9223372036854775807"},
      {"9223372036854775808.1", "9223372036854775808100m"},
  };
  for (const auto& [in, out] : table) EXPECT_EQ(canon(in), out) << in;
}

// --- constructors and accessors ------------------------------------------------------------

TEST(QuantityTest, FromIntLikeNewQuantity) {
  EXPECT_EQ(Quantity::from_int(1).to_string(), "1");
  EXPECT_EQ(Quantity::from_int(1000).to_string(), "1k");
  EXPECT_EQ(Quantity::from_int(1234000).to_string(), "1234k");
  EXPECT_EQ(Quantity::from_int(1024, F::BinarySI).to_string(), "1Ki");
  EXPECT_EQ(Quantity::from_int(1000000, F::DecimalExponent).to_string(), "1e6");
  EXPECT_EQ(Quantity::from_int(1024 * 1024, F::BinarySI).to_string(), "1Mi");
  EXPECT_EQ(Quantity::from_int(INT64_MIN).to_string(), "-9223372036854775808");
  for (std::int64_t v : {std::int64_t{1}, std::int64_t{1000}, std::int64_t{1234000}, INT64_MAX, INT64_MIN}) {
    EXPECT_EQ(*parse_ok(Quantity::from_int(v).to_string()).value(), v);
  }
}

TEST(QuantityTest, FromMilliLikeNewMilliQuantity) {
  EXPECT_EQ(Quantity::from_milli(1).to_string(), "1m");
  EXPECT_EQ(Quantity::from_milli(1000).to_string(), "1");
  EXPECT_EQ(Quantity::from_milli(1234000).to_string(), "1234");
  EXPECT_EQ(Quantity::from_milli(-1500).to_string(), "-1500m");
  EXPECT_EQ(Quantity::from_nano(dec(1024, -3), F::BinarySI).to_string(), "1024m");
  EXPECT_EQ(Quantity::from_nano(dec(1024 * 1024, -3), F::BinarySI).to_string(), "1048576m");
  EXPECT_EQ(Quantity::from_nano(dec(1000000, -3), F::DecimalExponent).to_string(), "1e3");
  EXPECT_EQ(*Quantity::from_milli(1234000).milli_value(), 1234000);
}

TEST(QuantityTest, FromNanoLikeNewScaledQuantity) {
  EXPECT_EQ(Quantity::from_nano(1).to_string(), "1n");
  EXPECT_EQ(Quantity::from_nano(1000).to_string(), "1u");
  EXPECT_EQ(Quantity::from_nano(1000000).to_string(), "1m");
  EXPECT_EQ(Quantity::from_nano(1000000000).to_string(), "1");
  EXPECT_EQ(Quantity::from_nano(0).to_string(), "0");
  // The most negative int128 is clamped so that negation stays exact.
  const Quantity low = Quantity::from_nano(kInt128Min);
  EXPECT_EQ(low.nano(), -kInt128Max);
  EXPECT_EQ(low.negated().nano(), kInt128Max);
}

TEST(QuantityTest, DefaultIsZeroDecimalSI) {
  const Quantity q;
  EXPECT_TRUE(q.is_zero());
  EXPECT_EQ(q.sign(), 0);
  EXPECT_EQ(q.format(), F::DecimalSI);
  EXPECT_EQ(q.to_string(), "0");
  EXPECT_EQ(*q.value(), 0);
  EXPECT_EQ(*q.milli_value(), 0);
  EXPECT_EQ(parse_ok("-3").sign(), -1);
  EXPECT_EQ(parse_ok("1n").sign(), 1);
}

TEST(QuantityTest, ValueAndMilliValueRoundAwayFromZero) {
  EXPECT_EQ(*parse_ok("1.1").value(), 2);
  EXPECT_EQ(*parse_ok("-1.1").value(), -2);
  EXPECT_EQ(*parse_ok("9.01").value(), 10);
  EXPECT_EQ(*parse_ok("-9.01").value(), -10);
  EXPECT_EQ(*parse_ok("1n").value(), 1);
  EXPECT_EQ(*parse_ok("1n").milli_value(), 1);
  EXPECT_EQ(*parse_ok("-1n").milli_value(), -1);
  EXPECT_EQ(*parse_ok("1.5").milli_value(), 1500);
  EXPECT_EQ(*parse_ok("100m").value(), 1);
  EXPECT_EQ(*parse_ok("2").value(), 2);
  EXPECT_EQ(*parse_ok("1Mi").value(), 1024 * 1024);
  EXPECT_EQ(*parse_ok("1.0001Ki").value(), 1025);
  EXPECT_EQ(*parse_ok("1.0001Ki").milli_value(), 1024103);
  EXPECT_EQ(*parse_ok("9223372036854775807").value(), INT64_MAX);
  EXPECT_EQ(*parse_ok("-9223372036854775808").value(), INT64_MIN);
}

TEST(QuantityTest, ValueOverflowIsReported) {
  for (const char* text : {"9223372036854775808", "-9223372036854775809", "10E", "9223372036854775807.1"}) {
    auto v = parse_ok(text).value();
    ASSERT_FALSE(v.has_value()) << text;
    EXPECT_EQ(v.error().code, ErrorCode::Overflow);
  }
  EXPECT_EQ(parse_ok("1E").value().value(), 1000000000000000000);
  EXPECT_EQ(parse_ok("1E").milli_value().error().code, ErrorCode::Overflow);
  EXPECT_EQ(parse_ok("9Ei").milli_value().error().code, ErrorCode::Overflow);
  EXPECT_EQ(*parse_ok("9223372036854775807m").milli_value(), INT64_MAX);
}

// --- arithmetic ---------------------------------------------------------------------------

TEST(QuantityTest, AddKeepsTheLeftFormatUnlessLeftIsZero) {
  struct Case {
    Quantity a, b;
    int128 expect;
    F format;
  };
  const Quantity zero;
  const Case table[] = {
      // TestAdd of quantity_test.go
      {Quantity::from_int(10), Quantity::from_nano(dec(1, 1)), dec(20, 0), F::DecimalSI},
      {Quantity::from_int(10), Quantity::from_int(1, F::BinarySI), dec(11, 0), F::DecimalSI},
      {Quantity::from_int(10, F::BinarySI), Quantity::from_int(1), dec(11, 0), F::BinarySI},
      {zero, Quantity::from_int(50), dec(50, 0), F::DecimalSI},
      {Quantity::from_int(50), zero, dec(50, 0), F::DecimalSI},
      {zero, zero, 0, F::DecimalSI},
      // zero takes the other side's format
      {zero, parse_ok("1Gi"), dec(1 << 30, 0), F::BinarySI},
      {parse_ok("0Ki"), parse_ok("1e3"), dec(1, 3), F::DecimalExponent},
  };
  for (const auto& c : table) {
    auto r = c.a.checked_add(c.b);
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(str(r->nano()), str(c.expect));
    EXPECT_EQ(r->format(), c.format);
  }
}

TEST(QuantityTest, AddAndSubPreserveSuffixWithZero) {
  // TestQuantityAddZeroPreservesSuffix / TestQuantitySubZeroPreservesSuffix
  const Quantity zero = parse_ok("0");
  for (const char* text : {"100m", "1Gi"}) {
    const Quantity v = parse_ok(text);
    EXPECT_EQ(v.checked_add(zero)->to_string(), text);
    EXPECT_EQ(zero.checked_add(v)->to_string(), text);
    EXPECT_EQ(v.checked_sub(zero)->to_string(), text);
    EXPECT_EQ(zero.checked_sub(v)->to_string(), v.negated().to_string());
  }
}

TEST(QuantityTest, SubLikeKubernetes) {
  // TestSub of quantity_test.go
  EXPECT_TRUE(Quantity::from_int(10).checked_sub(Quantity::from_nano(dec(1, 1)))->is_zero());
  auto a = Quantity::from_int(10).checked_sub(Quantity::from_int(1, F::BinarySI));
  EXPECT_EQ(a->to_string(), "9");
  EXPECT_EQ(a->format(), F::DecimalSI);
  auto b = Quantity::from_int(10, F::BinarySI).checked_sub(Quantity::from_int(1));
  EXPECT_EQ(b->format(), F::BinarySI);
  EXPECT_EQ(*b->value(), 9);
  EXPECT_EQ(Quantity().checked_sub(Quantity::from_int(50))->to_string(), "-50");
  EXPECT_EQ(parse_ok("1").checked_sub(parse_ok("1500m"))->to_string(), "-500m");
  EXPECT_EQ(parse_ok("2Gi").checked_sub(parse_ok("512Mi"))->to_string(), "1536Mi");
}

TEST(QuantityTest, MulLikeKubernetesButNeverWraps) {
  // TestMul of quantity_test.go (budcore is exact where Kubernetes reports inexact)
  EXPECT_EQ(Quantity::from_int(10).checked_mul(10)->to_string(), "100");
  EXPECT_EQ(Quantity::from_int(10, F::BinarySI).checked_mul(1)->format(), F::BinarySI);
  EXPECT_TRUE(Quantity::from_int(50).checked_mul(0)->is_zero());
  EXPECT_EQ(Quantity::from_int(10).checked_mul(-10)->to_string(), "-100");
  EXPECT_EQ(Quantity::from_int(-50).checked_mul(-50)->to_string(), "2500");
  EXPECT_EQ(Quantity::from_int(INT64_MAX).checked_mul(2)->to_string(), "18446744073709551614");
  EXPECT_EQ(Quantity::from_int(INT64_MIN).checked_mul(-1)->to_string(), "9223372036854775808");
  EXPECT_EQ(Quantity::from_int(INT64_MIN).checked_mul(-10)->to_string(), "92233720368547758080");
  EXPECT_EQ(parse_ok("1500m").checked_mul(4)->to_string(), "6");
  EXPECT_EQ(parse_ok("512Mi").checked_mul(2)->to_string(), "1Gi");

  const Quantity top = Quantity::from_nano(kInt128Max);
  for (std::int64_t f : {std::int64_t{2}, std::int64_t{-2}, INT64_MAX, INT64_MIN}) {
    auto r = top.checked_mul(f);
    ASSERT_FALSE(r.has_value()) << f;
    EXPECT_EQ(r.error().code, ErrorCode::Overflow);
  }
  EXPECT_EQ(*top.checked_mul(-1), top.negated());
}

TEST(QuantityTest, AddAndSubOverflowAreErrors) {
  const Quantity top = Quantity::from_nano(kInt128Max);
  const Quantity bottom = top.negated();
  auto r = top.checked_add(Quantity::from_nano(1));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::Overflow);
  EXPECT_NE(r.error().value.find(" + 1n"), std::string::npos) << r.error().value;
  EXPECT_EQ(bottom.checked_sub(Quantity::from_nano(1)).error().code, ErrorCode::Overflow);
  EXPECT_EQ(bottom.checked_sub(top).error().code, ErrorCode::Overflow);
  EXPECT_TRUE(top.checked_add(bottom)->is_zero());
  EXPECT_EQ(top.checked_sub(Quantity::from_nano(1))->nano(), kInt128Max - 1);
}

TEST(QuantityTest, AddSubRoundTripAcrossScales) {
  // TestAddSubRoundTripAcrossScales, with a fixed pseudo-random sequence.
  std::uint64_t seed = 0x9E3779B97F4A7C15ULL;
  auto next = [&seed] {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return static_cast<std::int64_t>(seed >> 1);
  };
  Quantity sum;
  std::vector<Quantity> added;
  for (int i = 0; i < 200; ++i) {
    const std::int64_t j = next();
    const int scale = static_cast<int>(j % 10) - 9;  // 1e-9 .. 1e0
    const Quantity q = Quantity::from_nano(dec(j, scale));
    added.push_back(q);
    sum = *sum.checked_add(q);
  }
  for (const Quantity& q : added) sum = *sum.checked_sub(q);
  EXPECT_TRUE(sum.is_zero()) << sum.to_string();
}

TEST(QuantityTest, NegatedKeepsFormat) {
  EXPECT_EQ(Quantity::from_nano(dec(901, -2)).negated().to_string(), "-9010m");
  const Quantity b = Quantity::from_int(10, F::BinarySI).negated();
  EXPECT_EQ(b.format(), F::BinarySI);
  EXPECT_EQ(*b.value(), -10);
  EXPECT_TRUE(Quantity().negated().is_zero());
  EXPECT_EQ(b.negated(), Quantity::from_int(10));
}

TEST(QuantityTest, ComparesByValueAcrossFormats) {
  // TestQuantityCmp of quantity_test.go
  EXPECT_EQ(parse_ok("0"), parse_ok("0"));
  EXPECT_GT(parse_ok("100m"), parse_ok("50m"));
  EXPECT_LT(parse_ok("50m"), parse_ok("100m"));
  EXPECT_GT(parse_ok("10000T"), parse_ok("100Gi"));
  EXPECT_EQ(parse_ok("1Ki"), parse_ok("1024"));
  EXPECT_EQ(parse_ok("1e3"), parse_ok("1k"));
  EXPECT_EQ(parse_ok("0.5"), parse_ok("500m"));
  EXPECT_LT(parse_ok("-1"), parse_ok("1n"));
  EXPECT_EQ(parse_ok("0Gi"), Quantity());
}

// --- differential vectors -----------------------------------------------------------------

struct Vector {
  const char* input;
  const char* canonical;
  F format;
  const char* nano;
};

// Inputs from a random corpus, with what k8s.io/apimachinery's ParseQuantity (commit eed236ce)
// made of them: canonical String() (string cache cleared), Format, and the exact value.
const Vector kVectors[] = {
    {"+.568Ti", "624522604576768m", QuantityFormat::BinarySI, "624522604576768000000"},
    {"+0140Gi", "140Gi", QuantityFormat::BinarySI, "150323855360000000000"},
    {"+01945711464374034244Ki", "9223372036854775807", QuantityFormat::BinarySI, "9223372036854775807000000000"},
    {"+054205864607.650377709E-3", "54205864607650378e-9", QuantityFormat::DecimalExponent, "54205864607650378"},
    {"+064573875k", "64573875k", QuantityFormat::DecimalSI, "64573875000000000000"},
    {"+070757606u", "70757606u", QuantityFormat::DecimalSI, "70757606000"},
    {"+091008Gi", "91008Gi", QuantityFormat::BinarySI, "97719095918592000000000"},
    {"+09260279812423325790e0", "9260279812423325790", QuantityFormat::DecimalExponent, "9260279812423325790000000000"},
    {"+1.093710964370e-9", "2e-9", QuantityFormat::DecimalExponent, "2"},
    {"+11269992585848641844.35764e7", "112699925858486418443576400", QuantityFormat::DecimalExponent, "112699925858486418443576400000000000"},
    {"+14278034129301677503.2G", "14278034129301677503200M", QuantityFormat::DecimalSI, "14278034129301677503200000000000000000"},
    {"+17.682Pi", "19908162152791277568m", QuantityFormat::BinarySI, "19908162152791277568000000"},
    {"+1886368612041675765.372083653k", "1886368612041675765372083653u", QuantityFormat::DecimalSI, "1886368612041675765372083653000"},
    {"+33123631764373854955.115474097975726Ti", "9223372036854775807", QuantityFormat::BinarySI, "9223372036854775807000000000"},
    {"+402252.70746307656014146915", "402252707463077n", QuantityFormat::DecimalSI, "402252707463077"},
    {"+43.487657587551628e-12", "1e-9", QuantityFormat::DecimalExponent, "1"},
    {"+44.5253377734Pi", "50131073651207427516373402n", QuantityFormat::BinarySI, "50131073651207427516373402"},
    {"+47398135697966890031.9Ki", "9223372036854775807", QuantityFormat::BinarySI, "9223372036854775807000000000"},
    {"+50882693075121280630.964786549421576e2", "5088269307512128063096478654943e-9", QuantityFormat::DecimalExponent, "5088269307512128063096478654943"},
    {"+5170M", "5170M", QuantityFormat::DecimalSI, "5170000000000000000"},
    {"+544390778219024602", "544390778219024602", QuantityFormat::DecimalSI, "544390778219024602000000000"},
    {"+643827981359P", "643827981359P", QuantityFormat::DecimalSI, "643827981359000000000000000000000000"},
    {"+6669E-3", "6669e-3", QuantityFormat::DecimalExponent, "6669000000"},
    {"+698677983261.98865731022664425442e-9", "698677983262e-9", QuantityFormat::DecimalExponent, "698677983262"},
    {"+7.388436474381157u", "7389n", QuantityFormat::DecimalSI, "7389"},
    {"+7.389644598432e+6", "7389644598432e-6", QuantityFormat::DecimalExponent, "7389644598432000"},
    {"+724556604.e3", "724556604e3", QuantityFormat::DecimalExponent, "724556604000000000000"},
    {"+8.m", "8m", QuantityFormat::DecimalSI, "8000000"},
    {"+80e-1", "8", QuantityFormat::DecimalExponent, "8000000000"},
    {"+9.199749231T", "9199749231k", QuantityFormat::DecimalSI, "9199749231000000000000"},
    {"+9019814762622270003Gi", "9223372036854775807", QuantityFormat::BinarySI, "9223372036854775807000000000"},
    {"+92.412071461675e0", "92412071462e-9", QuantityFormat::DecimalExponent, "92412071462"},
    {"+936045854.3069421956n", "936045855n", QuantityFormat::DecimalSI, "936045855"},
    {"+997P", "997P", QuantityFormat::DecimalSI, "997000000000000000000000000"},
    {"+9k", "9k", QuantityFormat::DecimalSI, "9000000000000"},
    {"-.20927618020105802389e3", "-209276180202e-9", QuantityFormat::DecimalExponent, "-209276180202"},
    {"-0.205340548139e-1", "-20534055e-9", QuantityFormat::DecimalExponent, "-20534055"},
    {"-0.28798219944239287283Ti", "-316639776879418067146n", QuantityFormat::BinarySI, "-316639776879418067146"},
    {"-058", "-58", QuantityFormat::DecimalSI, "-58000000000"},
    {"-1024583024374781111.Ki", "-9223372036854775807", QuantityFormat::BinarySI, "-9223372036854775807000000000"},
    {"-127070996P", "-127070996P", QuantityFormat::DecimalSI, "-127070996000000000000000000000000"},
    {"-1385.327724300693664Gi", "-1487484317528395939249n", QuantityFormat::BinarySI, "-1487484317528395939249"},
    {"-166970039496276149.89", "-166970039496276149890m", QuantityFormat::DecimalSI, "-166970039496276149890000000"},
    {"-1881.770641285401744e+6", "-1881770641285401744e-9", QuantityFormat::DecimalExponent, "-1881770641285401744"},
    {"-219892198e12", "-219892198e12", QuantityFormat::DecimalExponent, "-219892198000000000000000000000"},
    {"-231978309.83395P", "-231978309833950G", QuantityFormat::DecimalSI, "-231978309833950000000000000000000"},
    {"-276464668E", "-276464668E", QuantityFormat::DecimalSI, "-276464668000000000000000000000000000"},
    {"-295018103m", "-295018103m", QuantityFormat::DecimalSI, "-295018103000000"},
    {"-3.94e-12", "-1e-9", QuantityFormat::DecimalExponent, "-1"},
    {"-303644.9724247739Ti", "-333861177896761784497759847n", QuantityFormat::BinarySI, "-333861177896761784497759847"},
    {"-3224963911193060329.5427811812n", "-3224963911193060330n", QuantityFormat::DecimalSI, "-3224963911193060330"},
    {"-3492776682839011246Mi", "-9223372036854775807", QuantityFormat::BinarySI, "-9223372036854775807000000000"},
    {"-3653376203874229682118812Ei", "-9223372036854775807", QuantityFormat::BinarySI, "-9223372036854775807000000000"},
    {"-371722033Ti", "-9223372036854775807", QuantityFormat::BinarySI, "-9223372036854775807000000000"},
    {"-399.010743046250P", "-399010743046250k", QuantityFormat::DecimalSI, "-399010743046250000000000000"},
    {"-3e2", "-300", QuantityFormat::DecimalExponent, "-300000000000"},
    {"-4.56157081614355680215Ei", "-5259133088718912443830777861n", QuantityFormat::BinarySI, "-5259133088718912443830777861"},
    {"-430741Gi", "-430741Gi", QuantityFormat::BinarySI, "-462504627011584000000000"},
    {"-439139Ei", "-9223372036854775807", QuantityFormat::BinarySI, "-9223372036854775807000000000"},
    {"-4631.m", "-4631m", QuantityFormat::DecimalSI, "-4631000000"},
    {"-51Mi", "-51Mi", QuantityFormat::BinarySI, "-53477376000000000"},
    {"-521597.79831Mi", "-546934932960706560u", QuantityFormat::BinarySI, "-546934932960706560000"},
    {"-536Gi", "-536Gi", QuantityFormat::BinarySI, "-575525617664000000000"},
    {"-54.57Gi", "-58594091335680m", QuantityFormat::BinarySI, "-58594091335680000000"},
    {"-54699669122722826630.26028u", "-54699669122722826630261n", QuantityFormat::DecimalSI, "-54699669122722826630261"},
    {"-561.95e-12", "-1e-9", QuantityFormat::DecimalExponent, "-1"},
    {"-567326819.P", "-567326819P", QuantityFormat::DecimalSI, "-567326819000000000000000000000000"},
    {"-578587Ti", "-578587Ti", QuantityFormat::BinarySI, "-636163134180032512000000000"},
    {"-6176961015277435069.139810174396109Ti", "-9223372036854775807", QuantityFormat::BinarySI, "-9223372036854775807000000000"},
    {"-61P", "-61P", QuantityFormat::DecimalSI, "-61000000000000000000000000"},
    {"-633128628.945154489450842Gi", "-679816688870189377464735848n", QuantityFormat::BinarySI, "-679816688870189377464735848"},
    {"-65.8808155417e2", "-6588081554170e-9", QuantityFormat::DecimalExponent, "-6588081554170"},
    {"-685253670.0486564244G", "-685253670048656424400m", QuantityFormat::DecimalSI, "-685253670048656424400000000"},
    {"-69e-1", "-6900e-3", QuantityFormat::DecimalExponent, "-6900000000"},
    {"-743Ti", "-743Ti", QuantityFormat::BinarySI, "-816937139437568000000000"},
    {"-765.65335866754409768636P", "-765653358667544097686360u", QuantityFormat::DecimalSI, "-765653358667544097686360000"},
    {"-7835975416527339749676693e0", "-7835975416527339749676693", QuantityFormat::DecimalExponent, "-7835975416527339749676693000000000"},
    {"-78E18", "-78e18", QuantityFormat::DecimalExponent, "-78000000000000000000000000000"},
    {"-8653.865e7", "-86538650e3", QuantityFormat::DecimalExponent, "-86538650000000000000"},
    {"-8967.660770328275867Ki", "-9182884628816155n", QuantityFormat::BinarySI, "-9182884628816155"},
    {"-9.76099", "-9760990u", QuantityFormat::DecimalSI, "-9760990000"},
    {"-90", "-90", QuantityFormat::DecimalSI, "-90000000000"},
    {"-9356.80k", "-9356800", QuantityFormat::DecimalSI, "-9356800000000000"},
    {"-936.876501260931547G", "-936876501260931547u", QuantityFormat::DecimalSI, "-936876501260931547000"},
    {".186422915618283E18", "186422915618283e3", QuantityFormat::DecimalExponent, "186422915618283000000000000"},
    {".4M", "400k", QuantityFormat::DecimalSI, "400000000000000"},
    {".603134881426520e7", "6031348814265200e-9", QuantityFormat::DecimalExponent, "6031348814265200"},
    {".779e12", "779e9", QuantityFormat::DecimalExponent, "779000000000000000000"},
    {".945001195Mi", "990905573048320n", QuantityFormat::BinarySI, "990905573048320"},
    {"0.465840951E", "465840951G", QuantityFormat::DecimalSI, "465840951000000000000000000"},
    {"007517.Ki", "7517Ki", QuantityFormat::BinarySI, "7697408000000000"},
    {"02170517062448602867.6813659596", "2170517062448602867681365960n", QuantityFormat::DecimalSI, "2170517062448602867681365960"},
    {"06304365668699494940.5E-3", "6304365668699494940500e-6", QuantityFormat::DecimalExponent, "6304365668699494940500000"},
    {"0650669840535976207646995.6012077774", "650669840535976207646995601207778n", QuantityFormat::DecimalSI, "650669840535976207646995601207778"},
    {"0848.23105E", "848231050T", QuantityFormat::DecimalSI, "848231050000000000000000000000"},
    {"1.99e-9", "2e-9", QuantityFormat::DecimalExponent, "2"},
    {"115589340.19k", "115589340190", QuantityFormat::DecimalSI, "115589340190000000000"},
    {"11584305325924511503.2974656314e-9", "11584305325924511504e-9", QuantityFormat::DecimalExponent, "11584305325924511504"},
    {"15243736693649897469e+6", "15243736693649897469e6", QuantityFormat::DecimalExponent, "15243736693649897469000000000000000"},
    {"15762274523689499282.848829871e3", "15762274523689499282848829871e-6", QuantityFormat::DecimalExponent, "15762274523689499282848829871000"},
    {"168160.788749461865e7", "1681607887494618650e-6", QuantityFormat::DecimalExponent, "1681607887494618650000"},
    {"2102768269021427837.736821946906M", "2102768269021427837736821946906u", QuantityFormat::DecimalSI, "2102768269021427837736821946906000"},
    {"258568117115.276767395454013Gi", "9223372036854775807", QuantityFormat::BinarySI, "9223372036854775807000000000"},
    {"2606135170352377529534706.2e3", "2606135170352377529534706200", QuantityFormat::DecimalExponent, "2606135170352377529534706200000000000"},
    {"3215774080238251070112666.717Gi", "9223372036854775807", QuantityFormat::BinarySI, "9223372036854775807000000000"},
    {"32443504387474705702e+6", "32443504387474705702e6", QuantityFormat::DecimalExponent, "32443504387474705702000000000000000"},
    {"3332Ti", "3332Ti", QuantityFormat::BinarySI, "3663572743749632000000000"},
    {"336082e+6", "336082e6", QuantityFormat::DecimalExponent, "336082000000000000000"},
    {"354191457525972876.4930103378Mi", "9223372036854775807", QuantityFormat::BinarySI, "9223372036854775807000000000"},
    {"354308557951243736e0", "354308557951243736", QuantityFormat::DecimalExponent, "354308557951243736000000000"},
    {"381917901389467243Ei", "9223372036854775807", QuantityFormat::BinarySI, "9223372036854775807000000000"},
    {"3953E18", "3953e18", QuantityFormat::DecimalExponent, "3953000000000000000000000000000"},
    {"4.7953066696k", "4795306669600n", QuantityFormat::DecimalSI, "4795306669600"},
    {"405G", "405G", QuantityFormat::DecimalSI, "405000000000000000000"},
    {"42205803763167226126e7", "422058037631672261260e6", QuantityFormat::DecimalExponent, "422058037631672261260000000000000000"},
    {"4347.858493959T", "4347858493959k", QuantityFormat::DecimalSI, "4347858493959000000000000"},
    {"434T", "434T", QuantityFormat::DecimalSI, "434000000000000000000000"},
    {"44552236621535432754.76m", "44552236621535432754760u", QuantityFormat::DecimalSI, "44552236621535432754760000"},
    {"446E", "446E", QuantityFormat::DecimalSI, "446000000000000000000000000000"},
    {"4489.6557335441e-12", "5e-9", QuantityFormat::DecimalExponent, "5"},
    {"4564621270792805542890728u", "4564621270792805542890728u", QuantityFormat::DecimalSI, "4564621270792805542890728000"},
    {"4569286431356705088308243u", "4569286431356705088308243u", QuantityFormat::DecimalSI, "4569286431356705088308243000"},
    {"46.Mi", "46Mi", QuantityFormat::BinarySI, "48234496000000000"},
    {"484882353200.235e2", "48488235320023500e-3", QuantityFormat::DecimalExponent, "48488235320023500000000"},
    {"5.9371825334Ki", "6079674914202n", QuantityFormat::BinarySI, "6079674914202"},
    {"5035186264608164971755970.951", "5035186264608164971755970951m", QuantityFormat::DecimalSI, "5035186264608164971755970951000000"},
    {"5280815177045038796.963Ki", "9223372036854775807", QuantityFormat::BinarySI, "9223372036854775807000000000"},
    {"548630729651Mi", "548630729651Mi", QuantityFormat::BinarySI, "575281015974526976000000000"},
    {"56.E", "56E", QuantityFormat::DecimalSI, "56000000000000000000000000000"},
    {"5615050539024821879Pi", "9223372036854775807", QuantityFormat::BinarySI, "9223372036854775807000000000"},
    {"579855118435762477.Ki", "9223372036854775807", QuantityFormat::BinarySI, "9223372036854775807000000000"},
    {"58e+6", "58e6", QuantityFormat::DecimalExponent, "58000000000000000"},
    {"613.79064Pi", "691066824396874564239360u", QuantityFormat::BinarySI, "691066824396874564239360000"},
    {"615526e+6", "615526e6", QuantityFormat::DecimalExponent, "615526000000000000000"},
    {"6521", "6521", QuantityFormat::DecimalSI, "6521000000000"},
    {"699521421769.10363729637215283190T", "699521421769103637296372152831900n", QuantityFormat::DecimalSI, "699521421769103637296372152831900"},
    {"7.65e12", "7650e9", QuantityFormat::DecimalExponent, "7650000000000000000000"},
    {"7.94532811793448678068Gi", "8531231105629462949n", QuantityFormat::BinarySI, "8531231105629462949"},
    {"7171Ei", "9223372036854775807", QuantityFormat::BinarySI, "9223372036854775807000000000"},
    {"736472777789Mi", "736472777789Mi", QuantityFormat::BinarySI, "772247679442878464000000000"},
    {"7499847411550286316311069k", "7499847411550286316311069k", QuantityFormat::DecimalSI, "7499847411550286316311069000000000000"},
    {"77.7601887021e12", "77760188702100", QuantityFormat::DecimalExponent, "77760188702100000000000"},
    {"77Ki", "77Ki", QuantityFormat::BinarySI, "78848000000000"},
    {"7945e7", "79450e6", QuantityFormat::DecimalExponent, "79450000000000000000"},
    {"8.546Ei", "9223372036854775807", QuantityFormat::BinarySI, "9223372036854775807000000000"},
    {"828742073091.96777292806897702356u", "828742073091968n", QuantityFormat::DecimalSI, "828742073091968"},
    {"8479936385784977403.886e0", "8479936385784977403886e-3", QuantityFormat::DecimalExponent, "8479936385784977403886000000"},
    {"86347737858275667141.62Pi", "9223372036854775807", QuantityFormat::BinarySI, "9223372036854775807000000000"},
    {"872P", "872P", QuantityFormat::DecimalSI, "872000000000000000000000000"},
    {"87360593596626224787.87e3", "87360593596626224787870", QuantityFormat::DecimalExponent, "87360593596626224787870000000000"},
    {"88.27078e7", "882707800", QuantityFormat::DecimalExponent, "882707800000000000"},
    {"8863.Ki", "8863Ki", QuantityFormat::BinarySI, "9075712000000000"},
    {"897457651227.5k", "897457651227500", QuantityFormat::DecimalSI, "897457651227500000000000"},
    {"90.86138u", "90862n", QuantityFormat::DecimalSI, "90862"},
    {"9152794087587850290753138", "9152794087587850290753138", QuantityFormat::DecimalSI, "9152794087587850290753138000000000"},
    {"923Mi", "923Mi", QuantityFormat::BinarySI, "967835648000000000"},
    {"9357150003997613023G", "9357150003997613023G", QuantityFormat::DecimalSI, "9357150003997613023000000000000000000"},
    {"9814", "9814", QuantityFormat::DecimalSI, "9814000000000"},
    {"98833215924567956007e-12", "98833215924567957e-9", QuantityFormat::DecimalExponent, "98833215924567957"},
    {"992504k", "992504k", QuantityFormat::DecimalSI, "992504000000000000"},
};

TEST(QuantityTest, MatchesKubernetesOnGeneratedVectors) {
  for (const Vector& v : kVectors) {
    auto q = Quantity::parse(v.input);
    ASSERT_TRUE(q.has_value()) << v.input << ": " << q.error().describe();
    EXPECT_EQ(str(q->nano()), v.nano) << v.input;
    EXPECT_EQ(q->format(), v.format) << v.input;
    EXPECT_EQ(q->to_string(), v.canonical) << v.input;
    EXPECT_EQ(parse_ok(v.canonical).nano(), q->nano()) << v.canonical;
  }
}

TEST(QuantityTest, CanonicalFormRoundTripsForManyValues) {
  const F formats[] = {F::DecimalSI, F::BinarySI, F::DecimalExponent};
  std::vector<int128> values = {1, 7, 999, 1000, 1024, 123456789, kInt128Max, kInt128Max - 1};
  int128 p = 1;
  for (int i = 0; i < 38; ++i, p *= 10) {
    values.push_back(p);
    values.push_back(p * 3 + 1);
  }
  int128 b = 1;
  for (int i = 0; i < 100; ++i, b *= 2) {
    values.push_back(b);
    values.push_back(b * 1000000000);
    if (i > 70) break;
  }
  for (int128 v : values) {
    for (F f : formats) {
      for (int128 s : {v, -v}) {
        const Quantity q = Quantity::from_nano(s, f);
        const std::string text = q.to_string();
        auto back = Quantity::parse(text);
        ASSERT_TRUE(back.has_value()) << text;
        EXPECT_EQ(back->nano(), q.nano()) << text;
        EXPECT_EQ(Quantity::from_nano(back->nano(), f).to_string(), text);
        EXPECT_EQ(text.find('.'), std::string::npos) << text;
      }
    }
  }
}

}  // namespace
}  // namespace budcore::core
