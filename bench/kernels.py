"""What a level's first frame compiles: CPU seconds per numba kernel, cold or warm.

    .venv/bin/python -m bench.kernels badge tendrils rope      # cold: an empty kernel cache per level
    .venv/bin/python -m bench.kernels rope --warm              # warm: what loading the cached kernels costs
    .venv/bin/python -m bench.kernels --all                    # every shipped level, cold
    .venv/bin/python -m bench.kernels --all --setup --repeat 3 # the least of 3 runs per row, numba's set-up apart
    .venv/bin/python -m bench.kernels --all --ab /work/main/.venv/bin/python --repeat 2   # against another checkout

Each level runs as `python -m ropework LEVEL --record OUT.png --frames 1` does (the CLI itself, in
a subprocess with a new ROPEWORK_CACHE_DIR unless --warm), with numba's `Dispatcher.compile`
wrapped: for each dispatcher and signature it compiles or loads, the thread CPU seconds spent in
it, exclusive of the other dispatchers it compiled meanwhile (numpy's own overloads such as
`np.empty` are dispatchers too and get rows of their own; `--top` keeps the largest). "first"
marks the process's first compile, which carries numba's once-per-process set-up. The total line
is the process's own CPU seconds from start to exit. CPU, not wall, is the figure to compare on a
busy machine.

Run by hand, never as a test.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROBE = r"""
import json, os, sys, time
from numba.core import dispatcher
rows, stack, first = [], [], []
real = dispatcher.Dispatcher.compile
def compile(self, sig):
    key = (self, str(sig))
    if tuple(dispatcher.sigutils.normalize_signature(sig)[0]) in self.overloads:
        return real(self, sig)
    t0 = time.thread_time()
    start = not first
    first.append(1)
    stack.append(0.0)
    hits = sum(self._cache_hits.values())
    try:
        return real(self, sig)
    finally:
        inner = stack.pop()
        spent = time.thread_time() - t0
        if stack:
            stack[-1] += spent
        f = getattr(self, "py_func", None)
        name = f"{f.__module__}.{f.__qualname__}" if f is not None else repr(self)
        rows.append({"name": name, "sig": str(sig)[:160], "excl": spent - inner, "incl": spent,
                     "loaded": sum(self._cache_hits.values()) > hits, "first": start})
setup = 0.0
if os.environ.get("BENCH_KERNELS_SETUP"):   # numba's once-per-process set-up, paid on a throwaway kernel first
    import numba, numpy
    t0 = time.thread_time()
    numba.njit(lambda a: a[0] + 1)(numpy.zeros(1))
    setup = time.thread_time() - t0
dispatcher.Dispatcher.compile = compile
import atexit
@atexit.register
def _out():
    t = os.times()
    print("KERNELS " + json.dumps({"rows": rows, "cpu": t.user + t.system, "setup": setup}), file=sys.__stderr__, flush=True)
