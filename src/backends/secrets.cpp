// Secret references, the built-in providers (environment, files), the resolver that redacts what
// it resolved, and the HTTP client decorator that expands references at the wire.
#include "budcore/backend/secret_provider.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace budcore::backend {

using core::Error;
using core::ErrorCode;

SecretProvider::~SecretProvider() = default;

namespace {

constexpr std::size_t kMaxName = 128;
constexpr std::size_t kMaxFileBytes = 64 * 1024;
constexpr std::size_t kMinValue = 4;

bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

// Calls fn(begin, end, name) for each reference in text; stops at the first error.
template <class Fn>
core::Status each_ref(std::string_view text, std::string_view field, Fn&& fn) {
  for (std::size_t at = text.find(kSecretScheme); at != std::string_view::npos; at = text.find(kSecretScheme, at)) {
    std::size_t end = at + kSecretScheme.size();
    while (end < text.size() && name_char(text[end])) ++end;
    const std::string_view name = text.substr(at + kSecretScheme.size(), end - at - kSecretScheme.size());
    if (name.empty() || name.size() > kMaxName)
      return Error::invalid(std::string(field), std::string(text.substr(at, std::min<std::size_t>(end - at + 8, 64))),
                            "secret:// must be followed by a name of 1 to 128 letters, digits, '.', '_' or '-'");
    BUDCORE_TRY(fn(at, end, name));
    at = end;
  }
  return {};
}

class EnvProvider final : public SecretProvider {
 public:
  explicit EnvProvider(std::string prefix) : prefix_(std::move(prefix)) {}
  std::string_view name() const noexcept override { return "env"; }
  core::Result<std::string> resolve(const core::Id& tenant, std::string_view name) override {
    std::string suffix;
    for (char c : name) suffix += (c == '-' || c == '.') ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    std::string hex;
    for (char c : tenant.to_string())
      if (c != '-') hex += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    for (const std::string& var : {prefix_ + hex + "_" + suffix, prefix_ + suffix})
      if (const char* v = std::getenv(var.c_str()); v != nullptr) return std::string(v);
    return Error::make(ErrorCode::NotFound, "environment variable " + prefix_ + suffix + " is not set");
  }

 private:
  std::string prefix_;
};

class FileProvider final : public SecretProvider {
 public:
  explicit FileProvider(std::string dir) : dir_(std::move(dir)) {}
  std::string_view name() const noexcept override { return "file"; }
  core::Result<std::string> resolve(const core::Id& tenant, std::string_view name) override {
    namespace fs = std::filesystem;
    // The name's characters cannot leave the directory ('/' is not one of them; "." and ".."
    // are refused).
    if (name == "." || name == "..") return Error::make(ErrorCode::NotFound, "no secret file named '" + std::string(name) + "'");
    for (const fs::path& p : {fs::path(dir_) / tenant.to_string() / std::string(name), fs::path(dir_) / std::string(name)}) {
      std::error_code ec;
      if (!fs::is_regular_file(p, ec)) continue;
      if (fs::file_size(p, ec) > kMaxFileBytes)
        return Error::make(ErrorCode::Invalid, "secret file " + p.string() + " is over 64 KiB");
      std::ifstream in(p, std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      if (!in && !in.eof()) return Error::make(ErrorCode::Io, "cannot read secret file " + p.string());
      std::string v = ss.str();
      if (!v.empty() && v.back() == '\n') v.pop_back();
      return v;
    }
    return Error::make(ErrorCode::NotFound, "no file " + (fs::path(dir_) / std::string(name)).string());
  }

 private:
  std::string dir_;
};

class SecretHttpClient final : public core::HttpClient {
 public:
  SecretHttpClient(core::HttpClient& inner, std::shared_ptr<SecretResolver> r, core::Id tenant)
      : inner_(inner), r_(std::move(r)), tenant_(tenant) {}
  core::Result<core::HttpResponse> send(const core::HttpRequest& request) override {
    core::HttpRequest req = request;
    BUDCORE_TRY_ASSIGN(req.url, r_->expand(tenant_, request.url, "url"));
    for (auto& [k, v] : req.headers) {
      BUDCORE_TRY_ASSIGN(v, r_->expand(tenant_, v, "headers." + k));
    }
    BUDCORE_TRY_ASSIGN(req.body, r_->expand(tenant_, request.body, "body"));
    auto resp = inner_.send(req);
    if (!resp) return r_->redact_error(resp.error());
    for (auto& [k, v] : resp->headers) v = r_->redact(v);
    resp->body = r_->redact(resp->body);
    return resp;
  }

