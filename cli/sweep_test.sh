#!/usr/bin/env bash
# End-to-end checks of `tilesched sweep`, `compare` and `replay`
# (docs/SWEEP.md): rows identical (timing columns aside) whatever --jobs or
# shard split, resume after kill -9 loses and duplicates nothing, compare
# passes identical files and catches an injected II regression, replay
# reproduces a row, bad input exits 2 with one line and leaves no file.
# usage: sweep_test.sh TILESCHED
set -u
bin=$1
# shellcheck source=cli/test_lib.sh
source "$(dirname "$0")/test_lib.sh"

# The rows without the timing columns (time_ns, wall_ns: the last two, plain
# integers, so cutting at the last two commas is exact).
rows() { tail -n +3 "$1" | sed -E 's/,[^,]*,[^,]*$//'; }
same_rows() { cmp -s <(rows "$1") <(rows "$2") || fail "$3: rows differ: $(diff <(rows "$1") <(rows "$2") | head -5)"; }

small=(--families random_layered,chains --ops 8,16 --seeds 1-3 --generators serial,cost-based
       --arm-policy first-success,best-cost)

# --help and usage errors: exit 2, one line, no output file.
expect 0 "$bin" sweep --help
grep -q -- "--resume" "$work/out" || fail "sweep --help does not list --resume"
expect 0 "$bin" compare --help
expect 0 "$bin" replay --help
mkdir "$work/empty"
bad_args=("--families nope" "--generators serial,greedy" "--ops 5-1" "--ops 0" "--ops x"
          "--seeds 1-" "--shard 3/2" "--shard 1" "--arm-policy worst" "--jobs 0"
          "--preset huge" "--ops 16-1024x1")
for args in "${bad_args[@]}"; do
  # shellcheck disable=SC2086
  expect 2 "$bin" sweep $args --out "$work/empty/bad.csv"
  [[ $(wc -l <"$work/err") == 1 ]] || fail "sweep $args: not one line: $(cat "$work/err")"
  grep -q '^tilesched sweep: ' "$work/err" || fail "sweep $args: message: $(cat "$work/err")"
done
expect 2 "$bin" sweep --families all
expect 2 "$bin" sweep --preset quick --out "$work/empty"  # a directory
expect 2 "$bin" sweep --preset quick --out "$work/empty/no/such/dir.csv"
[[ -z $(ls -A "$work/empty") ]] || fail "bad sweeps left files: $(ls -A "$work/empty")"

# --jobs 1 and --jobs 2 give the same rows, sorted in work-list order.
expect 0 "$bin" sweep "${small[@]}" --jobs 1 --out "$work/j1.csv"
expect 0 "$bin" sweep "${small[@]}" --jobs 2 --out "$work/j2.csv"
same_rows "$work/j1.csv" "$work/j2.csv" "--jobs 1 vs --jobs 2"
[[ $(tail -n +3 "$work/j1.csv" | wc -l) == 36 ]] || fail "expected 36 rows (12 graphs x 3)"
head -1 "$work/j1.csv" | grep -qx '# tilesched.sweep/2' || fail "no version line"
[[ -s $work/j1.csv.json ]] || fail "no context file"
for field in engine_git_sha compiler build_type host cpus date command; do
  grep -q "\"$field\"" "$work/j1.csv.json" || fail "context file lacks $field"
done
[[ ! -e $work/j1.csv.partial ]] || fail "journal left behind"
[[ -z $(cut -d, -f22 "$work/j1.csv" | tail -n +3 | grep -v '^$') ]] || fail "unexpected reasons"

# The shards' union is the full sweep; shards are disjoint.
for k in 1 2 3; do
  expect 0 "$bin" sweep "${small[@]}" --shard "$k/3" --jobs 2 --out "$work/s$k.csv"
done
cmp -s <(for k in 1 2 3; do rows "$work/s$k.csv"; done | sort) <(rows "$work/j1.csv" | sort) ||
  fail "shard union differs from the full sweep"
[[ -z $(for k in 1 2 3; do rows "$work/s$k.csv"; done | sort | uniq -d) ]] || fail "shards overlap"

# Resume after kill -9: start, kill mid-way, add a torn half row as a write
# cut short would, resume; the result equals an uninterrupted run.
slow=(--families random_layered,sparse_recurrent --ops 64 --seeds 1-10 --generators serial,cost-based
      --arm-policy best-cost)
expect 0 "$bin" sweep "${slow[@]}" --jobs 1 --out "$work/ref.csv"
"$bin" sweep "${slow[@]}" --jobs 1 --out "$work/res.csv" 2>/dev/null &
pid=$!
for _ in $(seq 1 400); do
  [[ -f $work/res.csv.partial ]] && (( $(wc -l <"$work/res.csv.partial") >= 6 )) && break
  sleep 0.02
done
if kill -9 "$pid" 2>/dev/null; then
  wait "$pid" 2>/dev/null
  done_rows=$(($(wc -l <"$work/res.csv.partial") - 2))
  echo "resume: killed after $done_rows of 40 rows"
  (( done_rows < 40 )) || fail "resume: the sweep finished before it was killed"
  [[ ! -e $work/res.csv ]] || fail "resume: result file exists before the sweep finished"
  printf 'random_layered,64,9,1,0123' >>"$work/res.csv.partial"  # a torn last line
  expect 0 "$bin" sweep "${slow[@]}" --jobs 2 --resume --out "$work/res.csv"
  grep -q 'dropped a partial last line' "$work/err" || fail "resume: torn line not reported"
  grep -q "($done_rows kept" "$work/err" || fail "resume: expected $done_rows kept rows: $(cat "$work/err")"
  same_rows "$work/ref.csv" "$work/res.csv" "resume after kill"
  [[ -z $(rows "$work/res.csv" | cut -d, -f1,2,4,6,7 | sort | uniq -d) ]] || fail "resume: duplicates"
  [[ ! -e $work/res.csv.partial ]] || fail "resume: journal left behind"
