// budcore::kubernetes::Client — a Kubernetes REST client on libcurl: CRUD, server-side apply,
// optimistic concurrency by resourceVersion, list with paging, watch streams, client-side rate
// limiting (QPS/burst) and timeouts.
//
// Errors. A refused request comes back as a core::Error built from the API's Status object:
//   400 BadRequest, 422 Invalid -> Invalid (field = the first cause's field, every cause listed)
//   401 Unauthorized, 403 Forbidden -> Security      404 NotFound -> NotFound
//   409 AlreadyExists -> AlreadyExists, 409 Conflict -> Conflict (stale resourceVersion)
//   410 Gone (expired resourceVersion) -> Conflict   429 TooManyRequests -> Io after the retries
//   5xx, transport failures, timeouts, TLS failures -> Io
// The message names the request ("PATCH jobs.batch tenant-a/bc-..."), the HTTP status and the
// server's own message (admission webhook denials included); api_status() recovers the parsed
// Status from such an Error's `value` when a caller needs the HTTP code or the reason.
//
// Thread-safety: a Client may be used from several threads at once; the rate limiter is shared.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/kubernetes/config.hpp"

namespace budcore::kubernetes {

// An API resource: group ("" = core), version, plural name, kind, namespaced or cluster-wide.
struct Resource {
  std::string group;
  std::string version;
  std::string plural;
  std::string kind;
  bool namespaced = true;

  std::string api_version() const { return group.empty() ? version : group + "/" + version; }
  // "jobs.batch", "configmaps": how kubectl and the API name it in messages.
  std::string qualified() const { return group.empty() ? plural : plural + "." + group; }
};

// The resources budcore works with. Kueue kinds are in its storage version v1beta2 (Kueue 0.19).
namespace resources {
BUDCORE_API const Resource& namespaces();
BUDCORE_API const Resource& config_maps();
BUDCORE_API const Resource& secrets();
BUDCORE_API const Resource& services();
BUDCORE_API const Resource& jobs();
BUDCORE_API const Resource& deployments();
BUDCORE_API const Resource& leases();  // coordination.k8s.io/v1, for leader election
BUDCORE_API const Resource& resource_flavors();
BUDCORE_API const Resource& cluster_queues();
BUDCORE_API const Resource& local_queues();
BUDCORE_API const Resource& cohorts();
BUDCORE_API const Resource& workload_priority_classes();
BUDCORE_API const Resource& workloads();
BUDCORE_API const Resource& multikueue_clusters();
BUDCORE_API const Resource& multikueue_configs();
BUDCORE_API const Resource& admission_checks();
// The resource of a Kueue/core kind budcore knows ("Job", "ClusterQueue", ...), or nullptr.
BUDCORE_API const Resource* by_kind(std::string_view api_version, std::string_view kind);
}  // namespace resources

struct ClientOptions {
  double qps = 50;     // sustained requests per second; <= 0: no limit
  int burst = 100;     // requests allowed at once above the sustained rate
  core::Duration request_timeout = core::Duration::seconds(30);
  core::Duration connect_timeout = core::Duration::seconds(10);
  int max_throttle_retries = 3;  // 429 / 503 with Retry-After: wait and retry this many times
  core::Duration max_retry_after = core::Duration::seconds(10);  // longer waits are cut to this
  std::size_t max_response_bytes = 256u << 20;
  std::string field_manager = "budcore";
  std::string user_agent = "budcore";
};

// A Kubernetes Status, as the API server sends it with a refusal.
struct ApiStatus {
  struct Cause {
    std::string reason;   // "FieldValueRequired", "FieldValueInvalid", ...
    std::string message;  // "Required value"
    std::string field;    // "spec.template.spec.containers[0].image"
  };
  int code = 0;             // HTTP status
  std::string reason;       // "AlreadyExists", "Conflict", "Invalid", "Forbidden", "Expired", ...
  std::string message;      // the server's sentence
  std::string kind, name, group;  // details
  std::vector<Cause> causes;
  std::optional<std::int64_t> retry_after_seconds;
};

// The Status carried by an Error that a Client returned for a refused request (nullopt for
// transport errors and errors of other origin).
BUDCORE_API std::optional<ApiStatus> api_status(const core::Error& error);

struct ListOptions {
  std::string label_selector;   // "budcore.io/job-id=...,app=x"
  std::string field_selector;
  std::int64_t limit = 500;     // page size; list() follows `continue` until done
  std::string resource_version; // "" = most recent; "0" = any (from the watch cache)
};

struct ObjectList {
  std::vector<core::Value> items;
  std::string resource_version;  // of the list: where a watch continues
};

enum class Propagation : std::uint8_t { Background, Foreground, Orphan };

struct DeleteOptions {
  Propagation propagation = Propagation::Background;
  std::optional<std::string> resource_version;  // precondition: delete only this version
  std::optional<std::string> uid;               // precondition: delete only this object
  std::optional<std::int64_t> grace_period_seconds;
};

enum class PatchType : std::uint8_t { Merge, StrategicMerge, Json };

struct WatchEvent {
  enum class Type : std::uint8_t { Added, Modified, Deleted, Bookmark };
  Type type = Type::Added;
  core::Value object;
};

struct WatchOptions {
  std::string label_selector;
  std::string field_selector;
  std::string resource_version;  // start after this version ("" = from now, with a synthetic ADDED per object)
  bool allow_bookmarks = true;
  std::int64_t timeout_seconds = 300;  // the server ends the stream after this long
};

// How one watch request ended.
struct WatchEnd {
  enum class Reason : std::uint8_t {
    Closed,   // the server ended the stream (its timeout): resume from last_resource_version
    Stopped,  // the caller's stop flag / the handler asked to stop
    Gone,     // 410: the version is too old (compacted); relist, then watch from the new version
  };
  Reason reason = Reason::Closed;
  std::string last_resource_version;  // of the last event or bookmark seen ("" if none)
  std::size_t events = 0;
};

class BUDCORE_API Client {
 public:
  // Validates the configuration (server URL, PEM data) and prepares the transport; connects
  // lazily on the first request.
  static core::Result<std::unique_ptr<Client>> open(ClusterConfig config, ClientOptions options = {});
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  const ClusterConfig& config() const noexcept;
  const ClientOptions& options() const noexcept;

