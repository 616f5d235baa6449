#!/usr/bin/env bash
# End-to-end checks of `tilesched predict` (docs/TARGETS.md, "tilesched
# predict"; docs/FORMATS.md, tilesched.predict/1): Triton's own assignment
# priced as `stages` prices it, a generator's schedule and hand-written
# stage assignments of the committed pointer matmul (buffers, CTAs, bound,
# the time relative to Triton's own), the text, one-line refusals.
# usage: predict_test.sh TILESCHED TTGIR_TESTDATA_DIR
set -u
bin=$1 testdata=$2
# shellcheck source=cli/test_lib.sh
source "$(dirname "$0")/test_lib.sh"

one_line() { [[ $(wc -l <"$work/err") == 1 ]] || fail "$1: stderr is not one line: $(cat "$work/err")"; }
name=matmul_STAGES3_BM128_BN128_BK64_W8
expect 0 "$bin" import --from ttgir "$testdata/$name.input.ttgir" -q -o "$work/mm.json"
expect 0 "$bin" import --from ttgir "$testdata/$name.triton-scheduled.ttgir" -q -o "$work/mms.json"

# --triton S is the row of `stages` at S.
expect 0 "$bin" stages "$work/mm.json" --max 4 --registers 122 -g serial --json -o "$work/stages.json"
for s in 1 2 3 4; do
  expect 0 "$bin" predict "$work/mm.json" --triton $s --registers 122 --json --grid 4096 --trip 128 \
    -o "$work/t$s.json"
  /usr/bin/python3 - "$work/t$s.json" "$work/stages.json" $s <<'PY' || fail "predict --triton $1: not the stages row"
import json, sys
p, st, s = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
row = st["stages"][s - 1]
for key in ("smem_bytes", "ctas_per_sm", "ctas_limit", "memory_latency", "cta_cycles", "sm_cycles",
            "us_per_iteration", "bound", "busiest_unit"):
    assert p[key] == row[key], (key, p[key], row[key])
