#include <cstdlib>
#include <cstring>
#include <vector>

#include "budcore/core/limits.hpp"
#include "budcore/core/utf8.hpp"
#include "capi_internal.hpp"

namespace budcore::capi {
namespace {

struct ThreadError {
  std::string message, field, value, kind;
  budcore_error view{BUDCORE_OK, "", "", "", 0, "", 0, 0};
  long long retry_after_ms = 0;
  int line = 0, column = 0;
  // The same kind, line and column for the deprecated budcore_template_error_last().
  budcore_template_error template_view{"", 0, 0};
  // The error's other problems (problems 1..n) and their views; set_error fills both.
  std::vector<core::Error> others;
  std::vector<budcore_error> other_views;
  void publish(int code) {
    view = budcore_error{code, message.c_str(), field.c_str(), value.c_str(), retry_after_ms, kind.c_str(), line, column};
    template_view = budcore_template_error{kind.c_str(), line, column};
    other_views.clear();
    for (const auto& o : others) {
      other_views.push_back(
          budcore_error{status_of(o.code), o.message.c_str(), o.field.c_str(), o.value.c_str(), 0, "", 0, 0});
    }
  }
  // An error that is not about a position in a text input.
  void clear_position() {
    kind.clear();
    line = column = 0;
  }
};

ThreadError& tls() {
  thread_local ThreadError e;
  return e;
}


}  // namespace

int status_of(core::ErrorCode code) noexcept {
  using core::ErrorCode;
  switch (code) {
    case ErrorCode::Invalid: return BUDCORE_EINVALID;
    case ErrorCode::NotFound: return BUDCORE_ENOTFOUND;
    case ErrorCode::AlreadyExists: return BUDCORE_EEXISTS;
    case ErrorCode::Conflict: return BUDCORE_ECONFLICT;
    case ErrorCode::QuotaExceeded: return BUDCORE_EQUOTA;
    case ErrorCode::BudgetExceeded: return BUDCORE_EBUDGET;
    case ErrorCode::Overflow: return BUDCORE_EOVERFLOW;
    case ErrorCode::Unsupported: return BUDCORE_EUNSUPPORTED;
    case ErrorCode::Security: return BUDCORE_ESECURITY;
    case ErrorCode::Io: return BUDCORE_EIO;
    case ErrorCode::Internal: return BUDCORE_ERROR;
    case ErrorCode::RateLimited: return BUDCORE_ERATELIMITED;
    case ErrorCode::NotLeader: return BUDCORE_ENOTLEADER;
    case ErrorCode::Gone: return BUDCORE_EGONE;
  }
  return BUDCORE_ERROR;
}

int set_error(const core::Error& full) noexcept {
  try {
    // A 48 MB offending value is quoted by its first bytes and its length.
    const core::Error e = core::clamp_for_display(full);
    auto& t = tls();
    t.message = e.message;
    t.field = e.field;
    t.value = e.value;
    t.retry_after_ms = e.retry_after_ms;
    t.others = e.others;
    t.clear_position();
    int code = status_of(e.code);
    t.publish(code);
    return code;
  } catch (...) {
    return BUDCORE_ENOMEM;
  }
}

int set_error(int status, std::string_view message, std::string_view field) noexcept {
  try {
    auto& t = tls();
    t.message.assign(message.substr(0, core::kMaxMessageBytes));
    t.field.assign(field.substr(0, core::kMaxMessageBytes));
    t.value.clear();
    t.retry_after_ms = 0;
    t.others.clear();
    t.clear_position();
    t.publish(status);
  } catch (...) {
  }
  return status;
}

void clear_error() noexcept {
  auto& t = tls();
  t.message.clear();
  t.field.clear();
  t.value.clear();
  t.retry_after_ms = 0;
  t.others.clear();
  t.clear_position();
  t.publish(BUDCORE_OK);
}

int set_template_error(int status, std::string_view message, std::string_view field, std::string_view kind, int line,
                       int column) noexcept {
  int code = set_error(status, message, field);
  try {
    auto& t = tls();
    t.kind.assign(kind);
    t.line = line;
    t.column = column;
    t.publish(code);
  } catch (...) {
  }
  return code;
}

bool known_version(unsigned int version, unsigned int newest, std::string_view field) noexcept {
  if (version != 0 && version <= newest) return true;
  try {
    std::string why = version == 0 ? "is 0: the struct was not initialised (start from its _INIT macro)"
                                    : "is newer than this library knows (at most " + std::to_string(newest) +
                                          "): the program was built against a later header";
    set_error(core::Error::invalid(std::string(field), std::to_string(version), std::string(field) + " " + why));
  } catch (...) {
    set_error(BUDCORE_ENOMEM, "out of memory");
  }
  return false;
}

bool empty_out(const budcore_buf* out, std::string_view field) noexcept {
  if (out == nullptr) {
    set_error(BUDCORE_EINVALID, "output buffer is NULL", field);
    return false;
  }
  if (out->ptr != nullptr) {
    set_error(BUDCORE_EINVALID, "output buffer still holds text; dispose of it or pass BUDCORE_BUF_INIT", field);
    return false;
  }
  return true;
}

int fill_buf(budcore_buf* out, std::string_view text, std::string_view field) noexcept {
  if (!empty_out(out, field)) return budcore_error_last()->code;
  auto* p = static_cast<char*>(std::malloc(text.size() + 1));
  if (p == nullptr) return set_error(BUDCORE_ENOMEM, "out of memory");
  if (!text.empty()) std::memcpy(p, text.data(), text.size());
  p[text.size()] = '\0';
  out->ptr = p;
  out->size = text.size();
  return BUDCORE_OK;
}

bool input_text(const char* s, std::size_t len, std::string_view field, std::string_view& view) noexcept {
  if (s == nullptr && len != 0) {
    set_error(BUDCORE_EINVALID, "text pointer is NULL but its length is not 0", field);
    return false;
  }
  view = s == nullptr ? std::string_view{} : std::string_view(s, len);
  // Refused before it is even scanned: no C input is larger than a document may be.
  if (len > core::max_input_bytes()) {
    set_error(BUDCORE_EINVALID,
              "input is " + std::to_string(len) + " bytes, over the limit of " + std::to_string(core::max_input_bytes()) +
                  " bytes (BUDCORE_MAX_INPUT_BYTES raises it)",
              field);
    return false;
  }
  if (auto bad = core::find_invalid_utf8(view)) {
    set_error(BUDCORE_EINVALID, std::string(field) + " is not valid UTF-8 (byte " + std::to_string(*bad) + ")", field);
    return false;
  }
  return true;
}

}  // namespace budcore::capi

