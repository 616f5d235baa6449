#!/usr/bin/env bash
# End-to-end checks of `tilesched stages` (docs/TARGETS.md, "tilesched
# stages") and of the stage cap on real loops: the table and the
# tilesched.stages/1 JSON (schema, units, bounds, relative and absolute
# times, the recommended S) for a committed Triton loop, the same
# recommendation with no flags as with the compiled kernels' registers and
# warps, one-line refusals; then every generator with
# --max-stages = the configuration's num_stages stays within the cap and
# verifies, on the committed loops and (when KERNELS_DIR exists) on every
# shared configuration.
# usage: stages_test.sh TILESCHED TTGIR_TESTDATA_DIR [KERNELS_DIR]
set -u
bin=$1 testdata=$2 kernels=${3:-}
# shellcheck source=cli/test_lib.sh
source "$(dirname "$0")/test_lib.sh"

one_line() { [[ $(wc -l <"$work/err") == 1 ]] || fail "$1: stderr is not one line: $(cat "$work/err")"; }
matmul=$testdata/matmul_STAGES3_BM128_BN128_BK64_W8.input.ttgir
expect 0 "$bin" import --from ttgir "$matmul" -o "$work/matmul.loop.json"

# The table: the setup (GPU, warps, registers and where each came from),
# the constants assumed, a header naming each column's group (our schedule,
# computed; Triton's pipeline, predicted) and unit, S = 1..6 with the bound
# deciding each, what the columns are, the recommendation.
expect 0 "$bin" stages "$work/matmul.loop.json" --max 6 --registers 128 --warps 8
[[ $(wc -l <"$work/out") == 18 ]] || fail "stages: expected 18 lines: $(cat "$work/out")"
grep -q '^gpu h200 (1830 MHz, 132 SMs), 8 warps (flag), 128 registers per thread (given)$' \
  "$work/out" || fail "stages: setup line: $(sed -n 2p "$work/out")"
grep -q '^assumed: memory latency 480 cycles idle, at most 1500 on a loaded SM (fit); L2 -> SM 40 bytes/cycle (fit), HBM 19.87 bytes/cycle per SM$' \
  "$work/out" || fail "stages: assumed line: $(sed -n 3p "$work/out")"
grep -qE '^ +our schedule +\| predicted: Triton.s pipeline at num_stages S, on one SM$' "$work/out" ||
  fail "stages: column groups: $(sed -n 4p "$work/out")"
grep -qE '^ +S +II cycles +stages \| +smem bytes +CTAs +latency +CTA cycles +SM cycles +us/iter +relative +bound$' \
  "$work/out" || fail "stages: header: $(sed -n 5p "$work/out")"
grep -qE '^ +\| +per CTA +per SM +cycles +/iteration +/iteration$' "$work/out" ||
  fail "stages: units: $(sed -n 6p "$work/out")"
grep -qE '^ +1 +[0-9]+ +1 \| +32768 +2 +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+ +1\.532  latency \(2 CTAs: registers\)$' "$work/out" ||
  fail "stages: S=1 row: $(cat "$work/out")"
# S = 3: two CTAs share the SM, so its cycles per iteration are one CTA's
# over two (998 -> 832, the L2 bound), not our II in cycles.
grep -qE '^ +3 +[0-9]+ +3 \| +98304 +2 +1500 +998 +832 +0\.455 +1\.000  L2 bandwidth$' "$work/out" ||
  fail "stages: S=3 row: $(cat "$work/out")"
grep -q "its stage assignment, not our schedule" "$work/out" && grep -q "over the CTAs sharing the SM" "$work/out" ||
  fail "stages: the notes do not say what SM cycles are: $(cat "$work/out")"
grep -q '^recommended num_stages: 3$' "$work/out" || fail "stages: recommendation: $(tail -1 "$work/out")"
# The II column is our schedule's II in cycles: 16 x the JSON's units.
expect 0 "$bin" stages "$work/matmul.loop.json" --max 6 --registers 128 --warps 8 --json -o "$work/ii.json"
/usr/bin/python3 - "$work/ii.json" "$work/matmul.loop.json" "$bin" <<'PY' || fail "stages: II cycles are not 16 x ii"
import json, subprocess, sys
d = json.load(open(sys.argv[1]))
text = subprocess.run([sys.argv[3], "stages", sys.argv[2], "--registers", "128", "--warps", "8"],
                      capture_output=True, text=True).stdout.splitlines()
