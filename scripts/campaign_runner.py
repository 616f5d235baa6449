"""The parent side of a GPU campaign (scripts/triton_campaign.py run): the
plan from the candidate lists, the workers (campaign_worker.py) it starts
and restarts, and the CSV it writes, one row per item appended and flushed
the moment it is known, so that a run cut off anywhere keeps its rows.

Per configuration the plan holds the control first (Triton's own schedule
through the stages hook, the text unchanged, timed against Triton's own
without it), then the candidates in their predicted rank. A worker that
dies or stays silent past --item-timeout inside an item gives that item a
row of its own (worker-died / timed-out) and the next worker starts after
it; items the budget leaves out get a row "not-run: budget". With
--campaigns 2 a second worker pass re-times every item the first measured
ok (compiles come from Triton's cache), so the rows carry the spread of two
campaigns. Standard library only.
"""
import csv
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FIELDS = ["campaign", "kernel", "num_stages", "item", "kind", "rank", "source", "found_by",
          "export", "predicted_cycles", "predicted_rel", "predicted_smem", "status", "ms",
          "ms_min", "ms_max", "samples", "triton_ms", "rel_to_triton", "tflops",
          "shared_bytes", "n_regs", "n_spills", "max_abs_err", "max_rel_err", "ops_moved",
          "seconds", "device", "triton", "torch"]
GRACE_S = 20  # past the deadline before a worker is killed


class PlanError(Exception):
    """Bad input: one line."""


def _manifest_items(config, directory, tag):
    """The control and the candidates of a list; `tag` (None for a kernel
    of one's own) must be in its graph's name."""
    with open(os.path.join(directory, "candidates.json"), encoding="utf-8") as f:
        doc = json.load(f)
    if doc.get("format") != "tilesched.candidates/1":
        raise PlanError(f"{directory}/candidates.json: not tilesched.candidates/1")
    if tag and tag not in doc.get("graph", ""):
        raise PlanError(f"{directory}/candidates.json: graph {doc.get('graph')!r} is not "
                        f"the configuration's ({tag})")
    cands = doc["candidates"]
    own = next((c for c in cands if "triton" in c["found_by"]), None)
    own_cycles = own["sm_cycles"] if own else None
    items = [{"config": config, "kind": "control", "rank": "", "source": "triton-via-hook",
              "found_by": "triton", "export": None,
              "predicted_cycles": own_cycles, "predicted_smem": own["smem_bytes"] if own else None}]
    for c in cands:
        items.append({"config": config, "kind": "candidate", "rank": c["rank"],
                      "source": c["source"], "found_by": ",".join(c["found_by"]),
                      "export": os.path.join(directory, c["file"]) if c["file"] else None,
                      "refused": c["refused"], "predicted_cycles": c["sm_cycles"],
                      "predicted_smem": c["smem_bytes"]})
    for it in items:
        p = it["predicted_cycles"]
        it["predicted_rel"] = f"{p / own_cycles:.4f}" if p and own_cycles else ""
    return items


def _loose_items(config, exports):
    """Exports without a manifest (triton_campaign.py prepare's): unranked, unpriced."""
    items = [{"config": config, "kind": "control", "rank": "", "source": "triton-via-hook",
              "found_by": "triton", "export": None}]
    for path in exports:
        with open(path, encoding="utf-8") as f:
            source = json.load(f).get("source", "export")
        items.append({"config": config, "kind": "candidate", "rank": "", "source": source,
                      "found_by": source, "export": path})
    return items


def spread_order(n):
    """0..n-1 as the first, the last, then the middles of the gaps left,
    widest first: a cut-off run still covers the whole predicted range."""
    out = [0] + ([n - 1] if n > 1 else []) if n else []
    gaps = [(0, n - 1)]
    while gaps:
        lo, hi = gaps.pop(0)
        if hi - lo >= 2:
            mid = (lo + hi) // 2
            out.append(mid)
            gaps += [(lo, mid), (mid, hi)]
    return out


def build_plan(configs, order="rank"):
    """configs: [(kernel, stages, directory or [export paths], problem spec or None)];
    order: the candidates by rank, or "spread" (spread_order of the ranks)."""
    plan = {"configs": [], "items": []}
    for kernel, stages, where, problem in configs:
        index = len(plan["configs"])
        plan["configs"].append({"kernel": kernel, "stages": stages, "problem": problem})
        if isinstance(where, str):
            if not os.path.exists(os.path.join(where, "candidates.json")):
                raise PlanError(f"{where}: no candidates.json (tilesched candidates GRAPH -o {where})")
            tag = None if problem else f"/{kernel}_STAGES{stages}_"
            items = _manifest_items(index, where, tag)
            if order == "spread":
                items = items[:1] + [items[1 + k] for k in spread_order(len(items) - 1)]
            plan["items"] += items
        else:
            plan["items"] += _loose_items(index, where)
    if not plan["configs"]:
        raise PlanError("no configuration to run")
    for i, item in enumerate(plan["items"]):
        item["id"] = i
    return plan


class RowWriter:
    """Appends rows to the CSV (a header when the file is new), flushed and
    synced one by one."""

    def __init__(self, path):
        new = not os.path.exists(path) or os.path.getsize(path) == 0
        self._f = open(path, "a", newline="", encoding="utf-8")
        self._w = csv.DictWriter(self._f, fieldnames=FIELDS, extrasaction="ignore")
        if new:
            self._w.writeheader()
        self.rows = []

    def write(self, row):
        self._w.writerow(row)
        self._f.flush()
        os.fsync(self._f.fileno())
        self.rows.append(row)

    def close(self):
        self._f.close()


