// `budcore template eval --batch FILE` (docs/cli.md contract 1): JSON Lines in, JSON Lines out.
// The first line holds the context; each further line a case {"id", "template", "native"}.
// Each distinct template text is compiled once per batch.
#include <cctype>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <unordered_map>

#include "budcore/core/json.hpp"
#include "budcore/core/json_string.hpp"
#include "budcore/core/limits.hpp"
#include "budcore/templates/template.hpp"
#include "cli/command.hpp"

namespace budcore::cli {
namespace {

struct Compiled {
  templates::Template tmpl;
  templates::TemplateError error;
  bool ok = false;
};

// A case line is a flat object of strings, booleans, numbers and null; this reads it without
// building a document. Anything else (nesting, odd escapes) returns false and the caller falls
// back to the full JSON parser.
struct CaseLine {
  std::string_view id_json = "null";
  std::string template_text;
  bool has_template = false;
  bool native = false;
};

bool read_json_string(std::string_view& p, std::string& out) {
  if (p.empty() || p[0] != '"') return false;
  std::size_t i = 1;
  out.clear();
  while (i < p.size()) {
    char c = p[i];
    if (c == '"') {
      p.remove_prefix(i + 1);
      return true;
    }
    if (static_cast<unsigned char>(c) < 0x20) return false;
    if (c != '\\') {
      std::size_t j = i;
      while (j < p.size() && p[j] != '"' && p[j] != '\\' && static_cast<unsigned char>(p[j]) >= 0x20) ++j;
      out.append(p.data() + i, j - i);
      i = j;
      continue;
    }
    if (i + 1 >= p.size()) return false;
    char e = p[i + 1];
    switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      default: return false;  // \u escapes: leave them to the full parser
    }
    i += 2;
  }
  return false;
}

void skip_ws(std::string_view& p) {
  while (!p.empty() && (p[0] == ' ' || p[0] == '\t' || p[0] == '\r' || p[0] == '\n')) p.remove_prefix(1);
}

bool fast_case(std::string_view p, CaseLine& out) {
  skip_ws(p);
  if (p.empty() || p[0] != '{') return false;
  p.remove_prefix(1);
  std::string key, text;
  while (true) {
    skip_ws(p);
    if (!p.empty() && p[0] == '}') break;
    if (!read_json_string(p, key)) return false;
    skip_ws(p);
    if (p.empty() || p[0] != ':') return false;
    p.remove_prefix(1);
    skip_ws(p);
    if (p.empty()) return false;
    std::string_view value_start = p;
    bool is_string = p[0] == '"';
    bool bool_value = false;
    if (is_string) {
      if (!read_json_string(p, text)) return false;
    } else if (p.substr(0, 4) == "true") {
      bool_value = true;
      p.remove_prefix(4);
    } else if (p.substr(0, 5) == "false") {
      p.remove_prefix(5);
    } else if (p.substr(0, 4) == "null") {
      p.remove_prefix(4);
    } else if (p[0] == '-' || (p[0] >= '0' && p[0] <= '9')) {
      while (!p.empty() && (std::isdigit(static_cast<unsigned char>(p[0])) || p[0] == '-' || p[0] == '+' ||
                            p[0] == '.' || p[0] == 'e' || p[0] == 'E'))
        p.remove_prefix(1);
    } else {
      return false;
    }
    std::string_view raw = value_start.substr(0, value_start.size() - p.size());
    if (key == "id") {
      out.id_json = raw;
    } else if (key == "template") {
      if (!is_string) return false;
      out.template_text = std::move(text);
      out.has_template = true;
    } else if (key == "native") {
      out.native = bool_value;
    }
    skip_ws(p);
    if (!p.empty() && p[0] == ',') {
      p.remove_prefix(1);
      continue;
    }
    if (!p.empty() && p[0] == '}') break;
    return false;
  }
  p.remove_prefix(1);
  skip_ws(p);
  return p.empty();
}

void append_failure(std::string& out, std::string_view id_json, const templates::TemplateError& e) {
  out += "{\"id\": ";
  out += id_json;
  out += ", \"ok\": false, \"error\": ";
  core::append_json_string(out, templates::to_string(e.kind));
  out += ", \"message\": ";
  core::append_json_string(out, e.message);
  if (e.line > 0) {
    out += ", \"line\": " + std::to_string(e.line) + ", \"column\": " + std::to_string(e.column);
  }
  out += "}\n";
}

int eval_batch(const std::string& file) {
  core::Result<std::string> read = read_file_arg(file, "--batch");
  if (!read) return report_error(read.error());
  std::string input = std::move(*read);
  std::string_view rest = input;
  auto next_line = [&](std::string_view& line) {
    while (!rest.empty()) {
      auto nl = rest.find('\n');
      line = rest.substr(0, nl);
      rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.find_first_not_of(" \t") != std::string_view::npos) return true;
    }
    return false;
  };
  std::string_view line;
  if (!next_line(line)) {
    return report_error(core::Error::invalid("line 1", "", "the first line must be {\"context\": {...}}"));
  }
  auto header = core::parse_json(line);
  if (!header) return report_error(core::Error(header.error()).at("line 1"));
  const core::Value* context = header->find("context");
  if (!context) return report_error(core::Error::invalid("line 1.context", "", "missing the context object"));

