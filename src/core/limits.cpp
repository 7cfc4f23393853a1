#include "budcore/core/limits.hpp"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace budcore::core {
namespace {

std::atomic<std::size_t> g_max_input_bytes{0};  // 0: not set by the program

std::size_t env_max_input_bytes() noexcept {
  static const std::size_t value = [] {
    const char* s = std::getenv("BUDCORE_MAX_INPUT_BYTES");
    if (s == nullptr) return kDefaultMaxInputBytes;
    std::size_t v = 0;
    std::string_view t(s);
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || p != t.data() + t.size() || v == 0) return kDefaultMaxInputBytes;
    return v;
  }();
  return value;
}

std::string with_size(std::string_view what, std::size_t n) { return std::string(what) + " " + std::to_string(n) + " bytes"; }

struct StackBounds {
  bool read = false;
  std::uintptr_t floor = 0;
};

StackBounds read_stack_bounds() noexcept {
  StackBounds b;
  b.read = true;
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return b;
  void* addr = nullptr;
  std::size_t size = 0;
  if (pthread_attr_getstack(&attr, &addr, &size) == 0 && addr != nullptr && size > 0) {
    std::size_t reserve = std::min<std::size_t>(size / 4, std::size_t{256} << 10);
    b.floor = reinterpret_cast<std::uintptr_t>(addr) + reserve;
  }
  pthread_attr_destroy(&attr);
  return b;
}

}  // namespace

std::size_t max_input_bytes() noexcept {
  std::size_t v = g_max_input_bytes.load(std::memory_order_relaxed);
  return v != 0 ? v : env_max_input_bytes();
}

void set_max_input_bytes(std::size_t bytes) noexcept { g_max_input_bytes.store(bytes, std::memory_order_relaxed); }

Status check_input_size(std::size_t size, std::string_view field, std::size_t max) {
  if (size <= max) return {};
  return Error::invalid(std::string(field), {},
                        with_size("input is", size) + ", over the limit of " + std::to_string(max) +
                            " bytes (BUDCORE_MAX_INPUT_BYTES or --max-input-bytes raise it)");
}

Result<std::string> read_input(const std::string& path, std::size_t max, std::string_view field) {
  const std::string shown = path == "-" ? std::string("<stdin>") : truncate_text(path);
  auto io_error = [&](std::string why) {
    return Error{ErrorCode::Io, "cannot open file '" + shown + "': " + why, std::string(field), shown};
  };
  std::FILE* f = nullptr;
  if (path == "-") {
    f = stdin;
  } else {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) return io_error("it is a directory");
    f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) return io_error(std::generic_category().message(errno));  // strerror is not thread-safe
  }
  std::string text;
  char buf[1 << 16];
  bool too_big = false;
  while (true) {
    std::size_t want = std::min(sizeof buf, max + 1 - std::min(max + 1, text.size()));
    if (want == 0) {
      too_big = true;
      break;
    }
    std::size_t n = std::fread(buf, 1, want, f);
    text.append(buf, n);
    if (n < want) break;
  }
  const int read_errno = std::ferror(f) != 0 ? errno : 0;
  if (f != stdin) std::fclose(f);
  if (too_big || text.size() > max) {
    // Only the process-wide cap is the caller's to raise; a reader's own cap is fixed.
    const bool global = max == max_input_bytes();
    return Error::invalid(std::string(field), shown,
                          shown + " is larger than the input limit of " + std::to_string(max) + " bytes" +
                              (global ? " (BUDCORE_MAX_INPUT_BYTES or --max-input-bytes raise it)" : ""));
  }
  if (read_errno != 0) {
    return Error{ErrorCode::Io, "cannot read file '" + shown + "': " + std::generic_category().message(read_errno),
                 std::string(field), shown};
  }
  return text;
}

std::string truncate_text(std::string_view text, std::size_t max) {
  if (text.size() <= max) return std::string(text);
  std::size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // keep whole characters
  std::string out(text.substr(0, cut));
  out += "... (";
  out += std::to_string(text.size());
  out += " bytes)";
  return out;
}

Error clamp_for_display(Error e) {
  if (e.value.size() > kMaxQuotedBytes) e.value = truncate_text(e.value, kMaxQuotedBytes);
  if (e.message.size() > kMaxMessageBytes) e.message = truncate_text(e.message, kMaxMessageBytes);
  if (e.field.size() > kMaxMessageBytes) e.field = truncate_text(e.field, kMaxMessageBytes);
  for (auto& other : e.others) other = clamp_for_display(std::move(other));
  return e;
}

std::uintptr_t stack_floor() noexcept {
  thread_local StackBounds bounds;
  if (!bounds.read) bounds = read_stack_bounds();
  return bounds.floor;
}

Status check_range(std::int64_t v, std::int64_t lo, std::int64_t hi, std::string_view field) {
  if (v >= lo && v <= hi) return {};
  return Error::invalid(std::string(field), std::to_string(v),
                        "must be between " + std::to_string(lo) + " and " + std::to_string(hi));
}

}  // namespace budcore::core
