// JSON <-> Value. Parsing drives nlohmann's SAX parser straight into Values (no intermediate
// DOM); writing is our own so floats, escaping and key order are exactly what we promise.
//
// Duplicate object keys: the last value wins and keeps the position of the first occurrence
// (as Python's json module does), unless ParseOptions::unique_keys refuses them.
#include "budcore/core/json.hpp"
#include "budcore/core/json_string.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include <nlohmann/json.hpp>

#include "budcore/core/limits.hpp"

namespace budcore::core {
namespace {

// Nesting deeper than this is refused. nlohmann's parser is iterative, and so is our builder,
// but Values are destroyed and written recursively, so depth must stay bounded.
constexpr std::size_t kMaxJsonDepth = kMaxValueDepth;

// "line L, column C" for the byte at `offset` (0-based; offset == text.size() means end of input).
std::string line_column(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  std::size_t line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(offset - line_start + 1);
}

// A const char* iterator that publishes how far nlohmann's lexer has read, so errors raised by
// our SAX callbacks (which get no position) can still name line and column.
class TrackingIterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  TrackingIterator() = default;
  TrackingIterator(const char* p, const char** published) : p_(p), published_(published) {}
  reference operator*() const { return *p_; }
  TrackingIterator& operator++() {
    *published_ = ++p_;
    return *this;
  }
  TrackingIterator operator++(int) {
    TrackingIterator old = *this;
    ++*this;
    return old;
  }
  friend bool operator==(const TrackingIterator& a, const TrackingIterator& b) { return a.p_ == b.p_; }

 private:
  const char* p_ = nullptr;
  const char** published_ = nullptr;
};

// RFC 6901 escaping of one reference token.
void append_pointer_token(std::string& out, std::string_view token) {
  out += '/';
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
}

class ValueBuilder {
 public:
  using json = nlohmann::json;
  using number_integer_t = json::number_integer_t;
  using number_unsigned_t = json::number_unsigned_t;
  using number_float_t = json::number_float_t;
  using string_t = json::string_t;
  using binary_t = json::binary_t;

  ValueBuilder(std::string_view text, const char** read_pos, bool unique_keys = false)
      : text_(text), read_pos_(read_pos), unique_keys_(unique_keys) {}

  bool null() { return add(Value()); }
  bool boolean(bool b) { return add(Value(b)); }
  bool number_integer(number_integer_t i) { return add(Value(static_cast<std::int64_t>(i))); }
  bool number_unsigned(number_unsigned_t u) {
    if (u > static_cast<number_unsigned_t>(std::numeric_limits<std::int64_t>::max())) {
      return out_of_range(std::to_string(u));
    }
    return add(Value(static_cast<std::int64_t>(u)));
  }
  bool number_float(number_float_t d, const string_t& token) {
    // nlohmann hands integers that overflow 64 bits over as floats; keep them out of Float so
    // an id or a counter never silently loses digits.
    if (token.find_first_of(".eE") == string_t::npos) return out_of_range(token);
    return add(Value(d));
  }
  bool string(string_t& s) { return add(Value(std::move(s))); }
  bool binary(binary_t&) { return fail_here("binary values are not JSON"); }

  bool start_object(std::size_t) { return open(true); }
  bool key(string_t& k) {
    if (unique_keys_ && frames_.back().map.contains(k)) return fail_here("duplicate key \"" + truncate_text(k) + "\"");
    frames_.back().key = std::move(k);
    return true;
  }
  bool end_object() { return close(); }
  bool start_array(std::size_t) { return open(false); }
  bool end_array() { return close(); }

  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) {
    // position counts characters read, the offending one included.
    std::size_t offset = position == 0 ? 0 : position - 1;
    error_ = Error::make(ErrorCode::Invalid,
                         "invalid JSON at " + line_column(text_, offset) + ": " + detail_of(ex.what()));
    return false;
  }

  Result<Value> take() {
    if (error_) return std::move(*error_);
    if (!done_) return Error::make(ErrorCode::Invalid, "invalid JSON: no value");
    return std::move(root_);
  }

 private:
  struct Frame {
    bool is_map = false;
    List list;
    Map map;
    std::string key;
  };

  bool add(Value v) {
    if (frames_.empty()) {
      root_ = std::move(v);
      done_ = true;
    } else if (frames_.back().is_map) {
      frames_.back().map.set(std::move(frames_.back().key), std::move(v));
    } else {
      frames_.back().list.push_back(std::move(v));
    }
    return true;
  }

