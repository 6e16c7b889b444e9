#!/usr/bin/env bash
# agx under BenchExec for CI: runs the benchmark definition docs/benchexec/agx.xml (four
# pthread tasks, the tool-info module docs/benchexec/agx_benchexec) with `benchexec`, then
# checks every run's status against the task's expected verdict in the corpus's task
# definition. Fails on a wrong verdict or an ERROR; `unknown` (a timeout) does not fail.
# Skips (exit 0, saying SKIPPED) when no Python with BenchExec or no corpus is there.
#
# Environment:
#   AGX_BENCHEXEC_PYTHON   a Python with BenchExec (default: python3); its `benchexec`
#                          script is looked for beside it, then on PATH
#   AGX_REQUIRE_BENCHEXEC  when 1, a missing BenchExec fails (exit 2) instead of skipping
#   AGX_SVCOMP             the corpus (default: ../shared/svcomp beside the repository)
#   AGX_REQUIRE_CORPUS     when 1, a missing corpus fails (exit 2) instead of skipping
#   AGX_BIN                an agx binary to use instead of building target/release/agx
#   BENCHEXEC_ARGS         extra arguments (default: --no-container; empty where
#                          BenchExec's containers work)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

skip() {
  local required="$1" why="$2"
  if [ "$required" = 1 ]; then
    echo "ci-benchexec: $why" >&2
    exit 2
  fi
  echo "SKIPPED ci-benchexec: $why (nothing checked)" >&2
  exit 0
}

python="${AGX_BENCHEXEC_PYTHON:-python3}"
if ! "$python" -c 'import benchexec, yaml' 2>/dev/null; then
  skip "${AGX_REQUIRE_BENCHEXEC:-0}" "BenchExec is not importable by $python"
fi
benchexec="$(dirname "$(command -v "$python")")/benchexec"
[ -x "$benchexec" ] || benchexec="$(command -v benchexec || true)"
[ -n "$benchexec" ] || skip "${AGX_REQUIRE_BENCHEXEC:-0}" "no benchexec script beside $python or on PATH"

corpus="$(cd "${AGX_SVCOMP:-$root/../shared/svcomp}" 2>/dev/null && pwd || true)"
[ -n "$corpus" ] || skip "${AGX_REQUIRE_CORPUS:-0}" "no SV-COMP corpus at ${AGX_SVCOMP:-$root/../shared/svcomp}"

cd "$root"
if [ -z "${AGX_BIN:-}" ]; then
  cargo build --release --quiet --bin agx
  AGX_BIN="$root/target/release/agx"
fi
work="$(mktemp -d "${TMPDIR:-/tmp}/agx-benchexec.XXXXXX")"
trap 'rm -rf "$work"' EXIT
# The definition names the corpus relative to itself (../shared/svcomp beside the
# repository): the copy names it where it is.
sed "s#\.\./\.\./\.\./shared/svcomp#$corpus#g" docs/benchexec/agx.xml > "$work/agx.xml"
(cd "$work" && PYTHONPATH="$root/docs/benchexec" "$benchexec" agx.xml \
  --tool-directory "$(dirname "$AGX_BIN")" -N 1 -o "$work/results/" \
  ${BENCHEXEC_ARGS---no-container})

# Each run's status against the expected verdict of its task definition (the .yml beside
# the source).
"$python" - "$work/results" <<'EOF'
import bz2, glob, os, sys, xml.etree.ElementTree as ET
import yaml

wrong = []
runs = 0
for path in glob.glob(os.path.join(sys.argv[1], "*.results.*.xml.bz2")):
    for run in ET.parse(bz2.open(path)).getroot().iter("run"):
        runs += 1
        source = run.get("name")
        status = next(c.get("value") for c in run.iter("column") if c.get("title") == "status")
        with open(os.path.splitext(source)[0] + ".yml") as f:
            task = yaml.safe_load(f)
        expected = next(p["expected_verdict"] for p in task["properties"]
                        if p["property_file"].endswith("unreach-call.prp"))
        want = "true" if expected else "false(unreach-call)"
        verdict = "ok" if status == want else ("unknown" if status == "unknown" else "WRONG")
        print(f"ci-benchexec: {os.path.basename(source)}: {status} (expected {want}): {verdict}")
        if verdict == "WRONG":
            wrong.append(source)
if runs == 0:
    sys.exit("ci-benchexec: BenchExec wrote no results")
if wrong:
    sys.exit(f"ci-benchexec: {len(wrong)} wrong verdict(s) or error(s)")
print(f"ci-benchexec: {runs} runs, no wrong verdict")
EOF
