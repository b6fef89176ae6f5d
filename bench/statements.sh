#!/usr/bin/env bash
# The queue's claim and completion run by pgbench alone, no JVM: the ceiling of the unbatched row of
# `bench/run.sh queue` (docs/BENCHMARKS.md, section 3). Each script runs on a fresh table of queued tasks, 8 clients,
# beside pgbench's baseline B of that section; figures printed as bench/run.sh prints them (key = value).
# Usage: bench/statements.sh [--smoke]  (bench/run.sh statements runs it). --smoke: a small table, a second a script.
# Connects as PGHOST/PGPORT/PGUSER/PGDATABASE say (default 127.0.0.1, 5432, postgres, test); needs pgbench.
set -euo pipefail
export PGHOST="${PGHOST:-127.0.0.1}" PGPORT="${PGPORT:-5432}" PGUSER="${PGUSER:-postgres}" PGDATABASE="${PGDATABASE:-test}"
seconds=10 rows=80000
case "${1:-}" in
  "") ;;
  --smoke) seconds=1 rows=20000 ;;
  *) echo "statements: unknown argument '$1' (usage: bench/statements.sh [--smoke])" >&2; exit 1 ;;
esac
command -v pgbench > /dev/null || { echo "statements: pgbench not found (PostgreSQL's client programs)" >&2; exit 1; }
psql -qAtc "SELECT 1" > /dev/null || { echo "statements: cannot connect to PostgreSQL at $PGHOST:$PGPORT as $PGUSER" >&2; exit 1; }

s=efferent_statements
dir="$(mktemp -d)"
trap 'rm -rf "$dir"; psql -qc "DROP SCHEMA IF EXISTS $s CASCADE" -c "DROP DATABASE IF EXISTS efferent_statements_b" > /dev/null 2>&1 || true' EXIT

# The tasks table as the queue's migrations 1-5 leave it (queue-postgres PgSchema), filled with queued tasks of one tool.
cat > "$dir/table.sql" <<EOF
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS $s CASCADE;
CREATE SCHEMA $s;
CREATE TABLE $s.tasks (id text PRIMARY KEY, seq bigint GENERATED ALWAYS AS IDENTITY, tool text NOT NULL,
  params text NOT NULL, priority smallint NOT NULL, status text NOT NULL, attempt integer NOT NULL,
  max_attempts integer NOT NULL, run_at timestamptz NOT NULL, timeout_ms bigint NOT NULL, target_worker text,
  requester text, idempotency_key text, lease_owner text, lease_expires_at timestamptz, result text, error text,
  created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL, finished_at timestamptz,
  progress_percent smallint, progress_message text, progress_at timestamptz);
