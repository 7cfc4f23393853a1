// The component registry and templates in a Store, on SQLite (memory, file) and PostgreSQL:
// the startup sync's insert/skip/update rule, versions with a default, soft delete, search,
// forks, and nothing written for invalid input.
#include <gtest/gtest.h>

#include "backends/store_fixture.hpp"
#include "budcore/usecase/catalog.hpp"
#include "usecase/usecase_fixture.hpp"

namespace budcore::usecase {
namespace {

using backend::system_tenant;
using core::ErrorCode;
using core::Id;
using core::Value;
using testing::yaml;

class CatalogTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    target_ = testing::make_target(GetParam());
    if (!target_.skip.empty()) GTEST_SKIP() << target_.skip;
    ASSERT_TRUE(target_.error.empty()) << target_.error;
    backend::StoreOptions options;
    options.clock = clock_;
    auto s = backend::open_store(target_.uri, options);
    ASSERT_TRUE(s) << s.error().describe();
    store_ = std::move(*s);
  }
  backend::Store& store() { return *store_; }
  SyncReport sync(const std::vector<TemplateFile>& templates = builtin_templates()) {
    clock_->advance(core::Duration::seconds(1));
    auto r = sync_system_catalog(store(), builtin_components(), templates);
    EXPECT_TRUE(r) << r.error().describe();
    return r ? *r : SyncReport{};
  }
  std::size_t rows() {
    std::size_t n = 0;
    for (auto kind : {backend::CatalogKind::Component, backend::CatalogKind::UsecaseTemplate}) {
      n += store().search_catalog_items(tenant_a_, kind, {.include_inactive = true, .all_versions = true})->size();
    }
    return n;
  }

  testing::BackendTarget target_;
  std::shared_ptr<core::VirtualClock> clock_ = std::make_shared<core::VirtualClock>();
  std::unique_ptr<backend::Store> store_;
  const Id tenant_a_ = Id::generate();
  const Id tenant_b_ = Id::generate();
};

std::vector<TemplateFile> with_version(std::string_view id, std::string version) {
  std::vector<TemplateFile> out = builtin_templates();
  for (auto& f : out) {
    if (f.tmpl.id == id) f.tmpl.version = version;
  }
  return out;
}

TEST_P(CatalogTest, StartupSyncInsertsSkipsAndUpdates) {
  auto first = sync();
  EXPECT_EQ(first.inserted.size(), 15u);
  EXPECT_TRUE(first.updated.empty());
  EXPECT_EQ(first.inserted.front(), "component agent-runtime@1.0.0");
  auto again = sync();
  EXPECT_TRUE(again.inserted.empty());
  EXPECT_TRUE(again.updated.empty());
  EXPECT_EQ(again.unchanged.size(), 15u);

  TemplateCatalog templates(store(), tenant_a_);
  auto bumped = sync(with_version("simple-rag-v1", "1.1.0"));
  EXPECT_EQ(bumped.updated, std::vector<std::string>{"template simple-rag-v1@1.1.0"});
  auto rag = templates.get("simple-rag-v1");
  ASSERT_TRUE(rag) << rag.error().describe();
  EXPECT_EQ(rag->tmpl.version, "1.1.0");
  EXPECT_TRUE(rag->is_system);
  EXPECT_TRUE(rag->is_default);
  EXPECT_EQ(rag->source_file, "rag/simple-rag-v1.yaml");
  EXPECT_EQ(templates.versions("simple-rag-v1")->size(), 2u);
  // A revert of the file makes the stored older version the default again.
  auto reverted = sync();
  EXPECT_EQ(reverted.updated, std::vector<std::string>{"template simple-rag-v1@1.0.0"});
  EXPECT_EQ(templates.get("simple-rag-v1")->tmpl.version, "1.0.0");
  EXPECT_EQ(templates.versions("simple-rag-v1")->size(), 2u);
  EXPECT_EQ(SyncReport(reverted).to_value().find("updated")->as_list().size(), 1u);
}

TEST_P(CatalogTest, AnInvalidSystemTemplateWritesNothing) {
  auto files = builtin_templates();
  files.back().tmpl.components[0].component_ref = "weaviate";
  auto r = sync_system_catalog(store(), builtin_components(), files);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::Invalid);
  EXPECT_EQ(r.error().field, "components[0].component_ref");
  EXPECT_NE(r.error().message.find("rag/simple-rag-v1.yaml: unknown_component"), std::string::npos)
      << r.error().message;
  EXPECT_EQ(rows(), 0u);
}