assert p["format"] == "tilesched.predict/1" and p["source"] == "triton" and p["ii"] is None
assert p["triton"]["num_stages"] == 3, p["triton"]          # the graph's tt.num_stages
waves = -(-4096 // (132 * p["ctas_per_sm"]))
fill = p["memory_latency"]  # each wave's pipeline fill
assert abs(p["kernel_us"] - waves * (128 * p["ctas_per_sm"] * p["sm_cycles"] + fill) / 1830) < 0.01, p
assert p["kernel_class"] == "compute-bound GEMM" and p["unexercised"] == [], p
assert [b["copies"] for b in p["buffers"]] == [s, s], p["buffers"]
PY
done

# Hand-written assignments of the matmul at num_stages 3 (Triton's own
# stages from its scheduled dump): its own; loads and their address math
# moved from stage 0 to stage 1; loads in stage 0 and the rest in stage 1.
/usr/bin/python3 - "$work/mms.json" "$work" <<'PY' || fail "writing the hand schedules"
import json, sys
g = json.load(open(sys.argv[1]))
own = {o["id"]: o["triton_stage"] for o in g["ops"]}
variants = {"own": own, "later": {k: (1 if v == 0 else v) for k, v in own.items()},
            "two": {k: (0 if v == 0 else 1) for k, v in own.items()},
            "backwards": {k: (1 if v == 0 else 0) for k, v in own.items()}}
for name, stage in variants.items():
    doc = {"format": "tilesched.schedule/1", "graph": g["name"].replace("triton-scheduled", "input"),
           "generator": "hand", "feasible": True, "ii": 100,
           "ops": [{"id": k, "start": 100 * v, "stage": v} for k, v in stage.items()]}
    json.dump(doc, open(f"{sys.argv[2]}/{name}.sched.json", "w"))
PY
for v in own later two; do
  expect 0 "$bin" predict "$work/mm.json" "$work/$v.sched.json" --registers 122 --json -o "$work/$v.json"
done
/usr/bin/python3 - "$work" <<'PY' || fail "predict: the three hand assignments"
import json, sys
own, later, two = (json.load(open(f"{sys.argv[1]}/{v}.json")) for v in ("own", "later", "two"))
assert own["source"] == "hand" and own["ii"] == 100 and own["stage_count"] == 3, own
assert (own["smem_bytes"], later["smem_bytes"], two["smem_bytes"]) == (98304, 65536, 65536)
assert [b["copies"] for b in later["buffers"]] == [2, 2], later["buffers"]
assert own["relative_to_triton"] == 1.0, own["relative_to_triton"]
assert own["bound"] == "l2_bandwidth" and two["bound"] == "latency", (own["bound"], two["bound"])
assert two["bound_detail"] == "2 CTAs: registers", two["bound_detail"]
assert 1.13 <= two["relative_to_triton"] <= 1.25, two["relative_to_triton"]
assert own["relative_to_triton"] < later["relative_to_triton"] <= two["relative_to_triton"]
for d in (own, later, two):
    assert d["triton"]["num_stages"] == 3 and d["triton"]["sm_cycles"] == own["sm_cycles"], d["triton"]
PY

# The text: the source, the setup, the buffers, the time, the bound, the ratio.
expect 0 "$bin" predict "$work/mm.json" "$work/two.sched.json" --registers 122 --grid 4096 --trip 128
grep -q '^ttgir/.*: hand, II 100 units (1600 SM cycles), 2 stages$' "$work/out" || fail "text: first line: $(head -1 "$work/out")"
grep -q '^gpu h200, 8 warps (graph), 122 registers per thread (given)$' "$work/out" || fail "text: setup"
grep -q '^kernel class: compute-bound GEMM; every mechanism used was exercised by the measured kernels$' \
  "$work/out" || fail "text: class: $(sed -n 3p "$work/out")"
grep -q '^shared memory: 65536 bytes per CTA (x_51 16384 x 2, y_55 16384 x 2)$' "$work/out" ||
  fail "text: shared memory: $(cat "$work/out")"
grep -qE '^time per iteration: [0-9]+ SM cycles \([0-9.]+ us\), 2 CTAs per SM \(limited by registers\)' \
  "$work/out" || fail "text: time: $(cat "$work/out")"
grep -q '^bound: latency (2 CTAs: registers); loaded memory latency 1500 cycles$' "$work/out" ||
  fail "text: bound: $(cat "$work/out")"
grep -qE '^kernel: [0-9.]+ us \(4096 CTAs, 128 iterations each\)$' "$work/out" || fail "text: kernel"
grep -qE "^relative to Triton's own at num_stages 3 \(832 cycles\): 1\.[12][0-9]{2}$" "$work/out" ||
  fail "text: relative: $(tail -1 "$work/out")"
expect 0 "$bin" predict "$work/mm.json" "$work/two.sched.json" --num-stages 2 --json
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["relative_to_triton"] == 1.0, d' \
  "$work/out" || fail "--num-stages 2: Triton's own two-stage assignment is this one"

# A generator's schedule prices as its stages say.
expect 0 "$bin" schedule "$work/mm.json" -g serial -q -o "$work/serial.json"
expect 0 "$bin" predict "$work/mm.json" "$work/serial.json" --json
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["source"] == "serial" and d["stage_count"] == 1 and d["smem_bytes"] == 32768, d' \
  "$work/out" || fail "predict of a serial schedule"

# A loop of a class the measurements never covered says so: the row
# normalization's first loop (hand-made TTGIR), 8 warps, registers estimated.
expect 0 "$bin" import --from ttgir "$testdata/shapes/rownorm_f16.ttgir" --loop 0 -q -o "$work/rn.json"
expect 0 "$bin" predict "$work/rn.json" --triton 1 --json
/usr/bin/python3 - "$work/out" <<'PY' || fail "predict: the row reduction's class and what it extrapolates"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["kernel_class"] == "memory-bound reduction", d["kernel_class"]
notes = " | ".join(d["unexercised"])
for phrase in ("memory-bound reduction", "DRAM", "4 warps", "registers estimated"):
    assert phrase in notes, (phrase, notes)
PY
expect 0 "$bin" predict "$work/rn.json" --triton 1
grep -q '^kernel class: memory-bound reduction; not exercised by the measured kernels, an extrapolation: ' \
  "$work/out" || fail "text: the reduction's class line: $(sed -n 3p "$work/out")"

# Refusals: one line, exit 2, no output file.
expect 2 "$bin" predict "$work/mm.json" -o "$work/never.json"
one_line "no schedule"
expect 2 "$bin" predict "$work/mm.json" "$work/own.sched.json" --triton 3 -o "$work/never.json"
one_line "both"
expect 2 "$bin" predict "$work/mm.json" --triton 0
one_line "--triton 0"
expect 2 "$bin" predict "$work/mm.json" --triton 3 --num-stages 40
one_line "--num-stages 40"
expect 2 "$bin" predict "$work/mm.json" "$work/backwards.sched.json" -o "$work/never.json"
one_line "an edge running backwards"
grep -q 'runs backwards' "$work/err" || fail "backwards: $(cat "$work/err")"
expect 2 "$bin" predict "$(dirname "$0")/../engine/examples/gemm_mainloop.loop.json" --triton 2
one_line "a blackwell graph"
/usr/bin/python3 - "$work/own.sched.json" "$work/infeasible.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
json.dump({"format": d["format"], "graph": d["graph"], "generator": "x", "feasible": False,
           "failure": "ii_cap_reached", "ii": 0, "ops": []}, open(sys.argv[2], "w"))
PY
expect 2 "$bin" predict "$work/mm.json" "$work/infeasible.json"
one_line "an infeasible schedule"
expect 2 "$bin" predict "$work/mm.json" --triton 3 --gpu a100
one_line "--gpu a100"
[[ -e $work/never.json ]] && fail "predict: an output file was written on bad input"

finish predict_test