  bool open(bool is_map) {
    if (frames_.size() >= kMaxJsonDepth) {
      return fail_here("nesting deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    }
    frames_.emplace_back();
    frames_.back().is_map = is_map;
    return true;
  }

  bool close() {
    Frame f = std::move(frames_.back());
    frames_.pop_back();
    return f.is_map ? add(Value(std::move(f.map))) : add(Value(std::move(f.list)));
  }

  std::string pointer() const {
    std::string out;
    for (const auto& f : frames_) {
      if (f.is_map) {
        append_pointer_token(out, f.key);
      } else {
        out += '/';
        out += std::to_string(f.list.size());
      }
    }
    return out;
  }

  // The lexer has read one character past a number, unless the number ends the input.
  std::size_t token_offset(std::string_view token) const {
    auto read = static_cast<std::size_t>(*read_pos_ - text_.data());
    auto at = text_.rfind(token, read);
    return at == std::string_view::npos ? read : at;
  }

  bool out_of_range(const std::string& token) {
    std::string ptr = pointer();
    error_ = Error{ErrorCode::Invalid,
                   "invalid JSON at " + line_column(text_, token_offset(token)) + ": integer " +
                       token + " at '" + ptr + "' is outside the 64-bit signed range",
                   ptr, token};
    return false;
  }

  bool fail_here(const std::string& why) {
    std::size_t read = static_cast<std::size_t>(*read_pos_ - text_.data());
    std::string ptr = pointer();
    error_ = Error{ErrorCode::Invalid,
                   "invalid JSON at " + line_column(text_, read == 0 ? 0 : read - 1) + ": " + why,
                   ptr, {}};
    return false;
  }

  // nlohmann's message minus its "[json.exception...] parse error at line L, column C: " prefix,
  // which we replace with our own position.
  static std::string detail_of(std::string_view what) {
    auto col = what.find("column ");
    if (col != std::string_view::npos) {
      auto colon = what.find(": ", col);
      if (colon != std::string_view::npos) return std::string(what.substr(colon + 2));
    }
    auto bracket = what.find("] ");
    if (bracket != std::string_view::npos) return std::string(what.substr(bracket + 2));
    return std::string(what);
  }

  std::string_view text_;
  const char** read_pos_;
  bool unique_keys_ = false;
  std::vector<Frame> frames_;
  Value root_;
  bool done_ = false;
  std::optional<Error> error_;
};

// ---------------------------------------------------------------------------------------------
// Writer

constexpr char kHex[] = "0123456789abcdef";

void append_u_escape(std::string& out, std::uint32_t unit) {
  out += "\\u";
  out += kHex[(unit >> 12) & 0xF];
  out += kHex[(unit >> 8) & 0xF];
  out += kHex[(unit >> 4) & 0xF];
  out += kHex[unit & 0xF];
}

// Decodes one UTF-8 sequence at s[i]; returns its length (0 when malformed) and the code point.
std::size_t decode_utf8(std::string_view s, std::size_t i, std::uint32_t& cp) {
  auto b0 = static_cast<unsigned char>(s[i]);
  std::size_t len;
  std::uint32_t min;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2, cp = b0 & 0x1F, min = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3, cp = b0 & 0x0F, min = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

// Bytes copied as they are: printable ASCII other than '"' and '\\'. Everything else is
// escaped or, for non-ASCII, validated as UTF-8 first.
constexpr std::array<bool, 256> kPlainByte = [] {
  std::array<bool, 256> t{};
  for (int c = 0x20; c < 0x80; ++c) t[static_cast<std::size_t>(c)] = c != '"' && c != '\\';
  return t;
}();

void append_ascii_escape(std::string& out, unsigned char c) {
  switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\b': out += "\\b"; break;
    case '\f': out += "\\f"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    default: append_u_escape(out, c);
  }
}

// Malformed UTF-8 (possible in strings built in code or read from YAML) is written as U+FFFD so
// the output is always valid JSON. Runs of bytes that need no escaping are appended in one go:
// per-byte appends made the writer three times slower than nlohmann's.
void append_string(std::string& out, std::string_view s, bool ensure_ascii) {
  out += '"';
  std::size_t run = 0;  // start of the bytes not yet appended
  std::size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    if (kPlainByte[c]) {
      ++i;
      continue;
    }
    std::uint32_t cp = 0;
    std::size_t len = c < 0x80 ? 0 : decode_utf8(s, i, cp);
    if (len != 0 && !ensure_ascii) {
      i += len;  // valid UTF-8 is copied as it is
      continue;
    }
    out.append(s.data() + run, i - run);
    if (c < 0x80) {
      append_ascii_escape(out, c);
      ++i;
    } else if (len == 0) {
      if (ensure_ascii) {
        append_u_escape(out, 0xFFFD);
      } else {
        out += "\xEF\xBF\xBD";
      }
      ++i;
    } else if (cp < 0x10000) {
      append_u_escape(out, cp);
      i += len;
    } else {
      cp -= 0x10000;
      append_u_escape(out, 0xD800 + (cp >> 10));
      append_u_escape(out, 0xDC00 + (cp & 0x3FF));
      i += len;
    }
    run = i;
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
}

// Shortest round-trip digits, always with a '.' or exponent so the value reads back as a
// float; non-finite values have no JSON form and are written as null.
void append_json_float(std::string& out, double d) {
  if (!std::isfinite(d)) {
    out += "null";
    return;
  }
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, d);
  std::string_view digits(buf, static_cast<std::size_t>(r.ptr - buf));
  out += digits;
  if (digits.find_first_of(".e") == std::string_view::npos) out += ".0";
}

class Writer {
 public:
  explicit Writer(const JsonOptions& options) : options_(options) {}

