// The REST client against a real kube-apiserver: CRUD, typed errors from Status objects,
// server-side apply, optimistic concurrency, credentials and TLS failures, watch with
// bookmarks and resume, and a relist after etcd compaction (410 Gone).
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "budcore/backend/http_client.hpp"
#include "budcore/kubernetes/client.hpp"
#include "budcore/kubernetes/kueue.hpp"
#include "budcore/kubernetes/reflector.hpp"
#include "kubernetes/testbed/testbed.hpp"

namespace budcore::kubernetes {
namespace {

using core::ErrorCode;
using core::Map;
using core::Value;
using testing::Testbed;

Value config_map(const std::string& ns, const std::string& name, const std::string& data = "v1") {
  return Map{{"apiVersion", "v1"},
             {"kind", "ConfigMap"},
             {"metadata", Map{{"name", name}, {"namespace", ns}}},
             {"data", Map{{"k", data}}}};
}

std::string rv_of(const Value& v) { return v.find_path("metadata.resourceVersion")->as_string(); }

class ClientTestbedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    BUDCORE_NEED_TESTBED();
    this->tb = tb;
    client = tb->client();
    ns = Testbed::unique("client");
    ASSERT_TRUE(ensure_namespace(*client, ns));
  }
  testing::Testbed* tb = nullptr;
  std::unique_ptr<Client> client;
  std::string ns;
};

TEST_F(ClientTestbedTest, CreateGetReplaceDeleteWithTypedErrors) {
  const auto& cm = resources::config_maps();
  auto made = client->create(cm, ns, config_map(ns, "a"));
  ASSERT_TRUE(made) << made.error().describe();
  auto again = client->create(cm, ns, config_map(ns, "a"));
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, ErrorCode::AlreadyExists);
  EXPECT_NE(again.error().message.find("HTTP 409"), std::string::npos) << again.error().message;
  auto st = api_status(again.error());
  ASSERT_TRUE(st);
  EXPECT_EQ(st->code, 409);
  EXPECT_EQ(st->reason, "AlreadyExists");

  // Optimistic concurrency: a replace with a stale resourceVersion is a Conflict.
  Value first = *made;
  Value v2 = first;
  v2.mutable_map()["data"].mutable_map().set("k", "v2");
  auto replaced = client->replace(cm, ns, v2);
  ASSERT_TRUE(replaced) << replaced.error().describe();
  EXPECT_NE(rv_of(*replaced), rv_of(first));
  Value stale = first;
  stale.mutable_map()["data"].mutable_map().set("k", "v3");
  auto conflict = client->replace(cm, ns, stale);
  ASSERT_FALSE(conflict);
  EXPECT_EQ(conflict.error().code, ErrorCode::Conflict);
  EXPECT_EQ(api_status(conflict.error())->reason, "Conflict");
  EXPECT_EQ(client->get(cm, ns, "a")->find_path("data.k")->as_string(), "v2");  // nothing half-applied

  auto missing = client->get(cm, ns, "nope");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::NotFound);
  EXPECT_NE(missing.error().message.find(ns + "/nope"), std::string::npos) << missing.error().message;

  // A delete with a stale resourceVersion precondition is refused; the right one works.
  DeleteOptions pre;
  pre.resource_version = rv_of(first);
  auto refused = client->remove(cm, ns, "a", pre);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::Conflict);
  ASSERT_TRUE(client->remove(cm, ns, "a"));
  EXPECT_EQ(client->remove(cm, ns, "a").error().code, ErrorCode::NotFound);
}

TEST_F(ClientTestbedTest, InvalidObjectNamesTheField) {
  Value bad = Map{{"apiVersion", "batch/v1"},
                  {"kind", "Job"},
                  {"metadata", Map{{"name", "bad"}, {"namespace", ns}}},
                  {"spec", Map{{"template", Map{{"spec", Map{{"restartPolicy", "Never"},
                                                             {"containers", core::List{Map{{"name", "main"}}}}}}}}}}};
  auto r = client->create(resources::jobs(), ns, bad);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::Invalid);
  EXPECT_EQ(r.error().field, "spec.template.spec.containers[0].image");
  EXPECT_NE(r.error().message.find("HTTP 422"), std::string::npos);
  EXPECT_NE(r.error().message.find("Job.batch \"bad\" is invalid"), std::string::npos) << r.error().message;
  auto st = api_status(r.error());
  ASSERT_TRUE(st);
  EXPECT_EQ(st->reason, "Invalid");
  EXPECT_FALSE(st->causes.empty());
}

