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
# serial_vs_cost: every series hollow and in a shape of its own, so a point
# two series share shows both (a filled marker hides the one drawn before
# it); each log axis with at least six labelled ticks.
"$py" - "$work/plots/serial_vs_cost.svg" <<'PY' || failures=$((failures + 1))
import re, sys
s = open(sys.argv[1]).read()
shapes = {}  # stroke colour -> the marker outlines drawn in it
def outline(d):
    """A marker's path relative to its first point (matplotlib writes a
    series' markers as <use>s of one path, or, when that is no shorter, each
    in place)."""
    v = [float(x) for x in re.findall(r"-?[0-9.]+", d)]
    return " ".join(f"{a - v[i % 2]:.1f}" for i, a in enumerate(v))
for chunk in s.split('<g id="PathCollection_')[1:]:
    chunk = chunk.split('<g id="', 1)[0]
    d = re.search(r'<path id="[^"]+" d="([^"]*)"', chunk)
    uses = re.findall(r'<use [^>]*style="([^"]*)"', chunk)
    if d and uses:
        marks = [(outline(d.group(1)), style) for style in uses]
    else:
        marks = [(outline(pd), style) for pd, style in
                 re.findall(r'<path d="([^"]*)"[^>]*style="([^"]*)"', chunk)]
    if not marks:
        continue
    if any("fill: none" not in style for _, style in marks):
        sys.exit("FAIL: serial_vs_cost.svg: a filled marker hides the series drawn before it")
    stroke = re.search(r"stroke: (#[0-9a-f]+)", marks[0][1]).group(1)
    shapes.setdefault(stroke, set()).update(o for o, _ in marks)
owners = {}
for stroke, outlines in shapes.items():
    for d in outlines:
        owners.setdefault(d, set()).add(stroke)
if len(shapes) < 2 or any(len(o) > 1 for o in owners.values()):
    sys.exit(f"FAIL: serial_vs_cost.svg: {len(shapes)} series, some sharing a marker shape")
for axis in ("xtick", "ytick"):
    labels = [t for chunk in s.split(f'<g id="{axis}_')[1:]
              for t in re.findall(r"<text[^>]*>([0-9][0-9,.]*)</text>", chunk)[:1]]
    if len(labels) < 6:
        sys.exit(f"FAIL: serial_vs_cost.svg: {axis}: only {labels} labelled")
PY
# Colours and markers: every series its own, a generator's the same in
# every run whatever else is plotted (cost-based-seed's fixed), no series
# black; time_vs_ops says what its slope is.
PLOT_DIR=$(dirname "$plot") "$py" - <<'PY' || failures=$((failures + 1))
import os, sys
sys.path.insert(0, os.environ["PLOT_DIR"])
import plot
gens = ["serial", "cost-based/first-success", "cost-based-seed/first-success", "ims", "sms", "exact"]
labels = gens + [f"{g} max_stages={s}" for g in gens for s in (1, 2, 3, 4)]
c, m = plot.colours_for(labels), plot.markers_for(labels)
assert len(set(c.values())) == len(labels), "two series share a colour"
assert not {"black", "#000000"} & set(c.values()), "a black series"
assert len(set(plot.markers_for(labels[:15]).values())) == 15, "two of 15 series share a marker"
for l in gens:
    alone = plot.colours_for([l])[l]
    assert alone == c[l] == plot.colours_for(gens[::-1])[l], f"{l}: its colour moves"
    assert plot.markers_for([l])[l] == m[l], f"{l}: its marker moves"
assert c["cost-based-seed/first-success"] == plot.COLOURS["cost-based-seed/first-success"]
other = plot.colours_for(["future-gen", "another-gen", "ims"])
assert other["future-gen"] == plot.colours_for(["future-gen"])["future-gen"], "a spare colour moves"
print("ok")
PY
grep -q 'slope k: the fitted exponent of time ~ ops^k' "$work/plots/time_vs_ops.svg" ||
  { echo "FAIL: time_vs_ops.svg: the slope is not explained"; failures=$((failures + 1)); }
# An sms row past LLVM's stage bound (805 stages, as on origami/e_detect) is
# drawn apart, not averaged into sms's line.
awk -F, 'BEGIN{OFS=","} {print} NR > 2 && $6 == "cost-based" && $7 == "first-success" && !done {
  $6 = "sms"; $7 = ""; $15 = 805; print; done = 1 }' "$fixture" >"$work/deep.csv"
"$py" "$plot" "$work/deep.csv" --out "$work/pdeep" >"$work/out" 2>"$work/err" ||
  { echo "FAIL: plot.py with a deep sms row exited $?: $(cat "$work/err")"; failures=$((failures + 1)); }
grep -q "sms over LLVM's stage bound" "$work/pdeep/stage_count.svg" ||
  { echo "FAIL: stage_count.svg: the sms row past LLVM's bound is not drawn apart"; failures=$((failures + 1)); }
grep -q "over LLVM" "$work/plots/stage_count.svg" &&
  { echo "FAIL: stage_count.svg: a panel for rows past LLVM's bound without any"; failures=$((failures + 1)); }
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
# A version 5 file with two stage caps and the oracle (testdata/capped.csv).
capped=$(dirname "$fixture")/capped.csv
"$py" "$plot" "$capped" --out "$work/pc" >"$work/out" 2>"$work/err" ||
  { echo "FAIL: plot.py on capped.csv exited $?: $(cat "$work/err")"; failures=$((failures + 1)); }
