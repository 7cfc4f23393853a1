// budcore::backend::SecretProvider — where `secret://name` references get their values
// (docs/security.md "Secrets"). Job specs, pipeline steps, templates and configs name secrets
// only by reference; the value is looked up at the boundary that needs it (an HTTP call of an
// API_CALL step; on Kubernetes the cluster's own Secret, through secretKeyRef) and is never
// stored, logged, returned in an error or written to an event: SecretResolver remembers every
// value it handed out and redacts it from what comes back.
//
// A reference is `secret://` followed by a name of 1..128 bytes of letters, digits and . _ -
// (it ends at the first other byte, so "Bearer secret://api-token" holds one reference).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "budcore/core/http.hpp"
#include "budcore/core/id.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"

namespace budcore::backend {

inline constexpr std::string_view kSecretScheme = "secret://";

// Thread-safety: implementations may be called from several threads at once.
class BUDCORE_API SecretProvider {
 public:
  virtual ~SecretProvider();
  virtual std::string_view name() const noexcept = 0;  // "env", "file"
  // The value of secret `name` in `tenant`'s namespace: NotFound when this provider has none.
  // A provider resolves inside the namespace it is asked about and nowhere else: it never
  // answers one tenant's lookup with a value it keeps for another tenant or for the platform.
  // The nil tenant (system_tenant()) is the platform's own namespace: the shared secrets the
  // config names and the platform's webhooks. Errors never carry the value, a variable name or
  // a path.
  virtual core::Result<std::string> resolve(const core::Id& tenant, std::string_view name) = 0;
};

// A tenant's secret://db-password -> $BUDCORE_SECRET_<tenant hex without dashes>_DB_PASSWORD
// (prefix, the tenant's 32 hex digits upper-cased, '_', the name upper-cased with . and - as _);
// the platform's -> $BUDCORE_SECRET_DB_PASSWORD. A tenant's variable always has its 32 hex digits
// after the prefix, so no name of one tenant reads another's variable.
BUDCORE_API std::shared_ptr<SecretProvider> env_secret_provider(std::string prefix = "BUDCORE_SECRET_");
// A tenant's: <dir>/<tenant id>/<name>; the platform's: <dir>/<name>. The file's bytes without
// one trailing newline (at most 64 KiB).
BUDCORE_API std::shared_ptr<SecretProvider> file_secret_provider(std::string dir);

// Every name resolves to the same stand-in value ("rehearsal-secret"), in every namespace: what
// a what-if run (platform::Scenario) uses, so that it reads no real secret.
BUDCORE_API std::shared_ptr<SecretProvider> rehearsal_secret_provider();

// Whether a platform secret's name could also be read as a tenant's variable (it starts with 32
// hex digits and a separator): such names are refused as shared or platform secrets.
BUDCORE_API bool shadows_tenant_secret(std::string_view name) noexcept;

// Every reference in `text`, in order (names only). Invalid (naming `field`) for "secret://"
// followed by no valid name.
BUDCORE_API core::Result<std::vector<std::string>> secret_refs(std::string_view text, std::string_view field = "text");

// Resolves references through providers (in order: the first that has the name wins), always
// in the caller tenant's namespace; a name listed in `shared` falls back to the platform's
// namespace when the tenant has no secret of that name. It keeps every value it resolved, per
// tenant, so that redact() can take them out of what that tenant's calls return.
//
// What redaction promises: every exact occurrence (byte for byte) of a value resolved for a
// tenant is replaced in the texts redacted for that tenant. It does not find transformed copies
// (another case, reversed, encoded, a part of the value): a server that echoes a transform of a
// credential it was sent has the credential anyway.
// Thread-safety: every member may be called from any thread.
class BUDCORE_API SecretResolver {
 public:
  explicit SecretResolver(std::vector<std::shared_ptr<SecretProvider>> providers, std::vector<std::string> shared = {});

  // `text` with every reference replaced by its value. NotFound naming `field` and the
  // reference when no provider has it; Invalid for a value under 4 bytes (too short to redact).
  core::Result<std::string> expand(const core::Id& tenant, std::string_view text, std::string_view field = "text");
  // Every reference in the strings of `doc` (recursively) resolves for the tenant; errors name
  // the path under `path` ("spec.env.TOKEN"). Nothing is remembered or returned.
  core::Status check(const core::Id& tenant, const core::Value& doc, std::string_view path);
  // Every value this resolver handed out for `tenant`, replaced by "[redacted secret://name]".
  std::string redact(const core::Id& tenant, std::string_view text) const;
  core::Value redact_value(const core::Id& tenant, const core::Value& doc) const;
  core::Error redact_error(const core::Id& tenant, core::Error e) const;

 private:
  using Seen = std::vector<std::pair<std::string, std::string>>;  // (value, name), longest value first
  core::Result<std::string> lookup(const core::Id& tenant, std::string_view name, std::string_view field);
  core::Result<std::string> lookup_in(const core::Id& tn, std::string_view name, std::string_view field,
                                      bool& found);

  std::vector<std::shared_ptr<SecretProvider>> providers_;
  std::vector<std::string> shared_;
  mutable std::mutex mu_;
  std::map<core::Id, Seen> seen_;
};

// An HttpClient that expands references in the URL, header values and body of each request
// (for `tenant`) and redacts resolved values from the response and from errors, around `inner`.
BUDCORE_API std::unique_ptr<core::HttpClient> secret_expanding_http_client(core::HttpClient& inner,
                                                                           std::shared_ptr<SecretResolver> resolver,
                                                                           core::Id tenant);

}  // namespace budcore::backend
