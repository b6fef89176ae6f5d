#!/usr/bin/env bash
# Turns the figures bench/run.sh printed (key = value lines) into a report, on standard output (bench/run.sh writes
# it to bench/target/BENCHMARKS-<scenario>.md; docs/BENCHMARKS.md is kept by hand).
set -euo pipefail
f="$1"
v() { sed -n "s/^$1 = //p" "$f" | head -n 1; }
runtime="system-tests/target/runtime-figures.txt"
machine="$(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(. /etc/os-release; echo "$PRETTY_NAME"), JDK $(v jdk || true)"
cat <<MD
# Benchmarks

Measured on this project's machine kind: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB RAM,
$(. /etc/os-release; echo "$PRETTY_NAME"), $(date -u +%Y-%m-%d). Everything runs on loopback. Latencies are the
median over 3 runs of each run's p50 and p99; rates are the median of 3 runs (the queue figures are one run of each).
Reproduce with \`bin/efferent build && bench/run.sh [scenario]\` (\`roundtrip\`, \`throughput\`, \`drain\`, \`queue\`,
\`connections\`, \`agent\`, \`stack\`, \`peers\`, \`statements\` or \`all\`, which leaves out \`peers\` and \`statements\`); \`bench/run.sh --smoke\` runs each for a moment (the tests do, so the harness stays alive).

## 1. Dispatch round trip

A caller in the brain's process submits a no-op task and waits for its result: router → queue (memory) →
WebSocket → worker (accepts and answers at once) → WebSocket → router → caller. $(v roundtrip.calls) sequential
calls after a warm-up. The floor is a WebSocket echo of one small frame on the same Helidon server and client, in
the same run.

| | p50 | p99 |
|---|---|---|
| floor: WebSocket echo | $(v roundtrip.echo.p50) | $(v roundtrip.echo.p99) |
| dispatch round trip | $(v roundtrip.dispatch.p50) | $(v roundtrip.dispatch.p99) |

Our p50 is **$(v roundtrip.ratio)** the floor (goal: within 3×); p99 goal: under 2 ms. A round trip is three
frames over the wire (dispatch, accepted, result) against the echo's two, plus an enqueue, a claim, a completion
and two hops through the router's thread.

## 2. Concurrent throughput

64 callers submit no-op tasks and wait for each result; workers have 4 slots each, each a real WebSocket
connection; memory queue.

| workers | tasks/s |
|---|---|
| 1 | $(v throughput.workers.1) |
| 4 | $(v throughput.workers.4) |
| 16 | $(v throughput.workers.16) |

## 3. Queue throughput

Each provider alone, 8 threads (like pgbench's 8 clients), after the same phases run once smaller and untimed (so
the client is compiled before it is measured). Baseline **B** = pgbench on the same PostgreSQL, one single-row
\`UPDATE\` per transaction, \`pgbench -n -M prepared -c 8 -j 2 -T 15\` (scale 10), in the same run, before and after
our phases, averaged: **$(v queue.pgbench.B)**.

| figure | memory | PostgreSQL (ratio of B) |
|---|---|---|
| single enqueue | $(v queue.memory.enqueue) | $(v queue.postgres.enqueue) |
| batch enqueue (64 rows per transaction), rows/s | $(v queue.memory.batch-enqueue) | $(v queue.postgres.batch-enqueue) |
| claim + complete, unbatched | $(v queue.memory.claim-complete) | $(v queue.postgres.claim-complete) |
| claim 64 + complete each (batched claims) | $(v queue.memory.claim64-complete) | $(v queue.postgres.claim64-complete) |
| insert → claim p50 | $(v queue.memory.insert-to-claim.p50) | $(v queue.postgres.insert-to-claim.p50) |
| insert → claim p99 | $(v queue.memory.insert-to-claim.p99) | $(v queue.postgres.insert-to-claim.p99) |
| insert → notice p50, p99 (PostgreSQL: where the time goes) | | $(v queue.postgres.insert-to-notice.p50), $(v queue.postgres.insert-to-notice.p99) |
| one durable commit at 200/s, p50, p99 (pgbench, one client: the floor) | | $(v queue.pgbench.paced-commit.p50), $(v queue.pgbench.paced-commit.p99) |

Goals for PostgreSQL (issue 19): claim + complete ≥ 0.3 B unbatched and ≥ 2 B batched, single enqueue ≥ 0.4 B,
insert → claim p99 ≤ 10 ms. The latency phase enqueues one task every 5 ms in one brain and claims it in another,
woken by \`LISTEN/NOTIFY\` and storing results off the claimer's thread (the memory queue's claimer polls every
millisecond); insert → claim waits for two durable commits, the enqueue's and the claim's.

## 4. Drain

$(v drain.tasks) tasks queued while no worker is online; then one worker (16 slots) connects. Time from its
connect to the last result: **$(v drain.time)** ($(v drain.rate)), memory queue.

## 5. Connections

The real brain (\`app-brain/target/lib\`, \`-Xmx1g\`, hands enabled) as its own process; idle workers connect from
the benchmark process and heartbeat every 10 s. Heap after a full GC (\`jcmd GC.heap_info\`), RSS from
\`/proc\`, CPU over 10 idle seconds; then 500 sequential no-op tasks through the REST API
(\`POST /api/v1/tasks?wait\`) while all are connected.

| idle workers | connect time | heap used | RSS | idle CPU | REST no-op p50 | REST no-op p99 |
|---|---|---|---|---|---|---|
| 1,000 | $(v connections.1000.connect) | $(v connections.1000.heap-used) | $(v connections.1000.rss) | $(v connections.1000.idle-cpu) | $(v connections.1000.rest-noop.p50) | $(v connections.1000.rest-noop.p99) |
| 5,000 | $(v connections.5000.connect) | $(v connections.5000.heap-used) | $(v connections.5000.rss) | $(v connections.5000.idle-cpu) | $(v connections.5000.rest-noop.p50) | $(v connections.5000.rest-noop.p99) |
| 10,000 | $(v connections.10000.connect) | $(v connections.10000.heap-used) | $(v connections.10000.rss) | $(v connections.10000.idle-cpu) | $(v connections.10000.rest-noop.p50) | $(v connections.10000.rest-noop.p99) |

Goal: 10,000 on this 2-core machine in under 1 GiB of heap.

## 6. Footprint of the runtimes

MD
if [ -f "$runtime" ]; then
  echo "From \`system-tests\` (\`RuntimesTest\`): runtimes built by \`bin/build-runtimes\`, launched by their \`bin/brain\` and"
  echo "\`bin/worker\` with the launchers' JVM settings; the second start of each (the first makes its start-up cache)."
  echo
  echo '```'
  cat "$runtime"
  echo '```'
