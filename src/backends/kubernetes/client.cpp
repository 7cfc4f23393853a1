// The Kubernetes REST client: libcurl transport with the cluster's TLS settings, bearer tokens
// (token files re-read every minute), a token-bucket rate limiter, retries on 429/503 with
// Retry-After, Status objects turned into typed Errors, and line-delimited watch streams.
#include "budcore/kubernetes/client.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <mutex>
#include <new>
#include <thread>

#include "backends/http/curl_common.hpp"
#include "backends/kubernetes/util.hpp"
#include "budcore/core/json.hpp"
#include "budcore/core/limits.hpp"

namespace budcore::kubernetes {

namespace resources {
#define BUDCORE_K8S_RESOURCE(fn, g, v, p, k, ns)   \
  const Resource& fn() {                           \
    static const Resource r{g, v, p, k, ns};       \
    return r;                                      \
  }
BUDCORE_K8S_RESOURCE(namespaces, "", "v1", "namespaces", "Namespace", false)
BUDCORE_K8S_RESOURCE(config_maps, "", "v1", "configmaps", "ConfigMap", true)
BUDCORE_K8S_RESOURCE(secrets, "", "v1", "secrets", "Secret", true)
BUDCORE_K8S_RESOURCE(services, "", "v1", "services", "Service", true)
BUDCORE_K8S_RESOURCE(jobs, "batch", "v1", "jobs", "Job", true)
BUDCORE_K8S_RESOURCE(deployments, "apps", "v1", "deployments", "Deployment", true)
BUDCORE_K8S_RESOURCE(leases, "coordination.k8s.io", "v1", "leases", "Lease", true)
BUDCORE_K8S_RESOURCE(resource_flavors, "kueue.x-k8s.io", "v1beta2", "resourceflavors", "ResourceFlavor", false)
BUDCORE_K8S_RESOURCE(cluster_queues, "kueue.x-k8s.io", "v1beta2", "clusterqueues", "ClusterQueue", false)
BUDCORE_K8S_RESOURCE(local_queues, "kueue.x-k8s.io", "v1beta2", "localqueues", "LocalQueue", true)
BUDCORE_K8S_RESOURCE(cohorts, "kueue.x-k8s.io", "v1beta2", "cohorts", "Cohort", false)
BUDCORE_K8S_RESOURCE(workload_priority_classes, "kueue.x-k8s.io", "v1beta2", "workloadpriorityclasses",
                     "WorkloadPriorityClass", false)
BUDCORE_K8S_RESOURCE(workloads, "kueue.x-k8s.io", "v1beta2", "workloads", "Workload", true)
BUDCORE_K8S_RESOURCE(multikueue_clusters, "kueue.x-k8s.io", "v1beta2", "multikueueclusters", "MultiKueueCluster", false)
BUDCORE_K8S_RESOURCE(multikueue_configs, "kueue.x-k8s.io", "v1beta2", "multikueueconfigs", "MultiKueueConfig", false)
BUDCORE_K8S_RESOURCE(admission_checks, "kueue.x-k8s.io", "v1beta2", "admissionchecks", "AdmissionCheck", false)
#undef BUDCORE_K8S_RESOURCE

const Resource* by_kind(std::string_view api_version, std::string_view kind) {
  static const std::array<const Resource*, 15> all = {
      &namespaces(), &config_maps(), &secrets(), &services(), &jobs(), &deployments(), &resource_flavors(),
      &cluster_queues(), &local_queues(), &cohorts(), &workload_priority_classes(), &workloads(),
      &multikueue_clusters(), &multikueue_configs(), &admission_checks()};
  for (const Resource* r : all)
    if (r->kind == kind && r->api_version() == api_version) return r;
  return nullptr;
}
}  // namespace resources

namespace {

using core::Error;
using core::ErrorCode;
using core::Value;
using Clock = std::chrono::steady_clock;

constexpr std::string_view kStatusMarker = "\"kind\":\"Status\"";
constexpr std::size_t kMaxTokenFileBytes = 1u << 20;  // a service-account token is a few KiB
constexpr std::size_t kMaxWatchLine = 64u << 20;  // one event; larger ones end the watch with an error

std::string str_field(const Value& v, std::string_view key) {
  const Value* f = v.find(key);
  return f != nullptr && f->is_string() ? f->as_string() : std::string();
}

std::optional<ApiStatus> parse_status(int http, std::string_view body) {
  auto parsed = core::parse_json(body);
  if (!parsed || !parsed->is_map() || str_field(*parsed, "kind") != "Status") return std::nullopt;
  ApiStatus s;
  s.code = http;
  if (const Value* c = parsed->find("code"); c != nullptr && c->is_int() && c->as_int() > 0 && c->as_int() < 1000)
    s.code = static_cast<int>(c->as_int());
  s.reason = str_field(*parsed, "reason");
  s.message = str_field(*parsed, "message");
  if (const Value* d = parsed->find("details"); d != nullptr && d->is_map()) {
    s.kind = str_field(*d, "kind");
    s.name = str_field(*d, "name");
    s.group = str_field(*d, "group");
    if (const Value* ra = d->find("retryAfterSeconds"); ra != nullptr && ra->is_int()) s.retry_after_seconds = ra->as_int();
    if (const Value* cs = d->find("causes"); cs != nullptr && cs->is_list())
      for (const Value& c : cs->as_list())
        if (c.is_map()) s.causes.push_back({str_field(c, "reason"), str_field(c, "message"), str_field(c, "field")});
  }
  return s;
}

Value status_value(const ApiStatus& s) {
  core::List causes;
  for (const auto& c : s.causes) causes.emplace_back(core::Map{{"reason", c.reason}, {"message", c.message}, {"field", c.field}});
  core::Map details{{"kind", s.kind}, {"name", s.name}, {"group", s.group}, {"causes", std::move(causes)}};
  if (s.retry_after_seconds) details.set("retryAfterSeconds", *s.retry_after_seconds);
  return core::Map{{"kind", "Status"}, {"code", s.code}, {"reason", s.reason}, {"message", s.message},
                   {"details", std::move(details)}};
}

ErrorCode code_for(const ApiStatus& s) {
  switch (s.code) {
    case 400:
    case 413:
    case 422: return ErrorCode::Invalid;
    case 401:
    case 403: return ErrorCode::Security;
    case 404: return ErrorCode::NotFound;
    case 405:
    case 406:
    case 415: return ErrorCode::Unsupported;
    case 409: return s.reason == "AlreadyExists" ? ErrorCode::AlreadyExists : ErrorCode::Conflict;
    case 410: return ErrorCode::Conflict;
    default: return ErrorCode::Io;
  }
}

std::string_view phrase(int code) {
  switch (code) {
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 413: return "Request Entity Too Large";
    case 415: return "Unsupported Media Type";
    case 422: return "Unprocessable Entity";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "";
  }
}

// A refusal as an Error: "<what>: HTTP 422 Unprocessable Entity: <server message>".
Error refusal(const std::string& what, int http, std::string_view body) {
  ApiStatus s;
  if (auto parsed = parse_status(http, body)) {
    s = std::move(*parsed);
  } else {
    s.code = http;
    std::string snippet(body.substr(0, 300));
    s.message = snippet.empty() ? std::string(phrase(http)) : snippet;
  }
  std::string msg = what + ": HTTP " + std::to_string(http);
  if (auto p = phrase(http); !p.empty()) msg += " " + std::string(p);
  if (!s.message.empty()) msg += ": " + s.message;
  if (http == 401) msg += " (the token or client certificate was not accepted: expired, revoked or unknown)";
  Error e = Error::make(code_for(s), std::move(msg));
  if (!s.causes.empty()) e.field = s.causes.front().field;
  e.value = core::to_json(status_value(s));
  return e;
}

std::string delete_body(const DeleteOptions& o) {
  core::Map m{{"kind", "DeleteOptions"}, {"apiVersion", "v1"}};
  switch (o.propagation) {
    case Propagation::Background: m.set("propagationPolicy", "Background"); break;
    case Propagation::Foreground: m.set("propagationPolicy", "Foreground"); break;
    case Propagation::Orphan: m.set("propagationPolicy", "Orphan"); break;
  }
  if (o.resource_version || o.uid) {
    core::Map pre;
    if (o.resource_version) pre.set("resourceVersion", *o.resource_version);
    if (o.uid) pre.set("uid", *o.uid);
    m.set("preconditions", std::move(pre));
  }
  if (o.grace_period_seconds) m.set("gracePeriodSeconds", *o.grace_period_seconds);
  return core::to_json(Value(std::move(m)));
}

// Token bucket: `burst` requests at once, refilled at `qps` per second. Callers reserve a slot
// and sleep until it comes (outside the lock), so waits are fair and in arrival order.
class RateLimiter {
 public:
  RateLimiter(double qps, int burst) : qps_(qps), burst_(std::max(1, burst)), tokens_(std::max(1, burst)) {}
  void acquire() {
    if (qps_ <= 0) return;
    Clock::time_point wake;
    {
      std::lock_guard lock(mu_);
      auto now = Clock::now();
      double elapsed = std::chrono::duration<double>(now - last_).count();
      last_ = now;
      tokens_ = std::min<double>(burst_, tokens_ + elapsed * qps_);
      tokens_ -= 1;
      if (tokens_ >= 0) return;
      wake = now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(-tokens_ / qps_));
    }
    std::this_thread::sleep_until(wake);
  }

