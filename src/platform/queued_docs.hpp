// The documents of jobs the platform has just stored (submitted or adopted) and not yet
// admitted, kept so that their admission need not read and parse them back from the store.
// Bounded: once full, new documents are not kept (queues are served oldest first, so the
// documents already kept are the ones needed soonest), and a job whose document is not here is
// read as before. Keyed by the stored version: a job changed since (a priority, a cancel) has
// another version in memory, so its stale document is never used.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>

#include "budcore/core/id.hpp"
#include "budcore/job/job.hpp"

namespace budcore::platform {

class QueuedDocs {
 public:
  explicit QueuedDocs(std::size_t capacity) : capacity_(capacity) {}

  void keep(const core::Id& id, std::int64_t version, std::shared_ptr<job::Job> doc) {
    if (docs_.size() >= capacity_ && docs_.count(id) == 0) return;
    docs_[id] = {version, std::move(doc)};
  }
  bool has(const core::Id& id, std::int64_t version) const {
    auto it = docs_.find(id);
    return it != docs_.end() && it->second.first == version;
  }
  // The document at `version`, removed from here; nullptr when absent or stale.
  std::shared_ptr<job::Job> take(const core::Id& id, std::int64_t version) {
    auto it = docs_.find(id);
    if (it == docs_.end()) return nullptr;
    std::shared_ptr<job::Job> doc = it->second.first == version ? std::move(it->second.second) : nullptr;
    docs_.erase(it);
    return doc;
  }
  void forget(const core::Id& id) { docs_.erase(id); }
  void clear() { docs_.clear(); }
  std::size_t size() const noexcept { return docs_.size(); }

 private:
  std::size_t capacity_;
  std::unordered_map<core::Id, std::pair<std::int64_t, std::shared_ptr<job::Job>>> docs_;
};

}  // namespace budcore::platform
