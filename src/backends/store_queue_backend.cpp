// StoreQueueBackend (backend/queue_backend.hpp), and the defaults of the Store's serverless
// queue calls for a Store that keeps no queue.
#include "budcore/backend/queue_backend.hpp"

namespace budcore::backend {

namespace {
core::Error no_queue(const Store& s) {
  return core::Error::make(core::ErrorCode::Unsupported,
                           "the " + std::string(s.backend_name()) + " store keeps no serverless request queue");
}
}  // namespace

core::Result<std::vector<serverless::DurableEnqueued>> Store::enqueue_serverless_requests(
    const core::Id&, std::span<const serverless::DurableEnqueue>) {
  return no_queue(*this);
}
core::Result<std::vector<serverless::DurableRequest>> Store::claim_serverless_requests(const core::Id&,
                                                                                      std::string_view,
                                                                                      std::string_view, std::int64_t,
                                                                                      core::Duration) {
  return no_queue(*this);
}
core::Result<std::vector<serverless::DurableFinished>> Store::finish_serverless_requests(
    const core::Id&, std::span<const serverless::DurableFinish>) {
  return no_queue(*this);
}
core::Result<std::int64_t> Store::expire_serverless_requests(const core::Id&, std::string_view) {
  return no_queue(*this);
}
core::Result<serverless::DurableCounts> Store::count_serverless_requests(const core::Id&, std::string_view) {
  return no_queue(*this);
}
core::Result<std::vector<serverless::DurableRequest>> Store::list_serverless_requests(
    const core::Id&, std::string_view, std::span<const serverless::QueueStatus>, std::int64_t, std::int64_t) {
  return no_queue(*this);
}

StoreQueueBackend::StoreQueueBackend(std::shared_ptr<Store> store, core::Id tenant)
    : store_(std::move(store)), tenant_(tenant) {}

core::Result<std::vector<serverless::DurableEnqueued>> StoreQueueBackend::enqueue(
    std::span<const serverless::DurableEnqueue> requests) {
  return store_->enqueue_serverless_requests(tenant_, requests);
}
core::Result<std::vector<serverless::DurableRequest>> StoreQueueBackend::claim(std::string_view endpoint,
                                                                              std::string_view worker,
                                                                              std::int64_t max, core::Duration lease) {
  return store_->claim_serverless_requests(tenant_, endpoint, worker, max, lease);
}
core::Result<std::vector<serverless::DurableFinished>> StoreQueueBackend::finish(
    std::span<const serverless::DurableFinish> reports) {
  return store_->finish_serverless_requests(tenant_, reports);
}
core::Result<std::int64_t> StoreQueueBackend::expire(std::string_view endpoint) {
  return store_->expire_serverless_requests(tenant_, endpoint);
}
core::Result<serverless::DurableCounts> StoreQueueBackend::counts(std::string_view endpoint) {
  return store_->count_serverless_requests(tenant_, endpoint);
}
core::Status StoreQueueBackend::enqueue_locked(std::string_view endpoint,
                                              const std::function<core::Status(serverless::QueueBackend& tx)>& fn) {
  return store_->transact([&](Store& tx) -> core::Status {
    BUDCORE_TRY(tx.lock_limit(tenant_, "serverless_enqueue:" + std::string(endpoint)));
    StoreQueueBackend in_tx(std::shared_ptr<Store>(std::shared_ptr<Store>(), &tx), tenant_);  // not owned
    return fn(in_tx);
  });
}
core::Result<std::vector<serverless::DurableRequest>> StoreQueueBackend::list(
    std::string_view endpoint, std::span<const serverless::QueueStatus> statuses, std::int64_t after_id,
    std::int64_t limit) {
  return store_->list_serverless_requests(tenant_, endpoint, statuses, after_id, limit);
}

}  // namespace budcore::backend