 private:
  std::mutex mu_;
  double qps_;
  int burst_;
  double tokens_;
  Clock::time_point last_ = Clock::now();
};

struct Raw {
  int status = 0;
  backend::HttpHeaders headers;
  std::string body;
};

std::optional<std::int64_t> retry_after(const Raw& r) {
  for (const auto& [k, v] : r.headers)
    if (k == "retry-after") {
      std::int64_t n = 0;
      for (char c : v) {
        if (c < '0' || c > '9') return std::nullopt;
        n = n * 10 + (c - '0');
        if (n > 86400) return 86400;
      }
      return n;
    }
  return std::nullopt;
}

}  // namespace

std::optional<ApiStatus> api_status(const core::Error& error) {
  if (error.value.find(kStatusMarker) == std::string::npos) return std::nullopt;
  auto s = parse_status(0, error.value);
  return s;
}

std::string resource_path(const Resource& r, std::string_view ns, std::string_view name, std::string_view sub) {
  std::string p = r.group.empty() ? "/api/" + r.version : "/apis/" + r.group + "/" + r.version;
  if (r.namespaced && !ns.empty()) p += "/namespaces/" + url_encode(ns);
  p += "/" + r.plural;
  if (!name.empty()) p += "/" + url_encode(name);
  if (!sub.empty()) p += "/" + std::string(sub);
  return p;
}

