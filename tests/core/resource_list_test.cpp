// ResourceList: Kubernetes resource names and per-resource quantity arithmetic.
#include "budcore/core/resource_list.hpp"

#include <gtest/gtest.h>

#include <string>

namespace budcore::core {
namespace {

Quantity q(std::string_view text) { return Quantity::parse(text).value(); }

ResourceList list(std::initializer_list<std::pair<std::string_view, std::string_view>> items) {
  auto r = ResourceList::parse(items);
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().describe());
  return r ? *r : ResourceList{};
}

TEST(ResourceListTest, AcceptsKubernetesResourceNames) {
  for (const char* name : {"cpu", "memory", "ephemeral-storage", "pods", "nvidia.com/gpu", "amd.com/gpu",
                           "nvidia.com/mig-1g.5gb", "nvidia.com/mig-3g.20gb", "hugepages-2Mi", "hugepages-1Gi",
                           "example.com/foo_bar", "a", "A", "9", "x.y-z_1", "requests.nvidia.com/gpu",
                           "kubernetes.io/batch-cpu", "my-domain.example.com/MyResource"}) {
    EXPECT_TRUE(validate_resource_name(name).has_value()) << name;
  }
  const std::string longest_name(63, 'a');
  EXPECT_TRUE(validate_resource_name(longest_name).has_value());
  const std::string long_prefix = std::string(63, 'a') + "." + std::string(63, 'b') + "." + std::string(63, 'c') +
                                  "." + std::string(61, 'd');  // 253 characters
  ASSERT_EQ(long_prefix.size(), 253u);
  EXPECT_TRUE(validate_resource_name(long_prefix + "/gpu").has_value());
}

TEST(ResourceListTest, RejectsInvalidNamesNamingThem) {
  const std::string too_long(64, 'a');
  const std::string long_prefix = std::string(250, 'a') + ".com";  // 254 characters
  for (const std::string& name :
       {std::string(""), std::string("-cpu"), std::string("cpu-"), std::string("cp u"), std::string("cpu!"),
        std::string("/gpu"), std::string("nvidia.com/"), std::string("a/b/c"), std::string("Nvidia.com/gpu"),
        std::string("nvidia..com/gpu"), std::string("-nvidia.com/gpu"), std::string("nvidia.com-/gpu"),
        std::string("nvidia_com/gpu"), std::string("nvidia.com/-gpu"), std::string("nvidia.com/gpu."), too_long,
        "x.io/" + too_long, long_prefix + "/gpu", std::string("gpu\n"), std::string("ä")}) {
    auto st = validate_resource_name(name);
    ASSERT_FALSE(st.has_value()) << "'" << name << "' accepted";
    EXPECT_EQ(st.error().code, ErrorCode::Invalid);
    EXPECT_EQ(st.error().field, name);
    EXPECT_EQ(st.error().value, name);
    EXPECT_NE(st.error().message.find("invalid resource name"), std::string::npos);
  }
  EXPECT_NE(validate_resource_name(too_long).error().message.find("63"), std::string::npos);
  EXPECT_NE(validate_resource_name("Nvidia.com/gpu").error().message.find("DNS-1123"), std::string::npos);
}

TEST(ResourceListTest, ParseBuildsTheList) {
  const ResourceList r = list({{"cpu", "500m"}, {"memory", "2Gi"}, {"nvidia.com/gpu", "1"}});
  EXPECT_EQ(r.size(), 3u);
  EXPECT_FALSE(r.empty());
  EXPECT_EQ(r.get("cpu").to_string(), "500m");
  EXPECT_EQ(r.get("memory").to_string(), "2Gi");
  EXPECT_EQ(*r.get(kResourceNvidiaGpu).value(), 1);
  EXPECT_TRUE(r.contains(kResourceMemory));
  EXPECT_FALSE(r.contains("ephemeral-storage"));
  EXPECT_TRUE(r.get("ephemeral-storage").is_zero());
  // The map is ordered by name.
  std::string names;
  for (const auto& [name, quantity] : r.items()) names += name + ",";
  EXPECT_EQ(names, "cpu,memory,nvidia.com/gpu,");
}

TEST(ResourceListTest, ParseErrorsNameTheResource) {
  auto bad_quantity = ResourceList::parse({{"cpu", "500m"}, {"memory", "2GB"}});
  ASSERT_FALSE(bad_quantity.has_value());
  EXPECT_EQ(bad_quantity.error().code, ErrorCode::Invalid);
  EXPECT_EQ(bad_quantity.error().field, "memory");
  EXPECT_EQ(bad_quantity.error().value, "2GB");
  EXPECT_NE(bad_quantity.error().describe().find("memory: "), std::string::npos);

  auto bad_name = ResourceList::parse({{"nvidia.com/", "1"}});
  ASSERT_FALSE(bad_name.has_value());
  EXPECT_EQ(bad_name.error().field, "nvidia.com/");

  auto duplicate = ResourceList::parse({{"cpu", "1"}, {"cpu", "2"}});
  ASSERT_FALSE(duplicate.has_value());
  EXPECT_EQ(duplicate.error().field, "cpu");
  EXPECT_NE(duplicate.error().message.find("more than once"), std::string::npos);

  auto overflow = ResourceList::parse({{"cpu", "1e40"}});
  ASSERT_FALSE(overflow.has_value());
  EXPECT_EQ(overflow.error().code, ErrorCode::Overflow);
  EXPECT_EQ(overflow.error().field, "cpu");
}

TEST(ResourceListTest, SetValidatesAndReplaces) {
  ResourceList r;
  EXPECT_TRUE(r.empty());
  ASSERT_TRUE(r.set("cpu", q("1")).has_value());
  ASSERT_TRUE(r.set("cpu", q("2")).has_value());
  EXPECT_EQ(r.size(), 1u);
  EXPECT_EQ(r.get("cpu").to_string(), "2");
  auto st = r.set("bad name", q("1"));
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().field, "bad name");
  EXPECT_EQ(r.size(), 1u);  // nothing half-applied
}

