#include "budcore/serverless/endpoint.hpp"

#include <gtest/gtest.h>

#include <string>

namespace budcore::serverless {
namespace {

core::Error parse_error(const std::string& text) {
  auto c = EndpointConfig::from_text(text);
  EXPECT_FALSE(c) << "parsed: " << text;
  return c ? core::Error{} : c.error();
}

TEST(EndpointConfigTest, ReadsEveryField) {
  auto c = EndpointConfig::load_file(std::string(BUDCORE_TEST_DATA_DIR) + "/serverless/endpoint.yaml");
  ASSERT_TRUE(c) << c.error().describe();
  EXPECT_EQ(c->name, "chat");
  EXPECT_EQ(c->model, "llama-3-8b");
  EXPECT_EQ(c->concurrency_per_worker, 4);
  EXPECT_EQ(c->price_per_gpu_hour.to_string(), "3.60 USD");
  EXPECT_EQ(c->warm_pool.max_warm_workers, 4);
  EXPECT_EQ(c->warm_pool.idle_timeout, core::Duration::seconds(60));
  EXPECT_EQ(c->warm_pool.max_idle_cost_per_hour.to_string(), "3.60 USD");
  EXPECT_EQ(c->sla.max_wait, core::Duration::seconds(60));
  EXPECT_EQ(c->queue.max_retries, 1);
  // 4 s container + 16 GiB at 1 GiB/s + 2 s warm-up.
  EXPECT_EQ(c->cold_start.duration(), core::Duration::seconds(22));
  // 1000 prompt tokens at 1000/s + 10 generated at 10/s.
  EXPECT_EQ(c->service.duration(1000, 10), core::Duration::seconds(2));
}

TEST(EndpointConfigTest, DefaultsFollowTheDesign) {
  auto c = EndpointConfig::from_text("name: e\nmodel: m\n");
  ASSERT_TRUE(c) << c.error().describe();
  EXPECT_EQ(c->warm_pool.min_warm_workers, 0);
  EXPECT_EQ(c->warm_pool.max_warm_workers, 5);
  EXPECT_EQ(c->warm_pool.target_warm_workers, 1);
  EXPECT_EQ(c->warm_pool.idle_timeout, core::Duration::seconds(300));
  EXPECT_EQ(c->warm_pool.warmup_timeout, core::Duration::seconds(120));
  EXPECT_EQ(c->warm_pool.traffic_history_hours, 24);
  EXPECT_EQ(c->weight(Priority::Premium), 4);
  EXPECT_EQ(c->weight(Priority::Batch), 1);
}

TEST(EndpointConfigTest, RoundTripsThroughItsDocument) {
  auto c = EndpointConfig::load_file(std::string(BUDCORE_TEST_DATA_DIR) + "/serverless/endpoint.yaml");
  ASSERT_TRUE(c);
  auto again = EndpointConfig::from_value(c->to_value());
  ASSERT_TRUE(again) << again.error().describe();
  EXPECT_EQ(again->to_value(), c->to_value());
}

TEST(EndpointConfigTest, ErrorsNameTheFieldTheValueAndWhy) {
  core::Error e = parse_error("name: e\nmodel: m\nsla: {max_wait_seconds: 0}\n");
  EXPECT_EQ(e.field, "sla.max_wait_seconds");
  EXPECT_EQ(e.value, "0");
  EXPECT_NE(e.message.find("greater than 0"), std::string::npos) << e.message;

  e = parse_error("name: e\nmodel: m\nsla: {max_wait_seconds: -5}\n");
  EXPECT_EQ(e.field, "sla.max_wait_seconds");
  EXPECT_EQ(e.value, "-5");

  e = parse_error("name: e\nmodel: m\nwarm_pool: {min_warm_workers: 6, max_warm_workers: 2}\n");
  EXPECT_EQ(e.field, "warm_pool.min_warm_workers");
  EXPECT_EQ(e.value, "6");
  EXPECT_NE(e.message.find("max_warm_workers (2)"), std::string::npos) << e.message;

  e = parse_error("name: e\nmodel: m\npriority_weights: {premium: 4, gold: 9}\n");
  EXPECT_EQ(e.field, "priority_weights.gold");

  e = parse_error("name: e\nmodel: m\nconcurrency_per_worker: four\n");
  EXPECT_EQ(e.field, "concurrency_per_worker");
  EXPECT_EQ(e.value, "four");

  e = parse_error("name: e\nmodel: m\nprice_per_gpu_hour: \"-1\"\n");
  EXPECT_EQ(e.field, "price_per_gpu_hour");

  e = parse_error("name: e\nmodel: m\ntenants: {concurrency: {acme: 0}}\n");
  EXPECT_EQ(e.field, "tenants.concurrency.acme");

  e = parse_error("model: m\n");
  EXPECT_EQ(e.field, "name");
  EXPECT_NE(e.message.find("missing"), std::string::npos);

  e = parse_error("name: Not_A_Label\nmodel: m\n");
  EXPECT_EQ(e.field, "name");
  EXPECT_EQ(e.value, "Not_A_Label");

  e = parse_error("name: e\nmodel: m\nschema_version: 2\n");
  EXPECT_EQ(e.field, "schema_version");
}

TEST(EndpointConfigTest, PrioritiesParseInAnyCaseAndRefuseUnknownNames) {
  EXPECT_EQ(*parse_priority("PREMIUM"), Priority::Premium);
  EXPECT_EQ(*parse_priority("batch"), Priority::Batch);
  auto bad = parse_priority("urgent");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().value, "urgent");
  EXPECT_NE(bad.error().message.find("premium, standard, spot, batch"), std::string::npos) << bad.error().message;
}

}  // namespace
}  // namespace budcore::serverless