struct BUDCORE_HIDDEN Client::Impl {
  ClusterConfig cfg;
  ClientOptions opt;
  backends::curl::HandlePool pool{8};
  RateLimiter limiter;
  std::atomic<std::uint64_t> sent{0};
  std::mutex token_mu;
  std::string file_token;
  Clock::time_point token_read{};

  std::string server_scheme, server_host, server_port;  // parts of cfg.server, for tls_server_name

  Impl(ClusterConfig c, ClientOptions o) : cfg(std::move(c)), opt(std::move(o)), limiter(opt.qps, opt.burst) {}

  core::Status parse_server() {
    std::unique_ptr<CURLU, decltype(&curl_url_cleanup)> u(curl_url(), curl_url_cleanup);
    if (!u) throw std::bad_alloc();
    if (CURLUcode rc = curl_url_set(u.get(), CURLUPART_URL, cfg.server.c_str(), 0); rc != CURLUE_OK)
      return Error::invalid("server", cfg.server, std::string("malformed URL: ") + curl_url_strerror(rc));
    auto part = [&](CURLUPart p, unsigned flags) {
      char* out = nullptr;
      std::string s;
      if (curl_url_get(u.get(), p, &out, flags) == CURLUE_OK && out != nullptr) s = out;
      curl_free(out);
      return s;
    };
    server_scheme = part(CURLUPART_SCHEME, 0);
    server_host = part(CURLUPART_HOST, 0);
    server_port = part(CURLUPART_PORT, CURLU_DEFAULT_PORT);
    if (server_host.empty()) return Error::invalid("server", cfg.server, "URL has no host");
    std::string path = part(CURLUPART_PATH, 0);
    if (!path.empty() && path != "/")
      return Error::invalid("server", cfg.server, "a server URL with a path prefix is not supported");
    return {};
  }