else
  wait "$pid"
  fail "resume: the sweep ended before the test could kill it"
fi
# Resuming a finished sweep keeps every row and recomputes nothing.
expect 0 "$bin" sweep "${slow[@]}" --resume --out "$work/res.csv"
grep -q '(40 kept' "$work/err" || fail "resume of a finished sweep: $(cat "$work/err")"
same_rows "$work/ref.csv" "$work/res.csv" "resume of a finished sweep"
# A journal of other parameters is refused (exit 2), and left alone.
cp "$work/ref.csv" "$work/other.csv.partial"
echo '{}' >"$work/other.csv.partial.json"
expect 2 "$bin" sweep "${small[@]}" --resume --out "$work/other.csv"
[[ -e $work/other.csv.partial && ! -e $work/other.csv ]] || fail "refused resume touched files"

# compare: identical files pass, an injected II regression fails.
expect 0 "$bin" compare "$work/j1.csv" "$work/j2.csv"
grep -q 'result: ok' "$work/out" || fail "compare: no ok line"
grep -q 'cost-based/best-cost' "$work/out" || fail "compare: no per-generator table"
awk -F, 'BEGIN{OFS=","} NR==5{$9=$9+1} {print}' "$work/j1.csv" >"$work/worse.csv"
expect 1 "$bin" compare "$work/j1.csv" "$work/worse.csv"
grep -q 'REGRESSION: .*: II ' "$work/out" || fail "compare: regression not named"
expect 0 "$bin" compare "$work/worse.csv" "$work/j1.csv"  # an improvement is not a regression
awk -F, 'BEGIN{OFS=","} NR==5{$5="ffffffffffffffff"} {print}' "$work/j1.csv" >"$work/changed.csv"
expect 1 "$bin" compare "$work/j1.csv" "$work/changed.csv"
expect 0 "$bin" compare "$work/j1.csv" "$work/changed.csv" --allow-graph-changes
# Timing only fails when asked to: every time x10.
awk -F, 'BEGIN{OFS=","} NR>2{$(NF-1)=$(NF-1)*10} {print}' "$work/j1.csv" >"$work/slow.csv"
expect 0 "$bin" compare "$work/j1.csv" "$work/slow.csv"
expect 1 "$bin" compare "$work/j1.csv" "$work/slow.csv" --time-fail-ratio 3 --time-floor-us 0
# Malformed input: exit 2, one line naming the file.
printf 'family,ops\nx,1\n' >"$work/plain.csv"
expect 2 "$bin" compare "$work/j1.csv" "$work/plain.csv"
grep -q 'plain.csv' "$work/err" || fail "compare: malformed file not named"
[[ $(wc -l <"$work/err") == 1 ]] || fail "compare: not one line: $(cat "$work/err")"
awk -F, 'BEGIN{OFS=","} NR==4{$9="x"} {print}' "$work/j1.csv" >"$work/badii.csv"
expect 2 "$bin" compare "$work/j1.csv" "$work/badii.csv"
grep -q 'badii.csv: line 4: ii' "$work/err" || fail "compare: bad field: $(cat "$work/err")"
expect 2 "$bin" compare "$work/j1.csv" "$work/nope.csv"

# replay: a row reproduces its II; a tampered row does not.
expect 0 "$bin" replay "$work/j1.csv" --row 5 -o "$work/replay.json" --graph-out "$work/g.json"
grep -q 'reproduced' "$work/err" || fail "replay: $(cat "$work/err")"
ii=$(awk -F, 'NR==7{print $9}' "$work/j1.csv")
grep -Eq "\"ii\": ?$ii," "$work/replay.json" || fail "replay: II $ii not in the schedule"
expect 0 "$bin" verify "$work/g.json" "$work/replay.json"
expect 0 "$bin" replay "$work/j1.csv" --key chains,16,2,cost-based,best-cost
expect 0 "$bin" replay "$work/j1.csv" --key random_layered,8,1,serial
expect 1 "$bin" replay "$work/worse.csv" --row 3
expect 2 "$bin" replay "$work/j1.csv" --row 999
expect 2 "$bin" replay "$work/j1.csv" --key nope,8,1,serial
expect 2 "$bin" replay "$work/j1.csv"

# exact: its row is verified and fills optimal_ii and proven on every row
# of its graph.
expect 0 "$bin" sweep --families random_layered --ops 8 --seeds 1-2 --generators serial,exact \
  --out "$work/exact.csv"
col() { sed -n 2p "$work/exact.csv" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1; }
[[ -n $(col optimal_ii) && -n $(col proven) ]] || fail "exact: no optimal_ii/proven columns"
awk -F, -v o="$(col optimal_ii)" -v p="$(col proven)" -v v="$(col verified)" \
  'NR > 2 && ($o == "" || $p != 1 || $v != 1) { bad = 1 } END { exit bad }' "$work/exact.csv" ||
  fail "exact: rows without a proven optimum: $(tail -n +3 "$work/exact.csv")"

finish "sweep end-to-end"
