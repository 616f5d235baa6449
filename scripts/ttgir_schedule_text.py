#!/usr/bin/env python3
"""Rewrites the schedule Triton's pipeliner reads in TTGIR text: a pure
function of the MLIR text and a tilesched.triton/1 export (docs/TTGIR.md,
"Export to Triton"; `tilesched export GRAPH SCHEDULE --to triton`).

Every operation directly in the body of the chosen `scf.for` carries
`loop.stage` and `loop.cluster` (Triton prints them before its
`tritongpu-pipeline` pass); the loop carries `tt.scheduled_max_stage`. The
export gives the stage and cluster of each op that is a graph op, keyed by
its position in the body; an op it leaves out was folded by the importer and
is placed with its users: at the earliest (stage, cluster) of the body ops
that read it, or, where only scf.yield reads it, at the latest of the body
ops it reads (stage 0 and the first cluster of stage 0 where it reads none).
Nothing else of the text changes.

usage: ttgir_schedule_text.py TTGIR EXPORT [--loop N] [-o OUT]
       ttgir_schedule_text.py TTGIR --show [--loop N]   (position, op, stage, cluster per line)
Exit status 2 with one line on bad input. Standard library only.
"""
import json
import re
import sys

_VALUE = re.compile(r"%[\w$.\-]+")
_RESULTS = re.compile(r"^\s*((?:%[\w$.\-]+(?::\d+)?\s*,\s*)*%[\w$.\-]+(?::\d+)?)\s*=\s*")
_STAGE = re.compile(r"\bloop\.stage = (\d+) : i32")
_CLUSTER = re.compile(r"\bloop\.cluster = (\d+) : i32")
_MAX_STAGE = re.compile(r"\btt\.scheduled_max_stage = (\d+) : i32")
_FOR = re.compile(r"^\s*(?:%[^=]*=\s*)?scf\.for\b")


class TextError(Exception):
    """Bad input: one line, the message of exit status 2."""


class UnscheduledText(TextError):
    """A text whose loop carries no schedule at all: Triton's input module
    (an `*.input.ttgir` dump), not the one its pipeliner receives."""


_WANTED = ("the module as Triton's pipeliner receives it, the *.triton-scheduled.ttgir dump "
           "beside the *.input.ttgir one")


def _strip_loc(line):
    """The line without `//` comment lines and a trailing `loc(...)`."""
    s = line.rstrip()
    if s.lstrip().startswith("//"):
        return ""
    if not s.endswith(")"):
        return s
    depth = 0
    for i in range(len(s) - 1, -1, -1):
        if s[i] == ")":
            depth += 1
        elif s[i] == "(":
            depth -= 1
            if depth == 0:
                return s[:i - 3].rstrip() if s[max(0, i - 3):i] == "loc" else s
    return s


class BodyOp:
    """One operation directly in a loop body: its lines [first, last], the
    line holding its own attribute dictionary, its name, the names of the
    ops inside its regions, the values it defines and the values it reads
    from outside itself."""

    def __init__(self, first, last, lines):
        self.first, self.last = first, last
        self.attr_line = last
        head = _strip_loc(lines[first])
        m = _RESULTS.match(head)
        self.results = [r.split(":")[0] for r in re.split(r"\s*,\s*", m.group(1))] if m else []
        rest = head[m.end():] if m else head.strip()
        self.name = rest.split("(")[0].split()[0].strip('"') if rest.split() else ""
        inner = set()
        self.inner_names = set()
        refs = []
        for k in range(first, last + 1):
            text = _strip_loc(lines[k])
            if k > first:
                mm = _RESULTS.match(text)
                if mm:
                    inner.update(r.split(":")[0] for r in re.split(r"\s*,\s*", mm.group(1)))
                words = (text[mm.end():] if mm else text).split()
                if words:
                    self.inner_names.add(words[0].split("(")[0].strip('"'))
                if text.lstrip().startswith("^"):
                    inner.update(re.findall(r"(%[\w$.\-]+)\s*:", text))
            refs += [v.split("#")[0] for v in _VALUE.findall(text)]
        own = set(self.results)
        self.reads = [v for v in dict.fromkeys(refs) if v not in own and v not in inner]


