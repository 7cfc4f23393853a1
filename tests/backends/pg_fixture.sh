#!/usr/bin/env bash
# One throwaway PostgreSQL server per ctest run (FIXTURES_SETUP / FIXTURES_CLEANUP of the
# backends tests): `pg_fixture.sh start STATE_DIR` initializes a cluster under a temp dir, starts
# it on a free loopback port and writes its URI to STATE_DIR/uri; `pg_fixture.sh stop STATE_DIR`
# stops it and deletes the cluster. Tests read the URI through BUDCORE_PG_URI_FILE and use a
# schema each, so they stay independent under ctest -j. `pg_fixture.sh schema STATE_DIR NAME`
# creates schema NAME on the running server and prints a store URI whose search_path is NAME
# (the C, Rust and Go tests take their PostgreSQL store from it); exit 3 when no server runs
# because its binaries are missing. `pg_fixture.sh down STATE_DIR [fast|immediate]` stops the
# running server and keeps its cluster; `pg_fixture.sh up STATE_DIR` starts it again on the same
# port (the database-restart chaos variant).
#
# CI runs as root and initdb refuses root: as root every server command runs as `postgres`,
# in a directory that user owns. When the server binaries are missing, start writes no URI
# and the tests skip their PostgreSQL variants.
set -u

cmd=${1:-}
state=${2:-}
if [[ -z "$cmd" || -z "$state" ]]; then
  echo "usage: $0 start|stop|up STATE_DIR | down STATE_DIR [fast|immediate] | schema STATE_DIR NAME" >&2
  exit 2
fi
bindir=${BUDCORE_PG_BINDIR:-/usr/lib/postgresql/15/bin}

as_pg() {
  if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# The server's options: the port, the socket dir, no fsync (the server is thrown away; the crash
# tests that need durability run on SQLite).
run_server() {
  as_pg "$bindir/pg_ctl" -D "$1/data" -l "$1/server.log" -w -t 60 \
    -o "-p $2 -k $1 -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200" \
    start >/dev/null 2>&1
}

stop_server() {
  [[ -f "$state/datadir" ]] || return 0
  local dir
  dir=$(cat "$state/datadir")
  rm -f "$state/uri" "$state/datadir"
  if [[ -d "$dir/data" ]]; then
    as_pg "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1
  fi
  [[ "$dir" == /tmp/budcore-pg-fixture-* ]] && rm -rf "$dir"
  return 0
}

case "$cmd" in
  stop)
    stop_server
    exit 0
    ;;
  down | up)
    [[ -f "$state/datadir" && -f "$state/uri" ]] || { echo "no PostgreSQL server in $state" >&2; exit 1; }
    dir=$(cat "$state/datadir")
    if [[ "$cmd" == down ]]; then
      mode=${3:-fast}
      [[ "$mode" == fast || "$mode" == immediate ]] || { echo "stop mode '$mode': fast or immediate" >&2; exit 2; }
      as_pg "$bindir/pg_ctl" -D "$dir/data" -m "$mode" -w stop >/dev/null
      exit $?
    fi
    uri=$(cat "$state/uri")
    port=${uri##*:}
    run_server "$dir" "${port%%/*}" || { cat "$dir/server.log" >&2; exit 1; }
    exit 0
    ;;
  schema)
    name=${3:-}
    if [[ ! "$name" =~ ^[a-z_][a-z0-9_]{0,62}$ ]]; then
      echo "schema name '$name' must be a lower-case SQL identifier" >&2
      exit 2
    fi
    if [[ ! -f "$state/uri" ]]; then
      if [[ ! -x "$bindir/pg_ctl" ]]; then
        echo "no PostgreSQL server: its binaries are not in $bindir" >&2
        exit 3
      fi
      echo "no PostgreSQL server in $state (start one first)" >&2
      exit 1
    fi
    uri=$(cat "$state/uri")
    "$bindir/psql" "$uri" -q -v ON_ERROR_STOP=1 -c "CREATE SCHEMA $name" >&2 || exit 1
    echo "$uri?options=-csearch_path%3D$name"
    exit 0
    ;;
  start) ;;
  *)
    echo "unknown command '$cmd' (start, stop, down, up or schema)" >&2
    exit 2
    ;;
esac

mkdir -p "$state"
stop_server  # a server an interrupted earlier run left behind
if [[ ! -x "$bindir/pg_ctl" || ! -x "$bindir/initdb" ]]; then
  echo "PostgreSQL server binaries not found in $bindir: the PostgreSQL variants will be skipped"
  exit 0
fi
if [[ $(id -u) -eq 0 ]] && ! id postgres >/dev/null 2>&1; then
  echo "running as root but there is no 'postgres' user to run the server as" >&2
  exit 1
fi

dir=$(mktemp -d /tmp/budcore-pg-fixture-XXXXXX) || exit 1
echo "$dir" >"$state/datadir"
[[ $(id -u) -eq 0 ]] && chown postgres "$dir"
if ! as_pg "$bindir/initdb" -D "$dir/data" -A trust -U postgres --no-locale -E UTF8 >"$dir/initdb.log" 2>&1; then
  echo "initdb failed:" >&2
  cat "$dir/initdb.log" >&2
  stop_server
  exit 1
fi

# A free port: ask the kernel for one, then let the server bind it; retry on the rare race.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null ||
    echo $((20000 + RANDOM % 40000))
}
for attempt in 1 2 3 4 5; do
  port=$(free_port)
  if run_server "$dir" "$port"; then
    uri="postgresql://postgres@127.0.0.1:$port/postgres"
    echo "$uri" >"$state/uri.tmp" && mv "$state/uri.tmp" "$state/uri"
    echo "PostgreSQL test server at $uri (cluster $dir)"
    exit 0
  fi
done
echo "pg_ctl start failed; server log:" >&2
cat "$dir/server.log" >&2
stop_server
exit 1
