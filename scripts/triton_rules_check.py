#!/usr/bin/env python3
"""Triton's rules as graph constraints, end to end through the command
line (docs/TTGIR.md, "Triton's rules as constraints"): every generator's
schedule (serial, cost-based with both arm policies, cost-based-seed, ims,
sms, exact with a 0.5 s limit, auto), uncapped and at every cap from 1 to
the graph's stage bound, of every shared Triton configuration (KERNELS_DIR;
without it, the scheduled dumps of TESTDATA_DIR) and of every loop of the
test shapes (TESTDATA_DIR/shapes):

  - imported with the rules (the default), exports with
    `tilesched export --to triton` (0 refusals), and the export rewritten
    into the dump (scripts/ttgir_schedule_text.py) re-imports with its stage
    and cluster on every op (each distinct export once; the shapes carry no
    loop.stage for the rewriter, so theirs stop at the export);
  - imported with --no-triton-rules, the export refuses exactly the
    schedules EXPECTED lists, for the same reason (the oracle's lines too:
    under its time limit they may differ from run to run).

With --write-expected it writes EXPECTED instead, from the rules-off half
only; a TILESCHED from before the rules (no --no-triton-rules) imports
without them: that is how generators/testdata/ttgir/
export_refusals_without_rules.tsv was made. --table=FILE writes one row per
schedule (loop, generator, cap, rules, II, stages, outcome): the figures of
results/records/2026-11-28-triton-rules.md. The same checks run in ctest,
in process and faster, as generators_tests' TritonRules/EveryScheduleExports
(without the rewrite, which cli_candidates covers).

About 5 CPU-minutes for each half on the 19 shared configurations.

usage: triton_rules_check.py TILESCHED SCRIPTS_DIR TESTDATA_DIR EXPECTED [KERNELS_DIR]
       [--write-expected]   (EXPECTED written from this run's refusals, rules off only)
       [--table=FILE]       (a row per schedule: loop, generator, cap, rules, II, stages, outcome)
       [--rules-only]       (the rules-on half only)
       triton_rules_check.py --compare BEFORE.tsv AFTER.tsv [shared]
                            (per generator: exports, refusals and II rises of two --table files)
Exit status 0 when every check holds, 1 when one does not, 2 on bad usage.
"""
import concurrent.futures
import glob
import json
import os
import subprocess
import sys
import tempfile

GENERATORS = (
    ("serial", []), ("cost-based", []), ("cost-based", ["--arm-policy", "best-cost"]),
    ("cost-based-seed", []), ("ims", []), ("sms", []), ("exact", ["--time-limit", "0.5"]),
    ("auto", []))
REASONS = (("a buffer must be read in the stage that writes it", "buffer"),
           ("refuses an op scheduled before its operands", "order"),
           ("places a whole op in one stage", "whole-op"))


def run(args):
    r = subprocess.run(args, capture_output=True, text=True)
    return r.returncode, r.stderr.strip()


def label(gen, opts):
    return gen + ("+best-cost" if "best-cost" in opts else "")


def inputs(testdata, kernels):
    """(name, path, loop) of every configuration and shape loop."""
    out = []
    configs = sorted(glob.glob(os.path.join(kernels or "", "*.triton-scheduled.ttgir")))
    if not configs:
        print(f"note: no shared kernels at {kernels!r}; the committed scheduled dumps instead")
        configs = sorted(glob.glob(os.path.join(testdata, "*.triton-scheduled.ttgir")))
    out += [(os.path.basename(p).split(".")[0], p, 0) for p in configs]
    for p in sorted(glob.glob(os.path.join(testdata, "shapes", "*.ttgir"))):
        out += [(os.path.basename(p)[:-6] + f"/loop{n}", p, n) for n in shape_loops(p)]
    return out


def shape_loops(path):
    rc, _ = run([TOOL, "import", "--from", "ttgir", path, "--list", "-o", LIST])
    with open(LIST) as f:
        rows = [line.split("\t") for line in f.read().splitlines()[1:]]
    return [int(r[0]) for r in rows if rc == 0 and r[7] == "innermost"]


def stage_bound(graph_path):
    with open(graph_path) as f:
        depths = [o["max_depth"] for o in json.load(f)["ops"] if "max_depth" in o]
    return max(depths) + 1 if depths else 8


