// The inventory: nodes checked as they are added, placements applied and undone, capacity per
// device and per node in every sharing mode.
#include <gtest/gtest.h>

#include "budcore/gpu/inventory.hpp"

namespace budcore::gpu {
namespace {

Node fractional_node(std::string name, std::string model, int gpus) {
  Node n{std::move(name), std::move(model), 32000, 131072};
  n.gpus.assign(static_cast<std::size_t>(gpus), Device{});
  return n;
}

TEST(InventoryTest, FractionalSharesAddUpPerDeviceAndNode) {
  Pool pool;
  ASSERT_TRUE(pool.add_node(fractional_node("n0", "T4", 2)));
  Task t{"t", 4000, 8192, 1, 300, {}};
  ASSERT_TRUE(pool.allocate(t, {0, {1}}));
  ASSERT_TRUE(pool.allocate(t, {0, {1}}, Hold::Reserved));
  EXPECT_EQ(Pool::device_capacity(pool.node(0).gpus[1]), (Capacity{1000, 300, 300, 400}));
  EXPECT_EQ(pool.node_capacity(0), (Capacity{2000, 300, 300, 1400}));
  EXPECT_EQ(pool.node(0).cpu_used, 8000);
  // 400 left on GPU 1: a 500 share goes to GPU 0 only.
  Task big{"big", 1000, 0, 1, 500, {}};
  EXPECT_FALSE(Pool::gpu_fits(pool.node(0).gpus[1], big));
  EXPECT_TRUE(Pool::gpu_fits(pool.node(0).gpus[0], big));
  auto st = pool.allocate(big, {0, {1}});
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().field, "gpus[0]");
  ASSERT_TRUE(pool.release(t, {0, {1}}, Hold::Reserved));
  EXPECT_EQ(pool.node_capacity(0), (Capacity{2000, 300, 0, 1700}));
}

TEST(InventoryTest, WholeTimeSlicedAndMigDevices) {
  Pool pool;
  Node n{"mixed", "A100-40GB", 64000, 262144};
  Device whole;
  whole.sharing = Sharing::Whole;
  Device sliced;
  sliced.sharing = Sharing::TimeSlice;
  sliced.replicas = 4;
  Device mig;
  mig.sharing = Sharing::Mig;
  mig.mig = {{"4g.20gb", 0}, {"2g.10gb", 4}, {"1g.5gb", 6}};
  n.gpus = {whole, sliced, mig};
  ASSERT_TRUE(pool.add_node(n));

  Task share{"share", 1000, 0, 1, 250, {}};
  EXPECT_FALSE(Pool::gpu_fits(pool.node(0).gpus[0], share));  // a whole GPU is not shared
  ASSERT_TRUE(pool.allocate(share, {0, {1}}));
  ASSERT_TRUE(pool.allocate(share, {0, {1}}));
  EXPECT_EQ(Pool::device_capacity(pool.node(0).gpus[1]), (Capacity{1000, 500, 0, 500}));

  Task one{"one", 1000, 0, 1, 1000, {}};
  ASSERT_TRUE(pool.allocate(one, {0, {0}}));
  EXPECT_EQ(Pool::device_capacity(pool.node(0).gpus[0]), (Capacity{1000, 1000, 0, 0}));

  ASSERT_TRUE(pool.allocate_mig(0, 2, 0));
  ASSERT_TRUE(pool.allocate_mig(0, 2, 2, Hold::Reserved));
  EXPECT_FALSE(pool.allocate_mig(0, 2, 0));
  // 4g = 4/7 of the GPU allocated, 1g = 1/7 reserved.
  EXPECT_EQ(Pool::device_capacity(pool.node(0).gpus[2]), (Capacity{1000, 571, 142, 287}));
  EXPECT_EQ(pool.node_capacity(0).total, 3000);
}

TEST(InventoryTest, BadNodesAreRefusedNamingTheField) {
  Pool pool;
  auto st = pool.add_node(fractional_node("n", "K80", 1));
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().field, "model");
  EXPECT_EQ(st.error().value, "K80");

  Node neg = fractional_node("n", "T4", 1);
  neg.cpu_milli = -1;
  st = pool.add_node(neg);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().field, "cpu_milli");

  Node overlap{"m", "A100-40GB", 1000, 1000};
  Device d;
  d.sharing = Sharing::Mig;
  d.mig = {{"3g.20gb", 0}, {"4g.20gb", 0}};
  overlap.gpus = {Device{}, d};
  st = pool.add_node(overlap);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().field, "gpus[1].mig[1]");

  ASSERT_TRUE(pool.add_node(fractional_node("n", "T4", 1)));
  st = pool.add_node(fractional_node("n", "T4", 1));
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().field, "name");
  EXPECT_EQ(pool.size(), 1u);
}

TEST(InventoryTest, TasksAreCheckedOnTheirOwn) {
  EXPECT_TRUE(validate_task({"ok", 1000, 10, 1, 500, {"T4"}}));
  EXPECT_EQ(validate_task({"t", 0, 0, 1, 1500, {}}).error().field, "gpu_milli");
  EXPECT_EQ(validate_task({"t", 0, 0, -1, 0, {}}).error().field, "num_gpu");
  EXPECT_EQ(validate_task({"t", -5, 0, 0, 0, {}}).error().field, "cpu_milli");
  EXPECT_EQ(validate_task({"t", 0, 0, 2, 500, {}}).error().field, "gpu_milli");
  EXPECT_EQ(validate_task({"t", 0, 0, 1, 500, {"T4", "X9"}}).error().field, "gpu_spec[1]");
}

TEST(InventoryTest, ModelConstraintsAndCpuLimitFit) {
  Pool pool;
  ASSERT_TRUE(pool.add_node(fractional_node("t4", "T4", 1)));
  ASSERT_TRUE(pool.add_node(fractional_node("p100", "P100", 1)));
  Task t{"t", 1000, 0, 1, 500, {"P100"}};
  auto mask = pool.model_mask(t);
  EXPECT_FALSE(pool.fits(t, mask, 0));
  EXPECT_TRUE(pool.fits(t, mask, 1));
  Task cpu{"cpu", 40000, 0, 0, 0, {}};
  EXPECT_FALSE(pool.fits(cpu, pool.model_mask(cpu), 0));
  EXPECT_FALSE(pool.allocate(t, {0, {0}}));
}

}  // namespace
}  // namespace budcore::gpu
