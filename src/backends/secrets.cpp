// Secret references, the built-in providers (environment, files), the resolver that redacts what
// it resolved, and the HTTP client decorator that expands references at the wire.
#include "budcore/backend/secret_provider.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

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

bool hex_digit(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

class EnvProvider final : public SecretProvider {
 public:
  explicit EnvProvider(std::string prefix) : prefix_(std::move(prefix)) {}
  std::string_view name() const noexcept override { return "env"; }
  core::Result<std::string> resolve(const core::Id& tenant, std::string_view name) override {
    // A tenant's variable carries its 32 hex digits; the platform's carries none.
    std::string var = prefix_;
    if (!tenant.is_nil()) {
      for (char c : tenant.to_string())
        if (c != '-') var += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      var += '_';
    }
    for (char c : name) var += (c == '-' || c == '.') ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (const char* v = std::getenv(var.c_str()); v != nullptr) return std::string(v);
    return Error::make(ErrorCode::NotFound, "not set");
  }

 private:
  std::string prefix_;
};

// Opens each path component relative to the one before with O_NOFOLLOW (std::filesystem has no
// such call): a symbolic link anywhere below the configured directory, a hard link to another
// namespace's file (a second name for the same inode) or anything but a regular file is no
// secret of this namespace. Messages name no path: a caller learns nothing of the host's files.
class FileProvider final : public SecretProvider {
 public:
  explicit FileProvider(std::string dir) : dir_(std::move(dir)) {}
  std::string_view name() const noexcept override { return "file"; }
  core::Result<std::string> resolve(const core::Id& tenant, std::string_view name) override {
    if (name == "." || name == "..") return not_found();
    const Fd root(::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (root.fd < 0) return not_found();
    Fd ns_dir;
    int home = root.fd;
    if (!tenant.is_nil()) {
      ns_dir.fd = ::openat(root.fd, tenant.to_string().c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (ns_dir.fd < 0) return not_found();
      home = ns_dir.fd;
    }
    const Fd file(::openat(home, std::string(name).c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (file.fd < 0) return not_found();
    struct stat st {};
    if (::fstat(file.fd, &st) != 0 || !S_ISREG(st.st_mode)) return not_found();
    if (st.st_nlink != 1)
      return Error::make(ErrorCode::Invalid, "the secret's file has other names (hard links): refused, it may be another namespace's");
    if (static_cast<std::uintmax_t>(st.st_size) > kMaxFileBytes) return Error::make(ErrorCode::Invalid, "the secret's file is over 64 KiB");
    return read_all(file.fd);
  }

 private:
  struct Fd {
    int fd = -1;
    Fd() = default;
    explicit Fd(int f) : fd(f) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() {
      if (fd >= 0) ::close(fd);
    }
  };
  static Error not_found() { return Error::make(ErrorCode::NotFound, "no such secret"); }
  static core::Result<std::string> read_all(int fd) {
    std::string v;
    char buf[4096];
    for (;;) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n == 0) break;
      if (n < 0) {
        if (errno == EINTR) continue;
        return Error::make(ErrorCode::Io, "the secret's file cannot be read");
      }
      v.append(buf, static_cast<std::size_t>(n));
      if (v.size() > kMaxFileBytes) return Error::make(ErrorCode::Invalid, "the secret's file is over 64 KiB");
    }
    if (!v.empty() && v.back() == '\n') v.pop_back();
    return v;
  }
  std::string dir_;
};

class RehearsalProvider final : public SecretProvider {
 public:
  std::string_view name() const noexcept override { return "rehearsal"; }
  core::Result<std::string> resolve(const core::Id&, std::string_view) override { return std::string("rehearsal-secret"); }
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
    if (!resp) return r_->redact_error(tenant_, resp.error());
    for (auto& [k, v] : resp->headers) v = r_->redact(tenant_, v);
    resp->body = r_->redact(tenant_, resp->body);
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

std::shared_ptr<SecretProvider> rehearsal_secret_provider() { return std::make_shared<RehearsalProvider>(); }

core::Result<std::vector<std::string>> secret_refs(std::string_view text, std::string_view field) {
  std::vector<std::string> out;
  BUDCORE_TRY(each_ref(text, field, [&](std::size_t, std::size_t, std::string_view name) -> core::Status {
    out.emplace_back(name);
    return {};
  }));
  return out;
}

bool shadows_tenant_secret(std::string_view name) noexcept {
  if (name.size() < 33) return false;
  for (std::size_t i = 0; i < 32; ++i)
    if (!hex_digit(name[i])) return false;
  return name[32] == '_' || name[32] == '-' || name[32] == '.';
}

SecretResolver::SecretResolver(std::vector<std::shared_ptr<SecretProvider>> providers, std::vector<std::string> shared)
    : providers_(std::move(providers)), shared_(std::move(shared)) {}

core::Result<std::string> SecretResolver::lookup_in(const core::Id& tn, std::string_view name, std::string_view field,
                                                    bool& found) {
  found = false;
  for (const auto& p : providers_) {
    auto v = p->resolve(tn, name);
    if (v) {
      found = true;
      if (v->size() < kMinValue)
        return Error::invalid(std::string(field), "secret://" + std::string(name),
                              "the secret's value is under 4 bytes: too short to redact from output safely");
      return v;
    }
    if (v.error().code != ErrorCode::NotFound) {
      found = true;
      Error e = v.error();
      e.message = "secret://" + std::string(name) + " (provider " + std::string(p->name()) + "): " + e.message;
      e.field = std::string(field);
      e.value = "secret://" + std::string(name);
      return e;
    }
  }
  return std::string();
}

core::Result<std::string> SecretResolver::lookup(const core::Id& tenant, std::string_view name, std::string_view field) {
  bool found = false;
  auto v = lookup_in(tenant, name, field, found);
  if (found) return v;
  // A shared name falls back to the platform's namespace; no other name ever leaves the tenant's.
  if (!tenant.is_nil() && std::find(shared_.begin(), shared_.end(), name) != shared_.end()) {
    auto s = lookup_in(core::Id(), name, field, found);
    if (found) return s;
  }
  std::string why = "secret://" + std::string(name) + " is not defined";
  why += providers_.empty() ? " (no secret provider is configured)" : " for this tenant";
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
    Seen& seen = seen_[tenant];
    auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == value; });
    if (it == seen.end()) {
      seen.emplace_back(std::move(value), std::string(name));
      // Longest first, so that a value containing another is redacted whole.
      std::stable_sort(seen.begin(), seen.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
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

std::string SecretResolver::redact(const core::Id& tenant, std::string_view text) const {
  std::lock_guard lock(mu_);
  std::string out(text);
  auto it = seen_.find(tenant);
  if (it == seen_.end()) return out;
  for (const auto& [value, name] : it->second) {
    const std::string mark = "[redacted secret://" + name + "]";
    for (std::size_t at = out.find(value); at != std::string::npos; at = out.find(value, at + mark.size()))
      out.replace(at, value.size(), mark);
  }
  return out;
}

core::Value SecretResolver::redact_value(const core::Id& tenant, const core::Value& doc) const {
  if (doc.is_string()) return core::Value(redact(tenant, doc.as_string()));
  if (doc.is_list()) {
    core::List l;
    for (const auto& v : doc.as_list()) l.push_back(redact_value(tenant, v));
    return core::Value(std::move(l));
  }
  if (doc.is_map()) {
    core::Map m;
    for (const auto& [k, v] : doc.as_map()) m.set(redact(tenant, k), redact_value(tenant, v));
    return core::Value(std::move(m));
  }
  return doc;
}

core::Error SecretResolver::redact_error(const core::Id& tenant, core::Error e) const {
  e.message = redact(tenant, e.message);
  e.field = redact(tenant, e.field);
  e.value = redact(tenant, e.value);
  return e;
}

std::unique_ptr<core::HttpClient> secret_expanding_http_client(core::HttpClient& inner,
                                                               std::shared_ptr<SecretResolver> resolver, core::Id tenant) {
  return std::make_unique<SecretHttpClient>(inner, std::move(resolver), tenant);
}

}  // namespace budcore::backend
