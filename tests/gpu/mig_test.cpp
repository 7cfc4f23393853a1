// The MIG tables row by row: every allowed placement of every profile is accepted alone, every
// other start is refused, the instance counts hold, overlaps are refused naming both instances.
#include <gtest/gtest.h>

#include <algorithm>

#include "budcore/gpu/mig.hpp"

namespace budcore::gpu {
namespace {

TEST(MigTest, ThreeModelsWithSevenProfilesEach) {
  ASSERT_EQ(mig_models().size(), 3u);
  for (const auto& m : mig_models()) EXPECT_EQ(mig_profiles(m).size(), 7u) << m;
  EXPECT_FALSE(supports_mig("T4"));
  EXPECT_TRUE(mig_profiles("T4").empty());
}

struct Row {
  const char* model;
  const char* profile;
  int compute, memory, max_instances;
  std::vector<int> starts;
};

// NVIDIA's "Supported MIG Profiles" tables with NVML's placements (start memory slice).
const std::vector<Row>& rows() {
  static const std::vector<Row> r = {
      {"A100-40GB", "1g.5gb", 1, 1, 7, {0, 1, 2, 3, 4, 5, 6}},   {"A100-40GB", "1g.5gb+me", 1, 1, 1, {0, 1, 2, 3, 4, 5, 6}},
      {"A100-40GB", "1g.10gb", 1, 2, 4, {0, 2, 4, 6}},          {"A100-40GB", "2g.10gb", 2, 2, 3, {0, 2, 4}},
      {"A100-40GB", "3g.20gb", 3, 4, 2, {0, 4}},                {"A100-40GB", "4g.20gb", 4, 4, 1, {0}},
      {"A100-40GB", "7g.40gb", 7, 8, 1, {0}},                   {"A100-80GB", "1g.10gb", 1, 1, 7, {0, 1, 2, 3, 4, 5, 6}},
      {"A100-80GB", "1g.10gb+me", 1, 1, 1, {0, 1, 2, 3, 4, 5, 6}}, {"A100-80GB", "1g.20gb", 1, 2, 4, {0, 2, 4, 6}},
      {"A100-80GB", "2g.20gb", 2, 2, 3, {0, 2, 4}},             {"A100-80GB", "3g.40gb", 3, 4, 2, {0, 4}},
      {"A100-80GB", "4g.40gb", 4, 4, 1, {0}},                   {"A100-80GB", "7g.80gb", 7, 8, 1, {0}},
      {"H100-80GB", "1g.10gb", 1, 1, 7, {0, 1, 2, 3, 4, 5, 6}},   {"H100-80GB", "1g.10gb+me", 1, 1, 1, {0, 1, 2, 3, 4, 5, 6}},
      {"H100-80GB", "1g.20gb", 1, 2, 4, {0, 2, 4, 6}},          {"H100-80GB", "2g.20gb", 2, 2, 3, {0, 2, 4}},
      {"H100-80GB", "3g.40gb", 3, 4, 2, {0, 4}},                {"H100-80GB", "4g.40gb", 4, 4, 1, {0}},
      {"H100-80GB", "7g.80gb", 7, 8, 1, {0}},
  };
  return r;
}

TEST(MigTest, TablesMatchTheGuideRowByRow) {
  for (const auto& row : rows()) {
    const MigProfile* p = find_mig_profile(row.model, row.profile);
    ASSERT_NE(p, nullptr) << row.model << " " << row.profile;
    EXPECT_EQ(p->compute_slices, row.compute) << row.profile;
    EXPECT_EQ(p->memory_slices, row.memory) << row.profile;
    EXPECT_EQ(p->max_instances, row.max_instances) << row.profile;
    EXPECT_EQ(p->starts, row.starts) << row.profile;
  }
}

TEST(MigTest, EveryAllowedPlacementIsAcceptedAndEveryOtherStartRefused) {
  for (const auto& row : rows()) {
    for (int start = 0; start < kMigMemorySlices; ++start) {
      auto st = validate_mig_layout(row.model, {{row.profile, start}});
      bool allowed = std::find(row.starts.begin(), row.starts.end(), start) != row.starts.end();
      EXPECT_EQ(st.has_value(), allowed) << row.model << " " << row.profile << "@" << start;
      if (!allowed) {
        EXPECT_EQ(st.error().field, "mig[0].start");
        EXPECT_EQ(st.error().value, std::to_string(start));
        EXPECT_NE(st.error().message.find("starts only at memory slice"), std::string::npos) << st.error().message;
      }
    }
  }
}

TEST(MigTest, EachProfileFillsTheGpuToItsCountAndOneMoreIsRefused) {
  for (const auto& row : rows()) {
    std::vector<MigInstance> layout;
    for (int i = 0; i < row.max_instances; ++i) layout.push_back({row.profile, row.starts[static_cast<std::size_t>(i)]});
    EXPECT_TRUE(validate_mig_layout(row.model, layout)) << row.model << " " << row.profile;
    // One more: a start already taken (the count or an overlap refuses it), or none left.
    layout.push_back({row.profile, row.starts.back()});
    auto st = validate_mig_layout(row.model, layout);
    ASSERT_FALSE(st) << row.model << " " << row.profile;
    EXPECT_EQ(st.error().field, "mig[" + std::to_string(row.max_instances) + "]");
  }
}

TEST(MigTest, MixedLayoutsTheDriverCreates) {
  EXPECT_TRUE(validate_mig_layout("A100-40GB", {{"4g.20gb", 0}, {"3g.20gb", 4}}));
  EXPECT_TRUE(validate_mig_layout("A100-40GB", {{"3g.20gb", 0}, {"2g.10gb", 4}, {"1g.5gb", 6}}));
  EXPECT_TRUE(validate_mig_layout("A100-40GB", {{"2g.10gb", 0}, {"2g.10gb", 2}, {"2g.10gb", 4}, {"1g.5gb", 6}}));
  EXPECT_TRUE(validate_mig_layout("A100-80GB", {{"1g.10gb+me", 0}, {"1g.10gb", 1}, {"1g.20gb", 2}, {"3g.40gb", 4}}));
  EXPECT_TRUE(validate_mig_layout("H100-80GB", {{"3g.40gb", 0}, {"3g.40gb", 4}}));
}

TEST(MigTest, OverlapsAreRefusedNamingBothInstancesAndTheSlices) {
  auto st = validate_mig_layout("A100-40GB", {{"3g.20gb", 0}, {"2g.10gb", 2}});
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().field, "mig[1]");
  EXPECT_EQ(st.error().value, "2g.10gb@2");
  EXPECT_NE(st.error().message.find("overlaps mig[0] (3g.20gb@0) on memory slices 2-3"), std::string::npos) << st.error().message;

  st = validate_mig_layout("H100-80GB", {{"4g.40gb", 0}, {"1g.10gb", 3}});
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("on memory slice 3"), std::string::npos) << st.error().message;

  // 7g takes every memory slice: nothing fits beside it.
  st = validate_mig_layout("A100-80GB", {{"7g.80gb", 0}, {"1g.10gb", 6}});
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().field, "mig[1]");
}

TEST(MigTest, MediaExtensionsGoToOneInstanceOnly) {
  auto st = validate_mig_layout("A100-40GB", {{"1g.5gb+me", 0}, {"1g.5gb+me", 1}});
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().field, "mig[1]");
  EXPECT_NE(st.error().message.find("at most 1 instance of 1g.5gb+me"), std::string::npos) << st.error().message;
}

TEST(MigTest, UnknownProfilesAndModelsAreNamed) {
  auto st = validate_mig_layout("A100-40GB", {{"3g.40gb", 0}});
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().field, "mig[0].profile");
  EXPECT_EQ(st.error().value, "3g.40gb");
  st = validate_mig_layout("T4", {});
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().field, "model");
  EXPECT_EQ(st.error().value, "T4");
}

}  // namespace
}  // namespace budcore::gpu
