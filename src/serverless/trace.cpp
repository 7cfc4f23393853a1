#include "budcore/serverless/trace.hpp"

#include <charconv>
#include <string>

#include "budcore/core/limits.hpp"

namespace budcore::serverless {

using core::Error;

namespace {

constexpr std::string_view kHeader = "TIMESTAMP,ContextTokens,GeneratedTokens";
constexpr std::int64_t kMaxTokens = 100'000'000;

std::string_view trim_cr(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

core::Result<std::int64_t> tokens(std::string_view text, const std::string& field) {
  std::int64_t v = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 0 || v > kMaxTokens) {
    return Error::invalid(field, std::string(text), "must be a whole number of tokens from 0 to " + std::to_string(kMaxTokens));
  }
  return v;
}

}  // namespace

core::Result<std::vector<TraceRequest>> parse_azure_trace(std::string_view text, std::string_view source) {
  std::vector<TraceRequest> out;
  std::size_t pos = 0;
  std::int64_t line_no = 0;
  const std::string src(source);
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view line = trim_cr(text.substr(pos, nl - pos));
    pos = nl + 1;
    ++line_no;
    const std::string at = src + ":" + std::to_string(line_no);
    if (line_no == 1) {
      if (line != kHeader) return Error::invalid(at, std::string(line), "the header must be " + std::string(kHeader));
      continue;
    }
    if (line.empty()) continue;
    const std::size_t c1 = line.find(',');
    const std::size_t c2 = c1 == std::string_view::npos ? c1 : line.find(',', c1 + 1);
    if (c2 == std::string_view::npos || line.find(',', c2 + 1) != std::string_view::npos) {
      return Error::invalid(at, std::string(line), "must have 3 comma-separated columns: " + std::string(kHeader));
    }
    TraceRequest r;
    const std::string_view ts = line.substr(0, c1);
    auto t = core::Timestamp::parse(std::string(ts) + "Z");
    if (!t) return Error::invalid(at + ".TIMESTAMP", std::string(ts), "must be a UTC time YYYY-MM-DD HH:MM:SS[.fffffff]");
    r.at = *t;
    BUDCORE_TRY_ASSIGN(r.context_tokens, tokens(line.substr(c1 + 1, c2 - c1 - 1), at + ".ContextTokens"));
    BUDCORE_TRY_ASSIGN(r.generated_tokens, tokens(line.substr(c2 + 1), at + ".GeneratedTokens"));
    if (!out.empty() && r.at < out.back().at) {
      return Error::invalid(at + ".TIMESTAMP", std::string(ts),
                            "is earlier than the line before (" + out.back().at.to_string() + "): lines must be in time order");
    }
    out.push_back(r);
  }
  if (line_no == 0) return Error::invalid(src + ":1", {}, "the trace is empty; the header must be " + std::string(kHeader));
  return out;
}

core::Result<std::vector<TraceRequest>> load_azure_trace(const std::string& path) {
  std::string text;
  BUDCORE_TRY_ASSIGN(text, core::read_input(path));
  return parse_azure_trace(text, path);
}

}  // namespace budcore::serverless
