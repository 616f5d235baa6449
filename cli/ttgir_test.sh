#!/usr/bin/env bash
# End-to-end checks of `tilesched import --from ttgir` (docs/TTGIR.md):
# --list, the default loop, --loop, --strict, the one warning line for
# unknown ops (and --quiet), one-line refusals of malformed input with no
# output file, standard input; every loop shape of shapes/ (scf.if
# epilogues, nested loops, two loops in one function, scf.while, fp8 with
# warp_group_dot waits, bf16) imports strictly and every generator's
# schedule of it verifies, and so do the fused loops of the flattened
# persistent matmul of flat/; a use of an undefined value is refused; then
# every shared Triton configuration (KERNELS_DIR, skipped when absent)
# imports, and every generator's schedule of each one verifies against it.
# usage: ttgir_test.sh TILESCHED TTGIR_TESTDATA_DIR [KERNELS_DIR]
set -u
bin=$1 testdata=$2 kernels=${3:-}
# shellcheck source=cli/test_lib.sh
source "$(dirname "$0")/test_lib.sh"

one_line() { [[ $(wc -l <"$work/err") == 1 ]] || fail "$1: stderr is not one line: $(cat "$work/err")"; }
scheduled=$testdata/matmul_tma_STAGES3_BM128_BN128_BK64_W8_WS0.triton-scheduled.ttgir
input=$testdata/matmul_STAGES3_BM128_BN128_BK64_W8.input.ttgir

# --list: a header, then one line per loop; the scheduled dump's first loop
# is the default. Its op count is the imported graph's.
expect 0 "$bin" import --from ttgir "$scheduled" --list
[[ $(wc -l <"$work/out") == 4 ]] || fail "--list: expected a header and 3 loops: $(cat "$work/out")"
head -1 "$work/out" | grep -qP '^loop\tlocation\tfunction\top\tops\tdot\tload\tnesting\ttriton\tdefault$' ||
  fail "--list: header: $(head -1 "$work/out")"
sed -n 2p "$work/out" |
  grep -qP '^0\t.*:32\t@matmul_tma\tscf.for\t6\tdot\tload\tinnermost\ttriton-schedule\tdefault$' ||
  fail "--list: first loop: $(sed -n 2p "$work/out")"
grep -qP '^1\t.*\t-$' "$work/out" || fail "--list: loop 1 is not marked as not the default"
expect 0 "$bin" import --from ttgir "$input" --list
listed=$(awk -F'\t' 'NR > 1 && $10 == "default" {print $5}' "$work/out")
expect 0 "$bin" import --from ttgir "$input" -o "$work/input.loop.json"
imported=$(grep -c '"source_op": ' "$work/input.loop.json")
[[ $listed == 11 && $imported == 11 ]] || fail "--list counts $listed ops, the graph has $imported"

# The default loop and --loop; names, target and Triton's schedule.
expect 0 "$bin" import --from ttgir "$scheduled" -o "$work/s0.loop.json"
grep -q '"name": "ttgir/matmul_tma_STAGES3_BM128_BN128_BK64_W8_WS0.triton-scheduled/loop0"' \
  "$work/s0.loop.json" || fail "import: graph not named after file and loop"
grep -q '"target": "hopper"' "$work/s0.loop.json" || fail "import: not on the hopper target"
grep -q '"attrs": {"triton_num_stages": 3, "num_warps": 8, "mma_element_bits": 16}' "$work/s0.loop.json" ||
  fail "import: tt.num_stages, ttg.num-warps or the MMA's operand width lost"
grep -q '"kind": "wgmma", .*"triton_stage": 2' "$work/s0.loop.json" || fail "import: loop.stage lost"
expect 0 "$bin" import --from ttgir "$scheduled" --loop 2 --strict -o "$work/s2.loop.json"
grep -q '"source_op": "ttng.wait_barrier"' "$work/s2.loop.json" || fail "--loop 2: no barrier wait"
expect 2 "$bin" import --from ttgir "$scheduled" --loop 3 -o "$work/never.json"
one_line "--loop 3"
grep -q -- "--loop 3: the input has 3 loops (0..2)" "$work/err" || fail "--loop 3: $(cat "$work/err")"
expect 2 "$bin" import --from ttgir "$input" --target blackwell
one_line "--target blackwell"
expect 2 "$bin" import --from hatschet "$input" --resources "$input" --loop 1
one_line "--loop with hatschet"
expect 2 "$bin" import --from hatschet "$input" --resources "$input" --no-smem-bound
one_line "--no-smem-bound with hatschet"
expect 2 "$bin" import --from ttgir "$input" --resources "$work/missing.xml" -o "$work/never.json"
one_line "--resources with ttgir"
grep -q -- "--resources applies to --from hatschet only" "$work/err" || fail "--resources with ttgir: $(cat "$work/err")"
[[ -e $work/never.json ]] && fail "--resources with ttgir: wrote a file"