TEST_P(CatalogTest, ComponentVersionsDefaultsSoftDeleteAndSearch) {
  sync();
  ComponentCatalog mine(store(), tenant_a_);
  ComponentDefinition c = *builtin_components().find("qdrant");
  c.id = "my-qdrant";
  c.tags = {"vector-db", "mine"};
  auto v1 = mine.create(c);
  ASSERT_TRUE(v1) << v1.error().describe();
  EXPECT_FALSE(v1->id.is_nil());
  EXPECT_TRUE(v1->is_default);
  EXPECT_EQ(mine.create(c).error().code, ErrorCode::AlreadyExists);
  c.version = "1.1.0";
  c.default_values = yaml("{replicaCount: 3}");
  ASSERT_TRUE(mine.update(c));
  EXPECT_EQ(mine.get("my-qdrant")->default_values, yaml("{replicaCount: 3}"));
  c.version = "2.0.0-beta";
  ASSERT_TRUE(mine.add_version(c));  // not the default
  EXPECT_EQ(mine.get("my-qdrant")->version, "1.1.0");
  EXPECT_EQ(mine.get("my-qdrant", "2.0.0-beta")->version, "2.0.0-beta");
  auto versions = mine.versions("my-qdrant");
  ASSERT_TRUE(versions);
  ASSERT_EQ(versions->size(), 3u);
  EXPECT_FALSE((*versions)[0].is_default);
  EXPECT_TRUE((*versions)[1].is_default);
  EXPECT_EQ((*versions)[2].definition.find("version")->as_string(), "2.0.0-beta");
  ASSERT_TRUE(mine.set_default_version("my-qdrant", "2.0.0-beta"));
  EXPECT_EQ(mine.get("my-qdrant")->version, "2.0.0-beta");
  EXPECT_EQ(mine.set_default_version("my-qdrant", "9.9").error().code, ErrorCode::NotFound);

  ComponentDefinition ghost = c;
  ghost.id = "ghost";
  EXPECT_EQ(mine.update(ghost).error().code, ErrorCode::NotFound);
  ComponentDefinition bad = c;
  bad.id = "Bad Id";
  EXPECT_EQ(mine.create(bad).error().field, "id");
  bad = c;
  bad.outputs = {"url", "url"};
  EXPECT_EQ(mine.update(bad).error().field, "outputs[1]");
  EXPECT_EQ(mine.versions("my-qdrant")->size(), 3u);  // nothing written for invalid input

  auto names = [](const std::vector<ComponentDefinition>& list) {
    std::vector<std::string> out;
    for (const auto& d : list) out.push_back(d.id);
    return out;
  };
  EXPECT_EQ(names(*mine.search({.category = ComponentCategory::Database})),
            (std::vector<std::string>{"milvus", "my-qdrant", "postgres", "qdrant"}));
  EXPECT_EQ(names(*mine.search({.tags = {"vector-db"}})), (std::vector<std::string>{"milvus", "my-qdrant", "qdrant"}));
  EXPECT_EQ(names(*mine.search({.category = ComponentCategory::Database, .tags = {"mine"}})),
            std::vector<std::string>{"my-qdrant"});
  EXPECT_EQ(ComponentCatalog(store(), tenant_b_).search({.tags = {"mine"}})->size(), 0u);

  ASSERT_TRUE(mine.remove("my-qdrant"));
  EXPECT_EQ(mine.get("my-qdrant").error().code, ErrorCode::NotFound);
  EXPECT_EQ(mine.registry()->find("my-qdrant"), nullptr);
  auto deleted = mine.search({.tags = {"mine"}, .include_inactive = true});
  ASSERT_EQ(deleted->size(), 1u);
  EXPECT_FALSE((*deleted)[0].is_active);
  EXPECT_EQ(mine.create(c).error().code, ErrorCode::AlreadyExists);  // deleted, not gone
  ASSERT_TRUE(mine.restore("my-qdrant"));
  EXPECT_NE(mine.registry()->find("my-qdrant"), nullptr);
  EXPECT_EQ(mine.registry()->size(), 11u);
  EXPECT_EQ(mine.remove("qdrant").error().code, ErrorCode::Invalid);  // a system component
  ASSERT_TRUE(ComponentCatalog(store(), system_tenant()).remove("milvus"));
  EXPECT_EQ(mine.registry()->find("milvus"), nullptr);
}

