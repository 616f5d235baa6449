#!/usr/bin/env python3
"""Tests of triton_schedule.py's parts that need no GPU: the split of a
backend's make_ttgir at tritongpu-pipeline (on a stand-in backend whose
pass modules record what reaches them), and the one-line refusals before
anything is compiled.

usage: triton_schedule_test.py
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import triton_schedule as ts  # noqa: E402

BACKEND = '''
def make_ttgir(mod, metadata, opt, capability):
    passes.ttir.add_convert_to_ttgpuir(mod, "cuda:90")
    passes.ttgpuir.add_coalesce(mod)
    nvidia.passes.hopper.add_hopper_warpspec(mod, 3)
    passes.ttgpuir.add_schedule_loops(mod)
    passes.ttgpuir.add_pipeline(mod, 3, False)
    passes.ttgpuir.add_prefetch(mod)
    info = nvidia.ClusterInfo()
    metadata["runs"] = metadata.get("runs", 0) + 1
    return mod
'''


def fake_backend(with_pipeline=True):
    """A module holding make_ttgir and the pass modules it reads; each
    real add_* appends its name to the list that stands for the pass
    manager (here, the module argument)."""
    def submodule(name, adds):
        m = types.ModuleType(name)
        for a in adds:
            setattr(m, "add_" + a, (lambda n: lambda pm, *args: pm.append(n))(a))
        return m
    passes = types.ModuleType("passes")
    passes.ttir = submodule("ttir", ["convert_to_ttgpuir"])
    passes.ttgpuir = submodule("ttgpuir", ["coalesce", "schedule_loops", "pipeline", "prefetch"])
    nvidia = types.ModuleType("nvidia")
    nvidia.passes = types.ModuleType("nvidia.passes")
    nvidia.passes.hopper = submodule("hopper", ["hopper_warpspec"])
    nvidia.ClusterInfo = dict
    ns = {"passes": passes, "nvidia": nvidia}
    source = BACKEND if with_pipeline else BACKEND.replace(
        "    passes.ttgpuir.add_pipeline(mod, 3, False)\n", "")
    exec(source, ns)
    return types.SimpleNamespace(make_ttgir=ns["make_ttgir"]), ns


class SplitAtPipeline(unittest.TestCase):
    def test_before_and_after(self):
        backend, ns = fake_backend()
        passes = ns["passes"]
        meta = {}
        before = ts.run_make_ttgir(backend, [], meta, None, 90, "before")
        self.assertEqual(before, ["convert_to_ttgpuir", "coalesce", "hopper_warpspec",
                                  "schedule_loops"])
        after = ts.run_make_ttgir(backend, [], meta, None, 90, "after")
        self.assertEqual(after, ["pipeline", "prefetch"])
        self.assertEqual(meta["runs"], 2)  # the backend's own code ran both times
        self.assertIs(ns["passes"], passes)  # its modules are put back

    def test_no_pipeline_pass_is_an_error(self):
        backend, ns = fake_backend(with_pipeline=False)
        with self.assertRaisesRegex(RuntimeError, "adds no tritongpu-pipeline pass"):
            ts.run_make_ttgir(backend, [], {}, None, 90, "before")
        self.assertIsInstance(ns["passes"], types.ModuleType)


class Hook(unittest.TestCase):
    def test_key_and_stage(self):
        a = ts.make_hook({"ops": [1]}, None, "a", {})
        b = ts.make_hook({"ops": [2]}, None, "b", {})
        key, digest = a()
        self.assertTrue(key.startswith("tilesched-"))
        self.assertNotEqual(a(), b())  # another export, another compiled kernel
        for call in (lambda h, st: h("backend", st, "options", "language", 90),
                     lambda h, st: h(self="backend", stages=st, options="o", language="l",
                                     capability=90)):
            stages = {"ttir": None, "ttgir": None}
            self.assertIsNone(call(a, stages))
            self.assertTrue(callable(stages["ttgir"]))
            self.assertIsNone(stages["ttir"])


class Refusals(unittest.TestCase):
    def run_script(self, *args):
        return subprocess.run([sys.executable, os.path.join(HERE, "triton_schedule.py"), *args],
                              capture_output=True, text=True)

    def test_an_export_of_another_kernel(self):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump({"format": "tilesched.triton/1",
                       "graph": "ttgir/matmul_STAGES3_BM128_BN128_BK64_W8.triton-scheduled/loop0",
                       "ops": []}, f)
        try:
            r = self.run_script("attention", "3", f.name)
        finally:
            os.unlink(f.name)
        self.assertEqual(r.returncode, 2)
        self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
        self.assertIn("not a tilesched.triton/1 export of attention at num_stages 3", r.stderr)

    def test_missing_gpu_stack_is_one_line(self):
        if importlib.util.find_spec("torch") and importlib.util.find_spec("triton"):
            self.skipTest("this Python has Triton and PyTorch")
        r = self.run_script("matmul", "3")
        self.assertEqual(r.returncode, 2)
        self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
        self.assertIn("needs Triton 3.6 and PyTorch", r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=1)
