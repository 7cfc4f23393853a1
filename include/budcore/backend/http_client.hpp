// The libcurl HttpClient. The interface itself (HttpClient, HttpRequest, HttpResponse) is in
// budcore/core/http.hpp so that layers above core need not depend on the backends; the names
// below keep backend:: spellings working.
#pragma once

#include <memory>
#include <string>

#include "budcore/core/http.hpp"

namespace budcore::backend {

using HttpHeaders = core::HttpHeaders;
using HttpRequest = core::HttpRequest;
using HttpResponse = core::HttpResponse;
using HttpClient = core::HttpClient;

struct CurlHttpOptions {
  core::Duration connect_timeout = core::Duration::seconds(10);
  std::size_t max_response_bytes = 16u << 20;  // larger bodies are an error, not a crash
  bool follow_redirects = false;
  std::string user_agent = "budcore";
};

BUDCORE_API std::unique_ptr<HttpClient> make_curl_http_client(const CurlHttpOptions& options = {});

}  // namespace budcore::backend
