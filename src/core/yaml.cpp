// YAML <-> Value. Parsing listens to yaml-cpp's event stream (no YAML::Node tree) and resolves
// plain scalars with the YAML 1.2 core schema; writing is our own block-style emitter.
//
// Choices worth knowing:
// - Aliases share the anchored collection (an O(1) copy), so "billion laughs" documents cost
//   little memory while parsing; an aliased scalar is a copy of its text. Both are charged to
//   the expanded size, capped in values (kMaxAliasExpansion) and in bytes (the input limit),
//   because anything that walks the result (to_json, templates) pays for every expansion.
// - Mapping keys must be scalars and are kept as written ("1: a" has key "1"; a null key is
//   "null"). Duplicate keys: the last value wins at the first key's position, as in JSON.
// - "<<" merge keys are YAML 1.1; under 1.2 "<<" is an ordinary key.
// - parse_yaml_all skips documents that are empty or null (as kubectl does).
#include "budcore/core/yaml.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include "budcore/core/json.hpp"
#include "budcore/core/limits.hpp"
#include "budcore/core/utf8.hpp"
#include "core/ascii.hpp"

namespace budcore::core {
namespace {

constexpr std::size_t kMaxYamlDepth = kMaxValueDepth;  // yaml-cpp itself stops at 500 nested nodes
constexpr std::size_t kMaxAliasExpansion = 1'000'000;
constexpr std::size_t kMaxImplicitKey = 1000;
constexpr std::string_view kCoreTagPrefix = "tag:yaml.org,2002:";

std::string position(const YAML::Mark& mark) {
  return "line " + std::to_string(mark.line + 1) + ", column " + std::to_string(mark.column + 1);
}

Error yaml_error(const YAML::Mark& mark, std::string why, std::string field = {}, std::string value = {}) {
  return Error{ErrorCode::Invalid, "invalid YAML at " + position(mark) + ": " + why, std::move(field),
               std::move(value)};
}

// ---------------------------------------------------------------------------------------------
// YAML 1.2 core schema

using detail::is_digit;
bool is_octal(char c) { return c >= '0' && c <= '7'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

template <class Pred>
bool all_of(std::string_view s, Pred pred) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!pred(c)) return false;
  }
  return true;
}

bool is_core_null(std::string_view s) { return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL"; }

std::optional<bool> core_bool(std::string_view s) {
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  return std::nullopt;
}

bool is_core_int(std::string_view s) {
  if (s.size() > 2 && s[0] == '0' && s[1] == 'o') return all_of(s.substr(2), is_octal);
  if (s.size() > 2 && s[0] == '0' && s[1] == 'x') return all_of(s.substr(2), is_hex);
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  return all_of(s, is_digit);
}

// [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?
bool is_core_float_number(std::string_view s) {
  std::size_t i = 0;
  auto digits = [&] {
    std::size_t start = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    return i - start;
  };
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (digits() == 0) return false;
  } else {
    if (digits() == 0) return false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      digits();
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

std::optional<double> core_special_float(std::string_view s) {
  double sign = 1.0;
  std::string_view body = s;
  if (!body.empty() && (body[0] == '-' || body[0] == '+')) {
    sign = body[0] == '-' ? -1.0 : 1.0;
    body.remove_prefix(1);
  }
  if (body == ".inf" || body == ".Inf" || body == ".INF") return sign * std::numeric_limits<double>::infinity();
  if (s == ".nan" || s == ".NaN" || s == ".NAN") return std::numeric_limits<double>::quiet_NaN();
  return std::nullopt;
}

// Integer text (already matched by is_core_int) to int64; nullopt when out of range.
std::optional<std::int64_t> core_int_value(std::string_view s) {
  int base = 10;
  bool negative = false;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'o' || s[1] == 'x')) {
    base = s[1] == 'o' ? 8 : 16;
    s.remove_prefix(2);
  } else if (s[0] == '-' || s[0] == '+') {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  std::uint64_t magnitude = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), magnitude, base);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (negative) {
    if (magnitude > kMax + 1) return std::nullopt;
    return magnitude == kMax + 1 ? std::numeric_limits<std::int64_t>::min()
                                 : -static_cast<std::int64_t>(magnitude);
  }
  if (magnitude > kMax) return std::nullopt;
  return static_cast<std::int64_t>(magnitude);
}