# The stage bound: the TMA attention's buffers fit 3 stages deep, not 4;
# every op's max_depth says so unless --no-smem-bound.
tma_attention=$testdata/attention_tma_STAGES3_BM128_BN128_HEAD128_W8_WS0.input.ttgir
expect 0 "$bin" import --from ttgir "$tma_attention" -o "$work/att.loop.json"
[[ $(grep -c '"max_depth": 2' "$work/att.loop.json") == $(grep -c '"kind":' "$work/att.loop.json") ]] ||
  fail "import: not every op's max_depth is 2 (3 stages of Triton's buffers)"
expect 0 "$bin" import --from ttgir "$tma_attention" --no-smem-bound -o "$work/att_free.loop.json"
grep -q '"max_depth"' "$work/att_free.loop.json" && fail "--no-smem-bound: an op has a max_depth"

# Triton's rules: each local_alloc and its readers (the dot) in one
# leader_gid group unless --no-triton-rules; hatschet refuses the option.
grep -q '"leader_gid": 1' "$work/att.loop.json" || fail "import: no leader_gid group for Triton's rules"
expect 0 "$bin" import --from ttgir "$tma_attention" --no-triton-rules -o "$work/att_norules.loop.json"
grep -q '"leader_gid"' "$work/att_norules.loop.json" && fail "--no-triton-rules: an op has a leader_gid"
expect 2 "$bin" import --from hatschet "$input" --resources "$input" --no-triton-rules
one_line "--no-triton-rules with hatschet"

# Standard input.
expect 0 "$bin" import --from ttgir - <"$input"
grep -q '"name": "ttgir/stdin/loop0"' "$work/out" || fail "import -: not named ttgir/stdin/loop0"

# Unknown ops: imported as generic with one warning line; --quiet silences
# it; --strict refuses them with FILE:LINE.
sed 's/math.exp2/future.exp3/g' \
  "$testdata/attention_STAGES3_BM128_BN64_HEAD128_W8.input.ttgir" >"$work/future.ttgir"
expect 0 "$bin" import --from ttgir "$work/future.ttgir" -o "$work/future.loop.json"
one_line "unknown op warning"
grep -q "warning: $work/future.ttgir: 1 unknown op kind(s) imported as generic: future.exp3$" \
  "$work/err" || fail "unknown op warning: $(cat "$work/err")"
[[ $(grep -c '"kind": "generic", .*"source_op": "future.exp3"' "$work/future.loop.json") == 2 ]] ||
  fail "unknown ops are not generic ops"
expect 0 "$bin" import --from ttgir "$work/future.ttgir" --quiet -o "$work/future.loop.json"
[[ -s $work/err ]] && fail "--quiet: the warning was printed: $(cat "$work/err")"
rm -f "$work/never.json"
expect 2 "$bin" import --from ttgir "$work/future.ttgir" --strict -o "$work/never.json"
one_line "--strict"
grep -qE "^tilesched import: $work/future.ttgir:[0-9]+: unknown op 'future.exp3'" "$work/err" ||
  fail "--strict: $(cat "$work/err")"
[[ -e $work/never.json ]] && fail "--strict: an output file was written"

# Malformed input: exit 2, one line FILE:LINE: problem, no output file, an
# existing output left as it was.
printf 'module {\n  scf.for %%i = %%a to %%b step %%c : i32 {\n    %%x = arith.addi (%%i : i32\n  }\n}\n' \
  >"$work/broken.ttgir"
printf 'old\n' >"$work/kept.json"
expect 2 "$bin" import --from ttgir "$work/broken.ttgir" -o "$work/kept.json"
one_line "malformed TTGIR"
grep -q "^tilesched import: $work/broken.ttgir:4: unbalanced '}'$" "$work/err" ||
  fail "malformed TTGIR: $(cat "$work/err")"
[[ $(cat "$work/kept.json") == old ]] || fail "malformed TTGIR: the old output was changed"
head -c 3000 "$scheduled" >"$work/truncated.ttgir"
expect 2 "$bin" import --from ttgir "$work/truncated.ttgir"
one_line "truncated TTGIR"
[[ -s $work/out ]] && fail "truncated TTGIR: something was written to stdout"

# Every loop shape of our own, the flattened persistent matmul of flat/
# (prologue and epilogue scf.if that define the same names) and the zoo's
# hand-made loops (zoo/): each innermost
# loop imports strictly, and every generator's schedule of it verifies; an
# outer loop is refused.
shapes=$testdata/shapes
generators=(serial cost-based "cost-based --arm-policy best-cost" cost-based-seed ims sms
            "exact --time-limit 10" auto)
