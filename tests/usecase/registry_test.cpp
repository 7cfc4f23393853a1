// Loading components and templates from files and directories.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "backends/store_fixture.hpp"
#include "usecase/usecase_fixture.hpp"

namespace budcore::usecase {
namespace {

namespace fs = std::filesystem;
using core::ErrorCode;

class RegistryTest : public ::testing::Test {
 protected:
  testing::TempDir dir;
  void write(const std::string& rel, const std::string& text) {
    fs::path p = dir.path / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  std::string path(const std::string& rel = "") const { return (dir.path / rel).string(); }
};

std::string component(const std::string& id) {
  return "id: " + id + "\nname: " + id +
         "\ndescription: d\ncategory: cache\nversion: \"1\"\n"
         "deployment_type: docker\nimage: img/" +
         id + "\n";
}

TEST_F(RegistryTest, ReadsADirectoryOfFilesAndLists) {
  write("a.yaml", component("a"));
  write("nested/list.json",
        R"([{"id": "b", "name": "B", "description": "", "category": "cache", "version": "1",
             "deployment_type": "docker", "image": "x"},
            {"id": "c", "name": "C", "description": "", "category": "cache", "version": "1",
             "deployment_type": "docker", "image": "x"}])");
  write("README.md", "not a component");
  ComponentRegistry r;
  ASSERT_TRUE(load_components(path(), r));
  EXPECT_EQ(r.size(), 3u);
  EXPECT_NE(r.find("c"), nullptr);
  ComponentRegistry one;
  ASSERT_TRUE(load_components(path("nested/list.json"), one));
  EXPECT_EQ(one.size(), 2u);
}

TEST_F(RegistryTest, ProblemsNameTheFileAndChangeNothing) {
  write("a.yaml", component("a"));
  write("b.yaml", component("a"));
  ComponentRegistry r;
  ASSERT_TRUE(r.add(*ComponentDefinition::from_value(testing::yaml(component("z")))));
  auto st = load_components(path(), r);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, ErrorCode::AlreadyExists);
  EXPECT_NE(st.error().message.find("b.yaml"), std::string::npos) << st.error().message;
  EXPECT_NE(st.error().message.find("a.yaml"), std::string::npos) << st.error().message;
  EXPECT_EQ(r.size(), 1u);  // all or nothing

  fs::remove(path("b.yaml"));
  write("c.yaml", component("c") + "outputs: [url, url]\n");
  st = load_components(path(), r);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().field, "outputs[1]");
  EXPECT_NE(st.error().message.find("c.yaml"), std::string::npos);
  EXPECT_EQ(r.size(), 1u);

  write("c.yaml", "[" +
                      std::string("{id: ok, name: n, description: d, category: cache, version: '1', "
                                  "deployment_type: docker, image: i}, {id: bad}") +
                      "]");
  st = load_components(path("c.yaml"), r);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().field, "[1].name");

  write("d.yaml", "id: [unclosed");
  EXPECT_NE(load_components(path("d.yaml"), r).error().message.find("d.yaml"), std::string::npos);
  EXPECT_FALSE(load_components(path("missing.yaml"), r));
}

TEST_F(RegistryTest, FilesAreBounded) {
  write("big.yaml", component("big") + "description: \"" + std::string(kMaxFileBytes, 'x') + "\"\n");
  ComponentRegistry r;
  auto st = load_components(path("big.yaml"), r);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("is larger than the input limit of " + std::to_string(kMaxFileBytes)),
            std::string::npos)
      << st.error().message;
  EXPECT_FALSE(parse_usecase_document(std::string(kMaxFileBytes + 1, ' ')));
}

TEST_F(RegistryTest, TemplatesFromADirectory) {
  std::string t =
      "name: T\ndescription: d\ncategory: rag\nversion: \"1\"\ncomplexity: simple\n"
      "components: [{id: a, component_ref: x}]\n";
  write("rag/one.yaml", "id: one\n" + t);
  write("agent/two.yml", "id: two\n" + t);
  auto all = load_templates(path());
  ASSERT_TRUE(all) << all.error().describe();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].source_file, "agent/two.yml");
  EXPECT_EQ((*all)[1].tmpl.id, "one");
  write("rag/again.yaml", "id: one\n" + t);
  auto dup = load_templates(path());
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().code, ErrorCode::AlreadyExists);
  auto single = load_template_file(path("agent/two.yml"));
  ASSERT_TRUE(single);
  EXPECT_EQ(single->id, "two");
  auto dir_as_file = load_template_file(path("rag"));
  ASSERT_FALSE(dir_as_file);
  EXPECT_NE(dir_as_file.error().message.find("directory"), std::string::npos);
  write("bad.yaml", "id: bad\n" + t + "complexity: hard\n");
  auto bad = load_template_file(path("bad.yaml"));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "complexity");
  EXPECT_NE(bad.error().message.find("bad.yaml"), std::string::npos);
}

TEST(ComponentRegistryTest, AddPutFind) {
  ComponentRegistry r;
  auto c = *ComponentDefinition::from_value(testing::yaml(component("a")));
  ASSERT_TRUE(r.add(c));
  EXPECT_EQ(r.add(c).error().code, ErrorCode::AlreadyExists);
  c.name = "renamed";
  r.put(c);
  EXPECT_EQ(r.find("a")->name, "renamed");
  EXPECT_EQ(r.find("b"), nullptr);
  auto list = core::Value(core::List{c.to_value(), c.to_value()});
  ComponentRegistry twice;
  auto st = twice.add_document(list);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().field, "[1].id");
  EXPECT_EQ(twice.size(), 0u);
}

}  // namespace
}  // namespace budcore::usecase
