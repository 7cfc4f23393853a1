// Image references as container runtimes read them (the distribution reference grammar),
// written here because the rule is small and exact: a host, a lower-case path of components
// separated by '/', then ":tag" and/or "@algorithm:hex".
#include "budcore/job/image_ref.hpp"

#include <algorithm>
#include <cctype>

#include "budcore/core/limits.hpp"

namespace budcore::job {

namespace {

using core::Error;

constexpr std::size_t kMaxReference = 4096;

bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool alnum(char c) { return lower_alnum(c) || (c >= 'A' && c <= 'Z'); }

// [a-z0-9]+ ((\.|_|__|-+)[a-z0-9]+)*
bool path_component(std::string_view s) {
  if (s.empty() || !lower_alnum(s.front()) || !lower_alnum(s.back())) return false;
  for (std::size_t i = 0; i < s.size();) {
    if (lower_alnum(s[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    if (s[i] == '.') j = i + 1;
    else if (s[i] == '_') j = (i + 1 < s.size() && s[i + 1] == '_') ? i + 2 : i + 1;
    else if (s[i] == '-') while (j < s.size() && s[j] == '-') ++j;
    else return false;
    if (j >= s.size() || !lower_alnum(s[j])) return false;
    i = j;
  }
  return true;
}

// host components [a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])? joined by '.', then an optional :port.
bool host_name(std::string_view s) {
  std::string_view name = s, port;
  if (auto colon = s.rfind(':'); colon != std::string_view::npos) {
    name = s.substr(0, colon);
    port = s.substr(colon + 1);
    if (port.empty() || port.size() > 5 || !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return false;
  }
  if (name.empty()) return false;
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t dot = name.find('.', start);
    std::string_view part = name.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (part.empty() || !alnum(part.front()) || !alnum(part.back())) return false;
    if (!std::all_of(part.begin(), part.end(), [](char c) { return alnum(c) || c == '-'; })) return false;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return true;
}

bool looks_like_host(std::string_view first) {
  return first.find_first_of(".:") != std::string_view::npos || first == "localhost" ||
         std::any_of(first.begin(), first.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
}

std::string normal_host(std::string_view host) {
  std::string h(host);
  std::transform(h.begin(), h.end(), h.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (h.size() > 4 && h.ends_with(":443")) h.resize(h.size() - 4);
  if (h == "index.docker.io" || h == "registry-1.docker.io" || h == "registry.hub.docker.com") h = "docker.io";
  return h;
}

Error bad(std::string_view field, std::string_view text, std::string why) {
  return Error::invalid(std::string(field), core::truncate_text(text), std::move(why));
}

// Host and repository of "host/path" or "path"; `what` names it in errors.
core::Result<std::pair<std::string, std::string>> split_name(std::string_view name, std::string_view text,
                                                             std::string_view field) {
  std::string host = "docker.io";
  std::string_view path = name;
  const std::size_t slash = name.find('/');
  const std::string_view first = name.substr(0, slash);
  if (slash != std::string_view::npos && looks_like_host(first)) {
    if (!host_name(first)) return bad(field, text, "'" + std::string(first) + "' is not a registry host");
    host = normal_host(first);
    path = slash == std::string_view::npos ? std::string_view() : name.substr(slash + 1);
  }
  std::string repository;
  std::size_t start = 0, parts = 0;
  while (!path.empty() && start <= path.size()) {
    std::size_t next = path.find('/', start);
    std::string_view part = path.substr(start, next == std::string_view::npos ? std::string_view::npos : next - start);
    if (!path_component(part)) {
      if (std::any_of(part.begin(), part.end(), [](char c) { return c >= 'A' && c <= 'Z'; }))
        return bad(field, text, "a repository name must be lower-case ('" + std::string(part) + "')");
      return bad(field, text, "'" + std::string(part) + "' is not a repository path component");
    }
    repository += (parts++ ? "/" : "") + std::string(part);
    if (next == std::string_view::npos) break;
    start = next + 1;
  }
  if (host == "docker.io" && parts == 1) repository = "library/" + repository;
  return std::make_pair(std::move(host), std::move(repository));
}

}  // namespace

std::string ImageRef::to_string() const {
  std::string out = host + "/" + repository;
  if (!tag.empty()) out += ":" + tag;
  if (!digest.empty()) out += "@" + digest;
  return out;
}

core::Result<ImageRef> parse_image_ref(std::string_view text, std::string_view field) {
  if (text.empty()) return bad(field, text, "an image reference is required");
  if (text.size() > kMaxReference) return bad(field, text, "an image reference is at most 4096 bytes");
  ImageRef ref;
  std::string_view name = text;
  if (auto at = name.find('@'); at != std::string_view::npos) {
    std::string_view digest = name.substr(at + 1);
    auto colon = digest.find(':');
    if (colon == std::string_view::npos || colon == 0 || digest.size() - colon - 1 < 32 ||
        !std::all_of(digest.begin() + static_cast<std::ptrdiff_t>(colon) + 1, digest.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }) ||
        !std::all_of(digest.begin(), digest.begin() + static_cast<std::ptrdiff_t>(colon),
                     [](char c) { return lower_alnum(c) || c == '+' || c == '.' || c == '_' || c == '-'; }))
      return bad(field, text, "'" + std::string(digest) + "' is not a digest (algorithm:hex)");
    ref.digest = std::string(digest);
    name = name.substr(0, at);
  }
  // A tag follows the last ':' that comes after the last '/' (a ':' before it is a host's port).
  const std::size_t last_slash = name.rfind('/');
  const std::size_t colon = name.rfind(':');
  if (colon != std::string_view::npos && (last_slash == std::string_view::npos || colon > last_slash)) {
    std::string_view tag = name.substr(colon + 1);
    const bool ok = !tag.empty() && tag.size() <= 128 && (alnum(tag[0]) || tag[0] == '_') &&
                    std::all_of(tag.begin(), tag.end(), [](char c) { return alnum(c) || c == '_' || c == '.' || c == '-'; });
    if (!ok) return bad(field, text, "'" + std::string(tag) + "' is not a tag");
    ref.tag = std::string(tag);
    name = name.substr(0, colon);
  }
  if (name.empty()) return bad(field, text, "an image reference names a repository");
  BUDCORE_TRY_ASSIGN(auto hr, split_name(name, text, field));
  if (hr.second.empty()) return bad(field, text, "an image reference names a repository after its registry host");
  ref.host = std::move(hr.first);
  ref.repository = std::move(hr.second);
  return ref;
}

bool ImagePattern::matches(const ImageRef& ref) const {
  if (ref.host != host) return false;
  if (repository_prefix.empty()) return true;
  return ref.repository == repository_prefix ||
         (ref.repository.size() > repository_prefix.size() && ref.repository.starts_with(repository_prefix) &&
          ref.repository[repository_prefix.size()] == '/');
}

std::string ImagePattern::to_string() const { return repository_prefix.empty() ? host : host + "/" + repository_prefix; }

core::Result<ImagePattern> parse_image_pattern(std::string_view text, std::string_view field) {
  std::string_view name = text;
  while (!name.empty() && name.back() == '/') name.remove_suffix(1);
  const std::size_t slash = name.find('/');
  const std::string_view first = name.substr(0, slash);
  // Always a host first: "nginx" could mean docker.io/library/nginx or a namespace, and a deny
  // list must not guess.
  if (first.empty() || (first.find_first_of(".:") == std::string_view::npos && first != "localhost"))
    return bad(field, text,
               "a pattern starts with a registry host (docker.io, registry.corp, localhost:5000), optionally "
               "followed by a repository prefix (docker.io/library/nginx)");
  if (name.find_first_of("@") != std::string_view::npos || (slash != std::string_view::npos && name.find(':', slash) != std::string_view::npos))
    return bad(field, text, "a pattern has no tag or digest: it names a registry host and a repository prefix");
  if (!host_name(first)) return bad(field, text, "'" + std::string(first) + "' is not a registry host");
  ImagePattern p;
  p.host = normal_host(first);
  if (slash == std::string_view::npos) return p;
  // The prefix is taken as written (no "library/" is added): "docker.io/bitnami" is a namespace.
  BUDCORE_TRY_ASSIGN(auto hr, split_name("x.invalid/" + std::string(name.substr(slash + 1)), text, field));
  p.repository_prefix = std::move(hr.second);
  return p;
}

}  // namespace budcore::job
