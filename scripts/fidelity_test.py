"""Tests of scripts/fidelity's pure parts (fidelity_model.py) on hand-made
configurations: groups by every configuration key, the one configuration
errors leave out, the fit, leave-one-kernel-out's split and the rule a
recommendation is judged by. Run by ctest (fidelity_script); no tool, no GPU.
usage: python3 scripts/fidelity_test.py"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fidelity_model as fm  # noqa: E402


def config(kernel, stages, ms, ws=None, ms_min=None, ms_max=None):
    c = {"STAGES": stages, "BM": 128, "BN": 128, "BK": 64, "W": 8}
    if ws is not None:
        c["WS"] = ws
    m = {"tag": f"{kernel}_S{stages}_WS{ws}", "kernel": kernel, "config": c, "ms": ms,
         "num_warps": 8, "ms_min": ms_min if ms_min is not None else ms,
         "ms_max": ms_max if ms_max is not None else ms}
    return {"tag": m["tag"], "kernel": kernel, "group": fm.group_key(m), "stages": stages, "m": m}


class Groups(unittest.TestCase):
    def test_every_key_but_num_stages_makes_a_group(self):
        a, b, c = config("mm", 2, 1.0, ws=0), config("mm", 3, 1.0, ws=0), config("mm", 2, 1.0, ws=1)
        self.assertEqual(a["group"], b["group"])
        self.assertNotEqual(a["group"], c["group"])
        self.assertEqual(fm.group_label(c["group"]), "mm (BK64 BM128 BN128 W8 WS1 num_warps8)")

    def test_shapes_of_the_shared_kernels(self):
        self.assertEqual(fm.kernel_shape(config("matmul", 3, 1.0)["m"]), (4096, 128))
        m = config("attention", 3, 1.0)["m"]
        m["config"].update({"BN": 64})
        self.assertEqual(fm.kernel_shape(m), (32 * 64, 64))


class Errors(unittest.TestCase):
    def setUp(self):
        self.rows = [config("mm", 1, 1.5), config("mm", 2, 1.2), config("mm", 3, 1.0)]

    def test_the_best_both_ways_is_left_out(self):
        rows = fm.ratios(self.rows, {"mm_S1_WSNone": 300, "mm_S2_WSNone": 200, "mm_S3_WSNone": 100})
        self.assertNotIn("predicted_ratio", self.rows[0])  # the input rows are left alone
        self.assertEqual([r["stages"] for r in rows], [1, 2, 3])
        errs = fm.errors(rows)
        self.assertEqual(len(errs), 2)
        self.assertAlmostEqual(errs[0], 3.0 / 1.5 - 1)

    def test_a_best_predicted_elsewhere_counts(self):
        # S=2 predicted best, S=3 measured best: neither is best both ways.
        rows = fm.ratios(self.rows, {"mm_S1_WSNone": 300, "mm_S2_WSNone": 90, "mm_S3_WSNone": 100})
        self.assertEqual(len(fm.errors(rows)), 3)

    def test_a_configuration_that_does_not_fit_is_an_error(self):
        rows = fm.ratios(self.rows, {"mm_S1_WSNone": 150, "mm_S2_WSNone": 120, "mm_S3_WSNone": 0})
        self.assertEqual(max(fm.errors(rows)), float("inf"))

    def test_the_fit_takes_the_least_largest_error(self):
        fits = {(1000, 40): {"mm_S1_WSNone": 150, "mm_S2_WSNone": 120, "mm_S3_WSNone": 100},
                (1500, 40): {"mm_S1_WSNone": 200, "mm_S2_WSNone": 120, "mm_S3_WSNone": 100}}
        self.assertEqual(fm.best_fit(self.rows, fits), (1000, 40))
        self.assertEqual(fm.summary([]), (0.0, 0.0))
        self.assertEqual(fm.summary([0.1, 0.3, 0.2]), (0.2, 0.3))


class Recommendation(unittest.TestCase):
    def test_within_three_percent_or_an_overlapping_spread(self):
        rows = [config("mm", 2, 1.10, ms_min=1.08, ms_max=1.2), config("mm", 3, 1.02),
                config("mm", 4, 1.0, ms_min=0.95, ms_max=1.09)]
        self.assertTrue(fm.recommendation_holds(rows, 3)[0])
        ok, how = fm.recommendation_holds(rows, 2)
        self.assertTrue(ok)
        self.assertIn("spread", how)
        rows[0]["m"]["ms_min"] = 1.095
        self.assertFalse(fm.recommendation_holds(rows, 2)[0])
        self.assertFalse(fm.recommendation_holds(rows, 5)[0])


if __name__ == "__main__":
    unittest.main()
