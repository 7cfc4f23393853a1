// budcore::kubernetes::Reflector — a local copy of one kind of object (optionally filtered by
// labels), kept current by list + watch: resumes each watch from the last resourceVersion seen
// (bookmarks included), and relists when the server says that version is gone (410, e.g.
// after etcd compaction), reporting what changed in between as events.
//
// Thread-safety: one thread drives sync()/run(); snapshot()/get()/resource_version() may be
// called from any thread.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "budcore/kubernetes/client.hpp"

namespace budcore::kubernetes {

class BUDCORE_API Reflector {
 public:
  // Called for every change, in order: watch events as they arrive, and after a relist one
  // synthetic event per object added, changed (by resourceVersion) or gone. Not for bookmarks.
  using Handler = std::function<void(const WatchEvent&)>;

  Reflector(Client& client, Resource resource, std::string ns, std::string label_selector = {});

  // A full list: replaces the local copy, emits the differences.
  core::Status relist(const Handler& on_change);
  // One watch request from the current version (relists first if never listed); ends when the
  // server closes it, after `timeout_seconds`, or when *stop is set. On 410 it relists and
  // returns. Returns how the watch ended.
  core::Result<WatchEnd> sync(const Handler& on_change, std::int64_t timeout_seconds = 60,
                              const std::atomic<bool>* stop = nullptr);
  // sync() in a loop until *stop; transport errors wait `retry_delay` and try again (relisting
  // when the connection was lost for long enough that the version may be gone).
  void run(const Handler& on_change, const std::atomic<bool>& stop,
           core::Duration retry_delay = core::Duration::seconds(1));

  std::vector<core::Value> snapshot() const;
  std::optional<core::Value> get(const std::string& ns, const std::string& name) const;
  std::string resource_version() const;
  std::size_t relists() const noexcept { return relists_.load(); }
  std::size_t gone_count() const noexcept { return gone_.load(); }

 private:
  void apply(const WatchEvent& ev);
  Client& client_;
  Resource resource_;
  std::string ns_;
  std::string selector_;
  mutable std::mutex mu_;
  std::map<std::string, core::Value> objects_;  // "ns/name"
  std::string rv_;
  bool listed_ = false;
  std::atomic<std::size_t> relists_{0};
  std::atomic<std::size_t> gone_{0};
};

// "namespace/name" (or "name" for cluster-wide objects) of an object.
BUDCORE_API std::string object_key(const core::Value& object);

}  // namespace budcore::kubernetes
