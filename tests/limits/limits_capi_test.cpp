// The limits suite, C ABI face (issue #19): the hostile inputs through the functions a C, Rust
// or Go service calls, on a 1 MiB thread (a service worker's stack), each returning a status
// code and a short error, never crashing the host.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "budcore/budcore.h"
#include "budcore/core/limits.hpp"
#include "support/small_stack.hpp"

namespace {

using budcore::test::on_small_stack;
using nlohmann::json;

std::string repeat(std::string_view s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

struct Call {
  int rc = 0;
  std::string out, message, field, value;
};

// Runs fn(out) on a small stack and collects the status, output and thread-local error (read
// on the same thread, where it lives).
template <class Fn>
Call on_worker(Fn fn) {
  Call c;
  on_small_stack([&] {
    budcore_buf out = BUDCORE_BUF_INIT;
    c.rc = fn(&out);
    if (out.ptr) c.out.assign(out.ptr, out.size);
    budcore_buf_dispose(&out);
    const budcore_error* e = budcore_error_last();
    c.message = e->message;
    c.field = e->field;
    c.value = e->value;
  });
  EXPECT_LE(c.message.size(), budcore::core::kMaxMessageBytes + 64);
  EXPECT_LE(c.value.size(), budcore::core::kMaxQuotedBytes + 64);
  return c;
}

Call render(const std::string& tmpl, int native = 0) {
  return on_worker([&](budcore_buf* out) { return budcore_template_render(out, tmpl.data(), tmpl.size(), nullptr, 0, native); });
}

TEST(LimitsCapiTest, HostileTemplatesReturnAnErrorCode) {
  std::string deep = "{% set ns = namespace(l=[]) %}{% for i in range(3000) %}{% set ns.l = [ns.l] %}{% endfor %}";
  Call chain = render("{{ 1" + repeat("+1", 20000) + " }}");
  EXPECT_EQ(chain.rc, BUDCORE_EINVALID);
  EXPECT_NE(chain.message.find("nested too deep"), std::string::npos) << chain.message;
  for (const std::string& t : {deep + "{{ ns.l }}", deep + "{{ ns.l | tojson }}", deep + "{{ ns.l == ns.l }}",
                               std::string("{{ ['x'] | batch(1e9, 'x') | list | length }}")}) {
    Call c = render(t);
    EXPECT_EQ(c.rc, BUDCORE_ESECURITY) << t.substr(t.size() - 30) << ": " << c.message;
  }
  Call native = render(deep + "{{ ns.l }}", 1);
  EXPECT_EQ(native.rc, BUDCORE_ESECURITY) << native.message;
  Call format = render("{{ '{99999999999999999999}'.format(1) }}");
  EXPECT_EQ(format.rc, BUDCORE_EINVALID);
  EXPECT_NE(format.message.find("IndexError"), std::string::npos);
  Call self = render("{% set ns = namespace(a=1) %}{% set ns.a = ns %}{{ ns }}");
  EXPECT_EQ(self.rc, BUDCORE_OK);
  EXPECT_EQ(self.out, "{'a': {...}}");
}

TEST(LimitsCapiTest, OversizedDocumentsAreRefusedWithAShortError) {
  std::string big = "{\"name\": \"" + std::string(50'000'000, 'x') + "\"}";
  Call c = on_worker([&](budcore_buf* out) { return budcore_job_validate(out, big.data(), big.size()); });
  EXPECT_EQ(c.rc, BUDCORE_EINVALID);
  EXPECT_NE(c.message.find("1572864"), std::string::npos) << c.message;
  // Anything over the general input limit is refused before it is scanned.
  std::string huge(budcore::core::kDefaultMaxInputBytes + 1, ' ');
  Call h = on_worker([&](budcore_buf* out) { return budcore_pipeline_plan(out, nullptr, huge.data(), huge.size()); });
  EXPECT_EQ(h.rc, BUDCORE_EINVALID);
  EXPECT_NE(h.message.find("over the limit of 67108864 bytes"), std::string::npos) << h.message;
  std::string yaml = "pipeline: {id: p, parameters: {big: &big " + std::string(1 << 20, 'x') + "}}\nsteps: [";
  for (int i = 0; i < 1000; ++i) yaml += i ? ", *big" : "*big";
  yaml += "]\n";
  // The issue's bomb (1 MB aliased 1000 times: 1 GB expanded) under an 8 MiB input limit.
  budcore::core::set_max_input_bytes(8u << 20);
  Call bomb = on_worker([&](budcore_buf* out) { return budcore_pipeline_plan(out, nullptr, yaml.data(), yaml.size()); });
  budcore::core::set_max_input_bytes(0);
  // An invalid pipeline leaves `out` empty; the first problem is the last error.
  EXPECT_EQ(bomb.rc, BUDCORE_EINVALID);
  EXPECT_TRUE(bomb.out.empty());
  EXPECT_NE(bomb.message.find("aliases expand"), std::string::npos) << bomb.rc << " " << bomb.message.substr(0, 300);
}

TEST(LimitsCapiTest, QuotaAndPipelineNumbersAreRangeChecked) {
  json scenario = json::parse(R"({"cycles": 1, "resource_flavors": [{"name": "default"}],
    "cluster_queues": [{"name": "cq", "resource_groups": [{"covered_resources": ["cpu"],
      "flavors": [{"name": "default", "resources": [{"name": "cpu", "nominal": "10"}]}]}]}],
    "local_queues": [{"namespace": "ns", "name": "lq", "cluster_queue": "cq"}],
    "workloads": [{"name": "w", "namespace": "ns", "queue": "lq",
                   "pod_sets": [{"name": "main", "count": 4294967297, "requests": {"cpu": "0"}}]}]})");
  std::string text = scenario.dump();
  Call q = on_worker([&](budcore_buf* out) { return budcore_quota_simulate(out, text.data(), text.size()); });
  EXPECT_EQ(q.rc, BUDCORE_EINVALID);
  EXPECT_EQ(q.field, "workloads[0].pod_sets[0].count");
  scenario["cluster_queues"][0]["resource_groups"][0]["flavors"][0]["resources"][0]["borowing_limit"] = "5";
  scenario["workloads"][0]["pod_sets"][0]["count"] = 1;
  text = scenario.dump();
  q = on_worker([&](budcore_buf* out) { return budcore_quota_simulate(out, text.data(), text.size()); });
  EXPECT_EQ(q.rc, BUDCORE_EINVALID);
  EXPECT_NE(q.message.find("did you mean 'borrowing_limit'?"), std::string::npos) << q.message;

  std::string wait = R"({"pipeline": {"id": "p"}, "steps": [{"id": "w", "name": "w", "step_type": "WAIT",
                         "config": {"duration_seconds": 1000000000000000000}}]})";
  Call run = on_worker([&](budcore_buf* out) { return budcore_pipeline_run(out, wait.data(), wait.size(), nullptr, 0, nullptr); });
  EXPECT_EQ(run.rc, BUDCORE_EINVALID);
  EXPECT_EQ(run.field, "steps[0].config.duration_seconds");
}

