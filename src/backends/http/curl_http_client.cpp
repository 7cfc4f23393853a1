// The libcurl HttpClient: one easy handle per call, from curl::HandlePool so keep-alive
// connections are reused between calls.
#include <curl/curl.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cctype>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "backends/http/curl_common.hpp"
#include "budcore/backend/http_client.hpp"

namespace budcore::backend {
namespace curl = backends::curl;
namespace {

using core::Error;
using core::ErrorCode;
using curl::lower;
using curl::to_ms;

constexpr std::array<std::string_view, 6> kMethods = {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"};

bool has_ctl(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return c == '\r' || c == '\n' || c == '\0'; });
}

// A header name is an RFC 9110 token.
bool is_token(std::string_view s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return std::isalnum(u) || std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
  });
}

core::Status validate(const HttpRequest& req) {
  if (std::find(kMethods.begin(), kMethods.end(), req.method) == kMethods.end())
    return Error::invalid("method", req.method, "unsupported HTTP method; expected one of GET, POST, PUT, PATCH, DELETE, HEAD");
  if (req.url.empty()) return Error::invalid("url", req.url, "URL is empty");
  if (has_ctl(req.url) || req.url.find(' ') != std::string::npos)
    return Error::invalid("url", req.url, "URL contains spaces or control characters");
  std::unique_ptr<CURLU, decltype(&curl_url_cleanup)> u(curl_url(), curl_url_cleanup);
  if (!u) throw std::bad_alloc();
  if (CURLUcode rc = curl_url_set(u.get(), CURLUPART_URL, req.url.c_str(), 0); rc != CURLUE_OK)
    return Error::invalid("url", req.url, std::string("malformed URL: ") + curl_url_strerror(rc));
  char* scheme = nullptr;
  if (curl_url_get(u.get(), CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK)
    return Error::invalid("url", req.url, "URL has no scheme");
  std::string s = lower(scheme);
  curl_free(scheme);
  if (s != "http" && s != "https") return Error::invalid("url", req.url, "scheme must be http or https");
  for (std::size_t i = 0; i < req.headers.size(); ++i) {
    const auto& [name, value] = req.headers[i];
    std::string field = "headers[" + std::to_string(i) + "]";
    if (!is_token(name)) return Error::invalid(field, name, "header name is not a valid HTTP token");
    if (has_ctl(value)) return Error::invalid(field, value, "header value contains CR, LF or NUL");
  }
  if (req.timeout.count_ns() <= 0)
    return Error::invalid("timeout", req.timeout.to_string(), "timeout must be positive");
  return {};
}

struct Transfer {
  HttpResponse response;
  std::size_t max_bytes = 0;
  bool too_large = false;
};

std::size_t on_body(char* data, std::size_t size, std::size_t nmemb, void* user) {
  auto* t = static_cast<Transfer*>(user);
  std::size_t n = size * nmemb;
  if (t->response.body.size() + n > t->max_bytes) {
    t->too_large = true;
    return 0;  // curl aborts with CURLE_WRITE_ERROR
  }
  t->response.body.append(data, n);
  return n;
}

class CurlHttpClient final : public HttpClient {
 public:
  explicit CurlHttpClient(CurlHttpOptions options) : options_(std::move(options)) { curl::global_init_once(); }

  core::Result<HttpResponse> send(const HttpRequest& req) override {
    BUDCORE_TRY(validate(req));
    CURL* h = pool_.acquire();
    Transfer t;
    t.max_bytes = options_.max_response_bytes;
    auto result = perform(h, req, t);
    pool_.release(h);
    return result;
  }

 private:
  core::Result<HttpResponse> perform(CURL* h, const HttpRequest& req, Transfer& t) {
    std::array<char, CURL_ERROR_SIZE> errbuf{};
    curl_slist* headers = nullptr;
    bool has_expect = false;
    for (const auto& [name, value] : req.headers) {
      if (lower(name) == "expect") has_expect = true;
      // "Name;" is curl's way of sending a header with an empty value.
      std::string line = value.empty() ? name + ";" : name + ": " + value;
      headers = curl_slist_append(headers, line.c_str());
    }
    // No "Expect: 100-continue" round trip for large bodies unless the caller asks for it.
    if (!has_expect) headers = curl_slist_append(headers, "Expect:");
    std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> header_guard(headers, curl_slist_free_all);

    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf.data());
    curl_easy_setopt(h, CURLOPT_URL, req.url.c_str());
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);  // required with timeouts in threaded programs
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, options_.follow_redirects ? 1L : 0L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, 10L);
    curl_easy_setopt(h, CURLOPT_USERAGENT, options_.user_agent.c_str());
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, to_ms(req.timeout));
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, to_ms(options_.connect_timeout));
    curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(options_.max_response_bytes));
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, curl::collect_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &t.response.headers);
    if (req.method == "HEAD") {
      curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    } else if (req.method == "GET" && req.body.empty()) {
      curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    } else {
      if (req.method != "POST") curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, req.method.c_str());
      if (!req.body.empty() || req.method == "POST" || req.method == "PUT" || req.method == "PATCH") {
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body.size()));
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, req.body.data());
      }
    }

    CURLcode rc = curl_easy_perform(h);
    if (rc != CURLE_OK) return transport_error(req, rc, errbuf.data(), t);
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    t.response.status = static_cast<int>(status);
    return std::move(t.response);
  }

  Error transport_error(const HttpRequest& req, CURLcode rc, const char* errbuf, const Transfer& t) const {
    std::string detail = errbuf[0] != '\0' ? errbuf : curl_easy_strerror(rc);
    std::string what;
    if (t.too_large || rc == CURLE_FILESIZE_EXCEEDED) {
      what = "response body exceeds the limit of " + std::to_string(options_.max_response_bytes) + " bytes";
    } else if (rc == CURLE_OPERATION_TIMEDOUT) {
      what = "timed out (" + detail + ")";
    } else {
      what = "failed: " + detail;
    }
    Error e = Error::make(ErrorCode::Io, req.method + " " + req.url + " " + what, "url");
    e.value = req.url;
    return e;
  }

  CurlHttpOptions options_;
  curl::HandlePool pool_;
};

}  // namespace

std::unique_ptr<HttpClient> make_curl_http_client(const CurlHttpOptions& options) {
  return std::make_unique<CurlHttpClient>(options);
}

}  // namespace budcore::backend