from ropework.cli import main
code = main(sys.argv[1:])
"""


def probe(level: str, cache: Path | None, out: Path, setup: bool = False, python: str | None = None) -> dict:
    env = dict(os.environ, ARCADE_HEADLESS="1")
    env["PYTHONPYCACHEPREFIX"] = str(out.parent / ("pyc-other" if python else "pyc-this"))   # bytecode of our own
    if setup:
        env["BENCH_KERNELS_SETUP"] = "1"
    env.pop("NUMBA_CACHE_DIR", None)
    if cache is not None:
        env["ROPEWORK_CACHE_DIR"] = str(cache)
    cwd = ROOT if python is None else Path(python).absolute().parent.parent.parent   # OTHER/.venv/bin/python
    done = subprocess.run([python or sys.executable, "-c", PROBE, level, "--record", str(out), "--frames", "1"],
                          cwd=cwd, env=env, capture_output=True, text=True)
    line = next((ln for ln in done.stderr.splitlines() if ln.startswith("KERNELS ")), None)
    if done.returncode != 0 or line is None:
        raise RuntimeError(f"{level} failed ({done.returncode}): {done.stderr.strip()[-800:]}")
    return json.loads(line[8:])


def merge(runs: list[dict]) -> dict:
    """The least of several runs, row by row (a busy machine only ever adds time)."""
    rows = {}
    for run in runs:
        for r in run["rows"]:
            k = (r["name"], r["sig"])
            if k not in rows or r["excl"] < rows[k]["excl"]:
                rows[k] = r
    return {"rows": list(rows.values()), "cpu": min(r["cpu"] for r in runs),
            "setup": min(r["setup"] for r in runs), "runs": len(runs)}


def short(name: str) -> str:
    for prefix in ("ropework.systems.", "ropework.", "numba.np.", "numba.core.", "numba.cpython."):
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


def table(level: str, rep: dict, top: int) -> str:
    rows = sorted(rep["rows"], key=lambda r: -r["excl"])
    ours = [r for r in rows if r["name"].startswith("ropework.")]
    theirs = [r for r in rows if not r["name"].startswith("ropework.")]
    out = [f"{level}: process CPU {rep['cpu']:.2f} s; numba set-up first {rep['setup']:.2f} s; in dispatchers {sum(r['excl'] for r in rows):.2f} s "
           f"({len(ours)} ropework kernels, {len(theirs)} numba/numpy internals"
           f" {sum(r['excl'] for r in theirs):.2f} s; loaded from cache {sum(r['loaded'] for r in rows)})"]
    for r in ours[:top]:
        out.append(f"  {r['excl']:6.3f} {'L' if r['loaded'] else ' '}{'*' if r['first'] else ' '} "
                   f"{short(r['name'])}  {r['sig'][:110]}")
    for r in theirs[:max(3, top // 4)]:
        out.append(f"  {r['excl']:6.3f} {'L' if r['loaded'] else ' '}{'*' if r['first'] else ' '} "
                   f"[{short(r['name'])}]  {r['sig'][:80]}")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.kernels", description=__doc__.split("\n\n")[0])
    ap.add_argument("levels", nargs="*", help="shipped level names (rope, badge, ...) or level files")
    ap.add_argument("--all", action="store_true", help="every shipped level")
    ap.add_argument("--warm", action="store_true", help="use the user kernel cache (filled first) instead of an empty one")
    ap.add_argument("--setup", action="store_true",
                    help="pay numba's once-per-process set-up on a throwaway kernel first, reported apart")
    ap.add_argument("--ab", metavar="PYTHON", help="also, alternately, another checkout's OTHER/.venv/bin/python")
    ap.add_argument("--repeat", type=int, default=1, help="runs per level; each row is the least of them")
    ap.add_argument("--top", type=int, default=25, help="rows per level")
    ap.add_argument("--json", type=Path, help="also write the raw rows as JSON")
    args = ap.parse_args(argv)
    levels = list(args.levels)
    if args.all:
        sys.path.insert(0, str(ROOT))
        from ropework.level import shipped
        levels += [p.stem for p in shipped()]
    reps = {}
    with tempfile.TemporaryDirectory(prefix="ropework-kernels-") as tmp:
        tmp = Path(tmp)
        for side in [None] + ([args.ab] if args.ab else []):   # untimed: fills each side's bytecode cache
            probe(levels[0], Path(tempfile.mkdtemp(prefix="cache-", dir=tmp)), tmp / "out.png", False, side)
        for lv in levels:
            if args.warm:
                probe(lv, None, tmp / "out.png")
            cache = None if args.warm else Path(tempfile.mkdtemp(prefix="cache-", dir=tmp))
            load = os.getloadavg()[0]
            sides = [None] + ([args.ab] if args.ab else [])
            runs = {side: [] for side in sides}
            for _ in range(args.repeat):
                for side in sides:      # alternating, so a busy machine weighs on both alike
                    if not args.warm:
                        cache = Path(tempfile.mkdtemp(prefix="cache-", dir=tmp))
                    runs[side].append(probe(lv, cache, tmp / "out.png", args.setup, side))
            for side in sides:
                key = lv if side is None else f"{lv} ({side})"
                reps[key] = merge(runs[side])
                reps[key]["load"] = load
                print(table(key, reps[key], args.top) + f"\n  (load {load:.2f})", flush=True)
    if args.json:
        args.json.write_text(json.dumps(reps, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
