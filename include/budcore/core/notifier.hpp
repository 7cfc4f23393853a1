// budcore::core::Notifier — the interface through which NOTIFICATION steps and budget alerts
// reach people. In core so that pipeline and cost depend on it without depending on the
// backends; the webhook implementation is backend::make_webhook_notifier
// (budcore/backend/notifier.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"

namespace budcore::core {

struct Notification {
  std::string channel;                  // "slack", "email", "webhook", "pagerduty"
  std::vector<std::string> recipients;  // "#deployments", "ops@example.com"
  std::string message;                  // already rendered
  std::string severity = "info";        // info | warning | error
  Value context;                        // extra fields (pipeline id, step id, ...)
  // Bounds the delivery when set (a pipeline step's remaining per-attempt time); a notifier's
  // own, shorter limit still applies.
  std::optional<Duration> timeout;
};

// Errors, as pipeline NOTIFICATION steps read them: Invalid for a notification that can never
// be delivered (bad fields), Io with field "status" and the HTTP status as value when the
// receiver refused it, any other Io for transport trouble (unreachable, timed out).
// Thread-safety: implementations may be called from several threads at once.
class BUDCORE_API Notifier {
 public:
  virtual ~Notifier() = default;
  virtual Status notify(const Notification& notification) = 0;
};

}  // namespace budcore::core