  core::Result<std::string> bearer() {
    if (!cfg.token.empty()) return cfg.token;
    if (cfg.token_file.empty()) return std::string();
    std::lock_guard lock(token_mu);
    auto now = Clock::now();
    if (!file_token.empty() && now - token_read < std::chrono::minutes(1)) return file_token;
    BUDCORE_TRY_ASSIGN(std::string t, core::read_input(cfg.token_file, kMaxTokenFileBytes, "token_file"));
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
    if (t.empty()) return Error::invalid("token_file", cfg.token_file, "token file is empty");
    file_token = t;
    token_read = now;
    return t;
  }

  void set_tls(CURL* h) {
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, cfg.insecure_skip_tls_verify ? 0L : 1L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, cfg.insecure_skip_tls_verify ? 0L : 2L);
    if (!cfg.ca_pem.empty()) {
      curl_blob blob{const_cast<char*>(cfg.ca_pem.data()), cfg.ca_pem.size(), CURL_BLOB_COPY};
      curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, &blob);
    } else if (!cfg.ca_file.empty()) {
      curl_easy_setopt(h, CURLOPT_CAINFO, cfg.ca_file.c_str());
    }
    if (!cfg.client_cert_pem.empty()) {
      curl_blob cert{const_cast<char*>(cfg.client_cert_pem.data()), cfg.client_cert_pem.size(), CURL_BLOB_COPY};
      curl_blob key{const_cast<char*>(cfg.client_key_pem.data()), cfg.client_key_pem.size(), CURL_BLOB_COPY};
      curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
      curl_easy_setopt(h, CURLOPT_SSLCERT_BLOB, &cert);
      curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
      curl_easy_setopt(h, CURLOPT_SSLKEY_BLOB, &key);
    }
  }

  // Streaming state for one transfer: buffered body, or a line splitter for watches.
  struct Transfer {
    Raw raw;
    CURL* handle = nullptr;
    std::size_t max_bytes = 0;
    bool too_large = false;
    const std::function<bool(std::string_view)>* on_line = nullptr;
    bool streaming_ok = false;  // status 200 seen: lines go to on_line
    bool stopped = false;       // on_line asked to stop
    std::string pending;        // partial line
    const std::atomic<bool>* stop = nullptr;
  };

  static std::size_t on_body(char* data, std::size_t size, std::size_t nmemb, void* user) {
    auto* t = static_cast<Transfer*>(user);
    std::size_t n = size * nmemb;
    if (t->on_line != nullptr) {
      if (!t->streaming_ok) {
        long status = 0;
        curl_easy_getinfo(t->handle, CURLINFO_RESPONSE_CODE, &status);
        t->streaming_ok = status == 200;
      }
      if (t->streaming_ok) {
        t->pending.append(data, n);
        std::size_t start = 0, nl;
        while ((nl = t->pending.find('\n', start)) != std::string::npos) {
          std::string_view line(t->pending.data() + start, nl - start);
          start = nl + 1;
          if (line.empty()) continue;
          if (!(*t->on_line)(line)) {
            t->stopped = true;
            return 0;
          }
        }
        t->pending.erase(0, start);
        if (t->pending.size() > kMaxWatchLine) {
          t->too_large = true;
          return 0;
        }
        return n;
      }
    }
    if (t->raw.body.size() + n > t->max_bytes) {
      t->too_large = true;
      return 0;
    }
    t->raw.body.append(data, n);
    return n;
  }

  static int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    auto* t = static_cast<Transfer*>(user);
    if (t->stop != nullptr && t->stop->load(std::memory_order_relaxed)) {
      t->stopped = true;
      return 1;
    }
    return 0;
  }

  // One HTTP exchange (no retries). Transport failures are Io errors naming the request.
  core::Result<Raw> perform(const std::string& method, const std::string& path_query, std::string_view body,
                            std::string_view content_type, core::Duration timeout,
                            const std::function<bool(std::string_view)>* on_line, const std::atomic<bool>* stop,
                            bool* stopped) {
    std::string token;
    BUDCORE_TRY_ASSIGN(token, bearer());
    limiter.acquire();
    sent.fetch_add(1, std::memory_order_relaxed);
    CURL* h = pool.acquire();
    struct Release {
      backends::curl::HandlePool& p;
      CURL* h;
      ~Release() { p.release(h); }
    } release{pool, h};
    std::array<char, CURL_ERROR_SIZE> errbuf{};
    curl_slist* headers = nullptr;
    headers = curl_slist_append(headers, "Accept: application/json");
    headers = curl_slist_append(headers, "Expect:");
    if (!token.empty()) headers = curl_slist_append(headers, ("Authorization: Bearer " + token).c_str());
    if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH")
      headers = curl_slist_append(headers, ("Content-Type: " + std::string(content_type)).c_str());
    std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> header_guard(headers, curl_slist_free_all);
    std::string url = cfg.server + path_query;
    Transfer t;
    t.handle = h;
    t.max_bytes = opt.max_response_bytes;
    t.on_line = on_line;
    t.stop = stop;
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf.data());
    curl_easy_setopt(h, CURLOPT_URL, url.c_str());
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(h, CURLOPT_USERAGENT, opt.user_agent.c_str());
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, backends::curl::to_ms(timeout));
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, backends::curl::to_ms(opt.connect_timeout));
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, backends::curl::collect_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &t.raw.headers);
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");  // gzip when the server offers it
    if (stop != nullptr) {
      curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
      curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
      curl_easy_setopt(h, CURLOPT_XFERINFODATA, &t);
    }
    curl_slist* connect_to = nullptr;
    if (!cfg.tls_server_name.empty()) {
      // Verify (and send SNI for) tls_server_name while connecting to the server's address:
      // the URL names tls_server_name, CONNECT_TO maps it to the real host.
      url = server_scheme + "://" + cfg.tls_server_name + ":" + server_port + path_query;
      connect_to = curl_slist_append(nullptr, (cfg.tls_server_name + ":" + server_port + ":" + server_host + ":" + server_port).c_str());
      curl_easy_setopt(h, CURLOPT_URL, url.c_str());
      curl_easy_setopt(h, CURLOPT_CONNECT_TO, connect_to);
    }
    std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> connect_guard(connect_to, curl_slist_free_all);
    set_tls(h);
    if (method == "GET") {
      curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    } else {
      if (method != "POST") curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method.c_str());
      curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
      curl_easy_setopt(h, CURLOPT_POSTFIELDS, body.data());
    }
    CURLcode rc = curl_easy_perform(h);
    if (stopped != nullptr) *stopped = t.stopped;
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    t.raw.status = static_cast<int>(status);
    if (rc == CURLE_OK || (t.stopped && (rc == CURLE_WRITE_ERROR || rc == CURLE_ABORTED_BY_CALLBACK))) {
      return std::move(t.raw);
    }
    // A watch the server ended mid-chunk after its timeout still delivered its events.
    if (on_line != nullptr && t.streaming_ok && rc == CURLE_OPERATION_TIMEDOUT) return std::move(t.raw);
    std::string detail = errbuf[0] != '\0' ? errbuf.data() : curl_easy_strerror(rc);
    std::string what;
    if (t.too_large) {
      what = "response exceeds the limit of " + std::to_string(opt.max_response_bytes) + " bytes";
    } else if (rc == CURLE_OPERATION_TIMEDOUT) {
      what = "timed out after " + timeout.to_string() + " (" + detail + ")";
    } else if (rc == CURLE_PEER_FAILED_VERIFICATION || rc == CURLE_SSL_CACERT_BADFILE || rc == CURLE_SSL_CONNECT_ERROR ||
               rc == CURLE_SSL_CERTPROBLEM) {
      what = "TLS failure: " + detail + " (check the cluster's certificate-authority and server name)";
    } else if (rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST) {
      what = "cannot reach the API server: " + detail;
    } else {
      what = "failed: " + detail;
    }
    Error e = Error::make(ErrorCode::Io, method + " " + url + " " + what, "server");
    e.value = cfg.server;
    return e;
  }

  // perform() with throttling retries; a non-2xx answer becomes an Error describing `what`.
  core::Result<Raw> call(const std::string& method, const std::string& path_query, std::string_view body,
                         std::string_view content_type, const std::string& what) {
    for (int attempt = 0;; ++attempt) {
      Raw r;
      BUDCORE_TRY_ASSIGN(r, perform(method, path_query, body, content_type, opt.request_timeout, nullptr, nullptr, nullptr));
      if (r.status >= 200 && r.status < 300) return r;
      auto ra = retry_after(r);
      if ((r.status == 429 || (r.status == 503 && ra)) && attempt < opt.max_throttle_retries) {
        auto wait = core::Duration::seconds(ra.value_or(1));
        if (wait > opt.max_retry_after) wait = opt.max_retry_after;
        std::this_thread::sleep_for(std::chrono::nanoseconds(wait.count_ns()));
        continue;
      }
      Error e = refusal(what, r.status, r.body);
      if (r.status == 429 || r.status == 503) {
        e.message += " (still throttled after " + std::to_string(attempt) + " retries";
        if (ra) e.message += "; Retry-After " + std::to_string(*ra) + " s";
        e.message += ")";
        if (ra) {
          auto s = parse_status(r.status, e.value).value_or(ApiStatus{r.status, {}, {}, {}, {}, {}, {}, {}});
          s.retry_after_seconds = *ra;
          e.value = core::to_json(status_value(s));
        }
      }
      return e;
    }
  }

  core::Result<Value> call_json(const std::string& method, const std::string& path_query, std::string_view body,
                                std::string_view content_type, const std::string& what) {
    Raw r;
    BUDCORE_TRY_ASSIGN(r, call(method, path_query, body, content_type, what));
    if (r.body.empty()) return Value();
    auto v = core::parse_json(r.body);
    if (!v) return Error::make(ErrorCode::Io, what + ": the server's answer is not JSON: " + v.error().message);
    return std::move(*v);
  }
};

