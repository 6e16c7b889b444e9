#!/usr/bin/env bash
# The measurements of issues 4 and 6 on the SV-COMP corpus, with the release build:
#   1. `agx bench --paper-table2`: the tasks standing for the paper's Table 2 rows with
#      baseline, dpor and dpor+ag beside the paper's numbers (issue 4);
#   2. `agx bench --hunt`: `agx hunt --assertions` against `agx verify` on every
#      expected-false task (issue 6).
# Prints both reports; results in target/bench-paper-table2.json and target/bench-hunt.json
# (re-print with `agx bench --show FILE`). Exit 1 when either finds a wrong result.
#
# Environment:
#   AGX_SVCOMP   the corpus (default: ../shared/svcomp beside the repository)
#   AGX_BIN      an agx binary to use instead of building target/release/agx
#   PAPER_TIMEOUT, HUNT_TIMEOUT  seconds per child (default 30 and 60)
#   JOBS         children in parallel (default 2)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
corpus="${AGX_SVCOMP:-$root/../shared/svcomp}"
if [ ! -d "$corpus" ]; then
  echo "skipped: $corpus not found"
  exit 0
fi
if [ -z "${AGX_BIN:-}" ]; then
  cargo build --release --manifest-path "$root/Cargo.toml" >&2
  AGX_BIN="$root/target/release/agx"
fi
paper=0
"$AGX_BIN" bench --paper-table2 "$corpus" --timeout "${PAPER_TIMEOUT:-30}" -j "${JOBS:-2}" \
  --out "$root/target/bench-paper-table2.json" || paper=$?
echo
hunt=0
"$AGX_BIN" bench --hunt "$corpus" --timeout "${HUNT_TIMEOUT:-60}" -j "${JOBS:-2}" \
  --out "$root/target/bench-hunt.json" || hunt=$?
exit $((paper > hunt ? paper : hunt))