TEST(LimitsCapiTest, StoreUrisKeysAndCursorsAreChecked) {
  // (pointer, length) lets a NUL into the URI; it used to open the file named before it.
  std::string uri = std::string("sqlite::memory:") + '\0' + "/etc/passwd";
  budcore_store* store = nullptr;
  EXPECT_EQ(budcore_store_open(&store, uri.data(), uri.size()), BUDCORE_EINVALID);
  EXPECT_EQ(store, nullptr);
  EXPECT_STREQ(budcore_error_last()->field, "uri");
  ASSERT_EQ(budcore_store_open(&store, "sqlite::memory:", 15), BUDCORE_OK);
  std::string tenant = "3f6b2a1e-8c4d-4e5f-9a0b-1c2d3e4f5a6b";
  std::string job = R"({"name": "j", "tenant_id": "3f6b2a1e-8c4d-4e5f-9a0b-1c2d3e4f5a6b", "job_type": "SERVICE", "source": "DIRECT", "deployment_type": "HELM"})";
  std::string bad_key = "k\xff";
  Call submit = on_worker([&](budcore_buf* out) {
    return budcore_store_job_submit(out, store, tenant.data(), tenant.size(), job.data(), job.size(), bad_key.data(), bad_key.size());
  });
  EXPECT_EQ(submit.rc, BUDCORE_EINVALID);
  for (const char* forged : {R"({"after": "1_x"})", R"({"after": "-5_zz"})", R"({"afterr": "x"})"}) {
    std::string query = forged;
    Call list = on_worker([&](budcore_buf* out) {
      return budcore_store_job_list(out, store, tenant.data(), tenant.size(), query.data(), query.size());
    });
    EXPECT_EQ(list.rc, BUDCORE_EINVALID) << forged;
  }
  budcore_store_free(store);
}

}  // namespace
