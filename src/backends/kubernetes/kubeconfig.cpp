// kubeconfig and in-cluster configuration (the client-go clientcmd rules that budcore supports;
// see config.hpp for what is not).
#include <cstdlib>
#include <filesystem>

#include "backends/kubernetes/util.hpp"
#include "budcore/core/limits.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/kubernetes/config.hpp"
#include "core/field_reader.hpp"

namespace budcore::kubernetes {
namespace {

using core::Error;
using core::ErrorCode;
using core::Value;
namespace fs = std::filesystem;

constexpr std::size_t kMaxKubeconfigBytes = 4u << 20;

constexpr std::string_view kTopKeys[] = {"apiVersion", "kind", "clusters", "users", "contexts", "current-context",
                                         "preferences", "extensions"};
constexpr std::string_view kClusterKeys[] = {"server", "certificate-authority", "certificate-authority-data",
                                             "insecure-skip-tls-verify", "tls-server-name", "proxy-url",
                                             "disable-compression", "extensions"};
constexpr std::string_view kUserKeys[] = {"token", "tokenFile", "client-certificate", "client-certificate-data",
                                          "client-key", "client-key-data", "username", "password", "exec",
                                          "auth-provider", "as", "as-uid", "as-groups", "as-user-extra", "extensions"};
constexpr std::string_view kContextKeys[] = {"cluster", "user", "namespace", "extensions"};
constexpr std::string_view kNamedKeys[] = {"name", "cluster", "user", "context"};

// The error of `st`, if any, with its field under `path`.
core::Status under(core::Status st, const std::string& path) {
  if (st) return st;
  Error e = st.error();
  e.at(path);
  return e;
}

std::string idx(std::string_view list, std::size_t i) { return std::string(list) + "[" + std::to_string(i) + "]"; }

// The entry named `name` of a named list (clusters/users/contexts), with its path.
core::Result<std::pair<const core::Map*, std::string>> named(const core::Map& top, std::string_view list,
                                                             std::string_view inner, const std::string& name) {
  const Value* l = top.find(list);
  if (l != nullptr && !l->is_null() && !l->is_list())
    return Error::invalid(std::string(list), {}, "expected a list");
  if (l != nullptr && l->is_list()) {
    for (std::size_t i = 0; i < l->size(); ++i) {
      const Value& e = l->as_list()[i];
      std::string p = idx(list, i);
      if (!e.is_map()) return Error::invalid(p, {}, "expected a map with name and " + std::string(inner));
      core::detail::Reader r(e.as_map());
      BUDCORE_TRY(under(r.reject_unknown(kNamedKeys), p));
      const Value* n = e.find("name");
      if (n == nullptr || !n->is_string()) return Error::invalid(p + ".name", {}, "required field is missing");
      if (n->as_string() != name) continue;
      const Value* body = e.find(inner);
      if (body == nullptr || !body->is_map())
        return Error::invalid(p + "." + std::string(inner), {}, "required field is missing");
      return std::make_pair(&body->as_map(), p + "." + std::string(inner));
    }
  }
  std::string what(list);
  what.pop_back();  // "clusters" -> "cluster"
  Error e = Error::make(ErrorCode::NotFound, "kubeconfig has no " + what + " named '" + name + "'", std::string(list));
  e.value = name;
  return e;
}

core::Result<std::string> read_text_file(const std::string& path, const std::string& field) {
  return core::read_input(path, kMaxKubeconfigBytes, field);
}

std::string resolve(const std::string& base_dir, const std::string& p) {
  if (p.empty() || fs::path(p).is_absolute()) return p;
  return (fs::path(base_dir) / p).string();
}

core::Result<std::optional<std::string>> opt_string(const core::Map& m, std::string_view key, const std::string& path) {
  core::detail::Reader r(m);
  auto v = r.string(key);
  if (!v) return std::move(v.error().at(path));
  return *v;
}

// PEM from "<key>-data" (base64) or "<key>" (a file).
core::Result<std::string> pem(const core::Map& m, std::string_view key, const std::string& path, const std::string& base_dir) {
  std::string data_key = std::string(key) + "-data";
  std::optional<std::string> data, file;
  BUDCORE_TRY_ASSIGN(data, opt_string(m, data_key, path));
  BUDCORE_TRY_ASSIGN(file, opt_string(m, key, path));
  if (data) {
    auto decoded = decode_base64(*data);
    if (!decoded) return Error::invalid(path + "." + data_key, data->substr(0, 16), "not valid base64");
    if (decoded->find("-----BEGIN ") == std::string::npos)
      return Error::invalid(path + "." + data_key, data->substr(0, 16), "does not decode to PEM data");
    return *decoded;
  }
  if (file) {
    std::string text;
    BUDCORE_TRY_ASSIGN(text, read_text_file(resolve(base_dir, *file), path + "." + std::string(key)));
    if (text.find("-----BEGIN ") == std::string::npos)
      return Error::invalid(path + "." + std::string(key), *file, "file holds no PEM data");
    return text;
  }
  return std::string();
}

core::Status unsupported(const std::string& field, std::string_view what) {
  return Error::make(ErrorCode::Unsupported, std::string(what) + " is not supported; use a token, token file or client certificate",
                     field);
}

core::Status read_cluster(const core::Map& c, const std::string& path, const std::string& base_dir, ClusterConfig& out) {
  core::detail::Reader r(c);
  BUDCORE_TRY(under(r.reject_unknown(kClusterKeys), path));
  std::optional<std::string> server;
  BUDCORE_TRY_ASSIGN(server, opt_string(c, "server", path));
  if (!server || server->empty()) return Error::invalid(path + ".server", {}, "required field is missing");
  if (server->rfind("https://", 0) != 0 && server->rfind("http://", 0) != 0)
    return Error::invalid(path + ".server", *server, "expected an https:// (or http://) URL");
  while (!server->empty() && server->back() == '/') server->pop_back();
  out.server = *server;
  BUDCORE_TRY_ASSIGN(out.ca_pem, pem(c, "certificate-authority", path, base_dir));
  auto insecure = r.boolean("insecure-skip-tls-verify");
  if (!insecure) return std::move(insecure.error().at(path));
  out.insecure_skip_tls_verify = insecure->value_or(false);
  std::optional<std::string> sni;
  BUDCORE_TRY_ASSIGN(sni, opt_string(c, "tls-server-name", path));
  out.tls_server_name = sni.value_or("");
  if (c.find("proxy-url") != nullptr) return unsupported(path + ".proxy-url", "a proxy");
  return {};
}

core::Status read_user(const core::Map& u, const std::string& path, const std::string& base_dir, ClusterConfig& out) {
  core::detail::Reader r(u);
  BUDCORE_TRY(under(r.reject_unknown(kUserKeys), path));
  for (auto [key, what] : {std::pair<std::string_view, std::string_view>{"exec", "an exec credential plugin"},
                           {"auth-provider", "an auth-provider"},
                           {"username", "basic authentication (username/password)"},
                           {"password", "basic authentication (username/password)"},
                           {"as", "impersonation"}, {"as-groups", "impersonation"}, {"as-uid", "impersonation"},
                           {"as-user-extra", "impersonation"}})
    if (const Value* v = u.find(key); v != nullptr && !v->is_null()) return unsupported(path + "." + std::string(key), what);
  std::optional<std::string> token, token_file;
  BUDCORE_TRY_ASSIGN(token, opt_string(u, "token", path));
  BUDCORE_TRY_ASSIGN(token_file, opt_string(u, "tokenFile", path));
  out.token = token.value_or("");
  if (token_file) out.token_file = resolve(base_dir, *token_file);
  BUDCORE_TRY_ASSIGN(out.client_cert_pem, pem(u, "client-certificate", path, base_dir));
  BUDCORE_TRY_ASSIGN(out.client_key_pem, pem(u, "client-key", path, base_dir));
  if (out.client_cert_pem.empty() != out.client_key_pem.empty())
    return Error::invalid(path + (out.client_cert_pem.empty() ? ".client-certificate" : ".client-key"), {},
                          "a client certificate needs both the certificate and its key");
  return {};
}

}  // namespace

core::Result<ClusterConfig> parse_kubeconfig(std::string_view yaml, const std::string& base_dir, std::string_view context) {
  if (yaml.size() > kMaxKubeconfigBytes) return Error::invalid("kubeconfig", {}, "larger than 4 MiB");
  Value doc;
  BUDCORE_TRY_ASSIGN(doc, core::parse_yaml(yaml));
  if (!doc.is_map()) return Error::invalid("kubeconfig", {}, "expected a kubeconfig document (a map with clusters, users, contexts)");
  const core::Map& top = doc.as_map();
  core::detail::Reader r(top);
  BUDCORE_TRY(r.reject_unknown(kTopKeys));
  if (const Value* kind = top.find("kind"); kind != nullptr && !kind->is_null() &&
                                            (!kind->is_string() || kind->as_string() != "Config"))
    return Error::invalid("kind", kind->is_string() ? kind->as_string() : "", "expected Config");
  std::string ctx_name(context);
  if (ctx_name.empty()) {
    std::optional<std::string> current;
    BUDCORE_TRY_ASSIGN(current, opt_string(top, "current-context", ""));
    if (!current || current->empty())
      return Error::invalid("current-context", {}, "no context given and the kubeconfig sets no current-context");
    ctx_name = *current;
  }
  std::pair<const core::Map*, std::string> ctx, cluster, user;
  BUDCORE_TRY_ASSIGN(ctx, named(top, "contexts", "context", ctx_name));
  core::detail::Reader cr(*ctx.first);
  BUDCORE_TRY(under(cr.reject_unknown(kContextKeys), ctx.second));
  std::optional<std::string> cluster_name, user_name, ns;
  BUDCORE_TRY_ASSIGN(cluster_name, opt_string(*ctx.first, "cluster", ctx.second));
  BUDCORE_TRY_ASSIGN(user_name, opt_string(*ctx.first, "user", ctx.second));
  BUDCORE_TRY_ASSIGN(ns, opt_string(*ctx.first, "namespace", ctx.second));
  if (!cluster_name) return Error::invalid(ctx.second + ".cluster", {}, "required field is missing");
  ClusterConfig out;
  out.context = ctx_name;
  if (ns && !ns->empty()) out.namespace_ = *ns;
  BUDCORE_TRY_ASSIGN(cluster, named(top, "clusters", "cluster", *cluster_name));
  BUDCORE_TRY(read_cluster(*cluster.first, cluster.second, base_dir, out));
  if (user_name && !user_name->empty()) {
    BUDCORE_TRY_ASSIGN(user, named(top, "users", "user", *user_name));
    BUDCORE_TRY(read_user(*user.first, user.second, base_dir, out));
  }
  return out;
}

core::Result<ClusterConfig> load_kubeconfig(const std::string& path, std::string_view context) {
  std::string text;
  BUDCORE_TRY_ASSIGN(text, read_text_file(path, "kubeconfig"));
  auto dir = fs::path(path).parent_path().string();
  auto cfg = parse_kubeconfig(text, dir.empty() ? "." : dir, context);
  if (!cfg) {
    Error e = std::move(cfg).error();
    e.message = path + ": " + e.message;
    return e;
  }
  return cfg;
}

core::Result<ClusterConfig> in_cluster_config(const std::string& sa_dir) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (host == nullptr || port == nullptr || *host == '\0' || *port == '\0')
    return Error::make(ErrorCode::NotFound, "not running in a cluster: KUBERNETES_SERVICE_HOST/PORT are not set",
                       "KUBERNETES_SERVICE_HOST");
  ClusterConfig out;
  std::string h = host;
  if (h.find(':') != std::string::npos) h = "[" + h + "]";  // IPv6
  out.server = "https://" + h + ":" + port;
  out.token_file = sa_dir + "/token";
  std::error_code ec;
  if (!fs::exists(out.token_file, ec))
    return Error::make(ErrorCode::NotFound, "service account token " + out.token_file + " is missing", "token");
  BUDCORE_TRY_ASSIGN(out.ca_pem, read_text_file(sa_dir + "/ca.crt", "ca.crt"));
  if (auto ns = read_text_file(sa_dir + "/namespace", "namespace"); ns && !ns->empty()) {
    std::string n = *ns;
    while (!n.empty() && (n.back() == '\n' || n.back() == ' ')) n.pop_back();
    if (!n.empty()) out.namespace_ = n;
  }
  return out;
}

core::Result<ClusterConfig> default_config(std::string_view context) {
  std::error_code ec;
  if (const char* env = std::getenv("KUBECONFIG"); env != nullptr && *env != '\0') {
    std::string list = env;
    std::size_t start = 0;
    while (start <= list.size()) {
      std::size_t end = list.find(':', start);
      if (end == std::string::npos) end = list.size();
      std::string p = list.substr(start, end - start);
      if (!p.empty() && fs::exists(p, ec)) return load_kubeconfig(p, context);
      start = end + 1;
    }
    return Error::make(ErrorCode::NotFound, "no file of KUBECONFIG exists: " + list, "KUBECONFIG");
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    std::string p = std::string(home) + "/.kube/config";
    if (fs::exists(p, ec)) return load_kubeconfig(p, context);
  }
  return in_cluster_config();
}

}  // namespace budcore::kubernetes
