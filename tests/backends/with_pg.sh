#!/usr/bin/env bash
# `with_pg.sh STATE_DIR CMD...`: runs CMD with a throwaway PostgreSQL server (pg_fixture.sh)
# named by BUDCORE_PG_STATE_DIR (tests make their schemas with `pg_fixture.sh schema`), and
# stops the server however CMD ends. Without the server binaries CMD runs without the variable.
set -euo pipefail
state=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
bash "$here/pg_fixture.sh" start "$state" >/dev/null
trap 'bash "$here/pg_fixture.sh" stop "$state"' EXIT
if [[ -f "$state/uri" ]]; then export BUDCORE_PG_STATE_DIR=$state; fi
"$@"