TEST_F(ClientTestbedTest, ServerSideApplyOwnsFieldsAndReportsConflicts) {
  const auto& cm = resources::config_maps();
  auto a = client->apply(cm, ns, config_map(ns, "ssa", "one"));
  ASSERT_TRUE(a) << a.error().describe();
  auto again = client->apply(cm, ns, config_map(ns, "ssa", "one"));  // idempotent
  ASSERT_TRUE(again);
  EXPECT_EQ(rv_of(*a), rv_of(*again));
  // Another manager takes the field; budcore's non-forced apply is refused naming the conflict.
  ClientOptions other;
  other.field_manager = "someone-else";
  auto c2 = tb->client(other);
  ASSERT_TRUE(c2->apply(cm, ns, config_map(ns, "ssa", "theirs"), true));
  auto conflict = client->apply(cm, ns, config_map(ns, "ssa", "mine"));
  ASSERT_FALSE(conflict);
  EXPECT_EQ(conflict.error().code, ErrorCode::Conflict);
  EXPECT_NE(conflict.error().message.find("someone-else"), std::string::npos) << conflict.error().message;
  auto forced = client->apply(cm, ns, config_map(ns, "ssa", "mine"), true);
  ASSERT_TRUE(forced);
  EXPECT_EQ(forced->find_path("data.k")->as_string(), "mine");
}

TEST_F(ClientTestbedTest, ListPagesThroughEverything) {
  for (int i = 0; i < 7; ++i) ASSERT_TRUE(client->create(resources::config_maps(), ns, config_map(ns, "p" + std::to_string(i))));
  ListOptions lo;
  lo.limit = 2;
  auto before = client->requests_sent();
  auto l = client->list(resources::config_maps(), ns, lo);
  ASSERT_TRUE(l) << l.error().describe();
  int ours = 0;
  for (const auto& item : l->items) ours += item.find_path("metadata.name")->as_string()[0] == 'p';
  EXPECT_EQ(ours, 7);
  EXPECT_GE(client->requests_sent() - before, 4u);  // 8 objects (kube-root-ca.crt too) in pages of 2
  EXPECT_FALSE(l->resource_version.empty());
  EXPECT_EQ(l->items[0].find("kind")->as_string(), "ConfigMap");
}

TEST_F(ClientTestbedTest, CredentialsAndTlsFailuresAreClear) {
  // A token the server does not know (expired, revoked): 401, Security.
  auto cfg = tb->config();
  cfg.token = "expired-token";
  auto c = Client::open(cfg);
  ASSERT_TRUE(c);
  auto r = (*c)->get(resources::namespaces(), {}, ns);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::Security);
  EXPECT_NE(r.error().message.find("HTTP 401"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("expired"), std::string::npos);

  // A user without any role: 403 from RBAC, naming the verb and resource.
  cfg.token = tb->env("BUDCORE_K8S_NOPERM_TOKEN");
  c = Client::open(cfg);
  r = (*c)->create(resources::config_maps(), ns, config_map(ns, "x"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::Security);
  EXPECT_NE(r.error().message.find("HTTP 403"), std::string::npos);
  EXPECT_NE(r.error().message.find("budcore-noperm"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("configmaps"), std::string::npos);

  // The server's certificate is not signed by the CA the config trusts.
  cfg = tb->config();
  std::ifstream other(tb->env("BUDCORE_K8S_OTHER_CA_FILE"));
  std::stringstream ss;
  ss << other.rdbuf();
  cfg.ca_pem = ss.str();
  c = Client::open(cfg);
  ASSERT_TRUE(c);
  r = (*c)->get(resources::namespaces(), {}, ns);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::Io);
  EXPECT_NE(r.error().message.find("TLS failure"), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().field, "server");

  // Nothing listens there.
  cfg = tb->config();
  cfg.server = "https://127.0.0.1:1";
  ClientOptions quick;
  quick.connect_timeout = core::Duration::seconds(2);
  c = Client::open(cfg, quick);
  r = (*c)->get(resources::namespaces(), {}, ns);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::Io);
  EXPECT_NE(r.error().message.find("cannot reach the API server"), std::string::npos) << r.error().message;
}