TEST(ResourceListTest, AddIsPerResourceOverTheUnion) {
  const ResourceList a = list({{"cpu", "500m"}, {"memory", "1Gi"}});
  const ResourceList b = list({{"cpu", "1.5"}, {"nvidia.com/gpu", "2"}});
  const ResourceList sum = a.checked_add(b).value();
  EXPECT_EQ(sum.size(), 3u);
  EXPECT_EQ(sum.get("cpu").to_string(), "2");
  EXPECT_EQ(sum.get("memory").to_string(), "1Gi");
  EXPECT_EQ(sum.get("nvidia.com/gpu").to_string(), "2");
  EXPECT_EQ(sum, b.checked_add(a).value());
  EXPECT_EQ(a.checked_add(ResourceList{}).value(), a);
}

TEST(ResourceListTest, SubMayGoNegative) {
  const ResourceList capacity = list({{"cpu", "4"}, {"memory", "8Gi"}});
  const ResourceList used = list({{"cpu", "5500m"}, {"nvidia.com/gpu", "1"}});
  const ResourceList left = capacity.checked_sub(used).value();
  EXPECT_EQ(left.get("cpu").to_string(), "-1500m");
  EXPECT_EQ(left.get("memory").to_string(), "8Gi");
  EXPECT_EQ(left.get("nvidia.com/gpu").to_string(), "-1");
  // Zero minus a binary quantity takes its format, as resource.Quantity's Sub does.
  const ResourceList mem = list({{"memory", "1Gi"}});
  EXPECT_EQ(ResourceList{}.checked_sub(mem).value().get("memory").to_string(), "-1Gi");
}

TEST(ResourceListTest, MulScalesEveryResource) {
  const ResourceList pod = list({{"cpu", "250m"}, {"memory", "512Mi"}, {"nvidia.com/gpu", "1"}});
  const ResourceList four = pod.checked_mul(4).value();
  EXPECT_EQ(four.get("cpu").to_string(), "1");
  EXPECT_EQ(four.get("memory").to_string(), "2Gi");
  EXPECT_EQ(four.get("nvidia.com/gpu").to_string(), "4");
  EXPECT_TRUE(pod.checked_mul(0).value().get("cpu").is_zero());
}

