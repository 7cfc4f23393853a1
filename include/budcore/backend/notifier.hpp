// budcore::backend::Notifier — how NOTIFICATION steps and budget alerts reach people.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "budcore/backend/http_client.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"

namespace budcore::backend {

struct Notification {
  std::string channel;                  // "slack", "email", "webhook", "pagerduty"
  std::vector<std::string> recipients;  // "#deployments", "ops@example.com"
  std::string message;                  // already rendered
  std::string severity = "info";        // info | warning | error
  core::Value context;                  // extra fields (pipeline id, step id, ...)
  // Bounds the delivery when set (a pipeline step's remaining per-attempt time); a notifier's
  // own, shorter limit still applies.
  std::optional<core::Duration> timeout;
};

// Errors, as pipeline NOTIFICATION steps read them: Invalid for a notification that can never
// be delivered (bad fields), Io with field "status" and the HTTP status as value when the
// receiver refused it, any other Io for transport trouble (unreachable, timed out).
// Thread-safety: implementations may be called from several threads at once.
class BUDCORE_API Notifier {
 public:
  virtual ~Notifier() = default;
  virtual core::Status notify(const Notification& notification) = 0;
};

struct WebhookNotifierOptions {
  std::string url;  // the webhook endpoint (a Slack incoming webhook, or any JSON receiver)
  HttpHeaders headers;
  core::Duration timeout = core::Duration::seconds(10);
};

// POSTs a Slack-compatible JSON payload ({"text": ..., "blocks": [...], ...}) to options.url
// through `http`, which must outlive the notifier. Non-2xx responses are errors.
BUDCORE_API std::unique_ptr<Notifier> make_webhook_notifier(HttpClient& http, WebhookNotifierOptions options);

}  // namespace budcore::backend
