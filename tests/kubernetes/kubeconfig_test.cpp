// kubeconfig parsing: contexts, clusters, users (token, token file, client certificate, data
// or files), in-cluster config, and clear errors for bad or unsupported input.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "budcore/kubernetes/config.hpp"

namespace budcore::kubernetes {
namespace {

using core::ErrorCode;

constexpr const char* kPem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
// base64 of kPem
std::string b64(const std::string& s) {
  static const char* a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < s.size(); i += 3) {
    unsigned n = (unsigned char)s[i] << 16 | (unsigned char)s[i + 1] << 8 | (unsigned char)s[i + 2];
    for (int k = 18; k >= 0; k -= 6) out += a[(n >> k) & 63];
  }
  if (i < s.size()) {
    unsigned n = (unsigned char)s[i] << 16 | (i + 1 < s.size() ? (unsigned char)s[i + 1] << 8 : 0);
    out += a[(n >> 18) & 63];
    out += a[(n >> 12) & 63];
    out += i + 1 < s.size() ? a[(n >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string two_contexts() {
  return "apiVersion: v1\nkind: Config\ncurrent-context: prod\n"
         "clusters:\n"
         "- name: prod-cluster\n  cluster:\n    server: https://10.0.0.1:6443/\n    certificate-authority-data: " +
         b64(kPem) +
         "\n"
         "- name: dev-cluster\n  cluster:\n    server: https://dev.example:443\n    insecure-skip-tls-verify: true\n"
         "    tls-server-name: api.dev\n"
         "users:\n"
         "- name: prod-user\n  user:\n    token: abc123\n"
         "- name: dev-user\n  user:\n    tokenFile: tokens/dev\n"
         "contexts:\n"
         "- name: prod\n  context:\n    cluster: prod-cluster\n    user: prod-user\n    namespace: team-a\n"
         "- name: dev\n  context:\n    cluster: dev-cluster\n    user: dev-user\n";
}

TEST(KubeconfigTest, ReadsTheCurrentContext) {
  auto c = parse_kubeconfig(two_contexts(), "/etc/kube");
  ASSERT_TRUE(c) << c.error().describe();
  EXPECT_EQ(c->context, "prod");
  EXPECT_EQ(c->server, "https://10.0.0.1:6443");  // trailing slash dropped
  EXPECT_EQ(c->ca_pem, kPem);
  EXPECT_EQ(c->token, "abc123");
  EXPECT_EQ(c->namespace_, "team-a");
  EXPECT_FALSE(c->insecure_skip_tls_verify);
}

TEST(KubeconfigTest, ReadsANamedContextAndResolvesRelativePaths) {
  auto c = parse_kubeconfig(two_contexts(), "/etc/kube", "dev");
  ASSERT_TRUE(c) << c.error().describe();
  EXPECT_EQ(c->server, "https://dev.example:443");
  EXPECT_TRUE(c->insecure_skip_tls_verify);
  EXPECT_EQ(c->tls_server_name, "api.dev");
  EXPECT_EQ(c->token_file, "/etc/kube/tokens/dev");
  EXPECT_EQ(c->namespace_, "default");
}

TEST(KubeconfigTest, ReadsClientCertificateFiles) {
  auto dir = std::filesystem::temp_directory_path() / ("bc-kc-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "c.crt") << kPem;
  std::ofstream(dir / "c.key") << "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n";
  std::ofstream(dir / "config") << "clusters:\n- name: c\n  cluster: {server: 'https://127.0.0.1:1'}\n"
                                   "users:\n- name: u\n  user: {client-certificate: c.crt, client-key: c.key}\n"
                                   "contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n";
  auto c = load_kubeconfig((dir / "config").string());
  ASSERT_TRUE(c) << c.error().describe();
  EXPECT_EQ(c->client_cert_pem, kPem);
  EXPECT_NE(c->client_key_pem.find("PRIVATE KEY"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(KubeconfigTest, BadInputNamesTheField) {
  struct Case {
    std::string yaml;
    ErrorCode code;
    std::string field;
    std::string in_message;
  } cases[] = {
      {"clusters: []\ncontexts: []\n", ErrorCode::Invalid, "current-context", "no current-context"},
      {"current-context: x\ncontexts: []\n", ErrorCode::NotFound, "contexts", "no context named 'x'"},
      {"current-context: x\ncontexts:\n- name: x\n  context: {cluster: c}\nclusters: []\n", ErrorCode::NotFound, "clusters",
       "no cluster named 'c'"},
      {"current-context: x\ncontexts:\n- name: x\n  context: {cluster: c}\nclusters:\n- name: c\n  cluster: {sever: 'https://a'}\n",
       ErrorCode::Invalid, "clusters[0].cluster.sever", "did you mean 'server'"},
      {"current-context: x\ncontexts:\n- name: x\n  context: {cluster: c}\nclusters:\n- name: c\n  cluster: {server: 'ftp://a'}\n",
       ErrorCode::Invalid, "clusters[0].cluster.server", "https://"},
      {"current-context: x\ncontexts:\n- name: x\n  context: {cluster: c}\nclusters:\n- name: c\n  cluster:\n    server: https://a\n"
       "    certificate-authority-data: '%%%'\n",
       ErrorCode::Invalid, "clusters[0].cluster.certificate-authority-data", "base64"},
      {"current-context: x\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\nclusters:\n- name: c\n  cluster: {server: https://a}\n"
       "users:\n- name: u\n  user:\n    exec: {command: aws}\n",
       ErrorCode::Unsupported, "users[0].user.exec", "exec credential plugin"},
      {"current-context: x\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\nclusters:\n- name: c\n  cluster: {server: https://a}\n"
       "users:\n- name: u\n  user:\n    client-certificate-data: " + b64(kPem) + "\n",
       ErrorCode::Invalid, "users[0].user.client-key", "both the certificate and its key"},
      {"current-context: x\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\nclusters:\n- name: c\n  cluster: {server: https://a}\n"
       "users:\n- name: u\n  user:\n    client-certificate: /nonexistent/c.crt\n    client-key: /nonexistent/c.key\n",
       ErrorCode::Io, "users[0].user.client-certificate", "cannot open file '/nonexistent/c.crt'"},
      {"kind: Pod\n", ErrorCode::Invalid, "kind", "expected Config"},
      {"- a\n- b\n", ErrorCode::Invalid, "kubeconfig", "expected a kubeconfig document"},
      {"clusters: [\n", ErrorCode::Invalid, "", "invalid YAML"},
  };
  for (const auto& c : cases) {
    auto r = parse_kubeconfig(c.yaml, "/tmp");
    ASSERT_FALSE(r) << c.yaml;
    EXPECT_EQ(r.error().code, c.code) << c.yaml << "\n" << r.error().describe();
    if (!c.field.empty()) EXPECT_EQ(r.error().field, c.field) << c.yaml << "\n" << r.error().describe();
    EXPECT_NE(r.error().message.find(c.in_message), std::string::npos) << r.error().message;
  }
  auto big = parse_kubeconfig(std::string(5u << 20, ' '));
  ASSERT_FALSE(big);
  EXPECT_NE(big.error().message.find("4 MiB"), std::string::npos);
}

TEST(KubeconfigTest, InClusterConfigFromTheServiceAccount) {
  auto dir = std::filesystem::temp_directory_path() / ("bc-sa-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  ::unsetenv("KUBERNETES_SERVICE_HOST");
  auto none = in_cluster_config(dir.string());
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, ErrorCode::NotFound);
  std::ofstream(dir / "token") << "sa-token\n";
  std::ofstream(dir / "ca.crt") << kPem;
  std::ofstream(dir / "namespace") << "budcore-system\n";
  ::setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
  ::setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  auto c = in_cluster_config(dir.string());
  ::unsetenv("KUBERNETES_SERVICE_HOST");
  ::unsetenv("KUBERNETES_SERVICE_PORT");
  ASSERT_TRUE(c) << c.error().describe();
  EXPECT_EQ(c->server, "https://10.96.0.1:443");
  EXPECT_EQ(c->token_file, (dir / "token").string());
  EXPECT_EQ(c->ca_pem, kPem);
  EXPECT_EQ(c->namespace_, "budcore-system");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace budcore::kubernetes