TEST_F(ClientTestbedTest, ClientCertificateAndTokenFileAuthenticate) {
  auto read = [](const std::string& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  auto cfg = tb->config();
  cfg.token.clear();
  cfg.client_cert_pem = read(tb->env("BUDCORE_K8S_CLIENT_CERT"));
  cfg.client_key_pem = read(tb->env("BUDCORE_K8S_CLIENT_KEY"));
  auto c = Client::open(cfg);
  ASSERT_TRUE(c);
  auto r = (*c)->create(resources::config_maps(), ns, config_map(ns, "by-cert"));
  ASSERT_TRUE(r) << r.error().describe();

  std::string token_file = std::string(BUDCORE_BINARY_DIR) + "/" + Testbed::unique("token");
  std::ofstream(token_file) << tb->env("BUDCORE_K8S_TOKEN") << "\n";
  cfg = tb->config();
  cfg.token.clear();
  cfg.token_file = token_file;
  c = Client::open(cfg);
  EXPECT_TRUE((*c)->get(resources::config_maps(), ns, "by-cert"));
  std::remove(token_file.c_str());
}

TEST_F(ClientTestbedTest, AdmissionPolicyRejectionIsReported) {
  // A ValidatingAdmissionPolicy (CEL, evaluated by the apiserver's admission chain) denies
  // ConfigMaps without a label in this namespace.
  std::string policy = Testbed::unique("require-owner");
  Value p = Map{{"apiVersion", "admissionregistration.k8s.io/v1"},
                {"kind", "ValidatingAdmissionPolicy"},
                {"metadata", Map{{"name", policy}}},
                {"spec", Map{{"failurePolicy", "Fail"},
                             {"matchConstraints", Map{{"resourceRules", core::List{Map{{"apiGroups", core::List{""}},
                                                                                      {"apiVersions", core::List{"v1"}},
                                                                                      {"operations", core::List{"CREATE"}},
                                                                                      {"resources", core::List{"configmaps"}}}}}}},
                             {"validations", core::List{Map{{"expression", "has(object.metadata.labels) && 'owner' in object.metadata.labels"},
                                                           {"message", "configmaps need an owner label"}}}}}}};
  Value b = Map{{"apiVersion", "admissionregistration.k8s.io/v1"},
                {"kind", "ValidatingAdmissionPolicyBinding"},
                {"metadata", Map{{"name", policy}}},
                {"spec", Map{{"policyName", policy},
                             {"validationActions", core::List{"Deny"}},
                             {"matchResources", Map{{"namespaceSelector", Map{{"matchLabels", Map{{"kubernetes.io/metadata.name", ns}}}}}}}}}};
  Resource vap{"admissionregistration.k8s.io", "v1", "validatingadmissionpolicies", "ValidatingAdmissionPolicy", false};
  Resource vapb{"admissionregistration.k8s.io", "v1", "validatingadmissionpolicybindings", "ValidatingAdmissionPolicyBinding", false};
  ASSERT_TRUE(client->create(vap, {}, p));
  ASSERT_TRUE(client->create(vapb, {}, b));
  // The policy takes effect once the apiserver has loaded it.
  core::Error last;
  bool denied = Testbed::wait_until([&] {
    auto r = client->create(resources::config_maps(), ns, config_map(ns, Testbed::unique("c")));
    if (r) return false;
    last = r.error();
    return true;
  });
  ASSERT_TRUE(denied);
  EXPECT_EQ(last.code, ErrorCode::Invalid);
  EXPECT_NE(last.message.find("configmaps need an owner label"), std::string::npos) << last.message;
  EXPECT_NE(last.message.find(policy), std::string::npos) << last.message;
  (void)client->remove(vapb, {}, policy);
  (void)client->remove(vap, {}, policy);
}

TEST_F(ClientTestbedTest, WatchDeliversEventsBookmarksAndResumes) {
  const auto& cm = resources::config_maps();
  auto l = client->list(cm, ns);
  ASSERT_TRUE(l);
  std::string rv = l->resource_version;
  ASSERT_TRUE(client->create(cm, ns, config_map(ns, "w1")));
  ASSERT_TRUE(client->create(cm, ns, config_map(ns, "w2")));
  std::vector<std::string> seen;
  WatchOptions wo;
  wo.resource_version = rv;
  wo.timeout_seconds = 5;
  auto end = client->watch(cm, ns, wo, [&](const WatchEvent& ev) {
    if (ev.type != WatchEvent::Type::Bookmark) seen.push_back(ev.object.find_path("metadata.name")->as_string());
    return seen.size() < 2;  // stop after the two creations
  });
  ASSERT_TRUE(end) << end.error().describe();
  EXPECT_EQ(end->reason, WatchEnd::Reason::Stopped);
  ASSERT_EQ(seen, (std::vector<std::string>{"w1", "w2"}));
  // Resume from the last version: only what came after.
  ASSERT_TRUE(client->remove(cm, ns, "w1"));
  std::vector<WatchEvent::Type> types;
  wo.resource_version = end->last_resource_version;
  auto end2 = client->watch(cm, ns, wo, [&](const WatchEvent& ev) {
    if (ev.type != WatchEvent::Type::Bookmark) types.push_back(ev.type);
    return types.empty();
  });
  ASSERT_TRUE(end2);
  ASSERT_EQ(types.size(), 1u);
  EXPECT_EQ(types[0], WatchEvent::Type::Deleted);

  // A stop flag ends a quiet watch promptly.
  std::atomic<bool> stop{false};
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop = true;
  });
  auto t0 = std::chrono::steady_clock::now();
  wo.resource_version = end2->last_resource_version;
  wo.timeout_seconds = 30;
  auto end3 = client->watch(cm, ns, wo, [](const WatchEvent&) { return true; }, &stop);
  stopper.join();
  ASSERT_TRUE(end3);
  EXPECT_EQ(end3->reason, WatchEnd::Reason::Stopped);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
}