def _reader(stream, q):
    for line in stream:
        q.put(line)
    q.put(None)


def _tail(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = [ln.strip() for ln in f.read().splitlines() if ln.strip()]
    except OSError:
        return ""
    return lines[-1][:300] if lines else ""


class Campaign:
    """One pass of workers over a plan, writing its rows."""

    def __init__(self, plan, args, writer, campaign, deadline):
        self.plan, self.args, self.writer = plan, args, writer
        self.campaign, self.deadline = str(campaign), deadline
        self.env = {}
        self.done = set()
        self.log = os.path.join(args.out_dir, "worker.log")
        self.plan_path = os.path.join(args.out_dir, f"plan-{campaign}.json")
        with open(self.plan_path, "w", encoding="utf-8") as f:
            json.dump(plan, f, indent=1)

    def row(self, i, fields):
        item = self.plan["items"][i]
        cfg = self.plan["configs"][item["config"]]
        row = {"campaign": self.campaign, "kernel": cfg["kernel"], "num_stages": cfg["stages"],
               "item": item["id"], **{k: item.get(k) for k in ("kind", "rank", "source", "found_by")},
               "export": os.path.basename(item["export"]) if item.get("export") else "",
               "predicted_cycles": item.get("predicted_cycles") or "",
               "predicted_rel": item.get("predicted_rel", ""),
               "predicted_smem": item.get("predicted_smem") or "", **self.env, **fields}
        self.writer.write(row)
        self.done.add(i)

    def run(self):
        start = 0
        while start < len(self.plan["items"]):
            if time.time() >= self.deadline:
                break
            start = self._one_worker(start)
        for i in range(len(self.plan["items"])):
            if i not in self.done:
                self.row(i, {"status": "not-run: budget"})

    def _one_worker(self, start):
        """Runs a worker from item `start`; the item to restart at."""
        a = self.args
        cmd = [sys.executable, os.path.join(HERE, "campaign_worker.py"), self.plan_path,
               "--start", str(start), "--deadline", str(self.deadline), "--campaign",
               self.campaign, "--bench", a.bench, "--rounds", str(a.rounds),
               "--tolerance", str(a.tolerance)]
        with open(self.log, "a", encoding="utf-8") as log:
            log.write(f"+ {' '.join(cmd)}\n")
            log.flush()
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log, text=True,
                                    start_new_session=True)
        q = queue.Queue()
        threading.Thread(target=_reader, args=(proc.stdout, q), daemon=True).start()
        current, last = None, time.time()
        while True:
            limit = min(last + a.item_timeout, self.deadline + GRACE_S) - time.time()
            try:
                line = q.get(timeout=max(limit, 0.01))
            except queue.Empty:
                why = ("timed-out: past the budget" if time.time() >= self.deadline + GRACE_S
                       else f"timed-out after {a.item_timeout} s")
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                if "budget" in why and current is None:
                    return len(self.plan["items"])
                if current is None:  # silent before its first item
                    current, why = start, why + " (the worker did not start)"
                self.row(current, {"status": why})
                return current + 1
            if line is None:
                break
            last = time.time()
            current = self._event(json.loads(line), current)
        rc = proc.wait()
        if current is not None:  # died inside an item
            self.row(current, {"status": f"worker-died (exit {rc}): {_tail(self.log)}"})
            return current + 1
        return len(self.plan["items"])

    def _event(self, ev, current):
        kind = ev.get("event")
        if kind == "fatal":
            raise PlanError("the worker cannot start: " + (ev.get("why") or _tail(self.log)))
        if kind == "env":
            self.env = {k: ev["env"].get(k, "") for k in ("device", "triton", "torch")}
        elif kind == "begin":
            return ev["item"]
        elif kind == "row":
            self.row(ev["item"], ev["row"])
            return None
        elif kind == "skip":
            self.row(ev["item"], {"status": "not-run: " + ev.get("why", "budget")})
        return current


def retime_plan(plan, rows):
    """The items the first campaign measured ok, in the same order."""
    ok = {int(r["item"]) for r in rows if r["status"] == "ok"}
    return {"configs": plan["configs"],
            "items": [it for i, it in enumerate(plan["items"]) if i in ok]}


def run_campaigns(plan, args):
    """Every campaign within the budget; the rows written. When the first
    worker cannot start (no PyTorch, no GPU) nothing was measured, and the
    files this run made (campaign.csv with only its header, plan-1.json,
    worker.log, the directory) are removed: a failed start leaves nothing."""
    made_dir = not os.path.exists(args.out_dir)
    os.makedirs(args.out_dir, exist_ok=True)
    made = [p for p in (os.path.join(args.out_dir, n)
                        for n in ("campaign.csv", "worker.log", "plan-1.json"))
            if not os.path.exists(p)]
    writer = RowWriter(os.path.join(args.out_dir, "campaign.csv"))
    t0 = time.time()
    end = t0 + args.budget
    try:
        first_end = end if args.campaigns == 1 else t0 + args.budget * args.first_share
        first = Campaign(plan, args, writer, 1, first_end)
        first.run()
        rows = list(writer.rows)
        for k in range(2, args.campaigns + 1):
            again = retime_plan(plan, rows)
            if again["items"]:
                left = end - time.time()
                Campaign(again, args, writer, k, time.time() + left / (args.campaigns - k + 1)).run()
    except PlanError:
        writer.close()
        if not writer.rows:
            for p in made:
                if os.path.exists(p):
                    os.remove(p)
            if made_dir and not os.listdir(args.out_dir):
                os.rmdir(args.out_dir)
        raise
    finally:
        writer.close()
    return writer.rows
