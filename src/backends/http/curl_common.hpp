// What the libcurl clients share (the HttpClient of curl_http_client.cpp and the Kubernetes
// transport): one-time global init, header parsing, millisecond timeouts, and a small pool of
// idle easy handles so keep-alive connections are reused between calls.
#pragma once

#include <curl/curl.h>

#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/backend/http_client.hpp"
#include "budcore/core/time.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::backends::curl {

// curl_global_init, once per process (it is not thread-safe in every libcurl build).
void global_init_once();

std::string lower(std::string_view s);
std::string_view trim(std::string_view s);

// A CURLOPT_HEADERFUNCTION for a backend::HttpHeaders* (names lower-cased); a new status line
// (1xx, or a followed redirect) clears what an earlier response left.
std::size_t collect_header(char* data, std::size_t size, std::size_t nmemb, void* headers);

// A duration as curl's millisecond timeout: at least 1 ms when positive, capped at INT32_MAX.
long to_ms(core::Duration d);

// Idle easy handles; acquire() makes a new one when none is idle, release() resets a handle
// (options cleared, connection cache kept) and keeps at most `max_idle`.
class HandlePool {
 public:
  explicit HandlePool(std::size_t max_idle = 8) : max_idle_(max_idle) {}
  ~HandlePool();
  HandlePool(const HandlePool&) = delete;
  HandlePool& operator=(const HandlePool&) = delete;
  CURL* acquire();
  void release(CURL* h);

 private:
  std::size_t max_idle_;
  std::mutex mu_;
  std::vector<CURL*> idle_;
};

}  // namespace budcore::backends::curl

#pragma GCC visibility pop
