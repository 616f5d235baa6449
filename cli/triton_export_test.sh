#!/usr/bin/env bash
# End-to-end checks of `tilesched export ... --to triton` and of
# scripts/ttgir_schedule_text.py (docs/TTGIR.md, "Export to Triton"):
# one-line refusals with no output file (a graph not from TTGIR, a schedule
# of another graph, bad options, the buffer rule); Triton's own schedule of
# every scheduled dump exported back and rewritten gives the dump byte for
# byte (--own), and as a schedule of start cycles gives its stages and its
# cluster order; every generator's capped schedule (--max-stages =
# num_stages) of every scheduled configuration exports or is refused by
# the buffer rule, and the rewritten dump imports (--strict) with our stage
# and cluster on every op.
# usage: triton_export_test.sh TILESCHED SCRIPTS_DIR TTGIR_TESTDATA_DIR EXAMPLES_DIR [KERNELS_DIR]
set -u
bin=$1 scripts=$2 testdata=$3 examples=$4 kernels=${5:-}
py=/usr/bin/python3
# shellcheck source=cli/test_lib.sh
source "$(dirname "$0")/test_lib.sh"

one_line() { [[ $(wc -l <"$work/err") == 1 ]] || fail "$1: stderr is not one line: $(cat "$work/err")"; }
rewrite() { "$py" "$scripts/ttgir_schedule_text.py" "$@"; }
matmul=$testdata/matmul_STAGES3_BM128_BN128_BK64_W8.triton-scheduled.ttgir

