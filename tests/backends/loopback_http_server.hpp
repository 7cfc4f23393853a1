// A real HTTP/1.1 server on 127.0.0.1 (ephemeral port) running inside the test process, so
// HTTP clients are tested over a real socket. It records every request and answers with
// scripted responses: status, headers, body, a delay, a huge body, or a dropped connection.
// Each connection is served on its own thread; keep-alive is honoured.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace budcore::testing {

struct RecordedRequest {
  std::string method;
  std::string target;  // "/path?query"
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased, in order
  std::string body;

  // The first value of a header (name compared case-insensitively), if present.
  std::optional<std::string> header(std::string name) const {
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const auto& [k, v] : headers)
      if (k == name) return v;
    return std::nullopt;
  }
};

struct ScriptedResponse {
  int status = 200;
  std::string reason = "OK";
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::chrono::milliseconds delay{0};  // wait before answering
  bool drop_connection = false;        // close the socket instead of answering
  // Announce the full Content-Length but close after this many body bytes.
  std::optional<std::size_t> truncate_body_at;
  // No Content-Length: send the body and close (the reader learns the size only at the end).
  bool close_delimited = false;
};

class LoopbackHttpServer {
 public:
  using Handler = std::function<ScriptedResponse(const RecordedRequest&)>;

  LoopbackHttpServer() {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listen_fd_ < 0) throw std::runtime_error("socket() failed");
    int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;  // ephemeral
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(listen_fd_, 64) != 0) {
      ::close(listen_fd_);
      throw std::runtime_error("bind/listen on 127.0.0.1 failed");
    }
    socklen_t len = sizeof addr;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    acceptor_ = std::thread([this] { accept_loop(); });
  }

  LoopbackHttpServer(const LoopbackHttpServer&) = delete;
  LoopbackHttpServer& operator=(const LoopbackHttpServer&) = delete;

  ~LoopbackHttpServer() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    acceptor_.join();
    std::vector<std::thread> workers;
    {
      std::lock_guard lock(mu_);
      for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);  // wake blocked reads
      workers.swap(workers_);
    }
    for (auto& t : workers) t.join();
    ::close(listen_fd_);
  }

  int port() const { return port_; }
  std::string url(const std::string& path = "/") const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }

  // Responses are taken from the queue first, then from the handler (default: 200 "ok").
  void enqueue(ScriptedResponse r) {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(r));
  }
  void set_handler(Handler h) {
    std::lock_guard lock(mu_);
    handler_ = std::move(h);
  }

  std::vector<RecordedRequest> requests() const {
    std::lock_guard lock(mu_);
    return requests_;
  }
  std::size_t connections_accepted() const { return connections_.load(); }

 private:
  void accept_loop() {
    for (;;) {
      {
        std::lock_guard lock(mu_);
        if (stopping_) return;
      }
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      connections_.fetch_add(1);
      std::lock_guard lock(mu_);
      open_fds_.push_back(fd);
      workers_.emplace_back([this, fd] { serve(fd); });
    }
  }

  void close_fd(int fd) {
    {
      std::lock_guard lock(mu_);
      open_fds_.erase(std::remove(open_fds_.begin(), open_fds_.end(), fd), open_fds_.end());
    }
    ::close(fd);
  }

  static bool send_all(int fd, const char* data, std::size_t n) {
    while (n > 0) {
      ssize_t w = ::send(fd, data, n, MSG_NOSIGNAL);
      if (w <= 0) return false;
      data += w;
      n -= static_cast<std::size_t>(w);
    }
    return true;
  }

  // Reads one request from fd (buffer keeps bytes of a pipelined next request).
  static std::optional<RecordedRequest> read_request(int fd, std::string& buf) {
    auto fill = [&]() {
      char chunk[16384];
      ssize_t r = ::recv(fd, chunk, sizeof chunk, 0);
      if (r <= 0) return false;
      buf.append(chunk, static_cast<std::size_t>(r));
      return true;
    };
    std::size_t head_end;
    while ((head_end = buf.find("\r\n\r\n")) == std::string::npos)
      if (!fill()) return std::nullopt;
    RecordedRequest req;
    std::string head = buf.substr(0, head_end);
    buf.erase(0, head_end + 4);
    std::size_t line_end = head.find("\r\n");
    std::string request_line = head.substr(0, line_end);
    std::size_t sp1 = request_line.find(' ');
    std::size_t sp2 = request_line.find(' ', sp1 + 1);
    req.method = request_line.substr(0, sp1);
    req.target = request_line.substr(sp1 + 1, sp2 - sp1 - 1);
    std::size_t pos = line_end == std::string::npos ? head.size() : line_end + 2;
    while (pos < head.size()) {
      std::size_t e = head.find("\r\n", pos);
      if (e == std::string::npos) e = head.size();
      std::string line = head.substr(pos, e - pos);
      pos = e + 2;
      std::size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string name = line.substr(0, colon);
      for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      std::string value = line.substr(colon + 1);
      value.erase(0, value.find_first_not_of(" \t"));
      req.headers.emplace_back(std::move(name), std::move(value));
    }
    if (auto expect = req.header("expect"); expect && *expect == "100-continue")
      send_all(fd, "HTTP/1.1 100 Continue\r\n\r\n", 25);
    std::size_t length = 0;
    if (auto cl = req.header("content-length")) length = std::stoul(*cl);
    while (buf.size() < length)
      if (!fill()) return std::nullopt;
    req.body = buf.substr(0, length);
    buf.erase(0, length);
    return req;
  }

  void serve(int fd) {
    std::string buf;
    for (;;) {
      auto req = read_request(fd, buf);
      if (!req) break;
      ScriptedResponse resp;
      {
        std::lock_guard lock(mu_);
        requests_.push_back(*req);
        if (!queue_.empty()) {
          resp = std::move(queue_.front());
          queue_.pop_front();
        } else if (handler_) {
          resp = handler_(*req);
        } else {
          resp.body = "ok";
        }
      }
      if (resp.delay.count() > 0) {
        std::unique_lock lock(mu_);
        if (cv_.wait_for(lock, resp.delay, [this] { return stopping_; })) break;
      }
      if (resp.drop_connection) break;
      std::string out = "HTTP/1.1 " + std::to_string(resp.status) + " " + resp.reason + "\r\n";
      for (const auto& [k, v] : resp.headers) out += k + ": " + v + "\r\n";
      if (resp.close_delimited) {
        out += "Connection: close\r\n";
      } else {
        out += "Content-Length: " + std::to_string(resp.body.size()) + "\r\n";
      }
      out += "\r\n";
      bool head_only = req->method == "HEAD";
      std::size_t body_len = head_only ? 0 : resp.body.size();
      if (resp.truncate_body_at) body_len = std::min(body_len, *resp.truncate_body_at);
      if (!send_all(fd, out.data(), out.size()) || !send_all(fd, resp.body.data(), body_len)) break;
      if (resp.close_delimited || resp.truncate_body_at) break;
      if (auto c = req->header("connection"); c && *c == "close") break;
    }
    close_fd(fd);
  }

  int listen_fd_ = -1;
  int port_ = 0;
  std::thread acceptor_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
  std::vector<int> open_fds_;
  std::deque<ScriptedResponse> queue_;
  Handler handler_;
  std::vector<RecordedRequest> requests_;
  std::atomic<std::size_t> connections_{0};
};

// A port on 127.0.0.1 that nothing listens on: bound, then closed again (connection refused).
inline int closed_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  int port = ntohs(addr.sin_port);
  ::close(fd);
  return port;
}

}  // namespace budcore::testing