def one(job):
    """Schedules and exports one (input, rules, generator, cap): where, the
    outcome (("exported", placements), ("refused", reason)) or None, and a
    failure or None."""
    name, path, loop, rules, gen, opts, cap, graph, work = job
    sched, export = os.path.join(work, "s.json"), os.path.join(work, "e.json")
    cmd = [TOOL, "schedule", graph, "-q", "-g", gen, *opts, "-o", sched]
    rc, err = run(cmd + (["--max-stages", str(cap)] if cap else []))
    where = f"{name} {label(gen, opts)} cap={cap or '-'}"
    if rc != 0:
        return where, None, f"schedule exit {rc}: {err}"
    with open(sched) as f:
        s = json.load(f)
    shape = (s["ii"], s["stage_count"])
    rc, err = run([TOOL, "export", graph, sched, "--to", "triton", "-o", export])
    if rc == 2:
        why = [short for text, short in REASONS if text in err]
        if os.path.exists(export):
            return where, None, "refused but wrote its output"
        return where, ("refused", why[0] if why else err, *shape), None
    if rc != 0:
        return where, None, f"export exit {rc}: {err}"
    with open(export) as f:
        e = json.load(f)
    first = min(o["start"] for o in s["ops"]) // s["ii"]
    stages = {o["id"]: o["start"] // s["ii"] - first for o in s["ops"]}
    if {o["id"]: o["stage"] for o in e["ops"]} != stages:
        return where, None, "the export's stages are not the schedule's"
    return where, ("exported", json.dumps(e["ops"], sort_keys=True), *shape), None


def reimport(path, loop, export_ops, work):
    """The export rewritten into the dump and imported again: None when
    every op comes back with its stage and cluster, else a failure."""
    sys.path.insert(0, SCRIPTS)
    import ttgir_schedule_text as text
    export = {"format": "tilesched.triton/1", "loop": loop, "max_stage": 0, "ops": export_ops}
    with open(path, encoding="utf-8") as f:
        source = f.read()
    if not text._STAGE.search(source):
        return None  # num_stages 1: Triton scheduled nothing, there is no loop.stage to rewrite
    rewritten = text.apply_schedule(source, export)
    out, back = os.path.join(work, "r.ttgir"), os.path.join(work, "r.loop.json")
    with open(out, "w", encoding="utf-8") as f:
        f.write(rewritten)
    rc, err = run([TOOL, "import", "--from", "ttgir", "--strict", "-q", out, "--loop", str(loop),
                   "-o", back])
    if rc != 0:
        return f"re-import exit {rc}: {err}"
    with open(back) as f:
        got = {o["id"]: (o.get("triton_stage"), o.get("triton_cluster")) for o in json.load(f)["ops"]}
    want = {o["id"]: (o["stage"], o["cluster"]) for o in export_ops}
    bad = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))
    return f"re-imported stage or cluster differs on {bad[:5]}" if bad else None


def knows_rules():
    """Whether TOOL has --no-triton-rules (a binary from before the rules
    imports without them)."""
    r = subprocess.run([TOOL, "import", "--help"], capture_output=True, text=True)
    return "--no-triton-rules" in r.stdout + r.stderr


def schedule_all(testdata, kernels, tmp, modes, failures):
    """Every job of every input in `modes` (rules on: True, off: False),
    run two at a time: {(rules, where): (path, loop, outcome)}."""
    jobs = []
    off_flag = ["--no-triton-rules"] if knows_rules() else []
    for n, (name, path, loop) in enumerate(inputs(testdata, kernels)):
        for rules in modes:
            d = os.path.join(tmp, f"{n}.{int(rules)}")
            os.makedirs(d)
            graph = os.path.join(d, "g.loop.json")
            rc, err = run([TOOL, "import", "--from", "ttgir", "-q", path, "--loop", str(loop),
                           *([] if rules else off_flag), "-o", graph])
            if rc != 0:
                failures.append(f"{name}: import exit {rc}: {err}")
                continue
            for k, (gen, opts) in enumerate(GENERATORS):
                for cap in range(stage_bound(graph) + 1):
                    w = os.path.join(d, f"{k}.{cap}")
                    os.makedirs(w)
                    jobs.append((name, path, loop, rules, gen, opts, cap, graph, w))
    out = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for (where, outcome, failure), job in zip(pool.map(one, jobs), jobs):
            if failure:
                failures.append(f"{where}{'' if job[3] else ' (rules off)'}: {failure}")
            else:
                out[job[3], where] = (job[1], job[2], job[8], outcome)
    return out


