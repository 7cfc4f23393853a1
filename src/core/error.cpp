#include "budcore/core/error.hpp"

namespace budcore::core {

std::string_view to_string(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::Invalid: return "invalid";
    case ErrorCode::NotFound: return "not_found";
    case ErrorCode::AlreadyExists: return "already_exists";
    case ErrorCode::Conflict: return "conflict";
    case ErrorCode::QuotaExceeded: return "quota_exceeded";
    case ErrorCode::BudgetExceeded: return "budget_exceeded";
    case ErrorCode::Overflow: return "overflow";
    case ErrorCode::Unsupported: return "unsupported";
    case ErrorCode::Security: return "security";
    case ErrorCode::Io: return "io";
    case ErrorCode::Internal: return "internal";
    case ErrorCode::RateLimited: return "rate_limited";
    case ErrorCode::NotLeader: return "not_leader";
    case ErrorCode::Gone: return "gone";
  }
  return "internal";
}

Error Error::invalid(std::string field, std::string value, std::string why) {
  return Error{ErrorCode::Invalid, std::move(why), std::move(field), std::move(value)};
}

Error Error::make(ErrorCode code, std::string message, std::string field) {
  return Error{code, std::move(message), std::move(field), {}};
}

std::string join_path(std::string_view parent, std::string_view child) {
  if (parent.empty()) return std::string(child);
  if (child.empty()) return std::string(parent);
  std::string out(parent);
  if (child.front() != '[') out += '.';
  out += child;
  return out;
}

Error& Error::at(std::string_view parent) {
  field = join_path(parent, field);
  for (auto& e : others) e.at(parent);
  return *this;
}

std::vector<Error> Error::all_problems() const {
  std::vector<Error> all;
  all.reserve(1 + others.size());
  all.push_back(Error{code, message, field, value, retry_after_ms});
  all.insert(all.end(), others.begin(), others.end());
  return all;
}

std::string Error::describe() const {
  std::string out;
  if (!field.empty()) {
    out += field;
    out += ": ";
  }
  out += message;
  if (!value.empty()) {
    out += " (value: '";
    out += value;
    out += "')";
  }
  return out;
}

}  // namespace budcore::core