namespace {

std::string describe(std::string_view method, const Resource& r, std::string_view ns, std::string_view name) {
  std::string s = std::string(method) + " " + r.qualified();
  if (r.namespaced && !ns.empty()) s += " " + std::string(ns) + (name.empty() ? "" : "/");
  else if (!name.empty()) s += " ";
  s += name;
  return s;
}

core::Result<std::string> object_name(const Value& object, std::string_view op) {
  const Value* meta = object.find("metadata");
  const Value* name = meta != nullptr ? meta->find("name") : nullptr;
  if (name == nullptr || !name->is_string() || name->as_string().empty())
    return Error::invalid("metadata.name", {}, std::string(op) + " needs an object with metadata.name");
  return name->as_string();
}

std::string query(std::initializer_list<std::pair<std::string_view, std::string>> params) {
  std::string q;
  for (const auto& [k, v] : params) {
    if (v.empty()) continue;
    q += q.empty() ? "?" : "&";
    q += std::string(k) + "=" + url_encode(v);
  }
  return q;
}

}  // namespace

Client::Client(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Client::~Client() = default;

core::Result<std::unique_ptr<Client>> Client::open(ClusterConfig config, ClientOptions options) {
  if (config.server.empty()) return Error::invalid("server", {}, "the cluster's server URL is empty");
  if (config.server.rfind("https://", 0) != 0 && config.server.rfind("http://", 0) != 0)
    return Error::invalid("server", config.server, "expected an https:// URL");
  while (!config.server.empty() && config.server.back() == '/') config.server.pop_back();
  if (!config.ca_pem.empty() && config.ca_pem.find("-----BEGIN CERTIFICATE-----") == std::string::npos)
    return Error::invalid("ca_pem", {}, "certificate-authority data holds no PEM certificate");
  if (config.client_cert_pem.empty() != config.client_key_pem.empty())
    return Error::invalid("client_key_pem", {}, "a client certificate needs both the certificate and its key");
  if (options.burst < 1) return Error::invalid("burst", std::to_string(options.burst), "burst must be at least 1");
  if (options.request_timeout.count_ns() <= 0)
    return Error::invalid("request_timeout", options.request_timeout.to_string(), "must be positive");
  if (options.field_manager.empty()) return Error::invalid("field_manager", {}, "a field manager name is required");
  backends::curl::global_init_once();
  auto impl = std::make_unique<Impl>(std::move(config), std::move(options));
  BUDCORE_TRY(impl->parse_server());
  return std::unique_ptr<Client>(new Client(std::move(impl)));
}

const ClusterConfig& Client::config() const noexcept { return impl_->cfg; }
const ClientOptions& Client::options() const noexcept { return impl_->opt; }
std::uint64_t Client::requests_sent() const noexcept { return impl_->sent.load(); }

core::Result<Value> Client::get(const Resource& r, std::string_view ns, std::string_view name, std::string_view sub) {
  return impl_->call_json("GET", resource_path(r, ns, name, sub), {}, {}, describe("GET", r, ns, name));
}

core::Result<ObjectList> Client::list(const Resource& r, std::string_view ns, const ListOptions& o) {
  ObjectList out;
  std::string cont;
  for (int page = 0;; ++page) {
    std::string q = query({{"labelSelector", o.label_selector},
                           {"fieldSelector", o.field_selector},
                           {"limit", o.limit > 0 ? std::to_string(o.limit) : std::string()},
                           {"continue", cont},
                           {"resourceVersion", cont.empty() ? o.resource_version : std::string()}});
    Value v;
    BUDCORE_TRY_ASSIGN(v, impl_->call_json("GET", resource_path(r, ns) + q, {}, {}, describe("LIST", r, ns, {})));
    if (const Value* items = v.find("items"); items != nullptr && items->is_list())
      for (const Value& it : items->as_list()) {
        Value item = it;
        // List items carry no apiVersion/kind; add them so each item stands alone.
        if (item.is_map()) {
          item.mutable_map().set("apiVersion", r.api_version());
          item.mutable_map().set("kind", r.kind);
        }
        out.items.push_back(std::move(item));
      }
    const Value* meta = v.find("metadata");
    out.resource_version = meta != nullptr ? str_field(*meta, "resourceVersion") : std::string();
    cont = meta != nullptr ? str_field(*meta, "continue") : std::string();
    if (cont.empty()) return out;
  }
}

core::Result<Value> Client::create(const Resource& r, std::string_view ns, const Value& object) {
  std::string name = object.find("metadata") != nullptr ? str_field(*object.find("metadata"), "name") : std::string();
  return impl_->call_json("POST", resource_path(r, ns) + query({{"fieldManager", impl_->opt.field_manager}}),
                          core::to_json(object), "application/json", describe("POST", r, ns, name));
}

core::Result<Value> Client::replace(const Resource& r, std::string_view ns, const Value& object, std::string_view sub) {
  std::string name;
  BUDCORE_TRY_ASSIGN(name, object_name(object, "replace"));
  return impl_->call_json("PUT", resource_path(r, ns, name, sub) + query({{"fieldManager", impl_->opt.field_manager}}),
                          core::to_json(object), "application/json", describe("PUT", r, ns, name));
}

core::Result<Value> Client::patch(const Resource& r, std::string_view ns, std::string_view name, const Value& patch,
                                  PatchType type, std::string_view sub) {
  std::string_view ct = type == PatchType::Merge            ? "application/merge-patch+json"
                        : type == PatchType::StrategicMerge ? "application/strategic-merge-patch+json"
                                                            : "application/json-patch+json";
  return impl_->call_json("PATCH", resource_path(r, ns, name, sub) + query({{"fieldManager", impl_->opt.field_manager}}),
                          core::to_json(patch), ct, describe("PATCH", r, ns, name));
}

core::Result<Value> Client::apply(const Resource& r, std::string_view ns, const Value& object, bool force,
                                  std::string_view sub) {
  std::string name;
  BUDCORE_TRY_ASSIGN(name, object_name(object, "apply"));
  std::string q = query({{"fieldManager", impl_->opt.field_manager}, {"force", force ? "true" : ""}});
  // JSON is YAML: the apply content type takes it as is.
  return impl_->call_json("PATCH", resource_path(r, ns, name, sub) + q, core::to_json(object),
                          "application/apply-patch+yaml", describe("APPLY", r, ns, name));
}

core::Status Client::remove(const Resource& r, std::string_view ns, std::string_view name, const DeleteOptions& o) {
  Raw raw;
  BUDCORE_TRY_ASSIGN(raw, impl_->call("DELETE", resource_path(r, ns, name), delete_body(o), "application/json",
                                      describe("DELETE", r, ns, name)));
  return {};
}

core::Result<std::string> Client::request(std::string_view method, std::string_view path, std::string_view body,
                                          std::string_view content_type) {
  std::string m(method);
  if (path.empty() || path.front() != '/') return Error::invalid("path", std::string(path), "must start with '/'");
  Raw raw;
  BUDCORE_TRY_ASSIGN(raw, impl_->call(m, std::string(path), body, content_type, m + " " + std::string(path)));
  return std::move(raw.body);
}

core::Result<WatchEnd> Client::watch(const Resource& r, std::string_view ns, const WatchOptions& o,
                                     const EventHandler& on_event, const std::atomic<bool>* stop) {
  if (o.timeout_seconds <= 0 || o.timeout_seconds > 86400)
    return Error::invalid("timeout_seconds", std::to_string(o.timeout_seconds), "must be between 1 and 86400");
  std::string q = query({{"watch", "true"},
                         {"labelSelector", o.label_selector},
                         {"fieldSelector", o.field_selector},
                         {"resourceVersion", o.resource_version},
                         {"allowWatchBookmarks", o.allow_bookmarks ? "true" : ""},
                         {"timeoutSeconds", std::to_string(o.timeout_seconds)}});
  std::string what = describe("WATCH", r, ns, {});
  WatchEnd end;
  end.last_resource_version = o.resource_version;
  std::optional<Error> stream_error;
  bool gone = false;
  std::function<bool(std::string_view)> on_line = [&](std::string_view line) {
    auto v = core::parse_json(line);
    if (!v || !v->is_map()) {
      stream_error = Error::make(ErrorCode::Io, what + ": malformed watch event: " + (v ? "not an object" : v.error().message));
      return false;
    }
    std::string type = str_field(*v, "type");
    const Value* obj = v->find("object");
    if (obj == nullptr || !obj->is_map()) {
      stream_error = Error::make(ErrorCode::Io, what + ": watch event without an object");
      return false;
    }
    if (type == "ERROR") {
      auto s = parse_status(0, core::to_json(*obj));
      if (s && s->code == 410) {
        gone = true;
        return false;
      }
      stream_error = refusal(what, s ? s->code : 500, core::to_json(*obj));
      return false;
    }
    WatchEvent ev;
    if (type == "ADDED") ev.type = WatchEvent::Type::Added;
    else if (type == "MODIFIED") ev.type = WatchEvent::Type::Modified;
    else if (type == "DELETED") ev.type = WatchEvent::Type::Deleted;
    else if (type == "BOOKMARK") ev.type = WatchEvent::Type::Bookmark;
    else {
      stream_error = Error::make(ErrorCode::Io, what + ": unknown watch event type '" + type + "'");
      return false;
    }
    if (const Value* meta = obj->find("metadata"); meta != nullptr)
      if (auto rv = str_field(*meta, "resourceVersion"); !rv.empty()) end.last_resource_version = rv;
    ev.object = *obj;
    ++end.events;
    return on_event(ev);
  };
  bool stopped = false;
  auto timeout = core::Duration::seconds(o.timeout_seconds) + impl_->opt.request_timeout;
  Raw raw;
  BUDCORE_TRY_ASSIGN(raw, impl_->perform("GET", resource_path(r, ns) + q, {}, {}, timeout, &on_line, stop, &stopped));
  if (stream_error) return *stream_error;
  if (gone || raw.status == 410) {
    end.reason = WatchEnd::Reason::Gone;
    return end;
  }
  if (raw.status != 200) return refusal(what, raw.status, raw.body);
  end.reason = stopped ? WatchEnd::Reason::Stopped : WatchEnd::Reason::Closed;
  return end;
}

}  // namespace budcore::kubernetes
