// budcore::job::ImageRef — a container image reference read the way container runtimes read it
// (the Docker / OCI distribution reference grammar), so that policies compare what will be
// pulled rather than how it was spelled: "nginx", "docker.io/library/nginx",
// "INDEX.DOCKER.IO/library/nginx:latest" and "docker.io:443/library/nginx" are one repository.
//
// Normalisation: the first path component is a registry host when it holds a '.' or a ':', is
// "localhost", or has an upper-case letter; otherwise the host is docker.io. Hosts are
// lower-cased, the HTTPS default port (:443) is dropped, index.docker.io and
// registry-1.docker.io are docker.io, and a docker.io repository of one component gets
// "library/". Repository paths must be lower-case (as runtimes require).
#pragma once

#include <string>
#include <string_view>

#include "budcore/core/result.hpp"
#include "budcore/export.h"

namespace budcore::job {

struct ImageRef {
  std::string host;        // "docker.io", "registry.corp:5000", "localhost"
  std::string repository;  // "library/nginx"
  std::string tag;         // "" when none
  std::string digest;      // "sha256:..." or ""
  // "docker.io/library/nginx:1.25@sha256:..."
  std::string to_string() const;
};

// Invalid (naming `field`) when `text` is not an image reference.
BUDCORE_API core::Result<ImageRef> parse_image_ref(std::string_view text, std::string_view field = "image");

// A policy pattern: a registry host ("registry.corp", "docker.io"), or a host and a repository
// prefix ("registry.corp/team", "docker.io/library"), read with the same rules as a reference
// (no tag or digest). It matches a reference on the same host whose repository is the prefix
// or continues it after a '/' ("registry.corp/team" matches "registry.corp/team/app", not
// "registry.corp/teamwork/app").
struct ImagePattern {
  std::string host;
  std::string repository_prefix;  // "" = every repository of the host
  bool matches(const ImageRef& ref) const;
  std::string to_string() const;
};
BUDCORE_API core::Result<ImagePattern> parse_image_pattern(std::string_view text, std::string_view field = "pattern");

}  // namespace budcore::job
