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
# Tick labels are plain numbers, even for times of seconds (every time
# x10000: up to 10,000,000 us, once labelled 1e+07); SVG text is text.
awk -F, 'BEGIN{OFS=","} NR > 2 {$(NF-1) = $(NF-1) * 10000} {print}' "$fixture" >"$work/slow.csv"
"$py" "$plot" "$work/slow.csv" --out "$work/plots5" >"$work/out" 2>"$work/err" ||
  { echo "FAIL: plot.py on slow rows exited $?: $(cat "$work/err")"; failures=$((failures + 1)); }
grep -q '>1,000,000<\|>10,000,000<' "$work/plots5/time_vs_ops.svg" ||
  { echo "FAIL: time_vs_ops.svg: no plain tick label of a million"; failures=$((failures + 1)); }
grep -q 'e+0' "$work/plots5/time_vs_ops.svg" &&
  { echo "FAIL: time_vs_ops.svg: an exponent in a tick label"; failures=$((failures + 1)); }
# A sweep without serial rows: serial_vs_cost says so instead of empty axes.
awk -F, 'NR <= 2 || $6 != "serial"' "$fixture" >"$work/noserial.csv"
"$py" "$plot" "$work/noserial.csv" --out "$work/plots4" >"$work/out" 2>"$work/err" ||
  { echo "FAIL: plot.py without serial rows exited $?: $(cat "$work/err")"; failures=$((failures + 1)); }
grep -q 'no serial rows in this sweep' "$work/plots4/serial_vs_cost.svg" ||
  { echo "FAIL: serial_vs_cost.svg without serial rows does not say so"; failures=$((failures + 1)); }
printf 'fam,ops\nx,1\n' >"$work/plain.csv"
"$py" "$plot" "$work/plain.csv" --out "$work/p2" 2>"$work/err"
[[ $? == 2 ]] || { echo "FAIL: a plain CSV did not exit 2"; failures=$((failures + 1)); }
((failures == 0)) && echo "plots written: $(ls "$work/plots" | tr '\n' ' ')"
exit $((failures > 0))