rows = [l.split() for l in text if l.split() and l.split()[0].isdigit()]
assert [int(r[1]) for r in rows] == [16 * s["ii"] for s in d["stages"]], (rows, d["stages"])
PY
# The fitted constants given are the ones the text says it assumes.
expect 0 "$bin" stages "$work/matmul.loop.json" --max 2 --fit-max-latency 1200 --fit-l2-bytes 36
grep -q '^assumed: memory latency 480 cycles idle, at most 1200 on a loaded SM (fit); L2 -> SM 36 bytes/cycle' \
  "$work/out" || fail "stages: --fit-*: $(sed -n 3p "$work/out")"

# No flags: warps from the graph, registers estimated and marked so.
expect 0 "$bin" stages "$work/matmul.loop.json"
grep -q '^gpu h200 (1830 MHz, 132 SMs), 8 warps (graph), 114 registers per thread (estimated from the graph)$' \
  "$work/out" || fail "stages: no flags: $(sed -n 2p "$work/out")"

# A generated Hopper GEMM (TMA tiles a wgmma reads from shared memory, no
# ttg.local_alloc): its operand tiles (2 x 32 KiB) are there at every S,
# one stage included.
expect 0 "$bin" generate --family gemm_mainloop --ops 8 --target hopper -o "$work/gemm.loop.json"
expect 0 "$bin" stages "$work/gemm.loop.json" --max 4 --json
/usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert [s["smem_bytes"] for s in d["stages"]] == [65536 * s["s"] for s in d["stages"]], d["stages"]' \
  "$work/out" || fail "stages: generated Hopper GEMM: shared memory per S: $(head -c 600 "$work/out")"
# Costed by its tiles' bytes and warps: with the shared TMA matmul's 16 KiB
# tiles, the same advice as for that kernel (3), from the graph's 8 warps.
expect 0 "$bin" generate --family gemm_mainloop --ops 8 --target hopper --param tile_kib=16 \
  -o "$work/gemm16.loop.json"
expect 0 "$bin" stages "$work/gemm16.loop.json" --max 4
grep -q '^gpu h200 (1830 MHz, 132 SMs), 8 warps (graph), ' "$work/out" ||
  fail "stages: generated Hopper GEMM: warps: $(sed -n 2p "$work/out")"
grep -q '^recommended num_stages: 3' "$work/out" ||
  fail "stages: generated Hopper GEMM, 16 KiB tiles: $(tail -n 1 "$work/out")"

# An fp8 MMA loop: priced at fp8's tensor-core rate, and said to be an
# extrapolation (the measured kernels' MMAs were fp16). The only fp8 loop
# is a lowered one (after the pipeliner), which stages refuses: predict
# prints the same class line.
expect 0 "$bin" import --from ttgir "$testdata/shapes/fp8_tma_matmul_wgmma_wait.ttgir" -o "$work/fp8.loop.json"
expect 2 "$bin" stages "$work/fp8.loop.json" --max 2
grep -q "the loop is one Triton's pipeliner already lowered" "$work/err" || fail "stages: a lowered loop: $(cat "$work/err")"
expect 0 "$bin" predict "$work/fp8.loop.json" --triton 2
grep -q "^kernel class: compute-bound GEMM; not exercised by the measured kernels, an extrapolation: 8-bit MMA operands, another tensor-core rate: every measured kernel's MMAs were fp16" \
  "$work/out" || fail "predict: fp8 GEMM: $(sed -n 3p "$work/out")"

# The JSON: the documented keys, relative times against the best S, the
# recommended S the least within 2 % of the best; written atomically with -o.
expect 0 "$bin" stages "$work/matmul.loop.json" --max 6 --registers 128 --warps 8 --json \
  --grid 4096 --trip 128 -o "$work/stages.json"
