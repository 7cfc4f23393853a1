// budcore::backend::StoreQueueBackend — serverless::QueueBackend over a backend::Store: the
// durable serverless request queue of one tenant's endpoints, on SQLite or PostgreSQL
// (docs/serverless.md "Durable queue").
#pragma once

#include <memory>

#include "budcore/backend/store.hpp"
#include "budcore/core/id.hpp"
#include "budcore/export.h"
#include "budcore/serverless/durable_queue.hpp"

namespace budcore::backend {

class BUDCORE_API StoreQueueBackend final : public serverless::QueueBackend {
 public:
  // `tenant` owns the endpoints (not the nil system tenant).
  StoreQueueBackend(std::shared_ptr<Store> store, core::Id tenant);

  core::Result<std::vector<serverless::DurableEnqueued>> enqueue(
      std::span<const serverless::DurableEnqueue> requests) override;
  core::Result<std::vector<serverless::DurableRequest>> claim(std::string_view endpoint, std::string_view worker,
                                                              std::int64_t max, core::Duration lease) override;
  core::Result<std::vector<serverless::DurableFinished>> finish(
      std::span<const serverless::DurableFinish> reports) override;
  core::Result<std::int64_t> expire(std::string_view endpoint) override;
  core::Result<serverless::DurableCounts> counts(std::string_view endpoint) override;
  // A store transaction that first locks the endpoint's row in the tenant's limits.
  core::Status enqueue_locked(std::string_view endpoint,
                              const std::function<core::Status(serverless::QueueBackend& tx)>& fn) override;
  core::Result<std::vector<serverless::DurableRequest>> list(std::string_view endpoint,
                                                             std::span<const serverless::QueueStatus> statuses,
                                                             std::int64_t after_id, std::int64_t limit) override;

  Store& store() noexcept { return *store_; }
  const core::Id& tenant() const noexcept { return tenant_; }

 private:
  std::shared_ptr<Store> store_;
  core::Id tenant_;
};

}  // namespace budcore::backend