# --- Refusals: exit 2, one line, no output file.
expect 0 "$bin" import --from ttgir "$matmul" -o "$work/mm.loop.json"
expect 0 "$bin" schedule "$work/mm.loop.json" -g cost-based -o "$work/mm.cb.json"
plain=$(ls "$examples"/*.loop.json | head -1)
expect 0 "$bin" schedule "$plain" -g serial -o "$work/plain.sched.json"
expect 2 "$bin" export "$plain" "$work/plain.sched.json" --to triton -o "$work/never.json"
one_line "plain graph"
grep -q "was not imported from TTGIR (op '.*' has no source_position" "$work/err" ||
  fail "plain graph: $(cat "$work/err")"
expect 2 "$bin" export "$work/mm.loop.json" "$work/plain.sched.json" --to triton -o "$work/never.json"
one_line "schedule of another graph"
grep -q '\$.graph' "$work/err" || fail "schedule of another graph: $(cat "$work/err")"
expect 2 "$bin" export "$work/mm.loop.json" --to triton -o "$work/never.json"
one_line "no schedule"
grep -q "needs exactly one of SCHEDULE and --own" "$work/err" || fail "no schedule: $(cat "$work/err")"
expect 2 "$bin" export "$work/mm.loop.json" "$work/mm.cb.json" --to mlir -o "$work/never.json"
one_line "--to mlir"
expect 2 "$bin" export "$work/mm.loop.json" --own --dot -o "$work/never.json"
one_line "--own --dot"
expect 0 "$bin" import --from ttgir "${matmul/triton-scheduled/input}" -o "$work/in.loop.json"
expect 2 "$bin" export "$work/in.loop.json" --own --to triton -o "$work/never.json"
one_line "--own of an input dump"
grep -q "holds no Triton schedule" "$work/err" || fail "--own of an input dump: $(cat "$work/err")"

# The buffer rule: Triton's own stages with A's buffer (x_51) moved to
# stage 0, two stages before the dot that reads it, as IMS placed it, on
# the graph imported without Triton's rules (with them, the assignment
# breaks the graph's own L5 groups, which --skip-buffer-rule does not lift).
expect 0 "$bin" import --from ttgir "$matmul" --no-triton-rules -o "$work/mm_free.loop.json"
"$py" - "$work/mm.loop.json" "$work/ims_like.json" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
ops = [{"id": o["id"], "start": (0 if o["id"] == "x_51" else o["triton_stage"]) * 100 + i}
       for i, o in enumerate(g["ops"])]
json.dump({"format": "tilesched.schedule/1", "graph": g["name"], "ii": 100, "ops": ops},
          open(sys.argv[2], "w"))
PY
expect 2 "$bin" export "$work/mm.loop.json" "$work/ims_like.json" --to triton -o "$work/never.json"
one_line "the graph's L5 groups"
grep -q "ims_like.json: the stage assignment breaks the rules of graph .* (L5-groups: " "$work/err" ||
  fail "L5 groups: $(cat "$work/err")"
expect 2 "$bin" export "$work/mm_free.loop.json" "$work/ims_like.json" --to triton -o "$work/never.json"
one_line "buffer rule"
grep -q "^tilesched export: op 'x_51' (ttg.local_alloc, stage 0) writes a shared-memory buffer that op 'acc_56' reads in stage 2: a buffer must be read in the stage that writes it" \
  "$work/err" || fail "buffer rule: $(cat "$work/err")"
[[ -e $work/never.json ]] && fail "a refused export wrote its output file"
expect 0 "$bin" export "$work/mm_free.loop.json" "$work/ims_like.json" --to triton --skip-buffer-rule \
  -o "$work/unchecked.json"
grep -q '"id":"x_51","op":"ttg.local_alloc","stage":0' "$work/unchecked.json" ||
  fail "--skip-buffer-rule: $(head -c 300 "$work/unchecked.json")"

# --- Triton's own schedule back: byte for byte with --own; from start
# cycles (stage * II + cluster), the same stages and cluster order.
check_start_cycles() {  # DUMP GRAPH EXPORT_OF_OWN REWRITTEN
  "$py" - "$@" <<'PY'
import json, subprocess, sys
dump, graph, own, rewritten = sys.argv[1:]
show = lambda f: [l.split("\t") for l in open(f).read().splitlines()]
a, b = show(own), show(rewritten)
rank = lambda rows: {c: i for i, c in enumerate(sorted({int(r[3]) for r in rows}))}
ra, rb = rank(a), rank(b)
bad = [(x, y) for x, y in zip(a, b) if x[:3] != y[:3] or ra[int(x[3])] != rb[int(y[3])]]
if bad or len(a) != len(b):
    sys.exit(f"{dump}: Triton's schedule from start cycles differs: {bad[:3]}")
PY
}
own_dumps=("$testdata"/*.triton-scheduled.ttgir)
[[ -n $kernels && -d $kernels ]] && own_dumps+=("$kernels"/*.triton-scheduled.ttgir)
owned=0
for f in "${own_dumps[@]}"; do
  [[ $f == *STAGES1_* ]] && continue  # num_stages 1: Triton schedules nothing
  name=$(basename "$f" .ttgir)
  expect 0 "$bin" import --from ttgir "$f" -o "$work/$name.loop.json"
  expect 0 "$bin" export "$work/$name.loop.json" --own --to triton -o "$work/$name.own.json"
  expect 0 rewrite "$f" "$work/$name.own.json" -o "$work/$name.back.ttgir"
  cmp -s "$f" "$work/$name.back.ttgir" || fail "$name: --own rewritten is not the dump"
  "$py" - "$work/$name.loop.json" "$work/$name.starts.json" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
ii = 1 + max(o["triton_cluster"] for o in g["ops"])
ops = [{"id": o["id"], "start": o["triton_stage"] * ii + o["triton_cluster"]} for o in g["ops"]]
json.dump({"format": "tilesched.schedule/1", "graph": g["name"], "ii": ii, "ops": ops},
          open(sys.argv[2], "w"))
PY
  expect 0 "$bin" export "$work/$name.loop.json" "$work/$name.starts.json" --to triton -o "$work/$name.st.json"
  expect 0 rewrite "$f" "$work/$name.st.json" -o "$work/$name.st.ttgir"
  rewrite "$f" --loop 0 --show >"$work/a.tsv" && rewrite "$work/$name.st.ttgir" --loop 0 --show >"$work/b.tsv"
  check_start_cycles "$f" "$work/$name.loop.json" "$work/a.tsv" "$work/b.tsv" || fail "$name: start cycles"
  owned=$((owned + 1))
done
((owned >= 4)) || fail "Triton's own schedule checked on $owned dumps, expected at least 4"

# --- Every generator's capped schedule of every scheduled configuration.
check_reimport() {  # SCHEDULE EXPORT REIMPORTED_GRAPH
  "$py" - "$@" <<'PY'
import json, sys
s, e, g = (json.load(open(p)) for p in sys.argv[1:])
first = min(o["start"] for o in s["ops"]) // s["ii"]
stage = {o["id"]: o["start"] // s["ii"] - first for o in s["ops"]}
cluster = {o["id"]: o["cluster"] for o in e["ops"]}
bad = [o["id"] for o in g["ops"]
       if o.get("triton_stage") != stage[o["id"]] or o.get("triton_cluster") != cluster[o["id"]]]
if bad or len(g["ops"]) != len(stage):
    sys.exit(f"{sys.argv[3]}: re-imported stage or cluster differs on {bad[:5]}")
PY
}
generators=(serial cost-based cost-based-seed ims sms "exact --time-limit 10")
configs=("$testdata"/*.triton-scheduled.ttgir)
[[ -n $kernels && -d $kernels ]] && configs=("$kernels"/*.triton-scheduled.ttgir)
exported=0 refused=0
for f in "${configs[@]}"; do
  [[ $f == *STAGES1_* ]] && continue
  name=$(basename "$f" .ttgir)
  stages=$(sed -E 's/.*STAGES([0-9]+)_.*/\1/' <<<"$name")
  expect 0 "$bin" import --from ttgir "$f" -o "$work/g.loop.json"
  for g in "${generators[@]}"; do
    # shellcheck disable=SC2086  # $g is a generator and its options
    expect 0 "$bin" schedule "$work/g.loop.json" -g $g --max-stages "$stages" -o "$work/s.json"
    rm -f "$work/e.json"
    "$bin" export "$work/g.loop.json" "$work/s.json" --to triton -o "$work/e.json" 2>"$work/err"
    case $? in
      0) exported=$((exported + 1)) ;;
      2) one_line "$name ${g%% *}"
         grep -q "a buffer must be read in the stage that writes it" "$work/err" ||
           fail "$name ${g%% *}: refused for another reason: $(cat "$work/err")"
         [[ -e $work/e.json ]] && fail "$name ${g%% *}: refused but wrote its output"
         refused=$((refused + 1)); continue ;;
      *) fail "$name ${g%% *}: export exited with $?"; continue ;;
    esac
    expect 0 rewrite "$f" "$work/e.json" -o "$work/r.ttgir"
    expect 0 "$bin" import --from ttgir --strict "$work/r.ttgir" -o "$work/r.loop.json"
    check_reimport "$work/s.json" "$work/e.json" "$work/r.loop.json" || fail "$name ${g%% *}: re-import"
  done
done
echo "note: $exported capped schedules exported and re-imported, $refused refused by the buffer rule"
((exported > 0)) || fail "no capped schedule exported"

finish triton_export_test
