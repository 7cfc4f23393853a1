// budcore::backend::HttpClient — how API_CALL steps and webhook notifiers reach HTTP services.
// The engine depends on this interface only; make_curl_http_client() is the libcurl implementation.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"

namespace budcore::backend {

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method = "GET";  // GET, POST, PUT, PATCH, DELETE, HEAD
  std::string url;
  HttpHeaders headers;
  std::string body;
  core::Duration timeout = core::Duration::seconds(30);
};

struct HttpResponse {
  int status = 0;
  HttpHeaders headers;  // names lower-cased
  std::string body;
};

// Thread-safety: implementations may be called from several threads at once.
// A transport failure (DNS, refused, timeout) is an Error (code Io; a timeout says so); any
// HTTP status, including 4xx/5xx, is a response — callers decide what a status means.
class BUDCORE_API HttpClient {
 public:
  virtual ~HttpClient() = default;
  virtual core::Result<HttpResponse> send(const HttpRequest& request) = 0;
};

struct CurlHttpOptions {
  core::Duration connect_timeout = core::Duration::seconds(10);
  std::size_t max_response_bytes = 16u << 20;  // larger bodies are an error, not a crash
  bool follow_redirects = false;
  std::string user_agent = "budcore";
};

BUDCORE_API std::unique_ptr<HttpClient> make_curl_http_client(const CurlHttpOptions& options = {});

}  // namespace budcore::backend