CREATE INDEX tasks_claim_idx ON $s.tasks (tool, priority DESC, run_at, seq) WHERE status = 'QUEUED';
CREATE UNIQUE INDEX ON $s.tasks (idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX ON $s.tasks (lease_expires_at) WHERE status IN ('CLAIMED', 'RUNNING');
CREATE INDEX ON $s.tasks (status, created_at, seq);
CREATE INDEX ON $s.tasks (finished_at) WHERE finished_at IS NOT NULL;
INSERT INTO $s.tasks (id, tool, params, priority, status, attempt, max_attempts, run_at, timeout_ms, created_at,
  updated_at) SELECT substr(md5(g::text), 1, 16), 't', '{}', 5, 'QUEUED', 0, 3, now(), 60000, now(), now()
  FROM generate_series(1, :rows) g;
VACUUM ANALYZE $s.tasks;
EOF

# PostgresTaskQueue.claimStatement(table, 1), its parameters written in: keep the two in step.
claim="WITH c AS (SELECT x.id FROM unnest((SELECT string_to_array('t'::text, ','::text))) AS u(tool) CROSS JOIN LATERAL (SELECT id, priority, run_at, seq FROM $s.tasks WHERE status = 'QUEUED' AND tool = u.tool AND run_at <= (SELECT now()) AND (target_worker IS NULL OR target_worker = (SELECT 'w'::text)) ORDER BY priority DESC, run_at, seq LIMIT 1 FOR UPDATE SKIP LOCKED) x ORDER BY x.priority DESC, x.run_at, x.seq LIMIT 1) UPDATE $s.tasks SET status = 'CLAIMED', attempt = attempt + 1, lease_owner = 'w', lease_expires_at = now() + interval '5 minutes', updated_at = now() FROM c WHERE $s.tasks.id = c.id RETURNING $s.tasks.*"
# PostgresTaskQueue.complete.
complete="UPDATE $s.tasks SET status = 'COMPLETED', result = '{}', error = NULL, lease_expires_at = NULL, finished_at = now(), updated_at = now() WHERE id = :id AND status IN ('CLAIMED', 'RUNNING') RETURNING *"
printf '%s \\gset\n%s;\n' "$claim" "$complete" > "$dir/claim-complete.sql"
printf '%s;\n' "$claim" > "$dir/claim.sql"
# Each client completes tasks of its own, one after the other: every completion changes a row.
printf '%s \\gset\n' "$(echo "$complete" | sed "s/:id/substr(md5((:i * 8 + :client_id + 1)::text), 1, 16)/; s/status IN ('CLAIMED', 'RUNNING')/status IN ('QUEUED', 'CLAIMED', 'RUNNING')/; s/RETURNING \*/RETURNING :i + 1 AS i/")" > "$dir/complete.sql"
printf '\\set aid random(1, 1000000)\nUPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :aid;\n' > "$dir/b.sql"

psql -qc "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS efferent_statements_b" \
  -c "CREATE DATABASE efferent_statements_b" > /dev/null
out="$(pgbench -i -q -s 10 efferent_statements_b 2>&1)" \
  || { echo "statements: pgbench could not set up B's tables:" >&2; echo "$out" >&2; exit 1; }

tps() { # script, database, [PGOPTIONS]
  local out
  out="$(PGOPTIONS="${3:-}" pgbench -n -M prepared -c 8 -j 2 -T "$seconds" -D id=none -D i=0 -f "$1" "$2" 2>&1)" \
    || { echo "statements: pgbench failed on $(basename "$1"):" >&2; echo "$out" >&2; exit 1; }
  sed -n 's/^tps = \([0-9.]*\).*/\1/p' <<< "$out" | cut -d. -f1
}
row() { # figure, script, PGOPTIONS, B, tasks in the table
  psql -q -v rows="$5" -f "$dir/table.sql" > /dev/null
  local rate; rate="$(tps "$2" "$PGDATABASE" "$3")"
  [ -n "$rate" ] || { echo "statements: pgbench gave no rate for $1" >&2; exit 1; }
  echo "statements.$1 = $rate/s ($(awk -v r="$rate" -v b="$4" 'BEGIN{printf "%.2f", r/b}') B)"
}
b="$(tps "$dir/b.sql" efferent_statements_b)"
b_async="$(tps "$dir/b.sql" efferent_statements_b "-c synchronous_commit=off")"
[ -n "$b" ] && [ -n "$b_async" ] || { echo "statements: pgbench gave no rate for B" >&2; exit 1; }
echo "statements.B = $b tps"
echo "statements.B-no-flush = $b_async tps"
# As many tasks as the queue benchmark's table holds when its unbatched row begins (16,000 + 64,000); five times as
# many where every completion needs a task of its own.
row claim-complete "$dir/claim-complete.sql" "" "$b" "$rows"
row claim "$dir/claim.sql" "" "$b" "$rows"
row complete "$dir/complete.sql" "" "$b" "$((rows * 5))"
# Against B measured the same way: nothing waits for the disk in either.
row claim-complete-no-flush "$dir/claim-complete.sql" "-c synchronous_commit=off" "$b_async" "$rows"