extern "C" {

const budcore_error* budcore_error_last(void) { return &budcore::capi::tls().view; }

const budcore_template_error* budcore_template_error_last(void) { return &budcore::capi::tls().template_view; }

size_t budcore_error_problem_count(void) {
  const auto& t = budcore::capi::tls();
  return t.view.code == BUDCORE_OK ? 0 : 1 + t.other_views.size();
}

const budcore_error* budcore_error_problem(size_t index) {
  const auto& t = budcore::capi::tls();
  if (index >= budcore_error_problem_count()) return nullptr;
  return index == 0 ? &t.view : &t.other_views[index - 1];
}

void budcore_error_clear(void) { budcore::capi::clear_error(); }

void budcore_buf_dispose(budcore_buf* buf) {
  if (buf == nullptr) return;
  std::free(buf->ptr);
  buf->ptr = nullptr;
  buf->size = 0;
}

void budcore_free(void* ptr) { std::free(ptr); }

const char* budcore_strerror(int code) {
  switch (code) {
    case BUDCORE_OK: return "success";
    case BUDCORE_ERROR: return "internal error";
    case BUDCORE_EINVALID: return "invalid input";
    case BUDCORE_ENOTFOUND: return "not found";
    case BUDCORE_EEXISTS: return "already exists";
    case BUDCORE_ECONFLICT: return "conflict";
    case BUDCORE_EQUOTA: return "quota exceeded";
    case BUDCORE_EBUDGET: return "budget exceeded";
    case BUDCORE_EUSER: return "aborted by user callback";
    case BUDCORE_ENOMEM: return "out of memory";
    case BUDCORE_EOVERFLOW: return "arithmetic overflow";
    case BUDCORE_ESECURITY: return "refused by a security rule";
    case BUDCORE_ERATELIMITED: return "rate limited: retry later";
    case BUDCORE_ENOTLEADER: return "not the leader";
    case BUDCORE_EGONE: return "gone: removed by retention";
    case BUDCORE_EIO: return "I/O failure";
    case BUDCORE_EUNSUPPORTED: return "unsupported";
    default: return "unknown status code";
  }
}

}  // extern "C"