  // `ns` is ignored for cluster-wide resources; "" for a namespaced one means all namespaces
  // (list/watch only).
  core::Result<core::Value> get(const Resource& r, std::string_view ns, std::string_view name,
                                std::string_view subresource = {});
  core::Result<ObjectList> list(const Resource& r, std::string_view ns, const ListOptions& options = {});
  core::Result<core::Value> create(const Resource& r, std::string_view ns, const core::Value& object);
  // PUT: the object's metadata.resourceVersion makes it a compare-and-set (409 Conflict when stale).
  core::Result<core::Value> replace(const Resource& r, std::string_view ns, const core::Value& object,
                                    std::string_view subresource = {});
  core::Result<core::Value> patch(const Resource& r, std::string_view ns, std::string_view name,
                                  const core::Value& patch, PatchType type = PatchType::Merge,
                                  std::string_view subresource = {});
  // Server-side apply as options().field_manager: creates or updates the fields this manager
  // owns. `force` takes over fields another manager owns (else 409 Conflict naming them).
  core::Result<core::Value> apply(const Resource& r, std::string_view ns, const core::Value& object,
                                  bool force = false, std::string_view subresource = {});
  // NotFound when the object does not exist.
  core::Status remove(const Resource& r, std::string_view ns, std::string_view name,
                      const DeleteOptions& options = {});

  // One watch request: `on_event` gets every ADDED/MODIFIED/DELETED/BOOKMARK in order; return
  // false from it (or set *stop) to end the watch. A 410 (at the start or as an ERROR event)
  // ends it with Reason::Gone. Other refusals and transport errors are Errors.
  using EventHandler = std::function<bool(const WatchEvent&)>;
  core::Result<WatchEnd> watch(const Resource& r, std::string_view ns, const WatchOptions& options,
                               const EventHandler& on_event, const std::atomic<bool>* stop = nullptr);

  // A raw request to a path ("/version", "/apis/..."), for what the typed calls do not cover.
  // Returns the body of a 2xx answer; a refusal is an Error as above.
  core::Result<std::string> request(std::string_view method, std::string_view path, std::string_view body = {},
                                    std::string_view content_type = "application/json");

  // Requests sent so far (retries included) and throttle waits taken; for tests and metrics.
  std::uint64_t requests_sent() const noexcept;

 private:
  struct Impl;
  explicit Client(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// "/apis/batch/v1/namespaces/ns/jobs/name/status" and friends.
BUDCORE_API std::string resource_path(const Resource& r, std::string_view ns, std::string_view name = {},
                                      std::string_view subresource = {});

}  // namespace budcore::kubernetes
