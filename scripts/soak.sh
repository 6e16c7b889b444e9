#!/usr/bin/env bash
# Soak run of the oracle of tests/oracle/ (main.rs): N generated programs (default 10000), each
# checked against random concrete runs by every strategy, agx verify and agx hunt, in a
# release build. Prints the counts (programs, finished, concrete violations found,
# mismatches, time per stage, programs and failures per family) and keeps every failing
# program with its report in DIR (default target/soak-failures).
#
#   scripts/soak.sh [N] [FIRST_SEED] [DIR]
#
# Seeds FIRST_SEED..FIRST_SEED+N-1 (default 1). AGX_ORACLE_RUNS, AGX_ORACLE_RUN_MS,
# AGX_ORACLE_TIMEOUT and AGX_ORACLE_STATES pass through (see tests/oracle/; the state
# budget defaults to 20000 here, 8000 in the debug CI run). The full log is
# DIR/soak.log. Exit status: 0 when no program disagrees. About 0.7 s per program on
# one core.
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-10000}"
first="${2:-1}"
dir="${3:-target/soak-failures}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
export AGX_ORACLE_STATES="${AGX_ORACLE_STATES:-20000}"
echo "soak: $n programs from seed $first; failing programs go to $dir" >&2
status=0
AGX_ORACLE_PROGRAMS="$n" AGX_ORACLE_SEED="$first" AGX_ORACLE_FAILURES="$dir" \
  cargo test --release --test oracle random_programs_agree_with_random_concrete_runs \
  -- --exact --nocapture >"$dir/soak.log" 2>&1 || status=$?
grep -E '^(oracle:|  time by|  family|failing programs)' "$dir/soak.log" || true
if [ "$status" -ne 0 ]; then
  failing=$(find "$dir" -name 'oracle_*.c' | wc -l)
  echo "soak: FAILED ($failing failing programs in $dir; log: $dir/soak.log)" >&2
fi
exit "$status"
