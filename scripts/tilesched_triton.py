"""tilesched around your own Triton kernel (docs/TTGIR.md, "Any Triton
kernel"): two context managers a program puts around one launch.

  capture(DIR, NAME)    writes DIR/NAME.before.ttgir, the module as Triton's
                        pipeliner receives it (its loop carries Triton's own
                        loop.stage / loop.cluster): the input of
                        `tilesched import --from ttgir`
  schedule(EXPORT)      compiles with a tilesched.triton/1 export's stages
                        (`tilesched export ... --to triton`, `tilesched
                        candidates`) in place of Triton's

Launch a fresh JIT function inside the block (fresh(kernel)), so that the
launch compiles instead of reusing a kernel compiled without the hook:

    import tilesched_triton as tt
    with tt.capture("dumps", "mykernel"):
        tt.fresh(mykernel)[grid](x, y, out, n, BLOCK=128, num_stages=3)
    with tt.schedule("cands/01.cost-based-cap3.json"):
        tt.fresh(mykernel)[grid](x, y, out, n, BLOCK=128, num_stages=3)

Needs Triton 3.6 (and a GPU to launch on).
"""
import contextlib
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import triton_schedule as ts  # noqa: E402


def fresh(kernel):
    """A new JIT function of the same kernel: its first launch compiles."""
    import triton
    return triton.jit(getattr(kernel, "fn", kernel))


@contextlib.contextmanager
def _hooked(hook):
    import triton
    import triton.knobs  # noqa: F401
    saved = triton.knobs.runtime.add_stages_inspection_hook
    triton.knobs.runtime.add_stages_inspection_hook = hook
    try:
        yield
    finally:
        triton.knobs.runtime.add_stages_inspection_hook = saved


@contextlib.contextmanager
def capture(directory, name):
    """Launches inside compile with Triton's own schedule and write
    DIRECTORY/NAME.before.ttgir (and .after.ttgir, the same text)."""
    os.makedirs(directory, exist_ok=True)
    note = {}
    with _hooked(ts.make_hook(None, directory, name, note, salt=f"capture {time.time_ns()}")):
        yield os.path.join(directory, name + ".before.ttgir")


@contextlib.contextmanager
def schedule(export, keep=None):
    """Launches inside compile with `export` (a path or the parsed JSON)'s
    stage and cluster of every op of the scheduled loop; `keep`, a
    directory, receives the TTGIR before and after the rewrite. Yields a
    dict that receives ops_moved once a launch compiled."""
    if not isinstance(export, dict):
        with open(export, encoding="utf-8") as f:
            export = json.load(f)
    note = {}
    if keep:
        os.makedirs(keep, exist_ok=True)
    label = str(export.get("source", "export")).replace("/", "-")
    with _hooked(ts.make_hook(export, keep, label, note)):
        yield note
