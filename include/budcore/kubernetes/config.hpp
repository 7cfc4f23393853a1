// budcore::kubernetes::ClusterConfig — where a Kubernetes API server is and how to authenticate
// to it, read from a kubeconfig file (clusters, users, contexts, current-context) or from the
// in-cluster service account.
//
// Supported credentials: a bearer token, a token file (re-read every minute, as client-go does,
// so rotated tokens are picked up), a client certificate + key (inline data or files). The
// server is trusted through certificate-authority-data / certificate-authority, or the system
// trust store when neither is given. Not supported (an Unsupported error naming the field):
// exec plugins, auth-provider, username/password, proxy-url, impersonation ("as").
#pragma once

#include <string>
#include <string_view>

#include "budcore/core/result.hpp"
#include "budcore/export.h"

namespace budcore::kubernetes {

struct ClusterConfig {
  std::string server;  // "https://10.0.0.1:6443", no trailing slash
  // Trust: PEM data wins over a file; neither = the system trust store.
  std::string ca_pem;
  std::string ca_file;
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;  // SNI / verification name when it differs from the host
  // Credentials: token, else token_file, else client certificate (may be combined with a token).
  std::string token;
  std::string token_file;
  std::string client_cert_pem;
  std::string client_key_pem;
  std::string namespace_ = "default";  // the context's default namespace
  std::string context;                  // the context it came from (empty: in-cluster / by hand)
};

// Reads one kubeconfig document. `base_dir` resolves relative file paths (a kubeconfig's paths
// are relative to the file); `context` empty = current-context. File references
// (certificate-authority, client-certificate, client-key) are read now; a token file is kept
// by path. Errors are Invalid with the path of the field ("users[0].user.client-key-data") or
// NotFound for a missing context/cluster/user. Unknown keys in the entries read are rejected
// with a suggestion. Input is capped at 4 MiB.
BUDCORE_API core::Result<ClusterConfig> parse_kubeconfig(std::string_view yaml, const std::string& base_dir = ".",
                                                         std::string_view context = {});
BUDCORE_API core::Result<ClusterConfig> load_kubeconfig(const std::string& path, std::string_view context = {});

// The pod's service account: KUBERNETES_SERVICE_HOST/PORT and
// /var/run/secrets/kubernetes.io/serviceaccount/{token,ca.crt,namespace} (`sa_dir` overrides
// the directory, for tests). NotFound when not running in a cluster.
BUDCORE_API core::Result<ClusterConfig> in_cluster_config(
    const std::string& sa_dir = "/var/run/secrets/kubernetes.io/serviceaccount");

// $KUBECONFIG (its first existing file), else ~/.kube/config, else the in-cluster config.
BUDCORE_API core::Result<ClusterConfig> default_config(std::string_view context = {});

}  // namespace budcore::kubernetes
