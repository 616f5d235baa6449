#!/usr/bin/env bash
# End-to-end checks of `tilesched stages` (docs/TARGETS.md, "tilesched
# stages") and of the stage cap on real loops: the table and the
# tilesched.stages/1 JSON (schema, relative times, the recommended S) for a
# committed Triton loop, one-line refusals; then every generator with
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

# The table: a header, S = 1..6, the recommendation.
expect 0 "$bin" stages "$work/matmul.loop.json" --max 6 --registers 128 --warps 8
[[ $(wc -l <"$work/out") == 9 ]] || fail "stages: expected 9 lines: $(cat "$work/out")"
grep -qE '^ +1 +[0-9]+ +1 +32768 +2 +[0-9]+ +1\.532$' "$work/out" || fail "stages: S=1 row: $(cat "$work/out")"
grep -q '^recommended num_stages: 3$' "$work/out" || fail "stages: recommendation: $(tail -1 "$work/out")"

# The JSON: the documented keys, relative times against the best S, the
# recommended S the least within 2 % of the best; written atomically with -o.
expect 0 "$bin" stages "$work/matmul.loop.json" --max 6 --registers 128 --warps 8 --json \
  -o "$work/stages.json"
/usr/bin/python3 - "$work/stages.json" <<'PY' || fail "stages --json: schema or values"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "tilesched.stages/1", d["format"]
assert [s["s"] for s in d["stages"]] == [1, 2, 3, 4, 5, 6]
for s in d["stages"]:
    for key in ("s", "ii", "smem_bytes", "ctas_per_sm", "relative_time"):
        assert key in s, key
    assert s["smem_bytes"] == 32768 * s["s"], s   # 32 KiB per stage, as compiled
    assert s["ii"] >= 1
assert [s["ctas_per_sm"] for s in d["stages"]] == [2, 2, 2, 1, 1, 1]
times = [s["relative_time"] for s in d["stages"]]
assert min(times) == 1.0 and times[0] > 1.4, times
assert d["recommended"] == min(s["s"] for s in d["stages"] if s["relative_time"] <= 1.02)
PY

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
    n=$((n + 1))
  done
  ((n == 19)) || fail "expected 19 shared configurations, found $n"
else
  echo "stages_test: no kernel directory at '${kernels}': the shared configurations are skipped"
fi

finish "stages end-to-end"