// etcd's own HTTP gateway: the current revision, then a compaction up to it.
void compact_etcd(const std::string& etcd_url) {
  auto http = backend::make_curl_http_client();
  backend::HttpRequest req;
  req.method = "POST";
  req.url = etcd_url + "/v3/kv/range";
  req.body = R"({"key":"AA==","limit":1})";
  auto r = http->send(req);
  ASSERT_TRUE(r && r->status == 200) << (r ? r->body : r.error().message);
  auto v = core::parse_json(r->body);
  ASSERT_TRUE(v);
  std::string rev = v->find_path("header.revision")->as_string();
  req.url = etcd_url + "/v3/kv/compaction";
  req.body = R"({"revision":")" + rev + R"(","physical":true})";
  r = http->send(req);
  ASSERT_TRUE(r && r->status == 200) << (r ? r->body : r.error().message);
}

TEST_F(ClientTestbedTest, ReflectorRelistsAfterCompaction) {
  const auto& cm = resources::config_maps();
  Reflector refl(*client, cm, ns);
  std::vector<std::string> changes;
  auto record = [&](const WatchEvent& ev) {
    std::string t = ev.type == WatchEvent::Type::Added ? "+" : ev.type == WatchEvent::Type::Deleted ? "-" : "~";
    changes.push_back(t + ev.object.find_path("metadata.name")->as_string());
  };
  ASSERT_TRUE(client->create(cm, ns, config_map(ns, "keep")));
  ASSERT_TRUE(client->create(cm, ns, config_map(ns, "gone")));
  ASSERT_TRUE(refl.relist(record));
  std::string old_rv = refl.resource_version();
  // While "down": changes, then etcd compacts them away, so the old version is gone.
  ASSERT_TRUE(client->create(cm, ns, config_map(ns, "new")));
  ASSERT_TRUE(client->remove(cm, ns, "gone"));
  auto keep = client->get(cm, ns, "keep");
  Value edited = *keep;
  edited.mutable_map()["data"].mutable_map().set("k", "edited");
  ASSERT_TRUE(client->replace(cm, ns, edited));
  compact_etcd(tb->env("BUDCORE_K8S_ETCD_URL"));
  changes.clear();
  auto end = refl.sync(record, 2);
  ASSERT_TRUE(end) << end.error().describe();
  EXPECT_EQ(end->reason, WatchEnd::Reason::Gone);
  EXPECT_EQ(refl.gone_count(), 1u);
  EXPECT_EQ(refl.relists(), 2u);
  std::sort(changes.begin(), changes.end());
  EXPECT_EQ(changes, (std::vector<std::string>{"+new", "-gone", "~keep"}));
  EXPECT_NE(refl.resource_version(), old_rv);
  EXPECT_FALSE(refl.get(ns, "gone"));
  EXPECT_EQ(refl.get(ns, "keep")->find_path("data.k")->as_string(), "edited");
  // And it keeps watching from the new version.
  changes.clear();
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    (void)client->create(cm, ns, config_map(ns, "after"));
  });
  end = refl.sync(record, 2);
  writer.join();
  ASSERT_TRUE(end);
  EXPECT_EQ(changes, (std::vector<std::string>{"+after"}));
}

}  // namespace
}  // namespace budcore::kubernetes