 private:
  core::HttpClient& inner_;
  std::shared_ptr<SecretResolver> r_;
  core::Id tenant_;
};

}  // namespace

std::shared_ptr<SecretProvider> env_secret_provider(std::string prefix) {
  return std::make_shared<EnvProvider>(std::move(prefix));
}

std::shared_ptr<SecretProvider> file_secret_provider(std::string dir) { return std::make_shared<FileProvider>(std::move(dir)); }

core::Result<std::vector<std::string>> secret_refs(std::string_view text, std::string_view field) {
  std::vector<std::string> out;
  BUDCORE_TRY(each_ref(text, field, [&](std::size_t, std::size_t, std::string_view name) -> core::Status {
    out.emplace_back(name);
    return {};
  }));
  return out;
}

SecretResolver::SecretResolver(std::vector<std::shared_ptr<SecretProvider>> providers) : providers_(std::move(providers)) {}

core::Result<std::string> SecretResolver::lookup(const core::Id& tenant, std::string_view name, std::string_view field) {
  std::vector<std::string> tried;
  for (const auto& p : providers_) {
    auto v = p->resolve(tenant, name);
    if (v) {
      if (v->size() < kMinValue)
        return Error::invalid(std::string(field), "secret://" + std::string(name),
                              "the secret's value is under 4 bytes: too short to redact from output safely");
      return v;
    }
    if (v.error().code != ErrorCode::NotFound) {
      Error e = redact_error(v.error());
      e.message = "secret://" + std::string(name) + " (provider " + std::string(p->name()) + "): " + e.message;
      e.field = std::string(field);
      return e;
    }
    tried.push_back(std::string(p->name()) + ": " + v.error().message);
  }
  std::string why = "secret://" + std::string(name) + " is not defined";
  if (tried.empty()) why += " (no secret provider is configured)";
  for (std::size_t i = 0; i < tried.size(); ++i) why += (i == 0 ? " (" : "; ") + tried[i] + (i + 1 == tried.size() ? ")" : "");
  Error e = Error::make(ErrorCode::NotFound, std::move(why), std::string(field));
  e.value = "secret://" + std::string(name);
  return e;
}

core::Result<std::string> SecretResolver::expand(const core::Id& tenant, std::string_view text, std::string_view field) {
  if (text.find(kSecretScheme) == std::string_view::npos) return std::string(text);
  std::string out;
  std::size_t copied = 0;
  BUDCORE_TRY(each_ref(text, field, [&](std::size_t at, std::size_t end, std::string_view name) -> core::Status {
    BUDCORE_TRY_ASSIGN(std::string value, lookup(tenant, name, field));
    out.append(text.substr(copied, at - copied));
    out += value;
    copied = end;
    std::lock_guard lock(mu_);
    auto it = std::find_if(seen_.begin(), seen_.end(), [&](const auto& s) { return s.first == value; });
    if (it == seen_.end()) {
      seen_.emplace_back(std::move(value), std::string(name));
      // Longest first, so that a value containing another is redacted whole.
      std::stable_sort(seen_.begin(), seen_.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
    }
    return {};
  }));
  out.append(text.substr(copied));
  return out;
}

namespace {
// Whether any string in doc holds a reference: the common case (none) costs no allocation.
bool mentions_ref(const core::Value& doc) {
  if (doc.is_string()) return doc.as_string().find(kSecretScheme) != std::string::npos;
  if (doc.is_list()) {
    for (const auto& v : doc.as_list())
      if (mentions_ref(v)) return true;
  } else if (doc.is_map()) {
    for (const auto& [k, v] : doc.as_map())
      if (mentions_ref(v)) return true;
  }
  return false;
}
}  // namespace

core::Status SecretResolver::check(const core::Id& tenant, const core::Value& doc, std::string_view path) {
  if (!mentions_ref(doc)) return {};
  if (doc.is_string()) {
    return each_ref(doc.as_string(), path, [&](std::size_t, std::size_t, std::string_view name) -> core::Status {
      auto v = lookup(tenant, name, path);
      if (!v) return v.error();
      return {};
    });
  }
  if (doc.is_list()) {
    const auto& l = doc.as_list();
    for (std::size_t i = 0; i < l.size(); ++i)
      BUDCORE_TRY(check(tenant, l[i], std::string(path) + "[" + std::to_string(i) + "]"));
  } else if (doc.is_map()) {
    for (const auto& [k, v] : doc.as_map()) BUDCORE_TRY(check(tenant, v, core::join_path(path, k)));
  }
  return {};
}

std::string SecretResolver::redact(std::string_view text) const {
  std::lock_guard lock(mu_);
  std::string out(text);
  for (const auto& [value, name] : seen_) {
    const std::string mark = "[redacted secret://" + name + "]";
    for (std::size_t at = out.find(value); at != std::string::npos; at = out.find(value, at + mark.size()))
      out.replace(at, value.size(), mark);
  }
  return out;
}

core::Value SecretResolver::redact_value(const core::Value& doc) const {
  if (doc.is_string()) return core::Value(redact(doc.as_string()));
  if (doc.is_list()) {
    core::List l;
    for (const auto& v : doc.as_list()) l.push_back(redact_value(v));
    return core::Value(std::move(l));
  }
  if (doc.is_map()) {
    core::Map m;
    for (const auto& [k, v] : doc.as_map()) m.set(redact(k), redact_value(v));
    return core::Value(std::move(m));
  }
  return doc;
}

core::Error SecretResolver::redact_error(core::Error e) const {
  e.message = redact(e.message);
  e.field = redact(e.field);
  e.value = redact(e.value);
  return e;
}

std::unique_ptr<core::HttpClient> secret_expanding_http_client(core::HttpClient& inner,
                                                               std::shared_ptr<SecretResolver> resolver, core::Id tenant) {
  return std::make_unique<SecretHttpClient>(inner, std::move(resolver), tenant);
}

}  // namespace budcore::backend