class Loop:
    """An scf.for of the text: its header and closing lines, and its body ops
    in order (scf.yield last, when present)."""

    def __init__(self, header, close, ops):
        self.header, self.close, self.ops = header, close, ops


def find_loops(lines):
    """Every scf.for, in file order (an outer loop before the loops it holds)."""
    loops = []
    for i, line in enumerate(lines):
        if _FOR.match(line) and _strip_loc(line).endswith("{"):
            loops.append(_read_loop(lines, i))
    return loops


def _read_loop(lines, header):
    depth, ops, start = 1, [], None
    for k in range(header + 1, len(lines)):
        s = _strip_loc(lines[k]).strip()
        if not s:
            continue
        if s.startswith("}"):
            depth -= 1
            if depth == 0:
                return Loop(header, k, ops)
        elif depth == 1 and not s.startswith("^"):
            start = k
        if s.endswith("{"):
            depth += 1
        if depth == 1 and start is not None:
            ops.append(BodyOp(start, k, lines))
            start = None
    raise TextError(f"line {header + 1}: the scf.for's region is not closed")


def _body(loop):
    """The body ops that carry a schedule: all but a final scf.yield."""
    ops = loop.ops
    return ops[:-1] if ops and ops[-1].name == "scf.yield" else ops


def _pick_loop(lines, index):
    loops = find_loops(lines)
    if not loops:
        raise TextError("no scf.for loop in the text")
    if index is None:
        index = scheduled_loop_index("\n".join(lines))
    if not 0 <= index < len(loops):
        raise TextError(f"loop {index}: the text has {len(loops)} loop(s)")
    return loops[index]


def scheduled_loop_index(text):
    """The index of the first loop whose body carries loop.stage."""
    lines = text.split("\n")
    loops = find_loops(lines)
    for i, lp in enumerate(loops):
        if any(_STAGE.search(lines[op.attr_line]) for op in _body(lp)):
            return i
    raise UnscheduledText(f"no scf.for carries loop.stage: give {_WANTED}")


def read_schedule(text, loop=None):
    """[(position, op name, stage, cluster)] of the loop's body as written;
    stage and cluster None where absent."""
    lines = text.split("\n")
    out = []
    for pos, op in enumerate(_body(_pick_loop(lines, loop))):
        attrs = lines[op.attr_line]
        st, cl = _STAGE.search(attrs), _CLUSTER.search(attrs)
        out.append((pos, op.name, int(st.group(1)) if st else None, int(cl.group(1)) if cl else None))
    return out


def _placements(body, export):
    """(stage, cluster) per body position: the export's ops, then the folded
    ones with their users, else after what they read."""
    place = [None] * len(body)
    for entry in export["ops"]:
        pos = entry["position"]
        if not 0 <= pos < len(body):
            raise TextError(f"op {entry['id']!r} is at position {pos}, but the loop body "
                            f"has {len(body)} ops")
        # The ops of an scf.if's branches are graph ops at the scf.if's position.
        inside_if = body[pos].name == "scf.if" and entry["op"] in body[pos].inner_names
        if body[pos].name != entry["op"] and not inside_if:
            raise TextError(f"position {pos} is {body[pos].name!r} in the text but "
                            f"{entry['op']!r} ({entry['id']}) in the export: not the loop "
                            "the graph was imported from")
        here = (entry["stage"], entry["cluster"])
        if place[pos] is not None and place[pos] != here:
            raise TextError(f"position {pos} ({body[pos].name!r}) is placed twice, at stage "
                            f"{place[pos][0]} cluster {place[pos][1]} and at stage {here[0]} "
                            f"cluster {here[1]}: Triton places a whole op once")
        place[pos] = here
    producer = {r: i for i, op in enumerate(body) for r in op.results}
    users = [[] for _ in body]
    for i, op in enumerate(body):
        for v in op.reads:
            if v in producer and producer[v] != i:
                users[producer[v]].append(i)
    for i in range(len(body) - 1, -1, -1):
        placed = [place[u] for u in users[i] if place[u] is not None]
        if place[i] is None and placed:
            place[i] = min(placed)
    stage0 = [p for p in place if p is not None and p[0] == 0]
    first = min(stage0) if stage0 else (0, 0)
    for i, op in enumerate(body):
        if place[i] is None:
            read = [place[producer[v]] for v in op.reads
                    if v in producer and place[producer[v]] is not None]
            place[i] = max(read) if read else first
    return place


