#!/usr/bin/env bash
# Differential test of agx's front end and reference interpreter against gcc, on random
# programs from csmith. Slow: run by hand, not in CI.
#
# Usage: scripts/difftest-csmith.sh [N]        (N programs, default 50)
# Environment:
#   SEED=S            first csmith seed (default: random); program i uses seed S+i
#   AGX=PATH          the agx binary (default: target/release/agx, built if missing)
#   AGX_TIMEOUT=SECS  limit of one `agx run` (default 60)
#   AGX_MAX_STATEMENTS=N  statement bound of one `agx run` (default 10^9)
#   GCC_TIMEOUT=SECS  limit of one native run (default 10)
#   CSMITH_EXTRA="…"  more csmith options, appended to the defaults below
#   KEEP_ALL=1        keep the agreeing programs too (default: only the interesting ones)
#   FLOAT=1           csmith's floating-point mode (`--float`), see below
#
# Each program is compiled with `gcc -w -O0` (x86-64, hence `--data-model lp64` for agx)
# and run; programs gcc cannot build or run within GCC_TIMEOUT are not counted further.
# Then `agx run --data-model lp64 -I<csmith include> FILE` runs it and the `checksum = …`
# lines are compared. In FLOAT mode csmith hashes each float variable's bytes
# (`transparent_crc_bytes(&x, sizeof(x), "x", flag)`), reading a float cell through a
# `char *`, which agx does not model (type punning); the script rewrites each such call
# into a line printing the value with round-trip precision (`%.9g` for a float, `%.17g`
# for a double: the same digits only for the same bits, NaNs aside) for both gcc and agx,
# and those lines are compared with the checksum. Counts printed: tried, gcc-ok, agx-supported, agreeing, disagreeing,
# unsupported (by message), rejected otherwise, violations reported, timeouts, crashed.
# Exit status: 1 if any program disagrees, gets a violation report or crashes agx, else 0.
set -u

n=${1:-50}
case "$n" in
'' | *[!0-9]*) echo "usage: $0 [N]" >&2; exit 2 ;;
esac
root=$(cd "$(dirname "$0")/.." && pwd)
agx=${AGX:-$root/target/release/agx}
agx_timeout=${AGX_TIMEOUT:-60}
gcc_timeout=${GCC_TIMEOUT:-10}
seed0=${SEED:-$(( (RANDOM << 15) | RANDOM ))}

# Features agx does not model are switched off: floating point (off by default in csmith,
# said anyway), bit-fields, `#pragma pack` structs, unions (reading another member than the
# one written is type punning, which the interpreter does not model). `main(void)`
# because agx runs programs without arguments.
float_opt=--no-float
[ "${FLOAT:-0}" = 1 ] && float_opt=--float
csmith_opts="$float_opt --no-bitfields --no-packed-struct --no-unions --no-argc ${CSMITH_EXTRA:-}"

# FLOAT mode: each `transparent_crc_bytes (&X, sizeof(X), "NAME", flag);` becomes a print
# of X's value (a float is promoted to double, whose %.17g is exact for a float too).
values_instead_of_bytes() {
    perl -0pi -e 's/transparent_crc_bytes\s*\(\s*&([^,]+?),\s*sizeof\([^;]*?\),\s*("[^"]*")\s*,\s*[^;]*?\);/printf("value %s = %.17g\\n", $2, (double)($1));/g' "$1"
}

# The lines gcc's and agx's runs are compared on.
compared() {
    grep -E '^(checksum|value) ' "$1"
}

ensure_csmith() {
    if command -v csmith >/dev/null && [ -f /usr/include/csmith/csmith.h ]; then
        return
    fi
    echo "installing csmith and its headers (apt-get)..." >&2
    if ! apt-get install -y csmith libcsmith-dev >/dev/null 2>&1; then
        apt-get update >/dev/null 2>&1
        apt-get install -y csmith libcsmith-dev >/dev/null || {
            echo "error: cannot install csmith (apt-get install csmith libcsmith-dev)" >&2
            exit 2
        }
    fi
}

csmith_include() {
    local dir
    for dir in /usr/include/csmith /usr/include/csmith-*; do
        if [ -f "$dir/csmith.h" ]; then
            echo "$dir"
            return
        fi
    done
    echo "error: csmith.h not found under /usr/include/csmith*" >&2
    exit 2
}

ensure_csmith
inc=$(csmith_include)
if [ ! -x "$agx" ]; then
    echo "building $agx ..." >&2
    (cd "$root" && cargo build --release --bin agx) || exit 2
fi
work=$(mktemp -d /tmp/agx-difftest.XXXXXX)
echo "csmith seeds $((seed0 + 1))..$((seed0 + n)); programs kept in $work"

