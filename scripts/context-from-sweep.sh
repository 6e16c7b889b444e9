#!/bin/bash
# Differential sweep of `--from` (issue 13): for every line of the first thread function
# of each fixture (fixtures/context and the first 40 of fixtures/verify), start two
# threads there with `agx verify --entry F --copies 2 --from FILE:LINE`; where it says
# SAFE, run the interpreter from the same context (`agx run --entry ... --from ...`) six
# times with random schedules and small inputs (pointer choices among the first
# candidates). Any violation but a deadlock (not a property verify checks by default)
# contradicts the SAFE. Exit 1 on a contradiction. Usage: scripts/context-from-sweep.sh [AGX]
A=${1:-./target/debug/agx}
safe=0; runs=0; bad=0
for f in fixtures/context/*.c $(ls fixtures/verify/*.c | head -40); do
  fn=$(grep -oE "^void \*[a-z_0-9]+\(" "$f" | head -1 | sed 's/void \*//; s/(//')
  [ -z "$fn" ] && continue
  b=$(basename "$f"); n=$(wc -l < "$f")
  for L in $(seq 1 "$n"); do
    v=$(timeout 20 "$A" verify "$f" --entry "$fn" --copies 2 --from "$b:$L" \
        --no-confirm-from-main --timeout 5 2>/dev/null | head -1)
    case "$v" in SAFE*) ;; *) continue ;; esac
    safe=$((safe + 1))
    for s in 1 2 3 4 5 6; do
      in=$(python3 -c "import random; random.seed($s*1000+$L); print(','.join(str(random.randrange(3)) for _ in range(6)))")
      out=$(timeout 20 "$A" run "$f" --entry "$fn" --copies 2 --from "$b:$L" --schedule random \
            --seed "$s" --input "$in" --input-fallback random 2>&1)
      c=$?
      [ $c -eq 0 ] && runs=$((runs + 1))
      if [ $c -eq 1 ] && ! echo "$out" | grep -q "VIOLATION (deadlock)"; then
        bad=$((bad + 1))
        echo "CONTRADICTION $b:$L seed $s input $in: $(echo "$out" | head -1)"
      fi
    done
  done
done
echo "safe starts $safe, completed runs $runs, contradictions $bad"
[ "$bad" -eq 0 ]
