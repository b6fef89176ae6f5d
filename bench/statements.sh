#!/usr/bin/env bash
# The queue's claim and completion run by pgbench alone, no JVM: the ceiling of the unbatched row of
# `bench/run.sh queue` (docs/BENCHMARKS.md, section 3). Each script runs on a fresh table holding as many queued tasks
# as that row's table does when it begins (80,000), and does as many tasks as the row (16,000), 8 clients, beside
# pgbench's baseline B of that section (taken before and after, averaged). Figures printed as bench/run.sh prints them.
# Usage: bench/statements.sh [--smoke]  (bench/run.sh statements runs it). --smoke: a small table and few tasks.
# Connects as PGHOST/PGPORT/PGUSER/PGDATABASE say (default 127.0.0.1, 5432, postgres, test); needs psql and pgbench.
set -euo pipefail
export PGHOST="${PGHOST:-127.0.0.1}" PGPORT="${PGPORT:-5432}" PGUSER="${PGUSER:-postgres}" PGDATABASE="${PGDATABASE:-test}"
clients=8 rows=80000 tasks=16000 b_seconds=15
case "${1:-}" in
  "") ;;
  --smoke) rows=4000 tasks=800 b_seconds=1 ;;
  *) echo "statements: unknown argument '$1' (usage: bench/statements.sh [--smoke])" >&2; exit 1 ;;
esac
for tool in psql pgbench flock; do
  command -v "$tool" > /dev/null || { echo "statements: $tool not found (psql and pgbench come with PostgreSQL's client programs)" >&2; exit 1; }
done
psql -X -qAtc "SELECT 1" > /dev/null || { echo "statements: cannot connect to PostgreSQL at $PGHOST:$PGPORT as $PGUSER" >&2; exit 1; }