/usr/bin/python3 - "$work/stages.json" <<'PY' || fail "stages --json: schema or values"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "tilesched.stages/1", d["format"]
assert (d["gpu"], d["registers"], d["registers_estimated"], d["warps"], d["warps_from"]) == \
    ("h200", 128, False, 8, "flag"), d
assert d["ii_unit_cycles"] == 16
assert d["fit"] == {"max_loaded_memory_latency": 1500, "l2_bytes_per_cycle": 40}, d["fit"]
assert [s["s"] for s in d["stages"]] == [1, 2, 3, 4, 5, 6]
for s in d["stages"]:
    for key in ("s", "ii", "smem_bytes", "ctas_per_sm", "ctas_limit", "memory_latency",
                "sm_cycles", "us_per_iteration", "kernel_us", "bound", "busiest_unit",
                "relative_time"):
        assert key in s, key
    assert s["smem_bytes"] == 32768 * s["s"], s   # 32 KiB per stage, as compiled
    assert s["ii"] >= 1
    assert abs(s["us_per_iteration"] - s["sm_cycles"] / 1830) < 1e-3, s
    assert 480 <= s["memory_latency"] <= 1500, s
assert [s["ctas_per_sm"] for s in d["stages"]] == [2, 2, 2, 1, 1, 1]
assert [s["bound"] for s in d["stages"]] == ["latency", "latency"] + ["l2_bandwidth"] * 4
assert d["stages"][0]["ctas_limit"] == "registers" and d["stages"][3]["ctas_limit"] == "shared memory"
# 4096 CTAs, 2 per SM: 16 waves of 128 iterations of 2 CTAs at 832 cycles, each
# wave after its pipeline fill (the loaded memory latency, 1500 cycles).
assert abs(d["stages"][2]["kernel_us"] - 16 * (128 * 2 * 832 + 1500) / 1830) < 0.01, d["stages"][2]
times = [s["relative_time"] for s in d["stages"]]
assert min(times) == 1.0 and times[0] > 1.4, times
assert d["recommended"] == min(s["s"] for s in d["stages"] if s["relative_time"] <= 1.02)
PY