tried=0 gcc_ok=0 supported=0 agree=0 disagree=0 unsupported=0 rejected=0
violations=0 timeouts=0 crashed=0 bounded=0
: >"$work/unsupported.txt"
report() { # category file detail
    printf '%-12s %s  %s\n' "$1" "$2" "$3" >>"$work/report.txt"
}

for i in $(seq 1 "$n"); do
    seed=$((seed0 + i))
    prog="$work/p$seed"
    # shellcheck disable=SC2086 # the options are words on purpose
    if ! csmith --seed "$seed" $csmith_opts -o "$prog.c" >/dev/null 2>&1; then
        echo "warning: csmith failed for seed $seed" >&2
        continue
    fi
    tried=$((tried + 1))
    [ "${FLOAT:-0}" = 1 ] && values_instead_of_bytes "$prog.c"
    if ! gcc -w -O0 -I"$inc" -o "$prog.gcc" "$prog.c" 2>/dev/null; then
        rm -f "$prog".*
        continue
    fi
    if ! timeout "$gcc_timeout" "$prog.gcc" >"$prog.gcc.out" 2>/dev/null; then
        rm -f "$prog".*
        continue
    fi
    gcc_ok=$((gcc_ok + 1))
    timeout "$agx_timeout" "$agx" run --data-model lp64 -I"$inc" "$prog.c" \
        --max-statements "${AGX_MAX_STATEMENTS:-1000000000}" \
        >"$prog.agx.out" 2>"$prog.agx.err"
    rc=$?
    keep=1
    case $rc in
    0)
        supported=$((supported + 1))
        if grep -q 'stopped at the bound' "$prog.agx.err"; then
            # Not an answer: the run was cut short (raise it with AGX_MAX_STATEMENTS).
            bounded=$((bounded + 1))
            report BOUND "$prog.c" "$(grep -m1 'stopped at the bound' "$prog.agx.err")"
        elif [ "$(compared "$prog.gcc.out")" = "$(compared "$prog.agx.out")" ]; then
            agree=$((agree + 1))
            keep=${KEEP_ALL:-0}
        else
            disagree=$((disagree + 1))
            report DISAGREE "$prog.c" "gcc: $(grep '^checksum' "$prog.gcc.out"), agx: $(grep '^checksum' "$prog.agx.out" || echo 'no checksum line')"
        fi
        ;;
    1)
        supported=$((supported + 1))
        violations=$((violations + 1))
        report VIOLATION "$prog.c" "$(grep -m1 -i 'violation' "$prog.agx.err")"
        ;;
    2)
        msg=$(grep -m1 '^error: ' "$prog.agx.err")
        if printf '%s' "$msg" | grep -q 'unsupported: '; then
            unsupported=$((unsupported + 1))
            printf '%s\n' "${msg#*unsupported: }" >>"$work/unsupported.txt"
            report UNSUPPORTED "$prog.c" "$msg"
        else
            rejected=$((rejected + 1))
            report REJECTED "$prog.c" "$msg"
        fi
        ;;
    124)
        timeouts=$((timeouts + 1))
        report TIMEOUT "$prog.c" "agx run took more than ${agx_timeout}s"
        ;;
    *)
        crashed=$((crashed + 1))
        report CRASH "$prog.c" "exit status $rc: $(tail -n 3 "$prog.agx.err" | tr '\n' ' ')"
        ;;
    esac
    if [ "$keep" = 0 ]; then
        rm -f "$prog".*
    else
        rm -f "$prog.gcc"
    fi
done

echo "tried:          $tried"
echo "gcc-ok:         $gcc_ok"
echo "agx-supported:  $supported   (ran to the end or to a violation)"
echo "agreeing:       $agree"
echo "disagreeing:    $disagree"
echo "violations:     $violations   (agx reported a violation gcc's run did not show)"
echo "unsupported:    $unsupported"
if [ -s "$work/unsupported.txt" ]; then
    # Group the messages by construct (details after a backquote or parenthesis vary).
    sed 's/[`(].*//' "$work/unsupported.txt" | sort | uniq -c | sort -rn | sed 's/^/    /'
fi
echo "rejected:       $rejected   (exit 2 without 'unsupported:', e.g. a syntax error)"
echo "timeouts:       $timeouts"
echo "bound hit:      $bounded   (agx run stopped at its statement bound: no answer)"
echo "crashed:        $crashed"
if grep -qv '^UNSUPPORTED' "$work/report.txt" 2>/dev/null; then
    echo "details (all in $work/report.txt):"
    grep -v '^UNSUPPORTED' "$work/report.txt" | sed 's/^/  /'
fi
[ "$disagree" -eq 0 ] && [ "$violations" -eq 0 ] && [ "$crashed" -eq 0 ]
