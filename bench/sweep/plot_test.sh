#!/usr/bin/env bash
# scripts/plot.py on the committed fixture: every plot is written as PNG and
# SVG; a file that is not a sweep CSV exits 2. Exit 77 (skipped) when
# /usr/bin/python3 lacks matplotlib or pandas.
# usage: plot_test.sh PLOT_PY FIXTURE_CSV
set -u
plot=$1 fixture=$2
py=/usr/bin/python3
[[ -x $py ]] && "$py" -c 'import matplotlib, pandas' 2>/dev/null ||
  { echo "SKIP: $py with matplotlib and pandas not available"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
"$py" "$plot" "$fixture" --out "$work/plots" >"$work/out" 2>"$work/err" ||
  { echo "FAIL: plot.py exited $?: $(cat "$work/err")"; exit 1; }
for name in ii_over_mii serial_vs_cost stage_count time_vs_ops optimality_gap over_optimum; do
  for ext in png svg; do
    [[ -s $work/plots/$name.$ext ]] || { echo "FAIL: no $name.$ext"; failures=$((failures + 1)); }
  done
done
# The version 3 layout (no version line: the header first) plots alike.
tail -n +2 "$fixture" >"$work/v3.csv"
"$py" "$plot" "$work/v3.csv" --out "$work/plots3" >"$work/out" 2>"$work/err" ||
  { echo "FAIL: plot.py on a version 3 file exited $?: $(cat "$work/err")"; failures=$((failures + 1)); }
[[ -s $work/plots3/time_vs_ops.png ]] || { echo "FAIL: version 3: no time_vs_ops.png"; failures=$((failures + 1)); }
printf 'fam,ops\nx,1\n' >"$work/plain.csv"
"$py" "$plot" "$work/plain.csv" --out "$work/p2" 2>"$work/err"
[[ $? == 2 ]] || { echo "FAIL: a plain CSV did not exit 2"; failures=$((failures + 1)); }
((failures == 0)) && echo "plots written: $(ls "$work/plots" | tr '\n' ' ')"
exit $((failures > 0))
