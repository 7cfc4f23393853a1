// Leader election and the followers' request queue over a SqlConnection (both dialects):
// the lease row with its epoch on the database's clock, the fence check, replica reports, and
// the requests table (docs/ha.md). SqlStore calls these; they keep no state of their own.
#pragma once

#include <string_view>
#include <vector>

#include "backends/store_common.hpp"

#pragma GCC visibility push(hidden)

namespace budcore::backends {

// The database's clock in nanoseconds since the epoch, as an SQL expression of the dialect.
std::string db_now_ns(Dialect d);

core::Result<backend::LeaseState> acquire_lease(SqlConnection& db, std::string_view name, std::string_view replica,
                                                core::Duration ttl);
core::Result<backend::LeaseState> read_lease(SqlConnection& db, std::string_view name);
core::Status release_lease(SqlConnection& db, std::string_view name, std::string_view replica, std::int64_t epoch);
core::Status check_fence(SqlConnection& db, std::string_view name, std::string_view replica, std::int64_t epoch);
core::Status report_replica(SqlConnection& db, std::string_view name, const backend::ReplicaRecord& r);
core::Result<std::vector<backend::ReplicaRecord>> list_replicas(SqlConnection& db, std::string_view name);
// notify: also NOTIFY budcore_requests (PostgreSQL), which a transaction needs only once.
// seqs (PostgreSQL, inside a transaction): the request's seq is taken from it and the insert
// sent with execute_later.
core::Result<std::int64_t> append_request(SqlConnection& db, const backend::PlatformRequest& r, bool notify = true,
                                          SeqPool* seqs = nullptr);
core::Result<std::vector<backend::PlatformRequest>> list_requests(SqlConnection& db, std::int64_t after_seq,
                                                                  std::size_t limit);
core::Status delete_request(SqlConnection& db, std::int64_t seq);

}  // namespace budcore::backends

#pragma GCC visibility pop