// Float text (matched by is_core_float_number) to double; magnitudes beyond double become
// +-inf or +-0 as in every YAML implementation.
double core_float_value(std::string_view s) {
  bool negative = !s.empty() && s[0] == '-';
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  double d = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ec == std::errc::result_out_of_range) {
    auto e = s.find_first_of("eE");
    bool tiny = e != std::string_view::npos && e + 1 < s.size() && s[e + 1] == '-';
    d = tiny ? 0.0 : std::numeric_limits<double>::infinity();
  }
  return negative ? -d : d;
}

enum class Resolved { Null, Bool, Int, IntOutOfRange, Float, String };

Resolved classify_plain(std::string_view s) {
  if (is_core_null(s)) return Resolved::Null;
  if (core_bool(s)) return Resolved::Bool;
  if (is_core_int(s)) return core_int_value(s) ? Resolved::Int : Resolved::IntOutOfRange;
  if (is_core_float_number(s) || core_special_float(s)) return Resolved::Float;
  return Resolved::String;
}

// ---------------------------------------------------------------------------------------------
// Event handler building Values

struct Abort {
  Error error;
};

class Builder : public YAML::EventHandler {
 public:
  bool unique_keys = false;
  std::vector<Value> documents;
  std::vector<bool> document_is_null;

  void OnDocumentStart(const YAML::Mark& mark) override {
    // yaml-cpp 0.7 can report the same document again and again on some malformed input
    // (found by fuzzing); two documents never start at the same place, so stop there.
    if (!documents.empty() && mark.pos == last_document_pos_) {
      throw Abort{yaml_error(mark, "unexpected content (the parser cannot get past it)")};
    }
    last_document_pos_ = mark.pos;
    frames_.clear();
    root_ = Value();
  }
  void OnDocumentEnd() override {
    document_is_null.push_back(root_.is_null());
    documents.push_back(std::move(root_));
  }

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    add(mark, Value(), std::string("null"), 1, 0, anchor, 0);
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto it = anchors_.find(anchor);
    if (it == anchors_.end()) throw Abort{yaml_error(mark, "alias refers to a node that contains it", path())};
    const Anchored& a = it->second;
    alias_expansion_ += a.nodes;
    alias_bytes_ += a.bytes;
    if (alias_expansion_ > kMaxAliasExpansion) {
      throw Abort{yaml_error(mark,
                             "aliases expand to more than " + std::to_string(kMaxAliasExpansion) + " values",
                             path())};
    }
    if (alias_bytes_ > max_expanded_bytes_) {
      throw Abort{yaml_error(mark,
                             "aliases expand to more than " + std::to_string(max_expanded_bytes_) +
                                 " bytes of text (the input limit)",
                             path())};
    }
    // An alias can carry a deep value into a deep place; keep the result within the limit so
    // walking or destroying it stays bounded too.
    if (frames_.size() + a.height > kMaxYamlDepth) {
      throw Abort{yaml_error(mark, "alias nests values deeper than " + std::to_string(kMaxYamlDepth) + " levels",
                             path())};
    }
    // An aliased scalar's text is copied into a string first, and only then moved into a
    // Value: when that copy runs out of memory, bad_alloc is thrown before any Value is half
    // built (a copy failing inside Value's variant crashed the unwinding under a memory cap).
    Value copy = a.value.is_string() ? Value(std::string(a.value.as_string())) : a.value;
    add(mark, std::move(copy), a.key_text, a.nodes, a.height, YAML::NullAnchor, a.bytes);
  }

  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& text) override {
    // yaml-cpp decodes UTF-16/32 input itself (told by its NUL bytes) and can then hand over
    // code points that are not Unicode as bytes that are not UTF-8; the text check cannot see those.
    if (find_invalid_utf8(text)) throw Abort{yaml_error(mark, "text is not valid UTF-8", "utf8")};
    if (expecting_key()) {
      // Keys stay as written; resolving "1" to an Int only to print it again would not help.
      add(mark, Value(text), text, 1, 0, anchor, text.size());
      return;
    }
    add(mark, resolve(mark, tag, text), text, 1, 0, anchor, text.size());
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, false, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, true, anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Frame {
    bool is_map = false;
    List list;
    Map map;
    bool have_key = false;
    std::string key;
    std::size_t nodes = 1;
    std::size_t bytes = 0;   // text of the scalars inside, keys included
    std::size_t height = 1;  // nesting levels of this collection, itself included
    YAML::anchor_t anchor = YAML::NullAnchor;
    YAML::Mark mark;
  };
  struct Anchored {
    Value value;
    std::optional<std::string> key_text;  // set for scalars, which may serve as keys
    std::size_t nodes = 1;
    std::size_t height = 0;
    std::size_t bytes = 0;
  };

  bool expecting_key() const { return !frames_.empty() && frames_.back().is_map && !frames_.back().have_key; }

  // "spec.containers[0].image" for the node being built.
  std::string path() const {
    std::string out;
    for (const auto& f : frames_) {
      if (f.is_map) {
        if (f.have_key) out = join_path(out, f.key);
      } else {
        out += "[" + std::to_string(f.list.size()) + "]";
      }
    }
    return out;
  }

  Value resolve(const YAML::Mark& mark, const std::string& tag, const std::string& text) {
    std::string_view type;
    if (tag == "?") {
      type = "";
    } else if (tag == "!") {
      return Value(text);  // quoted scalars and the non-specific tag are strings
    } else if (std::string_view(tag).substr(0, kCoreTagPrefix.size()) == kCoreTagPrefix) {
      type = std::string_view(tag).substr(kCoreTagPrefix.size());
    } else {
      type = "";  // an application tag ("!Ref") does not change how we read the text
    }
    if (type == "str" || type == "binary" || type == "timestamp") return Value(text);
    Resolved r = classify_plain(text);
    auto bad = [&](std::string_view want) {
      return Abort{yaml_error(mark, "'" + text + "' is not a valid " + std::string(want), path(), text)};
    };
    if (type == "null" && r != Resolved::Null) throw bad("!!null");
    if (type == "bool" && r != Resolved::Bool) throw bad("!!bool");
    if (type == "int" && r != Resolved::Int && r != Resolved::IntOutOfRange) throw bad("!!int");
    if (type == "float" && r != Resolved::Int && r != Resolved::Float) throw bad("!!float");
    if (r == Resolved::IntOutOfRange && type != "float") {
      throw Abort{yaml_error(mark, "integer " + text + " is outside the 64-bit signed range", path(), text)};
    }
    switch (r) {
      case Resolved::Null: return Value();
      case Resolved::Bool: return Value(*core_bool(text));
      case Resolved::Int:
        if (type == "float") return Value(static_cast<double>(*core_int_value(text)));
        return Value(*core_int_value(text));
      case Resolved::IntOutOfRange: return Value(core_float_value(text));  // !!float only
      case Resolved::Float:
        if (auto special = core_special_float(text)) return Value(*special);
        return Value(core_float_value(text));
      case Resolved::String: break;
    }
    return Value(text);
  }

  void open(const YAML::Mark& mark, bool is_map, YAML::anchor_t anchor) {
    if (expecting_key()) throw Abort{yaml_error(mark, "mapping keys must be scalars", path())};
    if (frames_.size() >= kMaxYamlDepth) {
      throw Abort{yaml_error(mark, "nesting deeper than " + std::to_string(kMaxYamlDepth) + " levels", path())};
    }
    frames_.emplace_back();
    frames_.back().is_map = is_map;
    frames_.back().anchor = anchor;
    frames_.back().mark = mark;
  }

  void close() {
    Frame f = std::move(frames_.back());
    frames_.pop_back();
    Value v = f.is_map ? Value(std::move(f.map)) : Value(std::move(f.list));
    add(f.mark, std::move(v), std::nullopt, f.nodes, f.height, f.anchor, f.bytes);
  }

  void add(const YAML::Mark& mark, Value v, const std::optional<std::string>& key_text, std::size_t nodes,
           std::size_t height, YAML::anchor_t anchor, std::size_t bytes) {
    if (anchor != YAML::NullAnchor) anchors_[anchor] = Anchored{v, key_text, nodes, height, bytes};
    if (frames_.empty()) {
      root_ = std::move(v);
      return;
    }
    Frame& top = frames_.back();
    top.nodes += nodes;
    top.bytes += bytes;
    top.height = std::max(top.height, height + 1);
    if (!top.is_map) {
      top.list.push_back(std::move(v));
    } else if (!top.have_key) {
      if (!key_text) throw Abort{yaml_error(mark, "mapping keys must be scalars", path())};
      top.key = *key_text;
      top.have_key = true;
    } else {
      if (unique_keys && top.map.contains(top.key))
        throw Abort{yaml_error(mark, "duplicate key \"" + truncate_text(top.key) + "\"", path())};
      top.map.set(std::move(top.key), std::move(v));
      top.key.clear();
      top.have_key = false;
    }
  }

  std::vector<Frame> frames_;
  Value root_;
  std::unordered_map<YAML::anchor_t, Anchored> anchors_;
  std::size_t alias_expansion_ = 0;
  std::size_t alias_bytes_ = 0;
  std::size_t max_expanded_bytes_ = max_input_bytes();
  int last_document_pos_ = -1;
};