# Capped rows are series of their own, never pooled with the uncapped ones.
for name in ii_over_mii over_optimum stage_count; do
  grep -q '>exact max_stages=1<\|>cost-based/first-success max_stages=1' "$work/pc/$name.svg" ||
    { echo "FAIL: $name.svg: no series for the capped rows"; failures=$((failures + 1)); }
done
# Speed is the generator's CPU time (cpu_ns); the box plots say what their
# marks are (the mean's triangle included).
grep -q 'generator CPU time (µs, cpu_ns)' "$work/pc/time_vs_ops.svg" ||
  { echo "FAIL: time_vs_ops.svg: the time axis is not cpu_ns"; failures=$((failures + 1)); }
for name in ii_over_mii optimality_gap; do
  grep -q '>triangle: mean<' "$work/pc/$name.svg" && grep -q '>line: median<' "$work/pc/$name.svg" ||
    { echo "FAIL: $name.svg: the box plot's marks are not explained"; failures=$((failures + 1)); }
done
# Every legend lies right of its axes, over no data.
"$py" - "$work/pc" "$work/plots" <<'PY' || failures=$((failures + 1))
import glob, re, sys
def xs(chunk):
    d = re.search(r'<path d="([^"]*)"', chunk).group(1)
    return [float(v) for v in re.findall(r"[ML] ([-0-9.]+) ", d)]
checked = 0
for d in sys.argv[1:]:
    for f in sorted(glob.glob(d + "/*.svg")):
        s = open(f).read()
        if '<g id="legend_1">' not in s:
            continue
        axes_right = max(xs(s.split('<g id="axes_1">', 1)[1]))
        legend_left = min(xs(s.split('<g id="legend_1">', 1)[1]))
        if legend_left < axes_right:
            sys.exit(f"FAIL: {f}: the legend (x {legend_left}) starts inside the axes (right edge {axes_right})")
        checked += 1
if checked < 8:
    sys.exit(f"FAIL: only {checked} plots with a legend")
PY
# An exact row of another file fills optimal_ii only under its own stage cap.
"$py" - "$(dirname "$plot")" "$capped" "$work" <<'PY' || failures=$((failures + 1))
import sys
sys.path.insert(0, sys.argv[1])
import pandas as pd
import plot
df = plot.read_sweep(sys.argv[2], pd)
exact = df[df["generator"] == "exact"]
others = df[df["generator"] != "exact"].copy()
others["optimal_ii"] = float("nan")
others["proven"] = ""
filled = plot.fill_optimal_across(pd.concat([others, exact], ignore_index=True), pd)
want = {(r.family, r.ops, r.seed, str(r.max_stages)): r.ii for r in exact.itertuples()}
for r in filled.itertuples():
    if r.optimal_ii != want[r.family, r.ops, r.seed, str(r.max_stages)]:
        sys.exit(f"FAIL: fill_optimal_across: {r.family} {r.ops} {r.seed} {r.generator} "
                 f"max_stages {r.max_stages}: optimal_ii {r.optimal_ii}")
PY
# The same rows in two files are counted once.
"$py" "$plot" "$capped" "$capped" --out "$work/pc2" >"$work/out" 2>"$work/err" ||
  { echo "FAIL: plot.py on the same file twice exited $?: $(cat "$work/err")"; failures=$((failures + 1)); }
title() { grep -o 'II over MII per generator ([0-9]* verified rows)' "$1/ii_over_mii.svg"; }
[[ -n $(title "$work/pc") && $(title "$work/pc2") == "$(title "$work/pc")" ]] ||
  { echo "FAIL: the same file twice: '$(title "$work/pc2")', once: '$(title "$work/pc")'"; failures=$((failures + 1)); }
grep -q '48 row(s) of .* repeat a row key of an earlier file: counted once' "$work/err" ||
  { echo "FAIL: no note on the repeated rows: $(cat "$work/err")"; failures=$((failures + 1)); }
# A torn file and a key twice in one file are refused as compare refuses them.
head -c -3 "$capped" >"$work/torn.csv"
"$py" "$plot" "$work/torn.csv" --out "$work/pt" >"$work/out" 2>"$work/err"
[[ $? == 2 ]] && grep -q 'torn.csv: line 49: torn last line' "$work/err" && [[ ! -e $work/pt ]] ||
  { echo "FAIL: a torn file: $(cat "$work/err")"; failures=$((failures + 1)); }
{ cat "$capped"; sed -n 2p "$capped"; } >"$work/dup.csv"
"$py" "$plot" "$work/dup.csv" --out "$work/pd" >"$work/out" 2>"$work/err"
[[ $? == 2 ]] && grep -q 'dup.csv: line 50: duplicate row key gemm_mainloop|8|1|serial|' "$work/err" ||
  { echo "FAIL: a duplicate key: $(cat "$work/err")"; failures=$((failures + 1)); }
printf 'fam,ops\nx,1\n' >"$work/plain.csv"
"$py" "$plot" "$work/plain.csv" --out "$work/p2" 2>"$work/err"
[[ $? == 2 ]] || { echo "FAIL: a plain CSV did not exit 2"; failures=$((failures + 1)); }
((failures == 0)) && echo "plots written: $(ls "$work/plots" | tr '\n' ' ')"
exit $((failures > 0))
