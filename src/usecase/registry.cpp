// Component registries and template sets: from documents, files, directories and the files
// built into the library.
#include "budcore/usecase/registry.hpp"

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <map>
#include <mutex>

#include "budcore/core/limits.hpp"
#include "budcore/core/yaml.hpp"
#include "usecase/builtin_data.hpp"
#include "usecase/doc_reader.hpp"

namespace budcore::usecase {
namespace {

namespace fs = std::filesystem;
using core::Error;
using core::ErrorCode;
using core::Value;

bool has_document_extension(const fs::path& p) {
  auto ext = p.extension().string();
  return ext == ".yaml" || ext == ".yml" || ext == ".json";
}

Error file_error(const std::string& file, Error e) {
  e.message = file + ": " + e.message;
  return e;
}

// The document files under `path` (itself when it is a file), in path order.
core::Result<std::vector<fs::path>> document_files(const std::string& path) {
  std::error_code ec;
  if (path == "-" || !fs::is_directory(path, ec)) return std::vector<fs::path>{fs::path(path)};
  std::vector<fs::path> out;
  fs::recursive_directory_iterator it(path, fs::directory_options::none, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec) || !has_document_extension(it->path())) continue;
    if (out.size() == kMaxFiles) {
      return Error{ErrorCode::Invalid, path + " holds more than " + std::to_string(kMaxFiles) + " files", path, {}};
    }
    out.push_back(it->path());
  }
  if (ec) return Error{ErrorCode::Io, "cannot list '" + path + "': " + ec.message(), path, {}};
  std::sort(out.begin(), out.end());
  return out;
}

// .yaml/.yml files are YAML even when they start with '[' or '{' (flow style); others are
// JSON when they start with '{' or '[', YAML otherwise.
core::Result<Value> load_file_impl(const std::string& file) {
  BUDCORE_TRY_ASSIGN(std::string text, core::read_input(file, kMaxFileBytes, "path"));
  auto ext = fs::path(file).extension().string();
  auto doc = ext == ".yaml" || ext == ".yml" ? core::parse_yaml(text) : parse_usecase_document(text);
  if (!doc) return file_error(file, std::move(doc).error());
  return doc;
}

std::string relative_name(const fs::path& file, const std::string& root) {
  std::error_code ec;
  if (file.string() == root) return file.filename().string();
  auto rel = fs::relative(file, root, ec);
  return ec ? file.string() : rel.generic_string();
}

}  // namespace

core::Status ComponentRegistry::add(ComponentDefinition component) {
  if (by_id_.count(component.id) != 0) {
    return Error{ErrorCode::AlreadyExists, "component '" + component.id + "' is already in the registry", "id",
                 component.id};
  }
  std::string id = component.id;
  by_id_.emplace(std::move(id), std::move(component));
  return {};
}

void ComponentRegistry::put(ComponentDefinition component) {
  std::string id = component.id;
  by_id_.insert_or_assign(std::move(id), std::move(component));
}

const ComponentDefinition* ComponentRegistry::find(std::string_view id) const noexcept {
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : &it->second;
}

std::vector<const ComponentDefinition*> ComponentRegistry::all() const {
  std::vector<const ComponentDefinition*> out;
  out.reserve(by_id_.size());
  for (const auto& [id, c] : by_id_) out.push_back(&c);
  return out;
}

core::Status ComponentRegistry::add_document(const Value& document) {
  std::vector<ComponentDefinition> parsed;
  if (document.is_list()) {
    const auto& list = document.as_list();
    for (std::size_t i = 0; i < list.size(); ++i) {
      auto c = ComponentDefinition::from_value(list[i]);
      if (!c) return std::move(c.error().at("[" + std::to_string(i) + "]"));
      parsed.push_back(std::move(*c));
    }
  } else {
    BUDCORE_TRY_ASSIGN(auto c, ComponentDefinition::from_value(document));
    parsed.push_back(std::move(c));
  }
  // All or nothing: check every id before adding any.
  std::map<std::string_view, std::size_t> seen;
  for (std::size_t i = 0; i < parsed.size(); ++i) {
    const std::string& id = parsed[i].id;
    std::string at = document.is_list() ? "[" + std::to_string(i) + "].id" : "id";
    if (find(id) != nullptr) {
      return Error{ErrorCode::AlreadyExists, "component '" + id + "' is already in the registry", at, id};
    }
    if (!seen.emplace(id, i).second) {
      return Error{ErrorCode::AlreadyExists, "component '" + id + "' is listed twice", at, id};
    }
  }
  for (auto& c : parsed) BUDCORE_TRY(add(std::move(c)));
  return {};
}

core::Result<Value> parse_usecase_document(std::string_view text) {
  if (text.size() > kMaxFileBytes) {
    return Error::invalid({}, std::to_string(text.size()) + " bytes",
                          "a use-case document is at most " + std::to_string(kMaxFileBytes) + " bytes");
  }
  return core::parse_document(text);
}

core::Result<Value> load_usecase_document(const std::string& path) { return load_file_impl(path); }