def compare_tables(before, after, loops):
    """Per generator, from two --table files (rules off, rules on): the
    schedules exported and refused in each, and of the schedules both made
    for LOOPS (a loop name prefix, e.g. the shared configurations'), how
    many rose in II with the rules and by how much, uncapped and capped."""
    def read(path):
        with open(path) as f:
            rows = [line.split("\t") for line in f.read().splitlines()[1:]]
        return {(r[0], r[1], r[2]): r for r in rows if loops != "shared" or "/" not in r[0]}
    b, a = read(before), read(after)
    print("generator\tbefore exported/refused\tafter exported/refused\t"
          "uncapped: II up (sum of rises, largest)\tcapped: II up (sum, largest)")
    for gen in sorted({k[1] for k in b}, key=lambda g: [x for x, _ in GENERATORS_LABELS].index(g)):
        def count(t):
            rows = [r for k, r in t.items() if k[1] == gen]
            return f"{sum(r[6] == 'exported' for r in rows)}/{sum(r[6] != 'exported' for r in rows)}"
        cells = []
        for capped in (False, True):
            rises = [int(a[k][4]) - int(b[k][4]) for k in b
                     if k[1] == gen and k in a and (k[2] != "cap=-") == capped]
            up = [d for d in rises if d > 0]
            cells.append(f"{len(up)} of {len(rises)} (+{sum(up)}, {max(up, default=0)})"
                         + (f"; {sum(d < 0 for d in rises)} lower" if any(d < 0 for d in rises)
                            else ""))
        print(f"{gen}\t{count(b)}\t{count(a)}\t{cells[0]}\t{cells[1]}")


GENERATORS_LABELS = [(label(g, o), None) for g, o in GENERATORS]


def main(argv):
    global TOOL, SCRIPTS, LIST
    if argv[:1] == ["--compare"] and len(argv) in (3, 4):
        compare_tables(argv[1], argv[2], argv[3] if len(argv) == 4 else "")
        return 0
    write = "--write-expected" in argv
    table = next((a.split("=", 1)[1] for a in argv if a.startswith("--table=")), None)
    rules_only = "--rules-only" in argv
    argv = [a for a in argv if a not in ("--write-expected", "--rules-only")
            and not a.startswith("--table=")]
    if len(argv) not in (4, 5):
        print("usage: " + __doc__.split("usage: ")[1], file=sys.stderr)
        return 2
    TOOL, SCRIPTS, testdata, expected = argv[:4]
    kernels = argv[4] if len(argv) == 5 and os.path.isdir(argv[4]) else None
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        LIST = os.path.join(tmp, "list.tsv")
        modes = (False,) if write else (True,) if rules_only else (True, False)
        results = schedule_all(testdata, kernels, tmp, modes, failures)
        exported, refused, seen = 0, 0, set()
        for (rules, where), (path, loop, work, (status, detail, *_)) in sorted(results.items()):
            if not rules:
                continue
            if status != "exported":
                failures.append(f"{where}: the rules are on, but the export refuses it: {detail}")
                refused += 1
                continue
            exported += 1
            name = where.split(" ")[0]
            if "/" in name or (name, detail) in seen:
                continue  # a shape (no loop.stage to rewrite), or an export checked already
            seen.add((name, detail))
            if (failure := reimport(path, loop, json.loads(detail), work)):
                failures.append(f"{where}: {failure}")
    off = sorted(f"{where}\t{o[1]}" for (rules, where), (*_, o) in results.items()
                 if not rules and o[0] == "refused")
    if table:
        with open(table, "w") as f:
            f.write("loop\tgenerator\tcap\trules\tii\tstages\toutcome\n")
            for (rules, where), (*_, o) in sorted(results.items()):
                f.write("\t".join([*where.split(" "), "on" if rules else "off", str(o[2]),
                                   str(o[3]), o[0] if o[0] == "exported" else "refused:" + o[1]])
                        + "\n")
    names = {where.split(" ")[0] for _, where in results}
    print(f"rules on: {exported} schedules exported, {refused} refused, {len(seen)} distinct "
          f"exports rewritten and re-imported; rules off: {len(off)} refused, of "
          f"{sum(1 for rules, _ in results if not rules)} schedules of {len(names)} loops")
    if write:
        with open(expected, "w") as f:
            f.write(f"# written by scripts/triton_rules_check.py --write-expected with {TOOL}\n")
            f.write("".join(line + "\n" for line in off))
        return 0
    if not rules_only:
        compare_expected(expected, results, off, failures)
    for f in failures:
        print("FAIL: " + f)
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    print("triton_rules_check: all checks passed")
    return 0


def compare_expected(expected, results, off, failures):
    """Every refusal of the rules-off half against EXPECTED's lines for the
    schedules this run made."""
    with open(expected) as f:
        want = {line for line in f.read().splitlines() if line and not line.startswith("#")}
    ran = {where for rules, where in results if not rules}
    want = {line for line in want if line.split("\t")[0] in ran}
    for line in sorted(want ^ set(off)):
        failures.append(("refused before the rules, exported with them off: " if line in want
                         else "refused with the rules off, not before: ") + line)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
