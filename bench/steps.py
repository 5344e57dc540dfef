"""Step speed, this checkout against another, interleaved: the A/B a kernel change needs.

    .venv/bin/python -m bench.steps --ab /work/main/.venv/bin/python          # W1–W5 and every shipped level
    .venv/bin/python -m bench.steps --ab OTHER/.venv/bin/python --scenes W1,W2,rope --rounds 9

Two worker processes, one per checkout (``--ab`` names the other's Python, whose working
folder is taken as two levels above it), each build every scene once and keep it; then,
round after round, each worker in turn steps each scene for about ``--seconds`` and reports
CPU and wall seconds per step. The rows are the medians over the rounds and their ratio
(this / other): alternating keeps a busy machine's noise on both sides. CPU is the process's
(every thread: W5 runs on two), the figure to read under load. A scene is a workload of
bench.workloads (W1–W5: the engine's rope scene, integrate and relax) or a shipped level at
1280×720 (all its systems). Run by hand, never as a test.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WORKER = r"""
import json, os, sys, time
os.environ.setdefault("ARCADE_HEADLESS", "1")
sys.path.insert(0, os.getcwd())
from bench.contenders import Engine
from bench.workloads import WORKLOADS
import esper
from ropework.scene import Scene
scenes = {}
for name in sys.argv[1].split(","):
    w = next((w for w in WORKLOADS if w.id == name), None)
    s = Engine(w) if w is not None else Scene.load(name, size=(1280, 720))
    for _ in range(3):
        s.step()          # kernels loaded or compiled, caches built
    scenes[name] = s
print("ready", flush=True)
for line in sys.stdin:
    name, seconds = line.split()
    s, seconds = scenes[name], float(seconds)
    if not isinstance(s, Scene):
        esper.switch_world(s.world)   # an Engine steps esper's current world (a Scene switches itself)
    n, c0, w0 = 0, time.process_time(), time.perf_counter()
    while time.perf_counter() - w0 < seconds or n < 3:
        s.step()
        n += 1
    print(json.dumps([(time.process_time() - c0) / n, (time.perf_counter() - w0) / n]), flush=True)
"""


def worker(python: str, cwd: Path, scenes: list[str]) -> subprocess.Popen:
    env = dict(os.environ, ARCADE_HEADLESS="1")
    p = subprocess.Popen([python, "-c", WORKER, ",".join(scenes)], cwd=cwd, env=env, text=True,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    if p.stdout.readline().strip() != "ready":
        raise RuntimeError(f"{python} in {cwd}: the worker did not start")
    return p


def ask(p: subprocess.Popen, scene: str, seconds: float) -> tuple[float, float]:
    p.stdin.write(f"{scene} {seconds}\n")
    p.stdin.flush()
    return tuple(json.loads(p.stdout.readline()))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.steps", description=__doc__.split("\n\n")[0])
    ap.add_argument("--ab", required=True, help="the other checkout's Python (OTHER/.venv/bin/python)")
    ap.add_argument("--scenes", help="comma-separated: W1..W5 and shipped level names (default: all)")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--seconds", type=float, default=0.4, help="stepping per scene per round per side")
    args = ap.parse_args(argv)
    if args.scenes:
        scenes = args.scenes.split(",")
    else:
        sys.path.insert(0, str(ROOT))
        from ropework.level import shipped
        scenes = ["W1", "W2", "W3", "W4", "W5"] + [p.stem for p in shipped()]
    other = Path(args.ab)
    sides = {"this": worker(sys.executable, ROOT, scenes),
             "other": worker(str(other), other.absolute().parent.parent.parent, scenes)}
    got = {(side, s): [] for side in sides for s in scenes}
    load = [os.getloadavg()[0]]
    for r in range(args.rounds):
        for s in scenes:
            order = ("this", "other") if r % 2 == 0 else ("other", "this")
            for side in order:
                got[side, s].append(ask(sides[side], s, args.seconds))
        load.append(os.getloadavg()[0])
        print(f"  round {r + 1}/{args.rounds} (load {load[-1]:.2f})", file=sys.stderr, flush=True)
    for p in sides.values():
        p.stdin.close()
        p.wait()
    print(f"this: {ROOT}; other: {other}; {args.rounds} rounds of {args.seconds} s per scene and side; "
          f"1-minute load {min(load):.2f}–{max(load):.2f}")
    print("| scene | this CPU µs/step | other CPU µs/step | CPU ratio | this wall µs | other wall µs | wall ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for s in scenes:
        a = [statistics.median(v[i] for v in got["this", s]) * 1e6 for i in (0, 1)]
        b = [statistics.median(v[i] for v in got["other", s]) * 1e6 for i in (0, 1)]
        print(f"| {s} | {a[0]:.1f} | {b[0]:.1f} | {a[0] / b[0]:.3f} | {a[1]:.1f} | {b[1]:.1f} | {a[1] / b[1]:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
