// Opens a fresh, empty store of a named backend for one test: "sqlite_memory", "sqlite_file"
// or "postgres" (a schema of its own on the throwaway server of pg_server.hpp).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <random>
#include <string>

#include "backends/store_common.hpp"
#include "backends/pg_server.hpp"
#include "budcore/backend/store.hpp"
#include "budcore/core/clock.hpp"

namespace budcore::testing {

inline std::string unique_name(const std::string& prefix) {
  static std::atomic<int> counter{0};
  static const unsigned salt = std::random_device{}();
  return prefix + std::to_string(::getpid()) + "_" + std::to_string(salt % 100000) + "_" +
         std::to_string(counter.fetch_add(1));
}

// A temp directory removed with the object.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() / unique_name("budcore-store-");
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

// Where a backend's fresh database lives. skip is set when the backend is not installed here,
// error when it is but could not be set up (a test failure, never a silent skip).
struct BackendTarget {
  std::string uri;
  std::string skip;
  std::string error;
  std::unique_ptr<TempDir> dir;
};

inline BackendTarget make_target(const std::string& backend) {
  BackendTarget t;
  if (backend == "sqlite_memory") {
    t.uri = "sqlite::memory:";
  } else if (backend == "sqlite_file") {
    t.dir = std::make_unique<TempDir>();
    t.uri = "sqlite://" + (t.dir->path / "store.db").string();
  } else if (backend == "postgres") {
    PgServer* pg = PgServer::get();
    if (pg == nullptr) {
      (PgServer::binaries_missing() ? t.skip : t.error) = "PostgreSQL variant: " + PgServer::reason();
      return t;
    }
    std::string schema = unique_name("t_");
    auto admin = backends::open_postgres_connection(pg->admin_uri());
    if (!admin) {
      t.error = "cannot connect to the test PostgreSQL server: " + admin.error().describe();
      return t;
    }
    auto st = (*admin)->exec_script("CREATE SCHEMA " + schema);  // a generated identifier, not input
    if (!st) {
      t.error = "cannot create a schema: " + st.error().describe();
      return t;
    }
    t.uri = pg->uri(schema);
  }
  return t;
}

}  // namespace budcore::testing
