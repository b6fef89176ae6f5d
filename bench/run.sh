#!/usr/bin/env bash
# Runs the benchmarks on loopback, prints the figures and writes a report of them to
# bench/target/BENCHMARKS-<scenario>.md (docs/BENCHMARKS.md is kept by hand, with each change's before and after).
#   bench/run.sh [--smoke] [-Dname=value ...] [-XX:option ...]
#                [roundtrip|throughput|drain|queue|connections|agent|stack|peers|statements|all]
# (default all; -D settings and -XX options go to the benchmarks' JVM, e.g. -Defferent.bench.stack.callers=1 or
# -XX:TieredStopAtLevel=1)
# Needs a built tree (bin/efferent build), PostgreSQL on 127.0.0.1:5432 (user postgres, trust; .ci/postgres.sh)
# and pgbench. Every scenario is bounded; the whole run takes about five minutes on 2 cores.
# peers (not part of all): graphile-worker and pg-boss on the same PostgreSQL, from bench/peers (Node 18+ and npm;
# its packages come from the npm registry on first use); `bench/run.sh queue peers` puts ours beside theirs.
# statements (not part of all): the queue's claim and completion run by pgbench alone (StatementsBench).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
source <(sed -n '/^java_major()/,/^}/p;/^find_jdk()/,/^}/p' bin/efferent)
# 10,000 connections need 10,000 descriptors on each side.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
smoke=""
args=()
java_args=()
props=()
peers=""
for a in "$@"; do
  case "$a" in
    --smoke) smoke="--smoke" ;;
    -D*|-XX:*) props+=("$a") ;;
    peers) peers=1; args+=("$a") ;;
    *) args+=("$a"); java_args+=("$a") ;;
  esac
done
[ ${#args[@]} -gt 0 ] || { args=(all); java_args=(all); }
figures="$(mktemp)"
trap 'rm -f "$figures"' EXIT
if [ ${#java_args[@]} -gt 0 ]; then
  JAVA_HOME="$(find_jdk)"
  [ -n "$JAVA_HOME" ] || { echo "bench: no JDK 21+ found" >&2; exit 1; }
  [ -d bench/target/lib ] && [ -d app-brain/target/lib ] || { echo "bench: run bin/efferent build first" >&2; exit 1; }
  "$JAVA_HOME/bin/java" -Xmx2g -Defferent.bench.brain.lib="$here/app-brain/target/lib" \
    -Defferent.bench.worker.lib="$here/app-worker/target/lib" ${props[@]+"${props[@]}"} \
    -p bench/target/lib -m efferent.bench/dev.efferent.bench.BenchMain $smoke "${java_args[@]}" > "$figures"
  cat "$figures"
fi
if [ -n "$peers" ]; then
  node_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
  [ "$node_major" -ge 18 ] && command -v npm > /dev/null \
    || { echo "bench: peers needs Node 18 or newer and npm (graphile-worker and pg-boss run on Node)" >&2; exit 1; }
  # The locked versions, installed once (again when package-lock.json changes).
  if [ ! -f bench/peers/node_modules/.package-lock.json ] \
      || [ bench/peers/package-lock.json -nt bench/peers/node_modules/.package-lock.json ]; then
    (cd bench/peers && npm ci --no-audit --no-fund > /dev/null) \
      || { echo "bench: could not install the peers (npm ci in bench/peers); is the npm registry reachable?" >&2; exit 1; }
  fi
  jobs=4000 latency=200
  [ -z "$smoke" ] || { jobs=100; latency=10; }
  (cd bench/peers && BENCH_JOBS="${BENCH_JOBS:-$jobs}" BENCH_LATENCY_JOBS="${BENCH_LATENCY_JOBS:-$latency}" \
    node peers.mjs) | tee -a "$figures"
fi
if [ -z "$smoke" ]; then
  # docs/BENCHMARKS.md is kept by hand (each change's before and after): the report goes beside the build.
  mkdir -p bench/target
  out="bench/target/BENCHMARKS-$(IFS=-; echo "${args[*]}").md"
  bash bench/report.sh "$figures" > "$out.new" || { rm -f "$out.new"; echo "bench: could not write $out" >&2; exit 1; }
  mv "$out.new" "$out"
  echo "bench: wrote $out" >&2
fi
