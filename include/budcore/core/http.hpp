// budcore::core::HttpClient — the interface through which API_CALL steps, webhook notifiers
// and cost alerts reach HTTP services. It lives in core so that every layer (pipeline, cost,
// platform) can depend on it without depending on the backends; the libcurl implementation
// is backend::make_curl_http_client (budcore/backend/http_client.hpp).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"

namespace budcore::core {

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method = "GET";  // GET, POST, PUT, PATCH, DELETE, HEAD
  std::string url;
  HttpHeaders headers;
  std::string body;
  Duration timeout = Duration::seconds(30);
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
  virtual Result<HttpResponse> send(const HttpRequest& request) = 0;
};

}  // namespace budcore::core
