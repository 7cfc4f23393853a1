// A throwaway PostgreSQL server for the test run: Debian's postgresql binaries, a cluster under
// a temp dir, listening on loopback on a free port.
//
// Under ctest one server serves the whole run: the fixture script pg_fixture.sh starts it
// (FIXTURES_SETUP) and names its URI in the file $BUDCORE_PG_URI_FILE, which every test process
// reads. Run directly (./budcore_backends_tests), the process starts a server of its own and
// stops and deletes it when it exits.
//
// initdb refuses to run as root (CI runs as root), so as root every server command runs as the
// `postgres` user through runuser, in directories that user owns. initdb is slow, so one
// initialized cluster is kept as a template next to the build (guarded by flock) and each test
// process starts a copy of it.
//
// Header-only: tests/<layer>/*_test.cpp are the only sources the test executable compiles.
#pragma once

#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>

namespace budcore::testing {

class PgServer {
 public:
  // The process-wide server, started on first use; nullptr when it cannot run (reason()).
  static PgServer* get() {
    static std::once_flag once;
    static std::unique_ptr<PgServer> server;
    std::call_once(once, [] {
      auto s = std::unique_ptr<PgServer>(new PgServer());
      if (s->attach_to_fixture() || s->start()) server = std::move(s);
      else reason_storage() = s->why_;
    });
    return server.get();
  }
  static const std::string& reason() { return reason_storage(); }
  // The only reason a test may skip the PostgreSQL variant: the server is not installed.
  static bool binaries_missing() { return !std::filesystem::exists(bin_dir() + "/pg_ctl"); }
  static std::string bin_dir() {
    const char* env_bin = std::getenv("BUDCORE_PG_BINDIR");
    return env_bin != nullptr ? env_bin : "/usr/lib/postgresql/15/bin";
  }

  // A connection URI for database `postgres`, with search_path set to `schema` (the caller
  // creates the schema; tests use one schema each, which is much faster than a database each).
  std::string uri(const std::string& schema = "public") const {
    return admin_uri() + "?options=-csearch_path%3D" + schema;
  }
  std::string admin_uri() const { return "postgresql://postgres@127.0.0.1:" + std::to_string(port_) + "/postgres"; }
  // True when this process uses the ctest fixture's server rather than one of its own.
  bool shared() const { return attached_; }

  ~PgServer() {
    if (started_) run(as_pg("'" + bin_ + "/pg_ctl' -D '" + dir_ + "/data' -m immediate -w stop"));
    if (!dir_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(dir_, ec);
    }
  }

 private:
  PgServer() = default;

  static std::string& reason_storage() {
    static std::string r;
    return r;
  }

  static int run(const std::string& cmd) { return std::system((cmd + " >/dev/null 2>&1").c_str()); }

  std::string as_pg(const std::string& cmd) const {
    return root_ ? "runuser -u postgres -- sh -c \"" + cmd + "\"" : "sh -c \"" + cmd + "\"";
  }

  // Uses the fixture's server when $BUDCORE_PG_URI_FILE names a live one. A missing file (the
  // binaries are missing, or the binary runs outside ctest) or a dead server (a stale file)
  // falls back to start().
  bool attach_to_fixture() {
    const char* file = std::getenv("BUDCORE_PG_URI_FILE");
    if (file == nullptr) return false;
    std::FILE* f = std::fopen(file, "r");
    if (f == nullptr) return false;
    char buf[256] = {};
    std::size_t got = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    const std::string text(buf, got);
    const std::string prefix = "postgresql://postgres@127.0.0.1:";
    if (text.compare(0, prefix.size(), prefix) != 0) return false;
    port_ = std::atoi(text.c_str() + prefix.size());
    if (port_ <= 0 || !accepts_connections(port_)) return false;
    attached_ = true;
    return true;
  }

  static bool accepts_connections(int port) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return false;
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    ::close(fd);
    return ok;
  }

  static int free_port() {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    socklen_t len = sizeof a;
    int port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
      port = ntohs(a.sin_port);
    }
    ::close(fd);
    return port;
  }

  bool fail(std::string why) {
    why_ = std::move(why);
    return false;
  }

  // The initialized cluster every process copies; built once under a lock.
  bool ensure_template(const std::string& tmpl) {
    std::string lock_path = tmpl + ".lock";
    int lock = ::open(lock_path.c_str(), O_CREAT | O_RDWR, 0644);
    if (lock < 0) return fail("cannot create " + lock_path);
    ::flock(lock, LOCK_EX);
    bool ok = true;
    if (!std::filesystem::exists(tmpl + "/PG_VERSION")) {
      char work[] = "/tmp/budcore-pg-init-XXXXXX";
      if (::mkdtemp(work) == nullptr) {
        ok = fail("mkdtemp failed");
      } else {
        std::string w = work;
        if (root_) run("chown postgres '" + w + "'");
        int rc = run(as_pg("'" + bin_ + "/initdb' -D '" + w + "/data' -A trust -U postgres --no-locale -E UTF8"));
        if (rc != 0) {
          ok = fail("initdb failed (exit " + std::to_string(rc) + ")");
        } else {
          std::error_code ec;
          std::filesystem::remove_all(tmpl, ec);
          ok = run("cp -a '" + w + "/data' '" + tmpl + "'") == 0 || fail("copying the initialized cluster failed");
        }
        std::error_code ec;
        std::filesystem::remove_all(w, ec);
      }
    }
    ::flock(lock, LOCK_UN);
    ::close(lock);
    return ok;
  }

  bool start() {
    bin_ = bin_dir();
    if (!std::filesystem::exists(bin_ + "/initdb") || !std::filesystem::exists(bin_ + "/pg_ctl")) {
      return fail("PostgreSQL server binaries not found in " + bin_ +
                  " (install Debian's postgresql, or set BUDCORE_PG_BINDIR)");
    }
    root_ = ::geteuid() == 0;
    if (root_ && ::getpwnam("postgres") == nullptr) return fail("running as root but there is no `postgres` user");
#ifdef BUDCORE_BINARY_DIR
    std::string tmpl = std::string(BUDCORE_BINARY_DIR) + "/pg_template";
#else
    std::string tmpl = "/tmp/budcore-pg-template";
#endif
    if (!ensure_template(tmpl)) return false;
    char work[] = "/tmp/budcore-pg-XXXXXX";
    if (::mkdtemp(work) == nullptr) return fail("mkdtemp failed");
    dir_ = work;
    if (run("cp -a '" + tmpl + "' '" + dir_ + "/data'") != 0) return fail("copying the cluster template failed");
    if (root_ && run("chown -R postgres '" + dir_ + "'") != 0) return fail("chown to postgres failed");
    ::chmod((dir_ + "/data").c_str(), 0700);
    for (int attempt = 0; attempt < 3 && !started_; ++attempt) {
      port_ = free_port();
      std::string opts = "-p " + std::to_string(port_) + " -k " + dir_ +
                         " -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off";
      int rc = run(as_pg("'" + bin_ + "/pg_ctl' -D '" + dir_ + "/data' -l '" + dir_ + "/server.log' -w -t 60 -o '" +
                         opts + "' start"));
      started_ = rc == 0;
    }
    if (!started_) return fail("pg_ctl start failed; see " + dir_ + "/server.log");
    return true;
  }

  std::string bin_;
  std::string dir_;
  std::string why_;
  int port_ = 0;
  bool root_ = false;
  bool started_ = false;
  bool attached_ = false;
};

}  // namespace budcore::testing