Result<std::vector<Value>> parse_stream(std::string_view text, bool skip_null_documents, bool unique_keys = false) {
  BUDCORE_TRY(check_input_size(text.size(), {}));
  // A YAML stream is Unicode text (YAML 1.2, 5.2); yaml-cpp passes bad bytes through into
  // strings, where they would corrupt everything downstream that writes JSON.
  if (auto bad = find_invalid_utf8(text)) {
    YAML::Mark mark;
    for (std::size_t i = 0; i < *bad; ++i) {
      if (text[i] == '\n') {
        ++mark.line;
        mark.column = 0;
      } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
        ++mark.column;  // count characters, not continuation bytes
      }
    }
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned>(static_cast<unsigned char>(text[*bad])));
    return yaml_error(mark, std::string("text is not valid UTF-8 (byte ") + hex + ")", "utf8", hex);
  }
  std::istringstream in{std::string(text)};
  Builder builder;
  builder.unique_keys = unique_keys;
  try {
    YAML::Parser parser(in);
    while (parser.HandleNextDocument(builder)) {
    }
  } catch (const Abort& abort) {
    return abort.error;
  } catch (const YAML::DeepRecursion& e) {
    return yaml_error(e.mark, "nesting deeper than 500 levels");
  } catch (const YAML::ParserException& e) {
    return yaml_error(e.mark, e.msg);
  } catch (const YAML::Exception& e) {
    return yaml_error(e.mark, e.msg);
  }
  std::vector<Value> out;
  for (std::size_t i = 0; i < builder.documents.size(); ++i) {
    if (skip_null_documents && builder.document_is_null[i]) continue;
    out.push_back(std::move(builder.documents[i]));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Emitter

bool is_yaml11_bool(std::string_view s) {
  static constexpr std::string_view kWords[] = {"y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
                                                "on", "On", "ON", "off", "Off", "OFF"};
  for (auto w : kWords) {
    if (s == w) return true;
  }
  return false;
}

// True when s can be written as a plain scalar and reads back as the same string, under YAML
// 1.2 and, conservatively, under YAML 1.1 readers too (PyYAML: yes/no, 0755, 1_000, dates).
bool plain_safe(std::string_view s) {
  if (s.empty() || classify_plain(s) != Resolved::String || is_yaml11_bool(s)) return false;
  if (s == "<<" || s == "=" || s.substr(0, 3) == "---" || s.substr(0, 3) == "...") return false;
  char first = s.front();
  if (std::string_view("-?:,[]{}#&*!|>'\"%@` \t").find(first) != std::string_view::npos) return false;
  if (is_digit(first)) return false;
  if ((first == '+' || first == '.') && s.size() > 1 && is_digit(s[1])) return false;
  if (s.back() == ' ' || s.back() == ':') return false;
  if (s.find(": ") != std::string_view::npos || s.find('#') != std::string_view::npos) return false;
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7F || c == ',' || c == '[' || c == ']' || c == '{' || c == '}') return false;
    if (u >= 0x80) return false;  // leave non-ASCII (and any malformed UTF-8) to the quoted form
  }
  return true;
}

