#!/usr/bin/env python3
"""An ASAP modulo list scheduler, as a foreign scheduler of tilesched.

Reads one tilesched.request/1 document on standard input and writes one
tilesched.schedule/1 reply on standard output (docs/FORMATS.md, "Foreign
schedulers"; docs/PLUGINS.md walks through it). Standard library only.

For II = ii_min, ii_min + 1, ..., ii_max: take the ops in a topological
order of the distance-0 edges (program order breaks ties) and start each at
the earliest cycle its placed predecessors allow (start(u) + latency -
II * distance) at which its resource triples and rate-pool counts fit the
modulo reservation table; no cycle within II of that: the II fails. It
never backtracks, so it is no match for the built-in generators; that is
the point of comparing them.
"""
import json
import sys


def topological_order(n, edges):
    preds = [0] * n
    succs = [[] for _ in range(n)]
    for e in edges:
        if e["distance"] == 0 and e["src"] != e["dst"]:
            preds[e["dst"]] += 1
            succs[e["src"]].append(e["dst"])
    ready = [v for v in range(n) if preds[v] == 0]
    order = []
    while ready:
        v = min(ready)  # program order among the ready ops
        ready.remove(v)
        order.append(v)
        for w in succs[v]:
            preds[w] -= 1
            if preds[w] == 0:
                ready.append(w)
    return order if len(order) == n else None


def fits(table, capacity, holds, t, ii):
    """Whether the (unit, cycles, amount) holds fit the table at start t."""
    need = {}
    for unit, cycles, amount in holds:
        for c in range(cycles):
            key = (unit, (t + c) % ii)
            need[key] = need.get(key, 0) + amount
    return all(table.get(k, 0) + a <= capacity[k[0]] for k, a in need.items())


def reserve(table, holds, t, ii):
    for unit, cycles, amount in holds:
        for c in range(cycles):
            key = (unit, (t + c) % ii)
            table[key] = table.get(key, 0) + amount


def try_ii(req, ii, order, holds, capacity, touching):
    ops = req["ops"]
    serial = req["force_serial_execution"]
    start = [None] * len(ops)
    table = {}
    for v in order:
        earliest, latest = 0, None
        for e in touching[v]:
            u, w, lam, dist = e["src"], e["dst"], e["latency"], e["distance"]
            if w == v and u != v and start[u] is not None:
                earliest = max(earliest, start[u] + lam - ii * dist)
            if u == v and w != v and start[w] is not None:  # a placed successor
                bound = start[w] - lam + ii * dist
                latest = bound if latest is None else min(latest, bound)
            if u == v and w == v and lam > ii * dist:
                return None  # a self-loop this II cannot meet
        depth = ops[v].get("max_depth")
        if depth is not None:
            latest = min(latest, (depth + 1) * ii - 1) if latest is not None else (depth + 1) * ii - 1
        if req["max_stages"] > 0:
            cap = req["max_stages"] * ii - 1
            latest = cap if latest is None else min(latest, cap)
        if serial:
            cap = ii - ops[v]["footprint"]
            latest = cap if latest is None else min(latest, cap)
        for t in range(earliest, earliest + ii):
            if latest is not None and t > latest:
                break
            if fits(table, capacity, holds[v], t, ii):
                reserve(table, holds[v], t, ii)
                start[v] = t
                break
        if start[v] is None:
            return None
    return start


def schedule(req):
    ops, edges = req["ops"], req["edges"]
    capacity = {("slot", s["slot"]): s["capacity"] for s in req["target"]["slots"]}
    rate = {p["name"]: p["capacity"] for p in req["target"]["pools"] if p["kind"] == "rate"}
    capacity.update({("pool", name): cap for name, cap in rate.items()})
    holds = []
    for op in ops:
        h = [(("slot", r["slot"]), r["duration"], r["occupancy"]) for r in op["resources"]]
        h += [(("pool", name), op["footprint"], count)
              for name, count in op["pools"].items() if name in rate]
        holds.append(h)
    touching = [[] for _ in ops]  # the edges into or out of each op
    for e in edges:
        touching[e["src"]].append(e)
        if e["dst"] != e["src"]:
            touching[e["dst"]].append(e)
    order = topological_order(len(ops), edges)
    if order is not None:
        for ii in range(req["ii_min"], req["ii_max"] + 1):
            start = try_ii(req, ii, order, holds, capacity, touching)
            if start is not None:
                return ii, start
    return None, None


def main():
    req = json.load(sys.stdin)
    ii, start = schedule(req)
    reply = {"format": "tilesched.schedule/1", "graph": req["graph_name"]}
    if ii is None:
        reply.update({"feasible": False, "ii": 0, "ops": [],
                      "diagnostics": ["asap-modulo: no II up to %d" % req["ii_max"]]})
    else:
        reply.update({"ii": ii, "ops": [{"id": op["id"], "start": s}
                                        for op, s in zip(req["ops"], start)]})
    json.dump(reply, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