TEST_P(CatalogTest, UserTemplatesForksAndVersions) {
  sync();
  TemplateCatalog a(store(), tenant_a_), b(store(), tenant_b_);
  // Fork a system template under the same id: tenant A sees its copy, tenant B the original.
  auto fork = a.fork("simple-rag-v1");
  ASSERT_TRUE(fork) << fork.error().describe();
  EXPECT_FALSE(fork->is_system);
  EXPECT_EQ(fork->forked_from, "simple-rag-v1@1.0.0");
  UseCaseTemplate changed = fork->tmpl;
  changed.version = "1.0.1";
  changed.parameters[3].default_value = Value("nvidia-a100-80gb");
  auto v2 = a.update(changed);
  ASSERT_TRUE(v2) << v2.error().describe();
  EXPECT_EQ(a.get("simple-rag-v1")->tmpl.version, "1.0.1");
  EXPECT_FALSE(a.get("simple-rag-v1")->is_system);
  EXPECT_TRUE(b.get("simple-rag-v1")->is_system);
  EXPECT_EQ(a.versions("simple-rag-v1")->size(), 2u);  // the fork's versions
  EXPECT_EQ(b.versions("simple-rag-v1")->size(), 1u);
  auto resolved = a.resolve("simple-rag-v1", yaml("{model_id: m}"));
  ASSERT_TRUE(resolved) << resolved.error().describe();
  ASSERT_TRUE(resolved->valid()) << testing::describe(resolved->errors);
  EXPECT_EQ(resolved->stack->component("llm")->gpu_type, "nvidia-a100-80gb");
  EXPECT_EQ(b.resolve("simple-rag-v1", yaml("{model_id: m}"))->stack->component("llm")->gpu_type, "nvidia-a100-40gb");
  EXPECT_EQ(a.fork("simple-rag-v1").error().code, ErrorCode::AlreadyExists);

  // A fork under a new id; then soft delete uncovers the system template again.
  auto named = b.fork("enterprise-rag-v1", "acme-rag");
  ASSERT_TRUE(named) << named.error().describe();
  EXPECT_EQ(named->tmpl.id, "acme-rag");
  EXPECT_EQ(a.get("acme-rag").error().code, ErrorCode::NotFound);
  ASSERT_TRUE(a.remove("simple-rag-v1"));
  EXPECT_TRUE(a.get("simple-rag-v1")->is_system);
  ASSERT_TRUE(a.restore("simple-rag-v1"));
  EXPECT_FALSE(a.get("simple-rag-v1")->is_system);
  EXPECT_EQ(a.remove("simple-chatbot-v1").error().code, ErrorCode::Invalid);

  auto ids = [](const std::vector<TemplateRecord>& list) {
    std::vector<std::string> out;
    for (const auto& r : list) out.push_back(r.tmpl.id);
    return out;
  };
  EXPECT_EQ(ids(*b.search({.category = "rag"})),
            (std::vector<std::string>{"acme-rag", "enterprise-rag-v1", "simple-rag-v1"}));
  EXPECT_EQ(ids(*b.search({.user_only = true})), std::vector<std::string>{"acme-rag"});
  EXPECT_EQ(ids(*a.search({.tags = {"beginner", "rag"}})), std::vector<std::string>{"simple-rag-v1"});
  EXPECT_EQ(b.search({.system_only = true})->size(), 5u);
  EXPECT_EQ(a.get("simple-rag-v1")->to_value().find_path("template.id")->as_string(), "simple-rag-v1");
}

TEST_P(CatalogTest, InvalidUserTemplatesWriteNothing) {
  sync();
  TemplateCatalog a(store(), tenant_a_);
  std::size_t before = rows();
  UseCaseTemplate t = *builtin_template("simple-chatbot-v1");
  t.id = "mine";
  t.components[1].env = yaml("{API_ENDPOINT: '{{ components.llm.outputs.nope }}'}");
  auto r = a.create(t);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "components[1].env.API_ENDPOINT");
  EXPECT_NE(r.error().message.find("unknown_reference"), std::string::npos);
  t = *builtin_template("simple-chatbot-v1");
  t.id = "mine";
  t.components[0].component_ref = "my-private-llm";  // another tenant's component is not visible
  ComponentDefinition private_llm = *builtin_components().find("vllm-endpoint");
  private_llm.id = "my-private-llm";
  ASSERT_TRUE(ComponentCatalog(store(), tenant_b_).create(private_llm));
  EXPECT_EQ(a.create(t).error().field, "components[0].component_ref");
  t.id = "Not A Label";
  EXPECT_EQ(a.create(t).error().field, "id");
  EXPECT_EQ(rows(), before);  // what tenant A sees: nothing was written (B's component is B's)
  auto ok = TemplateCatalog(store(), tenant_b_).create([&] {
    UseCaseTemplate u = *builtin_template("simple-chatbot-v1");
    u.id = "mine";
    u.components[0].component_ref = "my-private-llm";
    return u;
  }());
  ASSERT_TRUE(ok) << ok.error().describe();
  EXPECT_EQ(TemplateCatalog(store(), tenant_b_).update(ok->tmpl).error().code, ErrorCode::AlreadyExists);
}

INSTANTIATE_TEST_SUITE_P(Backends, CatalogTest, ::testing::Values("sqlite_memory", "sqlite_file", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace budcore::usecase