constexpr char kHexUpper[] = "0123456789ABCDEF";

std::string double_quoted(std::string_view s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto u = static_cast<unsigned char>(s[i]);
    switch (s[i]) {
      case '"': out += "\\\""; continue;
      case '\\': out += "\\\\"; continue;
      case '\n': out += "\\n"; continue;
      case '\t': out += "\\t"; continue;
      case '\r': out += "\\r"; continue;
      default: break;
    }
    if (u < 0x20 || u == 0x7F) {
      out += "\\x";
      out += kHexUpper[u >> 4];
      out += kHexUpper[u & 0xF];
    } else if (u == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x85) {
      out += "\\u0085";  // NEL is a line break in YAML; keep it from being folded
      ++i;
    } else if (u == 0xE2 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
               (static_cast<unsigned char>(s[i + 2]) == 0xA8 || static_cast<unsigned char>(s[i + 2]) == 0xA9)) {
      out += static_cast<unsigned char>(s[i + 2]) == 0xA8 ? "\\u2028" : "\\u2029";
      i += 2;
    } else if (u == 0xEF && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0xBB &&
               static_cast<unsigned char>(s[i + 2]) == 0xBF) {
      out += "\\uFEFF";  // a byte order mark inside text would be dropped by readers
      i += 2;
    } else {
      out += s[i];
    }
  }
  out += '"';
  return out;
}