shape_loops=0
for f in "$shapes"/*.ttgir "$testdata"/flat/*.ttgir "$testdata"/zoo/*.ttgir; do
  name=$(basename "$f" .ttgir)
  expect 0 "$bin" import --from ttgir "$f" --list
  cp "$work/out" "$work/$name.list"
  while IFS=$'\t' read -r index _ _ _ ops _ _ nesting _ _; do
    [[ $index == loop ]] && continue
    if [[ $nesting == outer ]]; then
      expect 2 "$bin" import --from ttgir "$f" --loop "$index" --strict -o "$work/never.json"
      one_line "outer loop $name:$index"
      grep -q "loop $index holds another loop; only innermost loops are imported" "$work/err" ||
        fail "outer loop $name:$index: $(cat "$work/err")"
      continue
    fi
    shape_loops=$((shape_loops + 1))
    graph=$work/$name.$index.loop.json
    expect 0 "$bin" import --from ttgir "$f" --loop "$index" --strict -o "$graph"
    [[ $(grep -c '"source_op": ' "$graph") == "$ops" ]] || fail "$name:$index: --list says $ops ops"
    for g in "${generators[@]}"; do
      # shellcheck disable=SC2086  # $g is a generator and its options
      expect 0 "$bin" schedule "$graph" -g $g -o "$work/shape.schedule.json"
      expect 0 "$bin" verify "$graph" "$work/shape.schedule.json"
    done
  done <"$work/$name.list"
done
# Six among the shapes; two in flat/'s input dump, four in its scheduled
# one; two in each of zoo/'s layernorm and softmax.
[[ $shape_loops == 16 ]] || fail "expected 16 innermost loops among shapes/, flat/ and zoo/, found $shape_loops"
grep -q '"num_warps": 8' "$work/persistent_tma_matmul_f16.0.loop.json" || fail "num_warps not kept"
grep -q '"kind": "tma_store", .*"source_op": "tt.descriptor_store", "source_position": 14' \
  "$work/persistent_tma_matmul_f16.0.loop.json" || fail "the epilogue's store is not imported"
[[ $(grep -c '"store_bytes": 2048' "$work"/rownorm_f16.[01].loop.json | cut -d: -f2 | sort -u) == 1 ]] ||
  fail "rownorm: each loop's load does not carry its 2048-byte buffer"

# A use of a value defined nowhere is refused, strict or not, with its line
# and the value, and nothing is written.
printf 'module {\n  tt.func @f(%%n: i32) {\n    %%c0 = arith.constant 0 : i32\n    %%r = scf.for %%i = %%c0 to %%n step %%n iter_args(%%a = %%c0) -> (i32) : i32 {\n      %%x = arith.addi %%a, %%nope : i32\n      scf.yield %%x : i32\n    }\n    tt.return\n  }\n}\n' \
  >"$work/undefined.ttgir"
for strict in "" --strict; do
  # shellcheck disable=SC2086  # $strict is an option or nothing
  expect 2 "$bin" import --from ttgir "$work/undefined.ttgir" --loop 0 $strict -o "$work/undefined.json"
  one_line "undefined value $strict"
  grep -qF "undefined.ttgir:5: use of undefined value '%nope' (no definition above it in scope)" \
    "$work/err" || fail "undefined value $strict: $(cat "$work/err")"
  [[ -e $work/undefined.json ]] && fail "undefined value $strict: an output file was written"
done

# Every shared configuration: both dumps import without unknown ops; every
# generator schedules each graph and the schedule verifies against it.
# Graphs that differ only in their name and Triton's attributes (the same
# loop at another num_stages) get the same schedule from every generator
# (schedules depend on ops, edges and target only, docs/CONTRACT.md), so
# each distinct loop is scheduled once and its schedules verified against
# every configuration's own graph.
if [[ -n $kernels && -d $kernels ]]; then
  configs=0
  declare -A scheduled_for
  for f in "$kernels"/*.ttgir; do
    name=$(basename "$f" .ttgir)
    [[ $name == *.input ]] && configs=$((configs + 1))
    expect 0 "$bin" import --from ttgir --strict "$f" -o "$work/$name.loop.json"
    key=$(sed -E 's/, "triton_(stage|cluster)": [0-9]+//g; /"(name|attrs)":/d' "$work/$name.loop.json" |
          sha256sum | cut -c1-16)
    if [[ -z ${scheduled_for[$key]:-} ]]; then
      scheduled_for[$key]=$name
      for g in "${generators[@]}"; do
        # shellcheck disable=SC2086  # $g is a generator and its options
        expect 0 "$bin" schedule "$work/$name.loop.json" -g $g -o "$work/$key.${g%% *}${g##* }.json"
      done
    fi
    # The schedule of the same loop, named for this configuration's graph
    # (a schedule of another graph is refused at $.graph).
    graph_name=$(grep -o '"name": "[^"]*"' "$work/$name.loop.json" | head -1 | cut -d'"' -f4)
    for g in "${generators[@]}"; do
      sed "s|\"graph\": \"[^\"]*\"|\"graph\": \"$graph_name\"|" \
        "$work/$key.${g%% *}${g##* }.json" >"$work/renamed.json"
      expect 0 "$bin" verify "$work/$name.loop.json" "$work/renamed.json"
    done
  done
  [[ $configs == 19 ]] || fail "expected 19 shared configurations, found $configs"
  echo "note: ${#scheduled_for[@]} distinct loops among the shared files, every generator verified"
else
  echo "note: shared kernels not found (${kernels:-no directory given}); their checks skipped"
fi

finish ttgir_test
