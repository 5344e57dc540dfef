"""Relax alone, this checkout's kernels against another revision's, in ONE process, one thread.

    .venv/bin/python -m bench.relax_ab                                  # against main, W2–W5
    .venv/bin/python -m bench.relax_ab --against HEAD~1 --workloads W5 --passes 1 --rounds 101
    .venv/bin/python -m bench.relax_ab --workloads W5 --split          # both sides on two threads (solve_split), wall
    taskset -c 1 .venv/bin/python -m bench.relax_ab --workloads W5      # one core: less migration noise

The other revision's systems/relax.py (``git show REV:systems/relax.py``) is loaded as a second
module beside this checkout's (its kernels compile once into the kernel cache, by its own file);
both relax the same body of a workload — points as the engine leaves them after two steps,
reset before every batch — in alternating batches of about ``--seconds``, timed in thread CPU
time. The rows: medians of each side, their ratio, the median of the paired batch ratios (the
figure to read on a loaded machine: each pair saw the same moment), both sides' bits compared,
and the 1-minute load. ``--passes`` overrides the workload's pass count: 1 shows the fixed part
of a step (gather, divisors, scatter) beside one pass. Only relax.py differs between the sides,
so a change elsewhere (split, kernels) needs `bench.steps --ab`. Run by hand, never as a test.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if __package__ in (None, ""):
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from bench.contenders import Engine  # noqa: E402
from bench.workloads import WORKLOADS  # noqa: E402
from ropework.components import Constraints  # noqa: E402
from ropework.systems import relax as this_relax  # noqa: E402


def other_relax(rev: str):
    """Revision ``rev``'s relax module, loaded from a file named by its commit (so its compiled
    kernels are cached and found again on the next run)."""
    sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", rev], check=True, capture_output=True,
                         text=True).stdout.strip()
    src = subprocess.run(["git", "-C", str(ROOT), "show", f"{sha}:systems/relax.py"], check=True,
                         capture_output=True, text=True).stdout
    path = Path(tempfile.gettempdir()) / f"ropework_relax_{sha[:12]}.py"
    if not path.exists() or path.read_text() != src:
        path.write_text(src)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module   # dataclasses look their module up while the file runs
    spec.loader.exec_module(module)
    return module


def measure(wid: str, other, passes: int | None, rounds: int, seconds: float, two: bool = False) -> tuple:
    w = next(w for w in WORKLOADS if w.id == wid)
    e = Engine(w)
    e.step()
    e.step()
    pts, con = e.points, e.constraints
    k = con.passes if passes is None else passes
    start = pts.pos.copy()
    sides = {}
    for name, m in (("this", this_relax), ("other", other)):
        packed = m.plan(len(pts.pos), True, con.a, con.b)
        flags, views = m.paths(packed, pts.pos.shape[1]), m.unpack(packed)
        own = Constraints(a=con.a, b=con.b, rest=con.rest, passes=k, share=con.share)   # each side's own schedule
        m.schedule(own, pts.pos.shape)
        sides[name] = (m, views, m._calls(views, flags, m.big(len(pts.pos))), own)

    def run(name):
        m, views, calls, own = sides[name]
        if two:
            m.solve_split(pts.pos, pts.inv_mass, con.rest, k, None, None, own.schedule, con.share)
        elif not m._run(calls, views[5], pts.pos, pts.inv_mass, con.rest, k, None, None, con.share):
            raise RuntimeError(f"{wid}: a chain group needs the general divisor; this bench times the common path")

    bits = {}
    for name in sides:
        pts.pos[:] = start
        run(name)
        run(name)
        bits[name] = pts.pos.copy()
    same = np.array_equal(bits["this"].view(np.uint32), bits["other"].view(np.uint32))
    t = time.perf_counter()
    run("this")
    batch = max(1, round(seconds / max(time.perf_counter() - t, 1e-6)))
    cpu = {name: [] for name in sides}
    for r in range(rounds):
        for name in (("this", "other") if r % 2 == 0 else ("other", "this")):
            pts.pos[:] = start
            c = time.perf_counter() if two else time.thread_time()
            for _ in range(batch):
                run(name)
            cpu[name].append(((time.perf_counter() if two else time.thread_time()) - c) / batch * 1e3)
    e.close()
    paired = statistics.median(a / b for a, b in zip(cpu["this"], cpu["other"]))
    return statistics.median(cpu["this"]), statistics.median(cpu["other"]), paired, same, k


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.relax_ab", description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", default="main", help="the other revision (git rev; default main)")
    ap.add_argument("--workloads", default="W2,W3,W4,W5", help="comma-separated workload ids")
    ap.add_argument("--passes", type=int, help="passes per step instead of the workload's (1: the fixed part)")
    ap.add_argument("--rounds", type=int, default=41, help="alternating timed batches per side")
    ap.add_argument("--seconds", type=float, default=0.02, help="relaxing per batch")
    ap.add_argument("--split", action="store_true", help="both sides' solve_split (two threads), wall ms, not one thread's CPU")
    args = ap.parse_args(argv)
    ids = [s.strip().upper() for s in args.workloads.split(",") if s.strip()]
    unknown = sorted(set(ids) - {w.id for w in WORKLOADS})
    if unknown:
        print(f"bench.relax_ab: --workloads: expected ids of bench.workloads, found {', '.join(unknown)}", file=sys.stderr)
        return 2
    try:
        other = other_relax(args.against)
    except subprocess.CalledProcessError as err:
        print(f"bench.relax_ab: --against {args.against}: expected a git revision with systems/relax.py, "
              f"git said: {err.stderr.strip().splitlines()[0] if err.stderr.strip() else err}", file=sys.stderr)
        return 2
    print(f"this: {ROOT}; other: {args.against}; "
          + ("solve_split on two threads, wall ms per relax" if args.split else "one thread, CPU ms per relax"))
    print("| workload | passes | this | other | this ÷ other | paired median | same bits | load (1 min) |")
    print("|---|---:|---:|---:|---:|---:|:---:|---:|")
    for wid in ids:
        a, b, paired, same, k = measure(wid, other, args.passes, args.rounds, args.seconds, args.split)
        print(f"| {wid} | {k} | {a:.4g} | {b:.4g} | {a / b:.3f} | {paired:.3f} | {'yes' if same else 'NO'} "
              f"| {os.getloadavg()[0]:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
