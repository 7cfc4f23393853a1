// The webhook Notifier: POSTs a Slack-compatible JSON payload through an HttpClient.
// Slack incoming webhooks read "text" (the fallback shown in notifications) and "blocks";
// other receivers get the same message plus machine-readable channel/severity/context fields.
#include <string>
#include <utility>

#include "budcore/backend/notifier.hpp"

#include <algorithm>
#include "budcore/core/json.hpp"

namespace budcore::backend {
namespace {

using core::Error;
using core::ErrorCode;
using core::List;
using core::Map;
using core::Value;

constexpr std::size_t kBodySnippet = 200;

std::string_view severity_emoji(std::string_view severity) {
  if (severity == "error") return ":red_circle:";
  if (severity == "warning") return ":warning:";
  return ":information_source:";
}

core::Status validate(const Notification& n) {
  if (n.severity != "info" && n.severity != "warning" && n.severity != "error")
    return Error::invalid("severity", n.severity, "expected info, warning or error");
  if (n.message.empty()) return Error::invalid("message", n.message, "message is empty");
  return {};
}

// "key: value" lines for the context block, scalars only; nested values are written as JSON.
std::string context_text(const Value& context) {
  std::string out;
  if (!context.is_map()) return out;
  for (const auto& [k, v] : context.as_map()) {
    if (!out.empty()) out += " | ";
    out += k + ": " + (v.is_string() ? v.as_string() : core::to_json(v));
  }
  return out;
}

Value payload(const Notification& n) {
  Map body;
  body.set("text", n.message);
  // Slack's legacy webhooks honour "channel"; the first recipient that names one is used.
  for (const auto& r : n.recipients) {
    if (!r.empty() && (r.front() == '#' || r.front() == '@')) {
      body.set("channel", r);
      break;
    }
  }
  List recipients;
  for (const auto& r : n.recipients) recipients.emplace_back(r);
  body.set("recipients", Value(std::move(recipients)));
  body.set("notification_channel", n.channel);
  body.set("severity", n.severity);
  if (!n.context.is_null()) body.set("context", n.context);

  List blocks;
  std::string headline = std::string(severity_emoji(n.severity)) + " " + n.message;
  blocks.push_back(Value::map({{"type", "section"},
                               {"text", Value::map({{"type", "mrkdwn"}, {"text", headline}})}}));
  std::string ctx = "*severity*: " + n.severity;
  if (std::string extra = context_text(n.context); !extra.empty()) ctx += " | " + extra;
  blocks.push_back(Value::map({{"type", "context"},
                               {"elements", Value::list({Value::map({{"type", "mrkdwn"}, {"text", ctx}})})}}));
  body.set("blocks", Value(std::move(blocks)));
  return Value(std::move(body));
}

class WebhookNotifier final : public Notifier {
 public:
  WebhookNotifier(HttpClient& http, WebhookNotifierOptions options) : http_(http), options_(std::move(options)) {}

  core::Status notify(const Notification& n) override {
    if (options_.url.empty()) return Error::invalid("url", options_.url, "webhook URL is empty");
    BUDCORE_TRY(validate(n));
    HttpRequest req;
    req.method = "POST";
    req.url = options_.url;
    req.timeout = n.timeout ? std::min(options_.timeout, *n.timeout) : options_.timeout;
    req.headers = options_.headers;
    req.headers.emplace_back("Content-Type", "application/json");
    req.body = core::to_json(payload(n));
    auto resp = http_.send(req);
    if (!resp) return std::move(resp).error();
    if (resp->status < 200 || resp->status > 299) {
      std::string snippet = resp->body.substr(0, kBodySnippet);
      Error e = Error::make(ErrorCode::Io,
                            "webhook " + options_.url + " answered HTTP status " + std::to_string(resp->status) +
                                (snippet.empty() ? "" : ": " + snippet),
                            "status");
      e.value = std::to_string(resp->status);
      return e;
    }
    return {};
  }

 private:
  HttpClient& http_;
  WebhookNotifierOptions options_;
};

}  // namespace

std::unique_ptr<Notifier> make_webhook_notifier(HttpClient& http, WebhookNotifierOptions options) {
  return std::make_unique<WebhookNotifier>(http, std::move(options));
}

}  // namespace budcore::backend
