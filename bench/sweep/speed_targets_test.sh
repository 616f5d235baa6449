#!/usr/bin/env bash
# scripts/speed_targets.py on hand-made rows: the HLS median / p90 / max,
# the slowest small graph named, the best-cost ratio over the structured
# families only, the fitted slope (rows timed as ops^1.25 give 1.25), the
# sms / ims lines, a target whose rows are absent `not measured`, the
# default preset's time; a row that did not verify exits 1; a missing
# directory or a CSV without cpu_ns exits 2. Exit 77 (skipped) without
# /usr/bin/python3.
# usage: speed_targets_test.sh SPEED_TARGETS_PY
set -u
script=$1
[[ -x /usr/bin/python3 ]] || { echo "SKIP: no /usr/bin/python3"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
header='family,ops,seed,graph,graph_ops,generator,arm_policy,verified,reason,cpu_ns'

# HLS: first-success 0.05, 0.08, 0.2 ... 0.9, 30 ms over 10 loops; best-cost 2x.
{
  echo "$header"
  i=0
  for ms in 0.05 0.08 0.2 0.3 0.4 0.5 0.6 0.7 0.9 30; do
    i=$((i + 1))
    ns=$(/usr/bin/python3 -c "print(round($ms * 1e6))")
    echo "hatschet,0,0,loop$i.graphml,$((10 * i)),cost-based,first-success,1,,$ns"
    echo "hatschet,0,0,loop$i.graphml,$((10 * i)),cost-based,best-cost,1,,$((2 * ns))"
  done
} >"$work/hls.csv"
# Small: a structured family (ratio 2) and a random one (ratio 100, not counted).
{
  echo "$header"
  echo "gemm_mainloop,16,1,,15,cost-based,first-success,1,,1000000"
  echo "gemm_mainloop,16,1,,15,cost-based,best-cost,1,,2000000"
  echo "chains,32,2,,32,cost-based,first-success,1,,7000000"
  echo "chains,32,2,,32,cost-based,best-cost,1,,700000000"
} >"$work/small.csv"
# Layered: cpu = ops^1.25 us for first-success, ops^1.5 us for best-cost.
{
  echo "$header"
  for ops in 64 128 256 512 1024; do
    for seed in 1 2 3; do
      fs=$(/usr/bin/python3 -c "print(round($ops ** 1.25 * 1e3))")
      bc=$(/usr/bin/python3 -c "print(round($ops ** 1.5 * 1e3))")
      echo "random_layered,$ops,$seed,,$ops,cost-based,first-success,1,,$fs"
      echo "random_layered,$ops,$seed,,$ops,cost-based,best-cost,1,,$bc"
      echo "random_layered,$ops,$seed,,$ops,sms,,1,,$((ops * 50000))"
    done
  done
} >"$work/layered.csv"

/usr/bin/python3 "$script" "$work" --structured gemm_mainloop,fa3_forward --default-ms 150000 \
  >"$work/out" 2>&1
rc=$?
[[ $rc == 0 ]] || fail "exit $rc: $(cat "$work/out")"
want() { grep -qF -- "$1" "$work/out" || fail "no line '$1' in: $(cat "$work/out")"; }
want "HLS set (10 loops, cost-based):"
want "first-success median: 0.450 ms (target <= 0.1 ms) MISSED"
want "first-success p90: 0.900 ms (target <= 1 ms) holds"
want "first-success: max 30.000 ms, loop10.graphml (100 ops) (target <= 20 ms) MISSED"
want "best-cost: max 60.000 ms, loop10.graphml (100 ops) (target <= 60 ms) holds"
want "cost-based first-success: max 30.000 ms, loop10.graphml (100 ops) (target <= 500 ms) holds"
want "best-cost / first-success over the structured families: x2.00"
want "first-success slope of log time on log ops, 64-1024: 1.25 (target <= 1.5) holds"
want "best-cost slope of log time on log ops, 64-1024: 1.50 (target <= 2) holds"
want "sms at 1024 ops: max 51.200 ms, random_layered/1024/s1 (1024 ops) (target <= 100 ms) holds"
want "ims at 1024 ops: not measured"
want "whole sweep: 150 s (target about 180 s) holds"
grep -q "chains/32/s2 (32 ops) (target <= 5 ms) MISSED" "$work/out" ||
  fail "the slowest small graph is not named: $(cat "$work/out")"

# A row that did not verify: named, exit 1.
echo "chains,8,1,,8,cost-based,first-success,0,no legal schedule,100" >>"$work/small.csv"
/usr/bin/python3 "$script" "$work" >"$work/out" 2>&1
[[ $? == 1 ]] || fail "an unverified row: not exit 1"
want "NOT VERIFIED: chains/8/s1 (8 ops) cost-based first-success: no legal schedule"

# Bad input: exit 2.
/usr/bin/python3 "$script" "$work/nope" >"$work/out" 2>&1
[[ $? == 2 ]] || fail "a missing directory: not exit 2"
mkdir "$work/old"
printf 'family,ops,seed,graph,graph_ops,generator,arm_policy,verified,reason,time_ns\n' >"$work/old/hls.csv"
echo "x,8,1,,8,serial,,1,,5" >>"$work/old/hls.csv"
/usr/bin/python3 "$script" "$work/old" >"$work/out" 2>&1
[[ $? == 2 ]] || fail "a CSV without cpu_ns: not exit 2"
want "no cpu_ns column"

((failures == 0)) && echo "speed_targets_test: ok"
exit $((failures > 0))