// A multi-line string reads best as a literal block ("|"). Only used when the text survives
// the block rules unchanged: no leading blank or space (indentation detection), no trailing
// spaces on a line, no control characters but '\n'.
bool literal_safe(std::string_view s) {
  if (s.find('\n') == std::string_view::npos || s.front() == ' ' || s.front() == '\n') return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto u = static_cast<unsigned char>(s[i]);
    if (s[i] == '\n') {
      if (i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t')) return false;
      continue;
    }
    if (u < 0x20 || u == 0x7F || u >= 0x80) return false;
  }
  return s.back() != ' ' && s.back() != '\t';
}

// `indent` is where the block's lines start; only multi-line literals use it.
std::string literal_block(std::string_view s, std::size_t indent) {
  std::size_t trailing = 0;
  while (trailing < s.size() && s[s.size() - 1 - trailing] == '\n') ++trailing;
  std::string out = trailing == 0 ? "|-" : trailing == 1 ? "|" : "|+";
  std::string_view body = s.substr(0, s.size() - trailing);
  std::string pad(indent, ' ');
  std::size_t start = 0;
  while (start <= body.size()) {
    std::size_t nl = body.find('\n', start);
    std::string_view line = body.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    out += '\n';
    if (!line.empty()) out += pad;
    out += line;
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  for (std::size_t i = 1; i < trailing; ++i) out += '\n';
  return out;
}

// YAML text must be Unicode: malformed UTF-8 (possible in strings built in code) is written as
// U+FFFD, as to_json does, so the output always parses.
std::string replace_invalid_utf8(std::string_view s) {
  std::string out;
  while (auto bad = find_invalid_utf8(s)) {
    out.append(s.substr(0, *bad));
    out += "\xEF\xBF\xBD";
    s.remove_prefix(*bad + 1);
  }
  out.append(s);
  return out;
}

std::string scalar_text(const Value& v, std::size_t block_indent) {
  switch (v.kind()) {
    case Value::Kind::Null: return "null";
    case Value::Kind::Bool: return v.as_bool() ? "true" : "false";
    case Value::Kind::Int: return std::to_string(v.as_int());
    case Value::Kind::Float: {
      double d = v.as_float();
      if (std::isnan(d)) return ".nan";
      if (std::isinf(d)) return d > 0 ? ".inf" : "-.inf";
      return format_json_float(d);
    }
    case Value::Kind::String: {
      if (find_invalid_utf8(v.as_string())) return scalar_text(Value(replace_invalid_utf8(v.as_string())), block_indent);
      const std::string& s = v.as_string();
      if (plain_safe(s)) return s;
      if (literal_safe(s)) return literal_block(s, block_indent);
      return double_quoted(s);
    }
    case Value::Kind::List: return "[]";  // only reached for empty collections
    case Value::Kind::Map: return "{}";
  }
  return "null";
}

std::string key_text(const std::string& key) {
  if (find_invalid_utf8(key)) return double_quoted(replace_invalid_utf8(key));
  return plain_safe(key) ? key : double_quoted(key);
}

bool is_block(const Value& v) { return (v.is_list() || v.is_map()) && v.size() > 0; }

void emit_block(const Value& v, std::size_t indent, std::string& out);

// A list item: "- " then the item; a nested block starts on the dash's line.
void emit_item(const Value& item, std::size_t indent, std::string& out) {
  if (!is_block(item)) {
    out.append(indent, ' ');
    out += "- ";
    out += scalar_text(item, indent + 2);
    out += '\n';
    return;
  }
  std::size_t mark = out.size();
  emit_block(item, indent + 2, out);
  out.replace(mark + indent, 2, "- ");
}

void emit_block(const Value& v, std::size_t indent, std::string& out) {
  // Each nesting level indents by two more spaces.
  if (indent / 2 >= static_cast<std::size_t>(kMaxValueDepth) || stack_exhausted()) {
    throw DepthExceeded("to_yaml: value nested deeper than " + std::to_string(kMaxValueDepth) + " levels");
  }
  if (v.is_list()) {
    for (const Value& item : v.as_list()) emit_item(item, indent, out);
    return;
  }
  for (const auto& [key, item] : v.as_map()) {
    out.append(indent, ' ');
    std::string text = key_text(key);
    if (text.size() > kMaxImplicitKey) {
      // Implicit keys are limited to 1024 characters; longer ones need the explicit "? " form.
      out += "? ";
      out += text;
      out += '\n';
      out.append(indent, ' ');
    } else {
      out += text;
    }
    out += ':';
    if (is_block(item)) {
      out += '\n';
      emit_block(item, indent + 2, out);
    } else {
      out += ' ';
      out += scalar_text(item, indent + 2);
      out += '\n';
    }
  }
}

}  // namespace