else
  echo "Run \`mvn -pl system-tests verify -Dtest=RuntimesTest\` to measure them."
fi
cat <<MD

## 7. The agent's tool step and first streamed character

The agent (\`bench/run.sh agent\`) over a scripted model server on loopback that answers at once (OpenAI protocol,
streamed), the brain's router and a WebSocket worker offering \`noop\`: a turn in which the model asks for \`noop\`
and then answers. Median over 3 runs of each run's p50 and p99, $(v agent.turns) turns each.

| | p50 | p99 |
|---|---|---|
| plain dispatch round trip of \`noop\` (same run) | $(v agent.dispatch.p50) | $(v agent.dispatch.p99) |
| tool step in the brain: the model's answer in hand → \`noop\` dispatched and done → the next model call begun | $(v agent.step.brain.p50) | $(v agent.step.brain.p99) |
| the agent's own overhead: the step's p50 less the dispatch round trip's | $(v agent.overhead.p50) | |
| tool step seen by the model server: its answer's request → the request carrying the result | $(v agent.step.server.p50) | $(v agent.step.server.p99) |
| first streamed character: request at the model server → first part of the reply at the channel | $(v agent.first-piece.brain.p50) | $(v agent.first-piece.brain.p99) |
| the model server's own: a request sent straight to it → its first streamed text | $(v agent.first-piece.server.p50) | $(v agent.first-piece.server.p99) |

Goal: the agent's overhead per step at most 2× the dispatch round trip (here $(v agent.overhead.ratio)). The step the model server sees
adds its HTTP exchange with the brain (java.net.http client, the JDK's HTTP server); the first character reaches
a channel about as fast as a client reading the server directly.

## 8. The whole stack

The path a VPS user runs (\`bench/run.sh stack\`): callers POST a near no-op task (\`stat\` of one directory) to the
REST API of the real brain (its own process, JVM options as \`bin/brain\`'s) and wait for the result; the brain
queues it, dispatches it over a WebSocket to one of two real worker processes (16 slots each), stores the result and
answers. 10 s per row after a second of warm-up. In the same run: pgbench's B = **$(v stack.pgbench.B)**, WebSocket
echo p50 = $(v stack.echo.p50).

| callers | PostgreSQL tasks/s | p50 | p99 | memory tasks/s | p50 | p99 |
|---|---|---|---|---|---|---|
| 1 | $(v stack.postgres.1.rate) | $(v stack.postgres.1.p50) | $(v stack.postgres.1.p99) | $(v stack.memory.1.rate) | $(v stack.memory.1.p50) | $(v stack.memory.1.p99) |
| 8 | $(v stack.postgres.8.rate) | $(v stack.postgres.8.p50) | $(v stack.postgres.8.p99) | $(v stack.memory.8.rate) | $(v stack.memory.8.p50) | $(v stack.memory.8.p99) |
| 64 | $(v stack.postgres.64.rate) | $(v stack.postgres.64.p50) | $(v stack.postgres.64.p99) | $(v stack.memory.64.rate) | $(v stack.memory.64.p50) | $(v stack.memory.64.p99) |

Goal: ≥ 0.25 B tasks/s with 64 callers and PostgreSQL; p50 ≤ 2 ms with 1 caller.
MD
if [ -n "$(v peers.graphile.enqueue)" ]; then
  cat <<MD

## 9. Peers on the same PostgreSQL

graphile-worker and pg-boss (\`bench/peers\`, run with Node), each in the shape its users run it; ours is the queue
alone (section 3; run \`bench/run.sh queue peers\` for both in one report).

| | Efferent (PostgreSQL) | graphile-worker | pg-boss |
|---|---|---|---|
| single enqueue, 8 producers | $(v queue.postgres.enqueue) | $(v peers.graphile.enqueue) | $(v peers.pgboss.enqueue) |
| drain, one job per fetch, 8 workers | $(v queue.postgres.claim-complete) | $(v peers.graphile.drain) | $(v peers.pgboss.drain) |
| drain in batches of 64 | $(v queue.postgres.claim64-complete) | not measured | $(v peers.pgboss.drain-batched) |
| insert → start p50 | $(v queue.postgres.insert-to-claim.p50) | $(v peers.graphile.insert-to-start.p50) | $(v peers.pgboss.insert-to-start.p50) |
| insert → start p99 | $(v queue.postgres.insert-to-claim.p99) | $(v peers.graphile.insert-to-start.p99) | $(v peers.pgboss.insert-to-start.p99) |

Goal: ahead of both on every row.
MD
fi
if [ -n "$(v statements.claim-complete)" ]; then
  cat <<MD

## The queue's statements alone

The claim and the completion of section 3's unbatched row run by pgbench, no JVM (\`bench/run.sh statements\`,
\`StatementsBench\`): each on a fresh table of 80,000 queued tasks made by the queue's migrations, 16,000 tasks by 8
clients, as that row. B here is $(v statements.B); $(v statements.B-no-flush) with \`synchronous_commit\`
off. PostgreSQL's autovacuum: $(v statements.autovacuum).

| statements | tasks/s |
|---|---|
| claim, then complete (the unbatched row) | $(v statements.claim-complete) |
| claim alone | $(v statements.claim) |
| complete alone | $(v statements.complete) |
| claim, then complete, nothing waiting for the disk (ratio of B measured so) | $(v statements.claim-complete-no-flush) |
MD
fi