  void write(const Value& v, int depth) {
    if ((v.is_list() || v.is_map()) && (depth >= kMaxValueDepth || stack_exhausted(floor_))) {
      throw DepthExceeded("to_json: value nested deeper than " + std::to_string(kMaxValueDepth) + " levels");
    }
    switch (v.kind()) {
      case Value::Kind::Null: out_ += "null"; break;
      case Value::Kind::Bool: out_ += v.as_bool() ? "true" : "false"; break;
      case Value::Kind::Int: {
        char buf[24];
        auto r = std::to_chars(buf, buf + sizeof buf, v.as_int());
        out_.append(buf, r.ptr);
        break;
      }
      case Value::Kind::Float: append_json_float(out_, v.as_float()); break;
      case Value::Kind::String: append_string(out_, v.as_string(), options_.ensure_ascii); break;
      case Value::Kind::List: {
        const List& list = v.as_list();
        if (list.empty()) {
          out_ += "[]";
          break;
        }
        out_ += '[';
        for (auto it = list.begin(), end = list.end(); it != end; ++it) {
          if (it != list.begin()) out_ += ',';
          newline(depth + 1);
          write(*it, depth + 1);
        }
        newline(depth);
        out_ += ']';
        break;
      }
      case Value::Kind::Map: {
        const Map& map = v.as_map();
        if (map.empty()) {
          out_ += "{}";
          break;
        }
        out_ += '{';
        bool first = true;
        for (const auto& [key, item] : map) {
          if (!first) out_ += ',';
          first = false;
          newline(depth + 1);
          append_string(out_, key, options_.ensure_ascii);
          out_ += options_.indent >= 0 ? ": " : ":";
          write(item, depth + 1);
        }
        newline(depth);
        out_ += '}';
        break;
      }
    }
  }

  std::string take() { return std::move(out_); }

 private:
  void newline(int depth) {
    if (options_.indent < 0) return;
    out_ += '\n';
    out_.append(static_cast<std::size_t>(depth) * static_cast<std::size_t>(options_.indent), ' ');
  }

  const JsonOptions& options_;
  std::string out_;
  std::uintptr_t floor_ = stack_floor();
};

}  // namespace

Result<Value> parse_json(std::string_view text) { return parse_json(text, ParseOptions{}); }

Result<Value> parse_json(std::string_view text, const ParseOptions& options) {
  BUDCORE_TRY(check_input_size(text.size(), {}));
  const char* read_pos = text.data();
  ValueBuilder builder(text, &read_pos, options.unique_keys);
  TrackingIterator first(text.data(), &read_pos);
  TrackingIterator last(text.data() + text.size(), &read_pos);
  nlohmann::json::sax_parse(first, last, &builder, nlohmann::json::input_format_t::json,
                            /*strict=*/true, /*ignore_comments=*/false);
  return builder.take();
}

std::string to_json(const Value& value, const JsonOptions& options) {
  Writer writer(options);
  writer.write(value, 0);
  return writer.take();
}

std::string format_json_float(double d) {
  std::string out;
  append_json_float(out, d);
  return out;
}

Value to_value(const Error& e) {
  Map m{{"code", std::string(to_string(e.code))}, {"message", e.message}, {"path", e.field}};
  if (!e.value.empty()) m.set("value", e.value);
  if (e.retry_after_ms > 0) m.set("retry_after_ms", e.retry_after_ms);
  return Value(std::move(m));
}

void append_json_string(std::string& out, std::string_view text, bool ensure_ascii) {
  append_string(out, text, ensure_ascii);
}

}  // namespace budcore::core
