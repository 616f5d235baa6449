#!/usr/bin/env python3
"""Tests of the GPU campaign's logic on the CPU (triton_campaign.py run,
campaign_runner.py, campaign_worker.py, campaign_stats.py), with a fake
bench in place of Triton and PyTorch: the control row first, then the
candidates in rank order; each row written the moment it is measured;
a failure (an exception, a crash, a hang, a wrong result) is a row and the
run goes on; the budget stops the run cleanly; timing alternates in pairs;
the Spearman correlation, the spread and the verdict; a kernel of one's
own (--problem).

usage: triton_campaign_test.py
"""
import csv
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import campaign_stats as stats  # noqa: E402

CAMPAIGN = os.path.join(HERE, "triton_campaign.py")
FAKE = os.path.abspath(__file__) + ":FakeBench"


class FakeBench:
    """Times are the exports' "fake_ms"; "fake_do" makes a compile raise,
    crash the process, hang, sleep or compute a wrong result. Every sample
    is logged to $FAKE_LOG as its label."""

    def env(self):
        return {"device": "fake", "triton": "3.6-fake", "torch": "fake"}

    def problem(self, kernel, stages, spec):
        if spec:
            sys.path.insert(0, HERE)
            from campaign_worker import load_object
            return load_object(spec)(None, None, stages)
        return types.SimpleNamespace(name=kernel, flops=2e9)

    def compile(self, problem, export):
        label, ms, do = "own", 1.0, ""
        if export == {}:
            label = "control"
        elif export:
            label, ms, do = export["source"], export.get("fake_ms", 1.0), export.get("fake_do", "")
        if do == "raise":
            raise RuntimeError("PassManager::run failed\nsecond line")
        if do == "crash":
            os._exit(134)
        if do == "hang":
            time.sleep(3600)
        if do.startswith("sleep"):
            time.sleep(float(do[5:]))
        return types.SimpleNamespace(run=(label, ms), abs_err=0.5 if do == "wrong" else 0.0,
                                     rel_err=0.5 if do == "wrong" else 0.0, shared_bytes=1024,
                                     n_regs=128, n_spills=0, ops_moved=3)

    def sample(self, run):
        label, ms = run
        with open(os.environ["FAKE_LOG"], "a") as f:
            f.write(label + "\n")
        return ms


class NoTorch:
    """A bench on a machine without PyTorch: it cannot be made."""

    def __init__(self):
        raise ModuleNotFoundError("No module named 'torch'")


def make_list(directory, cands):
    """A candidate list as `tilesched candidates` writes it; cands are
    (source, found_by, sm_cycles, fake fields or None when refused)."""
    os.makedirs(directory, exist_ok=True)
    kernel, _, s = os.path.basename(directory).rpartition("_S")
    graph = f"ttgir/{kernel}_STAGES{s}_fake.triton-scheduled/loop0"
    rows = []
    for rank, (source, found_by, cycles, fake) in enumerate(cands, 1):
        name = None
        if fake is not None:
            name = f"{rank:02d}.{source}.json"
            with open(os.path.join(directory, name), "w") as f:
                json.dump({"format": "tilesched.triton/1", "graph": graph,
                           "source": source, "max_stage": 1, "ops": [], **fake}, f)
        rows.append({"rank": rank, "file": name, "source": source, "found_by": found_by,
                     "ii": 10, "stages": 2, "ops_per_stage": "1/1", "sm_cycles": cycles,
                     "cta_cycles": cycles, "smem_bytes": 1000 * rank, "ctas_per_sm": 1,
                     "bound": "latency", "refused": None if fake is not None else "a rule"})
    with open(os.path.join(directory, "candidates.json"), "w") as f:
        json.dump({"format": "tilesched.candidates/1", "graph": graph,
                   "candidates": rows}, f)


