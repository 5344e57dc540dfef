"""A first run's compile in one process or two (ropework.compile.start_compile_child): CPU seconds on the path to the first frame.

    .venv/bin/python -m bench.cold_split tendrils rope lanyard --rounds 3

Each run is a new process with an empty kernel cache doing what ``python -m ropework LEVEL
--record OUT.png --frames 1`` does after parsing its arguments (notice, warm-up, record), the
two ways taking turns: "serial" warms in this process alone, "split" forks the child first.
On a busy machine wall clock says little about what a second core buys, so each row also gives
the CPU seconds of the path to the first frame — for "split", the CPU before the fork, plus the
longer of this process's share (and the imports it does meanwhile) and the child's, plus the
CPU after the wait: the wall clock an idle two-core machine would show. The figure is the median
over the rounds, with the 1-minute load average beside it.

Run by hand, never as a test.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROBE = r"""
import json, sys, time
wall0 = time.perf_counter()
cpu = time.process_time
from ropework.level import load, resolve
from ropework.compile import compile_notice, start_compile_child, warm
lv = load(resolve(sys.argv[1]))
notice = compile_notice(lv)
child = start_compile_child(lv) if sys.argv[2] == "split" else None
at = {"fork": cpu()}
def meanwhile():
    import ropework.render
    at["wait"] = cpu()
real_wait = child.wait if child else None
warm(lv, child, meanwhile=meanwhile)
at["warm"] = cpu()
import ropework.render
from ropework.record import record
record(lv.path, sys.argv[3], 1)
at["frame"] = cpu()
out = {"at": at, "wall": time.perf_counter() - wall0, "cpu": at["frame"], "child": child.cpu_s if child else 0.0,
       "notice": notice}
if child:
    out["path"] = at["fork"] + max(at["wait"] - at["fork"], child.cpu_s) + (at["frame"] - at["wait"])
else:
    out["path"] = at["frame"]
print("RESULT", json.dumps(out))
"""


def run(level: str, how: str, tmp: Path) -> dict:
    cache = Path(tempfile.mkdtemp(dir=tmp))
    env = dict(os.environ, ROPEWORK_CACHE_DIR=str(cache), ARCADE_HEADLESS="1", PYGLET_AUDIO="silent")
    env.pop("NUMBA_CACHE_DIR", None)
    done = subprocess.run([sys.executable, "-c", PROBE, level, how, str(tmp / "out.png")], env=env, cwd=ROOT,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-800:])
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("RESULT "))
    return json.loads(line[7:])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("levels", nargs="+")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        for level in args.levels:
            got: dict[str, list] = {"serial": [], "split": []}
            for r in range(args.rounds):
                for how in (("serial", "split") if r % 2 == 0 else ("split", "serial")):
                    got[how].append(run(level, how, tmp))
            load = os.getloadavg()[0]
            med = {how: {k: statistics.median(x[k] for x in rows) for k in ("wall", "cpu", "child", "path")}
                   for how, rows in got.items()}
            s, p = med["serial"], med["split"]
            print(f"{level:10s} serial: path {s['path']:.2f} CPU s (wall {s['wall']:.2f} s)   "
                  f"split: path {p['path']:.2f} CPU s (child {p['child']:.2f}, all {p['cpu'] + p['child']:.2f}; "
                  f"wall {p['wall']:.2f} s)   path ratio {p['path'] / s['path']:.2f}  (load {load:.2f}, "
                  f"median of {args.rounds})", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
