#!/usr/bin/env bash
# Quick SV-COMP bench for CI: a fixed subset of 15 concurrency tasks (true and false, five
# folders), 10 s each, 2 in parallel. Fails on any wrong verdict (agx bench exits 1) or
# on an error of the bench itself (exit 2); TIMEOUT, UNKNOWN and UNSUPPORTED do not fail.
#
# Environment:
#   AGX_SVCOMP  the corpus (default: ../shared/svcomp beside the repository)
#   AGX_BIN     an agx binary to use instead of building target/release/agx
#   AGX_BENCH_OUT  where to write results.json (default: target/ci-bench.json)
#   AGX_REQUIRE_CORPUS  when 1, a missing corpus fails (exit 2) instead of skipping
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
corpus="${AGX_SVCOMP:-$root/../shared/svcomp}"
if [ ! -d "$corpus" ]; then
  if [ "${AGX_REQUIRE_CORPUS:-0}" != 0 ]; then
    echo "ci-bench: no SV-COMP corpus at $corpus and AGX_REQUIRE_CORPUS is set" >&2
    exit 2
  fi
  echo "SKIPPED ci-bench: no SV-COMP corpus at $corpus (nothing checked)" >&2
  exit 0
fi

tasks=(
  pthread/bigshot_p
  pthread/bigshot_s
  pthread/fib_bench-1
  pthread/fib_bench-2
  pthread/lazy01
  pthread/stateful01-1
  pthread/stateful01-2
  pthread/triangular-2
  pthread-atomic/dekker
  pthread-atomic/peterson
  pthread-atomic/read_write_lock-2
  pthread-atomic/time_var_mutex
  pthread-ext/13_unverif
  pthread-lit/qw2004-2
  pthread-nondet/nondet-loop-bound-1
)
files=()
for task in "${tasks[@]}"; do
  file="$corpus/$task.yml"
  if [ ! -f "$file" ]; then
    echo "ci-bench: $file is missing (the subset is fixed; update scripts/ci-bench.sh)" >&2
    exit 2
  fi
  files+=("$file")
done

cd "$root"
if [ -z "${AGX_BIN:-}" ]; then
  cargo build --release --quiet --bin agx
  AGX_BIN="$root/target/release/agx"
fi
out="${AGX_BENCH_OUT:-$root/target/ci-bench.json}"

status=0
"$AGX_BIN" bench "${files[@]}" --jobs 2 --timeout 10 --out "$out" || status=$?
case "$status" in
  0) echo "ci-bench: no wrong verdict (results: $out)" ;;
  1) echo "ci-bench: WRONG VERDICTS (listed first above; results: $out)" >&2 ;;
  *) echo "ci-bench: the bench failed (exit $status)" >&2 ;;
esac
exit "$status"
