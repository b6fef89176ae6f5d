#!/usr/bin/env bash
# Makes sure a PostgreSQL answers on 127.0.0.1:5432 with trust auth for user postgres and a database "test",
# as the PostgreSQL tests expect. Uses the one that is running; otherwise starts the installed PostgreSQL
# (15 by preference) as the postgres OS user, with a data directory of its own. Fails loudly if it cannot.
set -euo pipefail

host=127.0.0.1
port="${EFFERENT_CI_PGPORT:-5432}"
log() { echo "postgres.sh: $*" >&2; }

answers() {
  if command -v pg_isready >/dev/null 2>&1; then
    pg_isready -q -h "$host" -p "$port"
  else
    (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null
  fi
}

ensure_test_database() {
  local psql=(psql -h "$host" -p "$port" -U postgres -v ON_ERROR_STOP=1 -Atq)
  if ! "${psql[@]}" -d postgres -c "SELECT 1 FROM pg_database WHERE datname = 'test'" | grep -q 1; then
    "${psql[@]}" -d postgres -c "CREATE DATABASE test"
    log "created database test"
  fi
}

if answers; then
  log "PostgreSQL answers on $host:$port"
  ensure_test_database
  exit 0
fi

bin=""
for dir in /usr/lib/postgresql/15/bin /usr/lib/postgresql/*/bin; do
  if [ -x "$dir/pg_ctl" ]; then
    bin="$dir"
    break
  fi
done
if [ -z "$bin" ]; then
  log "no PostgreSQL answers on $host:$port and none is installed (looked in /usr/lib/postgresql/*/bin)."
  log "Install it (apt-get install -y postgresql) or point EFFERENT_TEST_DB_URL at a server."
  exit 1
fi

data="${EFFERENT_CI_PGDATA:-/tmp/efferent-ci-pgdata}"
run_as_postgres() {
  if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

if [ ! -f "$data/PG_VERSION" ]; then
  mkdir -p "$data"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$data"
  run_as_postgres "$bin/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 >/dev/null
  log "initialised a data directory in $data"
fi
mkdir -p /tmp/efferent-ci-pgsocket
[ "$(id -u)" = 0 ] && chown postgres:postgres /tmp/efferent-ci-pgsocket
run_as_postgres "$bin/pg_ctl" -D "$data" -l "$data/server.log" -w -t 60 \
  -o "-h $host -p $port -k /tmp/efferent-ci-pgsocket" start >/dev/null
for _ in $(seq 1 60); do
  answers && break
  sleep 1
done
if ! answers; then
  log "started PostgreSQL from $bin but it does not answer on $host:$port; its log:"
  tail -n 30 "$data/server.log" >&2 || true
  exit 1
fi
log "started PostgreSQL from $bin on $host:$port (data in $data)"
ensure_test_database