TEST(ResourceListTest, ArithmeticOverflowNamesTheResource) {
  ResourceList big;
  ASSERT_TRUE(big.set("cpu", q("1")).has_value());
  ASSERT_TRUE(big.set("memory", Quantity::from_nano(kInt128Max)).has_value());
  auto doubled = big.checked_mul(2);
  ASSERT_FALSE(doubled.has_value());
  EXPECT_EQ(doubled.error().code, ErrorCode::Overflow);
  EXPECT_EQ(doubled.error().field, "memory");
  auto sum = big.checked_add(big);
  ASSERT_FALSE(sum.has_value());
  EXPECT_EQ(sum.error().field, "memory");
  ResourceList only_other;
  ASSERT_TRUE(only_other.set("x.io/y", Quantity::from_nano(kInt128Max)).has_value());
  ResourceList neg;
  ASSERT_TRUE(neg.set("x.io/y", Quantity::from_nano(-kInt128Max)).has_value());
  auto diff = ResourceList{}.checked_sub(neg);
  ASSERT_TRUE(diff.has_value());  // 0 - (-max) = max fits
  auto diff2 = neg.checked_sub(only_other);
  ASSERT_FALSE(diff2.has_value());
  EXPECT_EQ(diff2.error().field, "x.io/y");
}

TEST(ResourceListTest, FitsInComparesEveryResource) {
  const ResourceList capacity = list({{"cpu", "4"}, {"memory", "8Gi"}, {"nvidia.com/gpu", "2"}});
  EXPECT_TRUE(list({{"cpu", "4"}, {"memory", "8192Mi"}}).fits_in(capacity));
  EXPECT_TRUE(list({{"cpu", "3999m"}}).fits_in(capacity));
  EXPECT_TRUE(ResourceList{}.fits_in(capacity));
  EXPECT_TRUE(ResourceList{}.fits_in(ResourceList{}));
  EXPECT_FALSE(list({{"cpu", "4001m"}}).fits_in(capacity));
  EXPECT_FALSE(list({{"nvidia.com/gpu", "3"}}).fits_in(capacity));
  // A resource the capacity lacks counts as zero there.
  EXPECT_FALSE(list({{"nvidia.com/mig-1g.5gb", "1"}}).fits_in(capacity));
  EXPECT_TRUE(list({{"nvidia.com/mig-1g.5gb", "0"}}).fits_in(capacity));
}

TEST(ResourceListTest, ExcessOverListsWhatIsMissing) {
  const ResourceList capacity = list({{"cpu", "4"}, {"memory", "8Gi"}});
  const ResourceList request = list({{"cpu", "6500m"}, {"memory", "4Gi"}, {"nvidia.com/gpu", "2"}});
  const ResourceList excess = request.excess_over(capacity);
  EXPECT_EQ(excess.size(), 2u);
  EXPECT_EQ(excess.get("cpu").to_string(), "2500m");
  EXPECT_FALSE(excess.contains("memory"));
  EXPECT_EQ(excess.get("nvidia.com/gpu").to_string(), "2");
  EXPECT_TRUE(list({{"cpu", "1"}}).excess_over(capacity).empty());
  EXPECT_EQ(list({{"memory", "9Gi"}}).excess_over(capacity).get("memory").to_string(), "1Gi");
  // At the very ends of the range the excess saturates instead of wrapping.
  ResourceList top;
  ASSERT_TRUE(top.set("cpu", Quantity::from_nano(kInt128Max)).has_value());
  ResourceList bottom;
  ASSERT_TRUE(bottom.set("cpu", Quantity::from_nano(-kInt128Max)).has_value());
  EXPECT_EQ(top.excess_over(bottom).get("cpu").nano(), kInt128Max);
}

TEST(ResourceListTest, EqualityComparesNamesAndValues) {
  EXPECT_EQ(list({{"cpu", "1"}, {"memory", "1Gi"}}), list({{"memory", "1024Mi"}, {"cpu", "1000m"}}));
  EXPECT_NE(list({{"cpu", "1"}}), list({{"cpu", "2"}}));
  EXPECT_NE(list({{"cpu", "1"}}), list({{"memory", "1"}}));
  // An explicit zero is a different list from an absent resource.
  EXPECT_NE(list({{"cpu", "0"}}), ResourceList{});
}

}  // namespace
}  // namespace budcore::core
