// Simulated executors for rehearsals (`budcore pipeline run`, schedule previews, notebooks):
// nothing leaves the process. SimJobRunner lives in executors.hpp; these complete the set.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "budcore/core/http.hpp"
#include "budcore/core/notifier.hpp"
#include "budcore/export.h"

namespace budcore::pipeline {

// Answers every request 200 with {"simulated": true} plus, for the step named by the
// engine's Idempotency-Key header ("<run>/<step>/<attempt>"), each output key downstream
// templates read, set to "sim://<step>/<key>" (see referenced_output_keys in engine.hpp).
class BUDCORE_API SimHttpClient final : public core::HttpClient {
 public:
  explicit SimHttpClient(std::map<std::string, std::vector<std::string>, std::less<>> output_keys = {});
  core::Result<core::HttpResponse> send(const core::HttpRequest& request) override;
  std::size_t requests() const noexcept { return requests_; }

 private:
  std::map<std::string, std::vector<std::string>, std::less<>> output_keys_;
  std::size_t requests_ = 0;
};

// Accepts every notification and keeps it, so a rehearsal can show what would be sent.
class BUDCORE_API SimNotifier final : public core::Notifier {
 public:
  core::Status notify(const core::Notification& notification) override;
  const std::vector<core::Notification>& sent() const noexcept { return sent_; }

 private:
  std::vector<core::Notification> sent_;
};

}  // namespace budcore::pipeline