  std::unordered_map<std::string, std::unique_ptr<Compiled>> cache;
  std::string out;
  out.reserve(1 << 20);
  std::string rendered;
  int line_no = 1;
  while (next_line(line)) {
    ++line_no;
    CaseLine c;
    std::string id_storage;
    if (!fast_case(line, c)) {
      std::string where = "line " + std::to_string(line_no);
      auto doc = core::parse_json(line);
      if (!doc) return report_error(core::Error(doc.error()).at(where));
      if (!doc->is_map()) return report_error(core::Error::invalid(where, "", "a case must be a JSON object"));
      const core::Value* tmpl = doc->find("template");
      if (!tmpl || !tmpl->is_string())
        return report_error(core::Error::invalid(where + ".template", "", "must be a string"));
      c.template_text = tmpl->as_string();
      c.has_template = true;
      const core::Value* id = doc->find("id");
      id_storage = id ? core::to_json(*id) : "null";
      c.id_json = id_storage;
      const core::Value* native = doc->find("native");
      c.native = native && native->is_bool() && native->as_bool();
    }
    if (!c.has_template) {
      return report_error(core::Error::invalid("line " + std::to_string(line_no) + ".template", "", "must be a string"));
    }
    std::string_view id_json = c.id_json;
    bool is_native = c.native;

    auto& slot = cache[c.template_text];
    if (!slot) {
      slot = std::make_unique<Compiled>();
      slot->ok = templates::Template::compile(c.template_text, slot->tmpl, slot->error);
    }
    if (!slot->ok) {
      append_failure(out, id_json, slot->error);
    } else {
      templates::TemplateError err;
      bool ok;
      std::string value_json;
      if (is_native) {
        core::Value v;
        ok = slot->tmpl.render_native(*context, v, err);
        if (ok) value_json = core::to_json(v);
      } else {
        ok = slot->tmpl.render(*context, rendered, err);
        if (ok) core::append_json_string(value_json, rendered);
      }
      if (!ok) {
        append_failure(out, id_json, err);
      } else {
        out += "{\"id\": ";
        out += id_json;
        out += ", \"ok\": true, \"value\": ";
        out += value_json;
        out += "}\n";
      }
    }
    if (out.size() > (1 << 20)) {
      std::fwrite(out.data(), 1, out.size(), stdout);
      out.clear();
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  return kExitOk;
}

const bool registered = register_commands([](CLI::App& root) {
  auto* group = root.add_subcommand("template", "Jinja2-compatible templates (strict undefined, sandboxed)");
  group->require_subcommand(1);
  auto* eval = group->add_subcommand("eval", "Evaluate template cases from a JSON Lines batch");
  auto file = std::make_shared<std::string>();
  eval->add_option("--batch", *file, "JSON Lines batch: {\"context\": ...} then one case per line; '-' = stdin")
      ->required();
  eval->callback([file] { exit_code() = eval_batch(*file); });
});

}  // namespace
}  // namespace budcore::cli