# With no flags, the recommendation on each committed loop is the one made
# with the compiled kernel's registers (measured.json) and 8 warps.
for pair in matmul_STAGES3_BM128_BN128_BK64_W8:122 matmul_tma_STAGES3_BM128_BN128_BK64_W8_WS0:90 \
            attention_STAGES3_BM128_BN64_HEAD128_W8:148 attention_tma_STAGES3_BM128_BN128_HEAD128_W8_WS0:187; do
  name=${pair%%:*} regs=${pair##*:}
  expect 0 "$bin" import --from ttgir "$testdata/$name.input.ttgir" -q -o "$work/c.loop.json"
  expect 0 "$bin" stages "$work/c.loop.json" -g serial
  plain=$(tail -1 "$work/out")
  expect 0 "$bin" stages "$work/c.loop.json" -g serial --registers "$regs" --warps 8
  [[ $(tail -1 "$work/out") == "$plain" ]] || fail "$name: no flags '$plain', compiled '$(tail -1 "$work/out")'"
  [[ $plain == "recommended num_stages: 3" ]] || fail "$name: $plain"
done

# A depth whose buffers do not fit: no time, not recommended.
attention=$testdata/attention_tma_STAGES3_BM128_BN128_HEAD128_W8_WS0.input.ttgir
expect 0 "$bin" import --from ttgir "$attention" -o "$work/attention.loop.json"
expect 0 "$bin" stages "$work/attention.loop.json" --max 4 --registers 187 --warps 8 --json -g serial
/usr/bin/python3 - "$work/out" <<'PY' || fail "stages: a depth that does not fit"
import json, sys
d = json.load(open(sys.argv[1]))
last = d["stages"][3]
assert last["ctas_per_sm"] == 0 and last["relative_time"] is None, last
assert d["recommended"] == 3, d["recommended"]
PY

# Refusals: one line, exit 2, no output.
expect 2 "$bin" stages "$work/matmul.loop.json" --max 0 -o "$work/never.json"
one_line "--max 0"
expect 2 "$bin" stages "$work/matmul.loop.json" --registers 300
one_line "--registers 300"
expect 2 "$bin" stages "$work/matmul.loop.json" -g nonsense
one_line "-g nonsense"
expect 2 "$bin" stages "$work/matmul.loop.json" --gpu a100
one_line "--gpu a100"
grep -q 'h100, h200' "$work/err" || fail "--gpu a100: $(cat "$work/err")"
expect 2 "$bin" stages "$work/matmul.loop.json" --grid 4096
one_line "--grid without --trip"
expect 2 "$bin" stages "$work/matmul.loop.json" --fit-l2-bytes 0
one_line "--fit-l2-bytes 0"
expect 2 "$bin" stages "$work/matmul.loop.json" -g cost-based --time-limit 5
one_line "--time-limit without exact"
grep -q -- '--time-limit applies to --generator exact only' "$work/err" || fail "--time-limit: $(cat "$work/err")"
expect 0 "$bin" stages "$work/matmul.loop.json" --gpu h100 -g serial
grep -q '^gpu h100 ' "$work/out" || fail "--gpu h100: $(sed -n 2p "$work/out")"
expect 2 "$bin" stages "$(dirname "$0")/../engine/examples/gemm_mainloop.loop.json"
one_line "a blackwell graph"
grep -q 'needs the hopper target' "$work/err" || fail "blackwell graph: $(cat "$work/err")"
printf '{"format": "tilesched.loop/1"' >"$work/torn.json"
expect 2 "$bin" stages "$work/torn.json"
one_line "torn graph"
[[ -e $work/never.json ]] && fail "stages: an output file was written on bad input"

# The stage cap on real loops: every generator, the cap = num_stages.
gens=("-g serial" "-g cost-based --arm-policy first-success" "-g cost-based --arm-policy best-cost"
      "-g cost-based-seed" "-g ims" "-g sms" "-g exact --time-limit 2")
check_caps() {  # GRAPH CAP
  local g
  for g in "${gens[@]}"; do
    # shellcheck disable=SC2086
    expect 0 "$bin" schedule "$1" $g --max-stages "$2" -q -o "$work/capped.json"
    expect 0 "$bin" verify "$1" "$work/capped.json" -q
    local count
    count=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["stage_count"])' \
      "$work/capped.json")
    ((count <= $2)) || fail "$(basename "$1") $g: $count stages over the cap $2"
  done
}
for f in "$testdata"/*.input.ttgir; do
  expect 0 "$bin" import --from ttgir "$f" -q -o "$work/c.loop.json"
  check_caps "$work/c.loop.json" 2
done
if [[ -n $kernels && -f $kernels/measured.json ]]; then
  n=0
  for f in "$kernels"/*.input.ttgir; do
    s=$(basename "$f" | sed -E 's/.*_STAGES([0-9]+)_.*/\1/')
    expect 0 "$bin" import --from ttgir "$f" -q -o "$work/k.loop.json"
    check_caps "$work/k.loop.json" "$s"
    tag=$(basename "$f" .input.ttgir)
    regs=$(/usr/bin/python3 -c 'import json,sys; print(next(r["n_regs"] for r in json.load(open(sys.argv[1]))["results"] if r["tag"] == sys.argv[2]))' \
      "$kernels/measured.json" "$tag")
    expect 0 "$bin" stages "$work/k.loop.json" -g serial
    plain=$(tail -1 "$work/out")
    expect 0 "$bin" stages "$work/k.loop.json" -g serial --registers "$regs" --warps 8
    [[ $(tail -1 "$work/out") == "$plain" ]] || fail "$tag: no flags '$plain', compiled '$(tail -1 "$work/out")'"
    n=$((n + 1))
  done
  ((n == 19)) || fail "expected 19 shared configurations, found $n"
else
  echo "stages_test: no kernel directory at '${kernels}': the shared configurations are skipped"
fi

finish "stages end-to-end"
