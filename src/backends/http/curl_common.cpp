#include "backends/http/curl_common.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <new>

namespace budcore::backends::curl {

void global_init_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n'))
    s.remove_suffix(1);
  return s;
}

std::size_t collect_header(char* data, std::size_t size, std::size_t nmemb, void* user) {
  auto* headers = static_cast<backend::HttpHeaders*>(user);
  std::size_t n = size * nmemb;
  std::string_view line(data, n);
  if (line.rfind("HTTP/", 0) == 0) {
    headers->clear();
    return n;
  }
  auto colon = line.find(':');
  if (colon == std::string_view::npos) return n;  // the blank line ending the head
  headers->emplace_back(lower(trim(line.substr(0, colon))), std::string(trim(line.substr(colon + 1))));
  return n;
}

long to_ms(core::Duration d) {
  auto ms = d.count_ns() / 1'000'000;
  if (ms <= 0 && d.count_ns() > 0) ms = 1;
  return static_cast<long>(std::min<std::int64_t>(ms, INT32_MAX));
}

HandlePool::~HandlePool() {
  for (CURL* h : idle_) curl_easy_cleanup(h);
}

CURL* HandlePool::acquire() {
  {
    std::lock_guard lock(mu_);
    if (!idle_.empty()) {
      CURL* h = idle_.back();
      idle_.pop_back();
      return h;
    }
  }
  global_init_once();
  CURL* h = curl_easy_init();
  if (h == nullptr) throw std::bad_alloc();
  return h;
}

void HandlePool::release(CURL* h) {
  curl_easy_reset(h);
  std::lock_guard lock(mu_);
  if (idle_.size() < max_idle_) {
    idle_.push_back(h);
    return;
  }
  curl_easy_cleanup(h);
}

}  // namespace budcore::backends::curl
