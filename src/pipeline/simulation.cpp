#include "budcore/pipeline/simulation.hpp"

#include <utility>

#include "budcore/core/json.hpp"

namespace budcore::pipeline {

SimHttpClient::SimHttpClient(std::map<std::string, std::vector<std::string>, std::less<>> output_keys)
    : output_keys_(std::move(output_keys)) {}

core::Result<core::HttpResponse> SimHttpClient::send(const core::HttpRequest& request) {
  ++requests_;
  std::string step;
  for (const auto& [name, value] : request.headers) {
    if (name != "Idempotency-Key") continue;
    auto first = value.find('/');
    auto last = value.rfind('/');
    if (first != std::string::npos && last > first) step = value.substr(first + 1, last - first - 1);
  }
  core::Map body;
  body.set("simulated", true);
  if (auto it = output_keys_.find(step); it != output_keys_.end()) {
    for (const auto& key : it->second) body.set(key, "sim://" + step + "/" + key);
  }
  core::HttpResponse response;
  response.status = 200;
  response.headers.emplace_back("content-type", "application/json");
  response.body = core::to_json(core::Value(std::move(body)));
  return response;
}

core::Status SimNotifier::notify(const core::Notification& notification) {
  sent_.push_back(notification);
  return {};
}

}  // namespace budcore::pipeline
