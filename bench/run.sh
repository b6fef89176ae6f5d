#!/usr/bin/env bash
# Runs the benchmarks on loopback, prints the figures and writes a report of them to
# bench/target/BENCHMARKS-<scenario>.md (docs/BENCHMARKS.md is kept by hand, with each change's before and after).
#   bench/run.sh [--smoke] [roundtrip|throughput|drain|queue|connections|agent|stack|all]   (default all)
# Needs a built tree (bin/efferent build), PostgreSQL on 127.0.0.1:5432 (user postgres, trust; .ci/postgres.sh)
# and pgbench. Every scenario is bounded; the whole run takes about five minutes on 2 cores.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
source <(sed -n '/^java_major()/,/^}/p;/^find_jdk()/,/^}/p' bin/efferent)
JAVA_HOME="$(find_jdk)"
[ -n "$JAVA_HOME" ] || { echo "bench: no JDK 21+ found" >&2; exit 1; }
[ -d bench/target/lib ] && [ -d app-brain/target/lib ] || { echo "bench: run bin/efferent build first" >&2; exit 1; }
# 10,000 connections need 10,000 descriptors on each side.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
smoke=""
args=()
for a in "$@"; do
  if [ "$a" = "--smoke" ]; then smoke="--smoke"; else args+=("$a"); fi
done
[ ${#args[@]} -gt 0 ] || args=(all)
figures="$(mktemp)"
"$JAVA_HOME/bin/java" -Xmx2g -Defferent.bench.brain.lib="$here/app-brain/target/lib" \
  -Defferent.bench.worker.lib="$here/app-worker/target/lib" \
  -p bench/target/lib -m efferent.bench/dev.efferent.bench.BenchMain $smoke "${args[@]}" > "$figures"
cat "$figures"
if [ -z "$smoke" ]; then
  # docs/BENCHMARKS.md is kept by hand (each change's before and after): the report goes beside the build.
  mkdir -p bench/target
  out="bench/target/BENCHMARKS-$(IFS=-; echo "${args[*]}").md"
  bash bench/report.sh "$figures" > "$out.new" || { rm -f "$out.new"; echo "bench: could not write $out" >&2; exit 1; }
  mv "$out.new" "$out"
  echo "bench: wrote $out" >&2
fi
