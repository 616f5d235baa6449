#!/usr/bin/env python3
"""A deliberately broken foreign scheduler: one misbehaviour per MODE.

usage: bad_scheduler.py MODE (< tilesched.request/1)
The protocol's tests (cli/foreign_test.sh) declare one scheduler per mode
and check that each gives its failure kind and that no other row is lost.
"""
import json
import os
import signal
import sys
import time

mode = sys.argv[1]
req = json.load(sys.stdin)
good = {"format": "tilesched.schedule/1", "graph": req["graph_name"], "ii": req["ii_max"],
        "ops": [{"id": op["id"], "start": 0} for op in req["ops"]]}
out = sys.stdout


def reply(doc):
    json.dump(doc, out)
    out.write("\n")


if mode == "empty":
    pass
elif mode == "not-json":
    out.write("II is 3, probably\n")
elif mode == "other-format":
    reply(req["graph"])  # a loop graph, not a schedule
elif mode == "op-count":
    good["ops"] = good["ops"][:-1]
    reply(good)
elif mode == "negative-start":
    good["ops"][0]["start"] = -4
    reply(good)
elif mode == "huge-start":
    good["ops"][0]["start"] = 2 ** 50
    reply(good)
elif mode == "ii-zero":
    good["ii"] = 0
    reply(good)
elif mode == "ii-above-cap":
    good["ii"] = req["ii_max"] + 1
    reply(good)
elif mode == "other-graph":
    good["graph"] = req["graph_name"] + "-other"
    reply(good)
elif mode == "other-graph-ops":
    good.pop("graph")
    good["ops"] = [{"id": "x%d" % i, "start": 0} for i in range(len(req["ops"]))]
    reply(good)
elif mode == "stdout-flood":  # 100 MB
    chunk = " " * (1 << 20)
    for _ in range(100):
        out.write(chunk)
elif mode == "hang":
    time.sleep(3600)
elif mode == "signal":
    out.flush()
    os.kill(os.getpid(), signal.SIGSEGV)
elif mode == "exit-3":
    sys.stderr.write("bad_scheduler: giving up on purpose\n")
    sys.exit(3)
elif mode == "stderr-flood":
    chunk = "x" * (1 << 16) + "\n"
    for _ in range(1600):  # 100 MB
        sys.stderr.write(chunk)
    reply(good)
elif mode == "partial":
    text = json.dumps(good)
    out.write(text[: len(text) // 2])
    out.flush()
    sys.exit(0)
elif mode == "illegal":
    good["ii"] = req["ii_min"]
    reply(good)  # every op at cycle 0: dependences broken
elif mode == "stage-cap":
    good["ops"][-1]["start"] = good["ii"] * (req["max_stages"] + 1)
    reply(good)
elif mode == "no-schedule":
    reply({"format": "tilesched.schedule/1", "graph": req["graph_name"], "feasible": False,
           "ii": 0, "ops": [], "diagnostics": ["bad_scheduler: nothing found"]})
else:
    sys.exit("bad_scheduler: unknown mode " + mode)
