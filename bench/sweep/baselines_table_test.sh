#!/usr/bin/env bash
# scripts/baselines_table's summarizer (--summarize) on hand-made rows: the
# share at the proven optimum, the mean II / optimum, the median time, a
# schedule that did not verify counted as a miss, an unproven optimum left
# out, the HLS rows as one family; --out writes the file; bad usage and a
# missing file exit 2. Exit 77 (skipped) without /usr/bin/python3.
# usage: baselines_table_test.sh BASELINES_TABLE
set -u
table=$1
[[ -x /usr/bin/python3 ]] || { echo "SKIP: no /usr/bin/python3"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# fam: graph (8,1) proven optimum 4; graph (16,1) optimum 10 unproven.
{
  echo '# tilesched.sweep/1'
  echo 'family,ops,seed,generator,arm_policy,verified,ii,time_ns,optimal_ii,proven'
  for g in "8,1:4:1" "16,1:10:0"; do
    key=${g%%:*}; rest=${g#*:}; opt=${rest%%:*}; pr=${rest#*:}
    echo "fam,$key,exact,,1,$opt,5000000,$opt,$pr"
  done
  echo 'fam,8,1,serial,,1,8,1000,4,1'
  echo 'fam,16,1,serial,,1,20,3000,10,0'
  echo 'fam,8,1,cost-based,first-success,1,4,200000,4,1'
  echo 'fam,16,1,cost-based,first-success,1,10,400000,10,0'
  echo 'fam,8,1,cost-based,best-cost,1,5,2000000,4,1'
  echo 'fam,16,1,cost-based,best-cost,1,10,4000000,10,0'
  echo 'fam,8,1,ims,,1,4,20000,4,1'
  echo 'fam,16,1,ims,,1,11,40000,10,0'
  echo 'fam,8,1,sms,,0,,30000,4,1'
  echo 'fam,16,1,sms,,1,12,50000,10,0'
} >"$work/sweep.csv"
{
  echo 'family,graph,generator,arm_policy,verified,ii,time_ns,proven'
  for i in a b; do
    echo "HLS,$i,exact,,1,3,1000000,1"
    echo "HLS,$i,serial,,1,6,2000,"
    echo "HLS,$i,cost-based,first-success,1,3,50000,"
    echo "HLS,$i,cost-based,best-cost,1,3,60000,"
    echo "HLS,$i,sms,,1,3,7000,"
  done
  echo "HLS,a,ims,,1,3,9000,"
  echo "HLS,b,ims,,1,4,11000,"
} >"$work/hls.csv"

"$table" --summarize "$work/sweep.csv" "$work/hls.csv" --out "$work/t.md" 2>"$work/err" ||
  fail "exited $?: $(cat "$work/err")"
want_fam='| fam | 2 | 1 | 0 % · 2.000 · 2.0 µs | 100 % · 1.000 · 300 µs | 0 % · 1.250 · 3.0 ms | 100 % · 1.000 · 30 µs | 0 % · – (1✗) · 40 µs | 100 % · 1.000 · 5.0 ms |'
want_hls='| HLS (2) | 2 | 2 | 0 % · 2.000 · 2.0 µs | 100 % · 1.000 · 50 µs | 100 % · 1.000 · 60 µs | 50 % · 1.167 · 10 µs | 100 % · 1.000 · 7.0 µs | 100 % · 1.000 · 1.0 ms |'
grep -qxF "$want_fam" "$work/t.md" || fail "family row: want $want_fam; got: $(grep '^| fam' "$work/t.md")"
grep -qxF "$want_hls" "$work/t.md" || fail "HLS row: want $want_hls; got: $(grep '^| HLS' "$work/t.md")"
grep -q '^| family | graphs | proven | serial | cost-based first-success | cost-based best-cost | ims | sms | exact |$' "$work/t.md" ||
  fail "no header row"

"$table" --summarize "$work/none.csv" >/dev/null 2>&1
[[ $? == 2 ]] || fail "a missing CSV did not exit 2"
"$table" --bogus >/dev/null 2>&1
[[ $? == 2 ]] || fail "an unknown option did not exit 2"
((failures == 0)) && echo "summarizer rows as expected"
exit $((failures > 0))
