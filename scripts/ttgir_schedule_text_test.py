#!/usr/bin/env python3
"""Tests of ttgir_schedule_text.py, the pure rewriting of Triton's schedule
attributes (no Triton, no GPU, no tilesched binary): every dump of the
given directories is read and rewritten with its own schedule unchanged and
with another one changing exactly the lines of the ops it moves; folded
ops are placed with their users; region ops keep their attributes on their
closing line; bad input is refused with one message.

usage: ttgir_schedule_text_test.py DIR...   (directories of *.ttgir dumps; absent ones skipped)
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ttgir_schedule_text as t  # noqa: E402

DIRS = []

SNIPPET = """module {
  tt.func @k(%a: f32) {
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %a, %y = %a) -> (f32, f32)  : i32 {
      %l = tt.load %p {loop.cluster = 1 : i32, loop.stage = 0 : i32} : f32 loc(#loc1)
      %s = tt.splat %l {loop.cluster = 1 : i32, loop.stage = 0 : i32} : f32 -> tensor<4xf32>
      %u = arith.addf %s, %s {loop.cluster = 1 : i32, loop.stage = 0 : i32} : tensor<4xf32>
      %m = "tt.reduce"(%u) <{axis = 0 : i32}> ({
      ^bb0(%e: f32 loc(callsite(#loc1 at #loc2)), %f: f32):
        %g = arith.addf %e, %f {loop.cluster = 7 : i32, loop.stage = 7 : i32} : f32
        tt.reduce.return %g : f32
      }) {loop.cluster = 1 : i32, loop.stage = 0 : i32} : (tensor<4xf32>) -> f32 loc(#loc3)
      %w = arith.mulf %s, %s {loop.cluster = 1 : i32, loop.stage = 0 : i32} : tensor<4xf32>
      %b = tt.bitcast %m {loop.cluster = 1 : i32, loop.stage = 0 : i32} : f32 -> f32
      scf.yield %b, %m : f32, f32
    } {tt.num_stages = 3 : i32, tt.scheduled_max_stage = 0 : i32} loc(#loc4)
    tt.return
  }
}"""

# Positions: 0 l, 1 s (folded), 2 u, 3 m (tt.reduce), 4 w, 5 b (folded, read by scf.yield only).
EXPORT = {"format": "tilesched.triton/1", "loop": 0, "max_stage": 2, "ops": [
    {"position": 0, "id": "l", "op": "tt.load", "stage": 0, "cluster": 3},
    {"position": 2, "id": "u", "op": "arith.addf", "stage": 2, "cluster": 0},
    {"position": 3, "id": "m", "op": "tt.reduce", "stage": 2, "cluster": 1},
    {"position": 4, "id": "w", "op": "arith.mulf", "stage": 1, "cluster": 2}]}


def dumps():
    files = []
    for d in DIRS:
        files += sorted(glob.glob(os.path.join(d, "*.ttgir")))
    return files


def own_export(text, loop):
    rows = t.read_schedule(text, loop)
    return {"format": "tilesched.triton/1", "loop": loop, "max_stage": 0,
            "ops": [{"position": p, "id": str(p), "op": n, "stage": s, "cluster": c}
                    for p, n, s, c in rows]}


class Snippet(unittest.TestCase):
    def test_places_ops_and_folded_ops(self):
        out = t.apply_schedule(SNIPPET, EXPORT)
        rows = t.read_schedule(out)
        self.assertEqual([(n, s, c) for _, n, s, c in rows], [
            ("tt.load", 0, 3),
            ("tt.splat", 1, 2),     # folded: the earliest of its users u (2, 0) and w (1, 2)
            ("arith.addf", 2, 0),
            ("tt.reduce", 2, 1),
            ("arith.mulf", 1, 2),
            ("tt.bitcast", 2, 1)])  # folded, read by scf.yield only: after m, what it reads
        self.assertIn("tt.scheduled_max_stage = 2 : i32", out)
        self.assertIn("tt.num_stages = 3 : i32", out)

    def test_region_op_attributes_on_its_closing_line(self):
        out = t.apply_schedule(SNIPPET, EXPORT).split("\n")
        src = SNIPPET.split("\n")
        changed = [i for i, (a, b) in enumerate(zip(src, out)) if a != b]
        closing = next(i for i, line in enumerate(src) if line.strip().startswith("})"))
        self.assertIn(closing, changed)
        # The op nested in the combine region is not the loop's: untouched.
        nested = next(i for i, line in enumerate(src) if "%g = arith.addf" in line)
        self.assertEqual(out[nested], src[nested])
        self.assertEqual(len(out), len(src))

    def test_reads_and_defines(self):
        lp = t.find_loops(SNIPPET.split("\n"))[0]
        ops = {op.name: op for op in lp.ops}
        self.assertEqual(ops["tt.reduce"].results, ["%m"])
        self.assertEqual(ops["tt.reduce"].reads, ["%u"])  # %e %f %g are its own
        self.assertEqual(ops["scf.yield"].reads, ["%b", "%m"])
        self.assertEqual(len(lp.ops), 7)

    def test_refusals(self):
        wrong = dict(EXPORT, ops=[dict(EXPORT["ops"][0], op="tt.store")])
        with self.assertRaisesRegex(t.TextError, "position 0 is 'tt.load' in the text"):
            t.apply_schedule(SNIPPET, wrong)
        far = dict(EXPORT, ops=[dict(EXPORT["ops"][0], position=9)])
        with self.assertRaisesRegex(t.TextError, "at position 9, but the loop body has 6 ops"):
            t.apply_schedule(SNIPPET, far)
        bare = SNIPPET.replace("{loop.cluster = 1 : i32, loop.stage = 0 : i32} : tensor<4xf32>\n"
                               "      %b", ": tensor<4xf32>\n      %b")
        with self.assertRaisesRegex(t.TextError, "'arith.mulf' carries no loop.stage"):
            t.apply_schedule(bare, EXPORT)
        unscheduled = re.sub(r"loop\.(cluster|stage) = \d+ : i32,? ?", "", SNIPPET)
        with self.assertRaisesRegex(t.UnscheduledText, "no op of the loop carries loop.stage .*"
                                    "the \\*.triton-scheduled.ttgir dump"):
            t.apply_schedule(unscheduled, EXPORT)
        with self.assertRaisesRegex(t.TextError, "no scf.for loop"):
            t.apply_schedule("module {\n}\n", EXPORT)
        with self.assertRaisesRegex(t.TextError, "not tilesched.triton/1"):
            t.apply_schedule(SNIPPET, {"ops": []})
        with self.assertRaisesRegex(t.TextError, "loop 4: the text has 1 loop"):
            t.apply_schedule(SNIPPET, dict(EXPORT, loop=4))
        first = EXPORT["ops"][0]
        twice = dict(EXPORT, ops=EXPORT["ops"] + [dict(first, stage=first["stage"] + 1)])
        with self.assertRaisesRegex(t.TextError, "position 0 .* is placed twice"):
            t.apply_schedule(SNIPPET, twice)

    def test_an_input_dump_names_the_file_wanted(self):
        """The command line on an *.input.ttgir file (no schedule on its ops)
        names the *.triton-scheduled.ttgir file beside it, in one line."""
        with tempfile.TemporaryDirectory() as d:
            k = os.path.join(d, "k_STAGES3.input.ttgir")
            e = os.path.join(d, "k.triton.json")
            with open(k, "w", encoding="utf-8") as f:
                f.write(re.sub(r"loop\.(cluster|stage) = \d+ : i32,? ?", "", SNIPPET))
            with open(e, "w", encoding="utf-8") as f:
                json.dump(EXPORT, f)
            r = subprocess.run([sys.executable, t.__file__, k, e], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
        self.assertIn("(here: " + k[:-len(".input.ttgir")] + ".triton-scheduled.ttgir)", r.stderr)


class SharedDumps(unittest.TestCase):
    def test_every_dump_reads_and_rewrites(self):
        files = dumps()
        if not files:
            self.skipTest(f"no dumps in {DIRS}")
        scheduled = 0
        for f in files:
            with open(f, encoding="utf-8") as fh:
                text = fh.read()
            lines = text.split("\n")
            loops = t.find_loops(lines)
            self.assertGreater(len(loops), 0, f)
            for lp in loops:
                self.assertGreater(len(lp.ops), 0, f)
                self.assertEqual(lp.ops[-1].name, "scf.yield", f)
            rows = t.read_schedule(text, 0)
            if rows[0][2] is None:
                continue  # an input dump, or num_stages 1: nothing to rewrite
            scheduled += 1
            # Its own schedule: the text unchanged.
            self.assertEqual(t.apply_schedule(text, own_export(text, 0)), text, f)
            # Every op one stage later and a cluster of its own: exactly the
            # lines holding the ops' attributes and the loop's close change.
            moved = own_export(text, 0)
            for e in moved["ops"]:
                e["stage"] += 1
                e["cluster"] = 100 + e["position"]
            out = t.apply_schedule(text, moved)
            back = t.read_schedule(out, 0)
            self.assertEqual([(p, n, s + 1, 100 + p) for p, n, s, _ in rows], back, f)
            lp = loops[0]
            expect = {op.attr_line for op in t._body(lp)} | {lp.close}
            changed = {i for i, (a, b) in enumerate(zip(lines, out.split("\n"))) if a != b}
            self.assertEqual(changed, expect, f)
        self.assertGreater(scheduled, 0)


FLAT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "generators", "testdata",
                    "ttgir", "flat", "matmul_tma_persistent_STAGES3_BM128_BN128_BK64_W8"
                    ".triton-scheduled.ttgir")


class ScfIfInTheBody(unittest.TestCase):
    """The flattened persistent matmul (generators/testdata/ttgir/flat/): the
    export names the ops inside its prologue and epilogue scf.if at the
    scf.if's position; the rewrite places the scf.if there."""

    def test_ops_inside_an_scf_if_are_placed_at_its_position(self):
        with open(FLAT, encoding="utf-8") as f:
            text = f.read()
        loop = t.scheduled_loop_index(text)
        self.assertEqual(loop, 1)
        rows = t.read_schedule(text, loop)
        ifs = {p: (s, c) for p, n, s, c in rows if n == "scf.if"}
        self.assertEqual(ifs, {4: (0, 2), 14: (2, 1)})
        # As the export writes it: one entry per graph op, those inside an
        # scf.if under its position (the epilogue's truncf, convert, store).
        own = own_export(text, loop)
        own["ops"] += [{"position": 14, "id": i, "op": n, "stage": 2, "cluster": 1}
                       for i, n in (("v18_2", "arith.truncf"), ("v19", "ttg.convert_layout"),
                                    ("st", "tt.descriptor_store"))]
        own["ops"] = [e for e in own["ops"] if e["op"] != "scf.if" or e["position"] != 14]
        self.assertEqual(t.apply_schedule(text, own), text)
        for e in own["ops"]:
            if e["position"] == 14:
                e["stage"], e["cluster"] = 1, 5
        out = t.read_schedule(t.apply_schedule(text, own), loop)
        self.assertEqual([r for r in out if r[0] == 14], [(14, "scf.if", 1, 5)])
        wrong = dict(own, ops=[dict(own["ops"][-1], op="tt.load")])
        with self.assertRaisesRegex(t.TextError, "position 14 is 'scf.if' in the text but 'tt.load'"):
            t.apply_schedule(text, wrong)


if __name__ == "__main__":
    DIRS[:] = [d for d in sys.argv[1:] if os.path.isdir(d)]
    unittest.main(argv=[sys.argv[0]], verbosity=1)