Result<Value> parse_yaml(std::string_view text) { return parse_yaml(text, ParseOptions{}); }

Result<Value> parse_yaml(std::string_view text, const ParseOptions& options) {
  auto docs = parse_stream(text, /*skip_null_documents=*/false, options.unique_keys);
  if (!docs) return std::move(docs).error();
  if (docs->empty()) return Value();
  if (docs->size() > 1) {
    return Error::make(ErrorCode::Invalid,
                       "invalid YAML: expected one document, found " + std::to_string(docs->size()) +
                           " (use parse_yaml_all for multi-document streams)");
  }
  return std::move(docs->front());
}

Result<std::vector<Value>> parse_yaml_all(std::string_view text) {
  return parse_stream(text, /*skip_null_documents=*/true);
}

std::string to_yaml(const Value& value) {
  std::string out;
  if (is_block(value)) {
    emit_block(value, 0, out);
  } else {
    out = scalar_text(value, 2);
    out += '\n';
  }
  return out;
}

Result<Value> parse_document(std::string_view text) { return parse_document(text, ParseOptions{}); }

Result<Value> parse_document(std::string_view text, const ParseOptions& options) {
  std::size_t i = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") i = 3;  // UTF-8 byte order mark
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) ++i;
  // The whole text goes to the parser so error positions match the input.
  if (i < text.size() && (text[i] == '{' || text[i] == '[')) return parse_json(text, options);
  return parse_yaml(text, options);
}

Result<Value> load_document_file(const std::string& path, std::size_t max_bytes, std::string_view field) {
  auto text = read_input(path, max_bytes != 0 ? max_bytes : max_input_bytes(), field);
  if (!text) return std::move(text).error();
  auto doc = parse_document(*text);
  if (!doc) {
    Error e = std::move(doc).error();
    e.message = (path == "-" ? std::string("<stdin>") : path) + ": " + e.message;
    return e;
  }
  return doc;
}

}  // namespace budcore::core