s=efferent_statements b_db=efferent_statements_b
dir="$(mktemp -d)"
# One run at a time on this machine: the names are fixed, so that a run killed before its cleanup is cleaned by the next.
exec 9> "${TMPDIR:-/tmp}/efferent-bench-statements.lock"
flock -w 900 9 || { echo "statements: another run has held its lock for 15 minutes" >&2; exit 1; }
sql() { psql -X -q -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" -c "SET lock_timeout = '10s'" "$@" > /dev/null; }
cleanup() {
  rm -rf "$dir"
  sql -c "DROP SCHEMA IF EXISTS $s CASCADE" -c "DROP DATABASE IF EXISTS $b_db WITH (FORCE)" \
    || echo "statements: could not drop schema $s or database $b_db; drop them by hand" >&2
}
trap cleanup EXIT

# The tasks table as the queue's migrations 1-5 leave it (queue-postgres PgSchema), filled with queued tasks of one tool.
cat > "$dir/table.sql" <<EOF
DROP SCHEMA IF EXISTS $s CASCADE;
CREATE SCHEMA $s;
CREATE TABLE $s.tasks (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY, tool text NOT NULL,
  params text NOT NULL, priority smallint NOT NULL CHECK (priority BETWEEN 1 AND 10), status text NOT NULL
  CONSTRAINT tasks_status_check CHECK (status IN ('AWAITING_APPROVAL', 'QUEUED', 'CLAIMED', 'RUNNING', 'COMPLETED',
  'FAILED', 'CANCELLED')), attempt integer NOT NULL, max_attempts integer NOT NULL, run_at timestamptz NOT NULL,
  timeout_ms bigint NOT NULL, target_worker text, requester text, idempotency_key text, lease_owner text,
  lease_expires_at timestamptz, result text, error text, created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL, finished_at timestamptz, progress_percent smallint, progress_message text,
  progress_at timestamptz);
CREATE INDEX tasks_claim_idx ON $s.tasks (tool, priority DESC, run_at, seq) WHERE status = 'QUEUED';
CREATE UNIQUE INDEX ON $s.tasks (idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX ON $s.tasks (lease_expires_at) WHERE status IN ('CLAIMED', 'RUNNING');
CREATE INDEX ON $s.tasks (status, created_at, seq);
CREATE INDEX ON $s.tasks (finished_at) WHERE finished_at IS NOT NULL;
INSERT INTO $s.tasks (id, tool, params, priority, status, attempt, max_attempts, run_at, timeout_ms, created_at,
  updated_at) SELECT substr(md5(g::text), 1, 16), 't', '{}', 5, 'QUEUED', 0, 3, now(), 60000, now(), now()
  FROM generate_series(1, $rows) g;
VACUUM ANALYZE $s.tasks;
EOF

# PostgresTaskQueue.claimStatement(table, 1), its parameters written in: keep the two in step. \gset makes a claim
# that finds nothing an error, so a run cannot time empty claims.
claim="WITH c AS (SELECT x.id FROM unnest((SELECT string_to_array('t'::text, ','::text))) AS u(tool) CROSS JOIN LATERAL (SELECT id, priority, run_at, seq FROM $s.tasks WHERE status = 'QUEUED' AND tool = u.tool AND run_at <= (SELECT now()) AND (target_worker IS NULL OR target_worker = (SELECT 'w'::text)) ORDER BY priority DESC, run_at, seq LIMIT 1 FOR UPDATE SKIP LOCKED) x ORDER BY x.priority DESC, x.run_at, x.seq LIMIT 1) UPDATE $s.tasks SET status = 'CLAIMED', attempt = attempt + 1, lease_owner = 'w', lease_expires_at = now() + interval '5 minutes', updated_at = now() FROM c WHERE $s.tasks.id = c.id RETURNING $s.tasks.*"
# PostgresTaskQueue.complete.
complete="UPDATE $s.tasks SET status = 'COMPLETED', result = '{}', error = NULL, lease_expires_at = NULL, finished_at = now(), updated_at = now() WHERE id = :id AND status IN ('CLAIMED', 'RUNNING') RETURNING *"
printf '%s \\gset\n%s \\gset\n' "$claim" "$complete" > "$dir/claim-complete.sql"
printf '%s \\gset\n' "$claim" > "$dir/claim.sql"
# The completion alone: each client completes tasks of its own, in the order they were added (queued tasks, as if
# claimed: the statement is the same but for the states it accepts).
printf '%s \\gset\n' "$(echo "$complete" | sed "s/:id/substr(md5((:i * $clients + :client_id + 1)::text), 1, 16)/; s/status IN ('CLAIMED', 'RUNNING')/status IN ('QUEUED', 'CLAIMED', 'RUNNING')/; s/RETURNING \*/RETURNING :i + 1 AS i/")" > "$dir/complete.sql"
printf '\\set aid random(1, 1000000)\nUPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :aid;\n' > "$dir/b.sql"

sql -c "DROP DATABASE IF EXISTS $b_db WITH (FORCE)" -c "CREATE DATABASE $b_db"
out="$(pgbench -i -q -s 10 "$b_db" 2>&1)" || { echo "statements: pgbench could not set up B's tables:" >&2; echo "$out" >&2; exit 1; }

# Transactions per second of pgbench on script $1 in database $2, $3 as its PGOPTIONS (the caller's are not kept,
# so that every run is alike), the rest pgbench's options. Prints the first tps figure.
tps() {
  local script="$1" db="$2" options="$3" out
  shift 3
  out="$(PGOPTIONS="$options" pgbench -n -M prepared -c "$clients" -j 2 "$@" -D i=0 -f "$script" "$db" 2>&1)" \
    || { echo "statements: pgbench failed on $(basename "$script"):" >&2; echo "$out" >&2; exit 1; }
  sed -n 's/^tps = \([0-9.]*\).*/\1/p' <<< "$out" | head -n 1 | cut -d. -f1
}
# B: pgbench's single-row update, before and after the rows, averaged.
b_before="$(tps "$dir/b.sql" "$b_db" "" -T "$b_seconds")"
b_async_before="$(tps "$dir/b.sql" "$b_db" "-c synchronous_commit=off" -T "$b_seconds")"
rows_out=()
row() { # figure, script, PGOPTIONS
  psql -X -q -v ON_ERROR_STOP=1 -f "$dir/table.sql" > /dev/null 2> "$dir/table.err" \
    || { echo "statements: could not make the table:" >&2; cat "$dir/table.err" >&2; exit 1; }
  local rate
  rate="$(tps "$2" "$PGDATABASE" "$3" -t "$((tasks / clients))")"
  [ -n "$rate" ] || { echo "statements: pgbench gave no rate for $1" >&2; exit 1; }
  rows_out+=("$1 $rate")
}
row claim-complete "$dir/claim-complete.sql" ""
row claim "$dir/claim.sql" ""
row complete "$dir/complete.sql" ""
row claim-complete-no-flush "$dir/claim-complete.sql" "-c synchronous_commit=off"
b_after="$(tps "$dir/b.sql" "$b_db" "" -T "$b_seconds")"
b_async_after="$(tps "$dir/b.sql" "$b_db" "-c synchronous_commit=off" -T "$b_seconds")"
[ -n "$b_before" ] && [ -n "$b_after" ] && [ -n "$b_async_before" ] && [ -n "$b_async_after" ] \
  || { echo "statements: pgbench gave no rate for B" >&2; exit 1; }
b=$(( (b_before + b_after) / 2 )) b_async=$(( (b_async_before + b_async_after) / 2 ))

echo "statements.autovacuum = $(psql -X -qAtc "SHOW autovacuum")"
echo "statements.B = $b tps ($b_before before, $b_after after)"
echo "statements.B-no-flush = $b_async tps ($b_async_before before, $b_async_after after)"
for r in "${rows_out[@]}"; do
  set -- $r
  # The run without the flush against B measured the same way.
  base=$b
  [ "$1" != claim-complete-no-flush ] || base=$b_async
  echo "statements.$1 = $2/s ($(awk -v r="$2" -v b="$base" 'BEGIN{printf "%.2f", r/b}') B)"
done