class Run(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        self.env = dict(os.environ, FAKE_LOG=os.path.join(self.root, "samples.log"))

    def tearDown(self):
        self.tmp.cleanup()

    def cmd(self, *extra, out="out"):
        return [sys.executable, CAMPAIGN, "run", "--out-dir", os.path.join(self.root, out),
                "--candidates", os.path.join(self.root, "cands"), "--bench", FAKE,
                "--campaigns", "1", "--order", "rank", *extra]

    def rows(self, out="out"):
        with open(os.path.join(self.root, out, "campaign.csv"), newline="") as f:
            return list(csv.DictReader(f))

    def run_ok(self, *extra, out="out", timeout=60):
        r = subprocess.run(self.cmd(*extra, out=out), capture_output=True, text=True,
                           env=self.env, timeout=timeout)
        self.assertEqual(r.returncode, 0, r.stderr)
        return self.rows(out)

    def test_control_first_then_ranked_candidates_each_a_row(self):
        make_list(os.path.join(self.root, "cands", "matmul_S3"), [
            ("triton", ["triton", "sms/cap3"], 100.0, {"fake_ms": 1.0}),
            ("cost-based-cap2", ["cost-based/cap2"], 110.0, {"fake_ms": 1.2}),
            ("ims-cap4", ["ims/cap4"], 120.0, None),
            ("serial-cap1", ["serial/cap1"], 150.0, {"fake_ms": 1.5})])
        rows = self.run_ok()
        self.assertEqual([r["kind"] for r in rows], ["control"] + ["candidate"] * 4)
        self.assertEqual([r["rank"] for r in rows], ["", "1", "2", "3", "4"])
        self.assertEqual(rows[0]["source"], "triton-via-hook")
        self.assertEqual(rows[0]["predicted_cycles"], "100.0")
        self.assertEqual(rows[2]["predicted_rel"], "1.1000")
        self.assertEqual(rows[2]["rel_to_triton"], "1.2000")
        self.assertEqual(rows[3]["status"], "refused: a rule")
        self.assertEqual(rows[4]["samples"], "20")
        self.assertEqual({r["device"] for r in rows}, {"fake"})
        with open(self.env["FAKE_LOG"]) as f:
            log = f.read().split()
        # 4 timed rows x 20 rounds x 2; pairs alternate which goes first
        self.assertEqual(len(log), 160)
        self.assertEqual(log[:4], ["control", "own", "own", "control"])
        with open(os.path.join(self.root, "out", "summary.md")) as f:
            self.assertIn("| matmul | 1 | 3 | 0 | 0 | 1.00 (3) |", f.read())

    def test_a_failure_is_a_row_and_the_run_goes_on(self):
        make_list(os.path.join(self.root, "cands", "matmul_S2"), [
            ("raises", ["ims/cap2"], 100.0, {"fake_do": "raise"}),
            ("crashes", ["sms/cap2"], 101.0, {"fake_do": "crash"}),
            ("hangs", ["serial/cap2"], 102.0, {"fake_do": "hang"}),
            ("wrong", ["exact/cap2"], 103.0, {"fake_do": "wrong"}),
            ("fine", ["cost-based/cap2"], 104.0, {"fake_ms": 0.9})])
        make_list(os.path.join(self.root, "cands", "attention_S2"), [
            ("fine", ["cost-based/cap2"], 100.0, {"fake_ms": 1.1})])
        rows = self.run_ok("--item-timeout", "3")
        status = {(r["kernel"], r["source"]): r["status"] for r in rows}
        self.assertEqual(status[("matmul", "raises")],
                         "compile-failed: RuntimeError: PassManager::run failed second line")
        self.assertTrue(status[("matmul", "crashes")].startswith("worker-died (exit 134)"))
        self.assertEqual(status[("matmul", "hangs")], "timed-out after 3.0 s")
        self.assertEqual(status[("matmul", "wrong")], "wrong-result")
        self.assertEqual(status[("matmul", "fine")], "ok")
        self.assertEqual(status[("attention", "fine")], "ok")
        self.assertEqual(status[("attention", "triton-via-hook")], "ok")
        wrong = next(r for r in rows if r["source"] == "wrong")
        self.assertEqual((wrong["ms"], wrong["max_rel_err"]), ("", "0.5"))

    def test_rows_are_on_disk_as_soon_as_measured(self):
        make_list(os.path.join(self.root, "cands", "matmul_S3"), [
            ("first", ["ims/cap3"], 100.0, {"fake_ms": 1.0}),
            ("hangs", ["sms/cap3"], 101.0, {"fake_do": "hang"})])
        proc = subprocess.Popen(self.cmd("--item-timeout", "600"), env=self.env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        try:
            path = os.path.join(self.root, "out", "campaign.csv")
            for _ in range(300):
                if os.path.exists(path) and len(self.rows()) >= 2:
                    break
                time.sleep(0.1)
            self.assertIsNone(proc.poll())  # still inside the hanging row
            rows = self.rows()
        finally:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        self.assertEqual([(r["source"], r["status"]) for r in rows],
                         [("triton-via-hook", "ok"), ("first", "ok")])

    def test_the_budget_stops_the_run_cleanly(self):
        for s in (2, 3):
            make_list(os.path.join(self.root, "cands", f"matmul_S{s}"), [
                (f"slow{k}", [f"ims/cap{k}"], 100.0 + k, {"fake_do": "sleep1"}) for k in range(6)])
        t0 = time.time()
        rows = self.run_ok("--budget", "4")
        took = time.time() - t0
        self.assertLess(took, 12)
        self.assertEqual(len(rows), 14)  # a row for every item of the plan
        by_cfg = {s: [r["status"] for r in rows if r["num_stages"] == s] for s in ("2", "3")}
        for s, statuses in by_cfg.items():
            self.assertEqual(statuses[0], "ok", s)  # each configuration got its control
            self.assertIn("not-run: budget", statuses)
            self.assertLess(statuses.count("ok"), 7)

    def test_two_campaigns_retime_what_the_first_measured(self):
        make_list(os.path.join(self.root, "cands", "matmul_S3"), [
            ("a", ["ims/cap3"], 100.0, {"fake_ms": 1.0}),
            ("b", ["sms/cap3"], 101.0, {"fake_do": "wrong"})])
        r = subprocess.run(self.cmd()[:-2] + ["--campaigns", "2"], capture_output=True,
                           text=True, env=self.env, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = self.rows()
        self.assertEqual([(x["campaign"], x["source"]) for x in rows],
                         [("1", "triton-via-hook"), ("1", "a"), ("1", "b"),
                          ("2", "triton-via-hook"), ("2", "a")])
        self.assertIn("(campaigns)", r.stdout)

    def test_a_kernel_of_ones_own(self):
        make_list(os.path.join(self.root, "mine"), [("cost-based-cap2", ["cost-based/cap2"],
                                                     90.0, {"fake_ms": 0.5})])
        problem = os.path.join(self.root, "my_problem.py")
        with open(problem, "w") as f:
            f.write("import types\n"
                    "def make(torch, triton, stages):\n"
                    "    return types.SimpleNamespace(flops=1e9, stages=stages)\n")
        r = subprocess.run([sys.executable, CAMPAIGN, "run", "--out-dir",
                            os.path.join(self.root, "out"), "--bench", FAKE, "--campaigns", "1",
                            "--problem", problem + ":make", "--kernel", "mykernel",
                            "--candidates", os.path.join(self.root, "mine"), "--stages", "3"],
                           capture_output=True, text=True, env=self.env, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = self.rows()
        self.assertEqual([(x["kernel"], x["num_stages"], x["status"]) for x in rows],
                         [("mykernel", "3", "ok"), ("mykernel", "3", "ok")])
        self.assertEqual(rows[1]["tflops"], "2.0")

    def test_a_list_of_another_configuration_is_refused(self):
        where = os.path.join(self.root, "cands", "matmul_S3")
        make_list(where, [("a", ["ims/cap3"], 100.0, {"fake_ms": 1.0})])
        with open(os.path.join(where, "candidates.json")) as f:
            doc = json.load(f)
        doc["graph"] = doc["graph"].replace("STAGES3", "STAGES2")
        with open(os.path.join(where, "candidates.json"), "w") as f:
            json.dump(doc, f)
        r = subprocess.run(self.cmd(), capture_output=True, text=True, env=self.env, timeout=60)
        self.assertEqual(r.returncode, 2)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertIn("is not the configuration's (/matmul_STAGES3_)", r.stderr)

    def test_spread_order_spans_the_ranks_first(self):
        import campaign_runner
        self.assertEqual(campaign_runner.spread_order(0), [])
        self.assertEqual(campaign_runner.spread_order(1), [0])
        self.assertEqual(campaign_runner.spread_order(5), [0, 4, 2, 1, 3])
        self.assertEqual(sorted(campaign_runner.spread_order(12)), list(range(12)))
        make_list(os.path.join(self.root, "cands", "matmul_S3"), [
            (f"c{k}", [f"ims/cap{k}"], 100.0 + k, {"fake_ms": 1.0}) for k in range(5)])
        rows = self.run_ok("--order", "spread")  # the last --order counts
        self.assertEqual([r["rank"] for r in rows], ["", "1", "5", "3", "2", "4"])

    def test_a_worker_that_cannot_start_leaves_no_file(self):
        make_list(os.path.join(self.root, "cands", "matmul_S3"),
                  [("triton", ["triton"], 100, {"fake_ms": 1.0})])
        r = subprocess.run([*self.cmd(), "--bench", os.path.abspath(__file__) + ":NoTorch"],
                           capture_output=True, text=True, env=self.env, timeout=60)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertIn("No module named 'torch'", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.root, "out")),
                         os.listdir(os.path.join(self.root, "out"))
                         if os.path.exists(os.path.join(self.root, "out")) else "")

    def test_bad_input_is_one_line(self):
        for args in (["run"], ["run", "--out-dir", self.root, "--candidates", self.root],
                     ["run", "--out-dir", self.root, "--rounds", "5"],
                     ["summary", os.path.join(self.root, "nothing.csv")]):
            r = subprocess.run([sys.executable, CAMPAIGN, *args], capture_output=True, text=True)
            self.assertEqual(r.returncode, 2, args)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)


class CommittedLists(unittest.TestCase):
    """The candidate lists the GPU command runs (results/triton/candidates)."""

    def test_every_configuration_plans_its_control_first_then_its_ranked_exports(self):
        import campaign_runner
        import triton_campaign
        args = triton_campaign.parse_args(["run", "--out-dir", "unused"])
        configs = triton_campaign.plan_configs(args)
        self.assertEqual(len(configs), 11)  # 4 kernels at S = 2..4 with a scheduled dump
        plan = campaign_runner.build_plan(configs)
        for c, (kernel, s, where, _) in enumerate(configs):
            items = [it for it in plan["items"] if it["config"] == c]
            self.assertEqual(items[0]["kind"], "control", where)
            ranks = [it["rank"] for it in items[1:]]
            self.assertEqual(ranks, list(range(1, len(ranks) + 1)), where)
            cycles = [it["predicted_cycles"] for it in items[1:] if it["predicted_cycles"]]
            self.assertEqual(cycles, sorted(cycles), where)
            self.assertTrue(any(it["found_by"].split(",")[0] == "triton" for it in items[1:]))
            for it in items[1:]:
                if it["export"]:
                    with open(it["export"]) as f:
                        e = json.load(f)
                    self.assertIn(f"/{kernel}_STAGES{s}_", e["graph"])
                    self.assertEqual(e["source"], it["source"])
                else:
                    self.assertTrue(it["refused"], it)


def row(kernel, s, source, ms, rel, campaign="1", kind="candidate", cycles=None,
        found_by=None, status="ok"):
    return {"campaign": campaign, "kernel": kernel, "num_stages": str(s), "kind": kind,
            "source": source, "found_by": found_by or source, "status": status,
            "ms": str(ms), "rel_to_triton": str(rel),
            "predicted_cycles": "" if cycles is None else str(cycles)}


class Stats(unittest.TestCase):
    def test_spearman(self):
        # Wikipedia's worked example (IQ against hours of TV): rho = -29/165
        iq = [106, 100, 86, 101, 99, 103, 97, 113, 112, 110]
        tv = [7, 27, 2, 50, 28, 29, 20, 12, 6, 17]
        self.assertAlmostEqual(stats.spearman(iq, tv), -29 / 165, places=12)
        self.assertAlmostEqual(stats.spearman([1, 2, 3, 4], [10, 20, 30, 40]), 1.0)
        self.assertAlmostEqual(stats.spearman([1, 2, 3, 4], [4, 3, 2, 1]), -1.0)
        self.assertEqual(stats.ranks([3, 1, 3, 2]), [3.5, 1.0, 3.5, 2.0])
        self.assertAlmostEqual(stats.spearman([1, 2, 2, 3], [1, 3, 2, 4]), 0.9486832980505138)
        self.assertIsNone(stats.spearman([1, 2], [2, 1]))
        self.assertIsNone(stats.spearman([1, 1, 1], [1, 2, 3]))

    def test_beats_only_beyond_the_spread(self):
        rows = [row("m", 3, "triton-via-hook", 1.0, 1.00, "1", "control", 100),
                row("m", 3, "triton-via-hook", 1.0, 1.01, "2", "control", 100),
                row("m", 3, "triton", 1.0, 1.0, "1", cycles=100, found_by="triton,sms/cap3"),
                row("m", 3, "triton", 1.0, 1.0, "2", cycles=100, found_by="triton,sms/cap3"),
                row("m", 3, "ims/cap3", 0.95, 0.95, "1", cycles=90),
                row("m", 3, "ims/cap3", 0.96, 0.96, "2", cycles=90),
                row("m", 3, "sms/cap2", 1.3, 1.3, "1", cycles=130),
                row("m", 3, "sms/cap2", 1.2, 1.2, "2", cycles=130),
                row("m", 3, "bad", "", "", "1", status="wrong-result")]
        (k,) = stats.summarize(rows)
        self.assertEqual((k["candidates"], k["wrong"], k["pairs"]), (3, 1, 3))
        self.assertAlmostEqual(k["rho"], 1.0)
        self.assertAlmostEqual(k["spread"], 0.1)  # sms/cap2: 1.3 against 1.2
        self.assertEqual(k["best"], ("ims/cap3 at S=3", 0.96))
        self.assertFalse(k["beats"])  # 0.96 is not below 1 - 0.1
        rows = [r for r in rows if r["source"] != "sms/cap2"]
        (k,) = stats.summarize(rows)
        self.assertAlmostEqual(k["spread"], 0.01)
        self.assertTrue(k["beats"])  # 0.96 < 0.99
        self.assertIn("| m | 1 | 2 | 1 | 0 | — (2) | 0.010 (campaigns) | 0.960 (ims/cap3 at "
                      "S=3) | yes |", stats.markdown([k]))

    def test_one_campaign_takes_the_control_as_its_spread(self):
        rows = [row("m", 3, "triton-via-hook", 1.0, 1.02, kind="control", cycles=100),
                row("m", 3, "ims/cap3", 0.97, 0.97, cycles=90)]
        (k,) = stats.summarize(rows)
        self.assertEqual((k["spread_from"], k["beats"]), ("control", True))
        self.assertAlmostEqual(k["spread"], 0.02)


if __name__ == "__main__":
    unittest.main(verbosity=1)