def apply_schedule(text, export, loop=None):
    """The text with the loop's loop.stage / loop.cluster and
    tt.scheduled_max_stage set from a tilesched.triton/1 export."""
    if export.get("format") != "tilesched.triton/1":
        raise TextError("the export is not tilesched.triton/1")
    lines = text.split("\n")
    lp = _pick_loop(lines, export.get("loop") if loop is None else loop)
    body = _body(lp)
    if not any(_STAGE.search(lines[op.attr_line]) for op in body):
        raise UnscheduledText(f"line {lp.header + 1}: no op of the loop carries loop.stage and "
                              f"loop.cluster: give {_WANTED}")
    place = _placements(body, export)
    for op, (stage, cluster) in zip(body, place):
        line = lines[op.attr_line]
        if not (_STAGE.search(line) and _CLUSTER.search(line)):
            raise TextError(f"line {op.attr_line + 1}: {op.name!r} carries no loop.stage and "
                            "loop.cluster to rewrite (the text must be the module as "
                            "Triton's pipeliner receives it)")
        line = _STAGE.sub(f"loop.stage = {stage} : i32", line, count=1)
        lines[op.attr_line] = _CLUSTER.sub(f"loop.cluster = {cluster} : i32", line, count=1)
    if not _MAX_STAGE.search(lines[lp.close]):
        raise TextError(f"line {lp.close + 1}: the loop carries no tt.scheduled_max_stage")
    max_stage = max([s for s, _ in place] + [export.get("max_stage", 0)])
    lines[lp.close] = _MAX_STAGE.sub(f"tt.scheduled_max_stage = {max_stage} : i32",
                                     lines[lp.close], count=1)
    return "\n".join(lines)


def _main(argv):
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ttgir")
    ap.add_argument("export", nargs="?")
    ap.add_argument("--loop", type=int)
    ap.add_argument("--show", action="store_true")
    ap.add_argument("-o", "--output")
    args = ap.parse_args(argv)
    try:
        with open(args.ttgir, encoding="utf-8") as f:
            text = f.read()
        if args.show:
            out = "".join(f"{p}\t{n}\t{s}\t{c}\n" for p, n, s, c in read_schedule(text, args.loop))
        else:
            if not args.export:
                raise TextError("give an EXPORT (tilesched export ... --to triton) or --show")
            with open(args.export, encoding="utf-8") as f:
                export = json.load(f)
            out = apply_schedule(text, export, args.loop)
    except (OSError, ValueError, KeyError, TypeError, TextError) as e:
        msg = str(e)
        if isinstance(e, UnscheduledText) and args.ttgir.endswith(".input.ttgir"):
            msg += f" (here: {args.ttgir[:-len('.input.ttgir')]}.triton-scheduled.ttgir)"
        print(f"ttgir_schedule_text: {args.ttgir}: {msg}", file=sys.stderr)
        return 2
    if args.output and args.output != "-":
        import os
        import tempfile
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(args.output)))
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(out)
        os.replace(tmp, args.output)
    else:
        sys.stdout.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
