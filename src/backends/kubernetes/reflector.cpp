#include "budcore/kubernetes/reflector.hpp"

#include <chrono>
#include <thread>

namespace budcore::kubernetes {
namespace {

std::string meta_field(const core::Value& object, std::string_view key) {
  const core::Value* meta = object.find("metadata");
  const core::Value* v = meta != nullptr ? meta->find(key) : nullptr;
  return v != nullptr && v->is_string() ? v->as_string() : std::string();
}

}  // namespace

std::string object_key(const core::Value& object) {
  std::string ns = meta_field(object, "namespace");
  std::string name = meta_field(object, "name");
  return ns.empty() ? name : ns + "/" + name;
}

Reflector::Reflector(Client& client, Resource resource, std::string ns, std::string label_selector)
    : client_(client), resource_(std::move(resource)), ns_(std::move(ns)), selector_(std::move(label_selector)) {}

void Reflector::apply(const WatchEvent& ev) {
  std::lock_guard lock(mu_);
  std::string rv = meta_field(ev.object, "resourceVersion");
  if (!rv.empty()) rv_ = rv;
  if (ev.type == WatchEvent::Type::Bookmark) return;
  std::string key = object_key(ev.object);
  if (ev.type == WatchEvent::Type::Deleted) objects_.erase(key);
  else objects_[key] = ev.object;
}

core::Status Reflector::relist(const Handler& on_change) {
  ListOptions lo;
  lo.label_selector = selector_;
  ObjectList list;
  BUDCORE_TRY_ASSIGN(list, client_.list(resource_, ns_, lo));
  std::map<std::string, core::Value> fresh;
  for (auto& item : list.items) fresh.emplace(object_key(item), std::move(item));
  std::vector<WatchEvent> changes;
  {
    std::lock_guard lock(mu_);
    for (const auto& [key, old] : objects_)
      if (!fresh.count(key)) changes.push_back({WatchEvent::Type::Deleted, old});
    for (const auto& [key, obj] : fresh) {
      auto it = objects_.find(key);
      if (it == objects_.end()) changes.push_back({WatchEvent::Type::Added, obj});
      else if (meta_field(it->second, "resourceVersion") != meta_field(obj, "resourceVersion"))
        changes.push_back({WatchEvent::Type::Modified, obj});
    }
    objects_ = std::move(fresh);
    rv_ = list.resource_version;
    listed_ = true;
  }
  relists_.fetch_add(1);
  if (on_change)
    for (const auto& c : changes) on_change(c);
  return {};
}

core::Result<WatchEnd> Reflector::sync(const Handler& on_change, std::int64_t timeout_seconds, const std::atomic<bool>* stop) {
  bool listed;
  {
    std::lock_guard lock(mu_);
    listed = listed_;
  }
  if (!listed) BUDCORE_TRY(relist(on_change));
  WatchOptions wo;
  wo.label_selector = selector_;
  wo.resource_version = resource_version();
  wo.timeout_seconds = timeout_seconds;
  WatchEnd end;
  BUDCORE_TRY_ASSIGN(end, client_.watch(resource_, ns_, wo,
                                        [&](const WatchEvent& ev) {
                                          apply(ev);
                                          if (ev.type != WatchEvent::Type::Bookmark && on_change) on_change(ev);
                                          return true;
                                        },
                                        stop));
  if (end.reason == WatchEnd::Reason::Gone) {
    gone_.fetch_add(1);
    BUDCORE_TRY(relist(on_change));
  }
  return end;
}

void Reflector::run(const Handler& on_change, const std::atomic<bool>& stop, core::Duration retry_delay) {
  while (!stop.load()) {
    auto end = sync(on_change, 60, &stop);
    if (end) continue;
    // Lost the connection or the server refused: wait, then relist (events may have been missed
    // for longer than the server keeps them).
    auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(retry_delay.count_ns());
    while (!stop.load() && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (!stop.load()) (void)relist(on_change);
  }
}

std::vector<core::Value> Reflector::snapshot() const {
  std::lock_guard lock(mu_);
  std::vector<core::Value> out;
  out.reserve(objects_.size());
  for (const auto& [k, v] : objects_) out.push_back(v);
  return out;
}

std::optional<core::Value> Reflector::get(const std::string& ns, const std::string& name) const {
  std::lock_guard lock(mu_);
  auto it = objects_.find(ns.empty() ? name : ns + "/" + name);
  if (it == objects_.end()) return std::nullopt;
  return it->second;
}

std::string Reflector::resource_version() const {
  std::lock_guard lock(mu_);
  return rv_;
}

}  // namespace budcore::kubernetes
