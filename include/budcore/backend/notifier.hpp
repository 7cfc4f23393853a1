// The webhook Notifier. The interface itself (Notifier, Notification) is in
// budcore/core/notifier.hpp so that layers above core need not depend on the backends; the
// names below keep backend:: spellings working.
#pragma once

#include <memory>
#include <string>

#include "budcore/backend/http_client.hpp"
#include "budcore/core/notifier.hpp"

namespace budcore::backend {

using Notification = core::Notification;
using Notifier = core::Notifier;

struct WebhookNotifierOptions {
  std::string url;  // the webhook endpoint (a Slack incoming webhook, or any JSON receiver)
  HttpHeaders headers;
  core::Duration timeout = core::Duration::seconds(10);
};

// POSTs a Slack-compatible JSON payload ({"text": ..., "blocks": [...], ...}) to options.url
// through `http`, which must outlive the notifier. Non-2xx responses are errors.
BUDCORE_API std::unique_ptr<Notifier> make_webhook_notifier(HttpClient& http, WebhookNotifierOptions options);

}  // namespace budcore::backend