core::Status load_components(const std::string& path, ComponentRegistry& registry) {
  BUDCORE_TRY_ASSIGN(auto files, document_files(path));
  ComponentRegistry staged = registry;
  std::map<std::string, std::string> origin;  // id -> file
  for (const auto& f : files) {
    std::string file = f.string();
    BUDCORE_TRY_ASSIGN(Value doc, load_file_impl(file));
    ComponentRegistry one;
    if (auto st = one.add_document(doc); !st) return file_error(file, std::move(st).error());
    for (const auto* c : one.all()) {
      if (staged.find(c->id) != nullptr) {
        auto prev = origin.find(c->id);
        std::string where = prev == origin.end() ? "the registry" : prev->second;
        return Error{ErrorCode::AlreadyExists, file + ": component '" + c->id + "' is already defined in " + where,
                     "id", c->id};
      }
      origin.emplace(c->id, file);
      BUDCORE_TRY(staged.add(*c));
    }
  }
  registry = std::move(staged);
  return {};
}

core::Result<UseCaseTemplate> load_template_file(const std::string& path) {
  BUDCORE_TRY_ASSIGN(Value doc, load_file_impl(path));
  auto t = UseCaseTemplate::from_value(doc);
  if (!t) return file_error(path, std::move(t).error());
  return t;
}

core::Result<std::vector<TemplateFile>> load_templates(const std::string& path) {
  BUDCORE_TRY_ASSIGN(auto files, document_files(path));
  std::vector<TemplateFile> out;
  std::map<std::string, std::string> origin;
  for (const auto& f : files) {
    BUDCORE_TRY_ASSIGN(auto t, load_template_file(f.string()));
    std::string rel = relative_name(f, path);
    auto [it, fresh] = origin.emplace(t.id, rel);
    if (!fresh) {
      return Error{ErrorCode::AlreadyExists,
                   f.string() + ": template '" + t.id + "' is already defined in " + it->second, "id", t.id};
    }
    out.push_back(TemplateFile{std::move(t), std::move(rel)});
  }
  return out;
}

UsecaseRegistry UsecaseRegistry::builtin() { return UsecaseRegistry{builtin_components(), builtin_templates()}; }

const UseCaseTemplate* UsecaseRegistry::find_template(std::string_view id) const noexcept {
  for (const auto& t : templates) {
    if (t.tmpl.id == id) return &t.tmpl;
  }
  return nullptr;
}

void UsecaseRegistry::put_template(TemplateFile file) {
  for (auto& t : templates) {
    if (t.tmpl.id == file.tmpl.id) {
      t = std::move(file);
      return;
    }
  }
  templates.push_back(std::move(file));
}

core::Status UsecaseRegistry::load(const std::string& components_path, const std::string& templates_path) {
  ComponentRegistry staged = components;
  if (!components_path.empty()) BUDCORE_TRY(load_components(components_path, staged));
  std::vector<TemplateFile> files;
  if (!templates_path.empty()) {
    BUDCORE_TRY_ASSIGN(files, load_templates(templates_path));
  }
  components = std::move(staged);
  for (auto& f : files) put_template(std::move(f));
  return {};
}

core::Value template_summary(const TemplateFile& f) {
  const auto& t = f.tmpl;
  core::List params, comps, tags(t.tags.begin(), t.tags.end());
  for (const auto& p : t.parameters) params.emplace_back(p.name);
  for (const auto& c : t.components) comps.emplace_back(c.id);
  core::Map m;
  m.set("id", Value(t.id));
  m.set("name", Value(t.name));
  m.set("version", Value(t.version));
  m.set("category", Value(t.category));
  m.set("complexity", Value(std::string(to_string(t.complexity))));
  m.set("description", Value(t.description));
  m.set("tags", Value(std::move(tags)));
  m.set("parameters", Value(std::move(params)));
  m.set("components", Value(std::move(comps)));
  m.set("source_file", Value(f.source_file));
  return Value(std::move(m));
}

namespace {

struct Builtin {
  ComponentRegistry components;
  std::vector<TemplateFile> templates;
};

// A shipped file that does not load is a bug in budcore (the tests load every one).
[[noreturn]] void broken_builtin(std::string_view path, const Error& e) {
  throw std::logic_error("shipped use-case file " + std::string(path) + " does not load: " + e.describe());
}

const Builtin& builtin() {
  static const Builtin data = [] {
    Builtin b;
    constexpr std::string_view kComponents = "components/", kTemplates = "templates/";
    for (std::size_t i = 0; i < detail::kBuiltinFileCount; ++i) {
      const auto& f = detail::kBuiltinFiles[i];
      auto doc = parse_usecase_document(f.text);
      if (!doc) broken_builtin(f.path, doc.error());
      if (f.path.substr(0, kComponents.size()) == kComponents) {
        if (auto st = b.components.add_document(*doc); !st) broken_builtin(f.path, st.error());
      } else if (f.path.substr(0, kTemplates.size()) == kTemplates) {
        auto t = UseCaseTemplate::from_value(*doc);
        if (!t) broken_builtin(f.path, t.error());
        b.templates.push_back(TemplateFile{std::move(*t), std::string(f.path.substr(kTemplates.size()))});
      }
    }
    return b;
  }();
  return data;
}

}  // namespace

const ComponentRegistry& builtin_components() { return builtin().components; }
const std::vector<TemplateFile>& builtin_templates() { return builtin().templates; }

const UseCaseTemplate* builtin_template(std::string_view id) {
  for (const auto& t : builtin_templates()) {
    if (t.tmpl.id == id) return &t.tmpl;
  }
  return nullptr;
}

}  // namespace budcore::usecase
