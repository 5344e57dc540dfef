"""Start-up: seconds from the command to the first frame of a recording.

    .venv/bin/python -m bench.startup                               # ≈ 1 minute: warm runs, then cold ones
    .venv/bin/python -m bench.startup --write docs/performance.md   # refresh the doc's start-up section
    .venv/bin/python -m bench.startup --runs 1 --cold 0 --levels --wheel --ab /work/main/.venv/bin/python
    .venv/bin/python -m bench.startup --runs 1 --cold 0 --levels --only tendrils,rope --rounds 5 --ab OTHER/.venv/bin/python

Times the command the start-up target names, `python -m ropework levels/rope.toml --record OUT.png
--frames 1`, as a subprocess: wall clock from just before it is started until it has
exited (the PNG written). The median of several **warm** runs is the figure: numba's
compiled kernels and Python's bytecode are cached, as on any launch after the first.
An untimed run first makes sure of that (numba's cache is invalidated whenever a
kernel's source changes).

**Cold** runs are reported separately: with numba's cache empty (NUMBA_CACHE_DIR set to
a new empty folder, so the user cache folder (ropework.systems.services.kernels) is left alone for
everyone else), and with Python's bytecode caches empty as well (PYTHONPYCACHEPREFIX
set to a new empty folder: a fresh install's very first launch, minus the OS file
cache, which is not dropped). Bytecode is written to a private folder in every run
(PYTHONPYCACHEPREFIX), so the repository is not touched.

``--levels`` adds the cold table: every shipped level's first run with an
empty kernel cache (ROPEWORK_CACHE_DIR a new empty folder), from this checkout and, with
``--wheel``, from a wheel of it installed into a fresh venv (its dependencies taken from this
checkout's .venv through a .pth line, so only ropework itself is the wheel's), and with ``--ab
OTHER/.venv/bin/python`` from another checkout, the installs taking turns level by level (the
A/B a start-up change needs; ``--only rope,jelly`` keeps a few levels). Python's bytecode is
cached for every row (an untimed run per install first), as after pip's install. Each row is
the command's wall clock to its exit and its CPU seconds (the figure to read on a busy
machine), then a warm rerun of the same level; with ``--rounds N`` each figure is the median of N
such pairs, the installs taking turns (the first of them alternating).

Where the warm time goes comes from one more warm run of the same code path with
timers around its phases (interpreter start, imports, level load, GL context, first
step, first draw, PNG, exit). The probe ends as the command does, with ``gc.freeze()``:
without it its "interpreter exit" was the last garbage collection walking every numba
dispatcher and GL object (0.47-0.53 s on a quiet machine), which the command never runs
(its own exit, timed from its "wrote" line to the process's end, is ≈ 0.05 s).

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
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LEVEL = "levels/rope.toml"
TARGET_S = 2.0          # target: first frame at most this long after the command starts
BEGIN, END = "<!-- startup:begin -->", "<!-- startup:end -->"

# The instrumented run: the same calls ropework.record.record makes for --frames 1, in order, timed.
PROBE = r"""
import sys, time
t_start = time.time()
import ropework.cli
t = {"python": t_start}
import ropework.record, ropework.render, ropework.scene   # what record() imports: systems, arcade, numba, numpy, esper
t["imports"] = time.time()
from PIL import Image
scene = ropework.scene.Scene.load(sys.argv[1], size=(1280, 720))
t["level"] = time.time()
win = ropework.render.headless_window(1280, 720)
off = ropework.render.Offscreen(win.ctx, (1280, 720))
t["gl"] = time.time()
scene.step(1)
t["step"] = time.time()
off.render(scene)
win.ctx.finish()
t["draw"] = time.time()
off.image().convert("RGB").save(sys.argv[2])
t["png"] = time.time()
scene.close()
import gc
gc.freeze()   # as the command does before it returns: the exit's last collection (≈ 0.5 s) is not run
print("PHASES", __import__("json").dumps(t), flush=True)
"""
PHASES = (("python", "interpreter start"), ("imports", "imports (game, systems, arcade, numba, numpy, esper)"),
          ("level", "level read, validated, scene built"), ("gl", "GL context and framebuffer"),
          ("step", "first step (numba loads its compiled kernels)"), ("draw", "first frame drawn (shaders compiled)"),
          ("png", "read back, PNG written"), ("exit", "interpreter exit"))


def env_for(pycache: Path, numba_cache: Path | None) -> dict:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)      # bytecode is cached, as on a normal install ...
    env["PYTHONPYCACHEPREFIX"] = str(pycache)     # ... in a folder of our own
    env["ARCADE_HEADLESS"] = "1"
    env.pop("NUMBA_CACHE_DIR", None)              # it would win over ROPEWORK_CACHE_DIR
    if numba_cache is not None:
        env["ROPEWORK_CACHE_DIR"] = str(numba_cache)
    else:
        env.pop("ROPEWORK_CACHE_DIR", None)
    return env


def timed(cmd: list, env: dict, cwd) -> tuple[float, float]:
    """(wall s, CPU s of the child) of one run of ``cmd`` to its exit; raises if it fails."""
    import resource
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def wheel_python(tmp: Path) -> Path:
    """A fresh venv with a wheel of this checkout installed (no deps: those come from .venv via a .pth)."""
    dist = tmp / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(dist), str(ROOT)],
                   check=True, capture_output=True)
    venv = tmp / "wheel-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    deps = subprocess.run([sys.executable, "-c", "import numba, os; print(os.path.dirname(os.path.dirname(numba.__file__)))"],
                          check=True, capture_output=True, text=True).stdout.strip()
    Path(site, "ropework-bench-deps.pth").write_text(deps + "\n")
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--target", site,
                    *map(str, dist.glob("ropework-*.whl"))], check=True, capture_output=True)
    return py


def cold_levels(args, tmp: Path) -> list[dict]:
    """Every shipped level's first run with an empty kernel cache, then a warm one, per install.

    The installs take turns level by level (this checkout, its wheel, ``--ab``'s checkout), so a
    busy machine weighs on each alike."""
    sys.path.insert(0, str(ROOT))
    from ropework.level import shipped
    pythons = [("checkout", Path(sys.executable), ROOT)]
    if args.wheel:
        pythons.append(("wheel", wheel_python(tmp), tmp))
    if args.ab:
        pythons.append(("other", Path(args.ab), Path(args.ab).absolute().parent.parent.parent))
    only = set(args.only.split(",")) if args.only else None
    first = next(p for p in shipped() if only is None or p.stem in only)
    for where, py, cwd in pythons:   # untimed: fills each install's bytecode cache, or its first row pays for that too
        timed([str(py), "-m", "ropework", first.stem, "--record", str(tmp / "first.png"), "--frames", "1"],
              env_for(tmp / f"pyc-{where}", Path(tempfile.mkdtemp(prefix="kernels-untimed-", dir=tmp))), cwd)
    rows = []
    for path in shipped():
        if only is not None and path.stem not in only:
            continue
        runs = {where: [] for where, _, _ in pythons}
        for r in range(args.rounds):      # each round: every install in turn, the first of them alternating
            for where, py, cwd in (pythons if r % 2 == 0 else pythons[::-1]):
                cache = Path(tempfile.mkdtemp(prefix=f"kernels-{path.stem}-", dir=tmp))
                env = env_for(tmp / f"pyc-{where}", cache)
                cmd = [str(py), "-m", "ropework", path.stem, "--record", str(tmp / "first.png"), "--frames", "1"]
                load = os.getloadavg()[0]
                cold = timed(cmd, env, cwd)
                warm = timed(cmd, env, cwd)
                runs[where].append((cold, warm, load))
                print(f"  {where} {path.name}: cold {cold[0]:.2f} s ({cold[1]:.2f} CPU), warm {warm[0]:.2f} s "
                      f"({warm[1]:.2f} CPU) (load {load:.2f})", file=sys.stderr, flush=True)
        for where, got in runs.items():  # the median of the rounds, figure by figure
            med = lambda i, j: statistics.median(g[i][j] for g in got)   # noqa: E731
            rows.append({"where": where, "level": path.name, "cold": (med(0, 0), med(0, 1)),
                         "warm": (med(1, 0), med(1, 1)), "load": statistics.median(g[2] for g in got),
                         "rounds": len(got)})
    return rows


def levels_markdown(rows: list[dict]) -> str:
    out = ["", "Every shipped level, `python -m ropework LEVEL --record out.png --frames 1` (from the command to "
           "its exit: the kernel notice, the warm-up compile, the first frame, the PNG), first with an empty "
           "kernel cache (ROPEWORK_CACHE_DIR new), then again warm; 1-minute load beside each"
           + (f" (each figure the median of {rows[0].get('rounds', 1)} rounds, the installs taking turns)"
              if rows and rows[0].get("rounds", 1) > 1 else "") + ":", "",
           "| install | level | cold, s | cold, CPU s | warm, s | warm, CPU s | load | cold ≤ 3 s |",
           "|---|---|---:|---:|---:|---:|---:|:---:|"]
    order = {"checkout": 0, "wheel": 1, "other": 2}      # the runs took turns; the table reads install by install
    for r in sorted(rows, key=lambda r: order[r["where"]]):
        out.append(f"| {r['where']} | {r['level']} | {r['cold'][0]:.2f} | {r['cold'][1]:.2f} | {r['warm'][0]:.2f} "
                   f"| {r['warm'][1]:.2f} | {r['load']:.2f} | {'yes' if r['cold'][0] <= 3.0 else 'no'} |")
    return "\n".join(out) + "\n"


def launch(env: dict, out: Path) -> float:
    """Seconds from starting the command to its exit."""
    cmd = [sys.executable, "-m", "game", LEVEL, "--record", str(out), "--frames", "1"]
    t = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - t
    if done.returncode != 0 or not out.is_file():
        raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    out.unlink()
    return seconds


def phases(env: dict, out: Path) -> dict:
    """Seconds spent in each phase of one instrumented warm run."""
    t0 = time.time()
    done = subprocess.run([sys.executable, "-c", PROBE, LEVEL, str(out)], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=True)
    t_end = time.time()
    t = json.loads(next(ln for ln in done.stdout.splitlines() if ln.startswith("PHASES "))[7:])
    marks = [t0] + [t[k] for k, _ in PHASES[:-1]] + [t_end]
    return {k: marks[i + 1] - marks[i] for i, (k, _) in enumerate(PHASES)}


def run(args) -> dict:
    from bench import host
    rep = {"load": os.getloadavg(), "date": time.strftime("%Y-%m-%d"), "host": host.label()}
    with tempfile.TemporaryDirectory(prefix="ropework-startup-") as tmp:
        tmp = Path(tmp)
        out = tmp / "first.png"
        warm = env_for(tmp / "pyc-warm", None)

        def log(msg):
            print(f"  {msg}", file=sys.stderr, flush=True)
        log("untimed run (fills the caches) …")
        rep["first_run_s"] = launch(warm, out)
        rep["warm_s"] = []
        for i in range(args.runs):
            rep["warm_s"].append(launch(warm, out))
            log(f"warm {i + 1}/{args.runs}: {rep['warm_s'][-1]:.2f} s")
        rep["phases"] = [phases(warm, out) for _ in range(3)]
        rep["cold_phases"] = phases(env_for(tmp / "pyc-warm", tmp / "numba-probe"), out) if args.cold else None
        rep["cold_numba_s"], rep["cold_all_s"] = [], []
        for i in range(args.cold):
            rep["cold_numba_s"].append(launch(env_for(tmp / "pyc-warm", tmp / f"numba-{i}"), out))
            log(f"cold numba cache {i + 1}/{args.cold}: {rep['cold_numba_s'][-1]:.2f} s")
            rep["cold_all_s"].append(launch(env_for(tmp / f"pyc-cold-{i}", tmp / f"numba-all-{i}"), out))
            log(f"cold numba + bytecode {i + 1}/{args.cold}: {rep['cold_all_s'][-1]:.2f} s")
        rep["levels"] = cold_levels(args, tmp) if args.levels else None
    rep["load_end"] = os.getloadavg()
    return rep


def markdown(rep: dict) -> str:
    w = rep["warm_s"]
    med = statistics.median(w)
    busy = rep["load"][0] > 1.5   # at the end the runs themselves count
    ph = {k: statistics.median(p[k] for p in rep["phases"]) for k, _ in PHASES}
    out = [f"Run: `python -m bench.startup` on {rep['date']}; 1-minute load average {rep['load'][0]:.2f} at the start, "
           f"{rep['load_end'][0]:.2f} at the end"
           + (" — **the machine was busy (load > 1.5)**" if busy else "") + f"; {rep.get('host', 'host yardstick not taken')}.", "",
           f"`python -m ropework {LEVEL} --record out.png --frames 1`, wall clock from the command to its exit:", "",
           "| caches | runs | seconds, median [min–max] | target ≤ 2 s |", "|---|---:|---:|:---:|",
           f"| warm (numba kernels and bytecode cached: every launch after the first) | {len(w)} "
           f"| **{med:.2f}** [{min(w):.2f}–{max(w):.2f}] | {'yes' if med <= TARGET_S else 'no'} |"]
    for key, label in (("cold_numba_s", "cold numba cache (first launch after a kernel's source changed)"),
                       ("cold_all_s", "cold numba cache and bytecode (a fresh install's first launch)")):
        v = rep[key]
        if v:
            out.append(f"| {label} | {len(v)} | {statistics.median(v):.2f} [{min(v):.2f}–{max(v):.2f}] "
                       f"| {'yes' if statistics.median(v) <= TARGET_S else 'no'} |")
    cold = rep.get("cold_phases")
    first = sum(ph[k] for k, _ in PHASES[:PHASES.index(("draw", dict(PHASES)["draw"])) + 1])
    out += ["", f"Where the time goes: the same calls as `--record`, with timers (warm: median of {len(rep['phases'])} "
            f"runs{'; cold: one run with an empty numba cache' if cold else ''}). Warm, the first frame is drawn "
            f"**{first:.2f} s** after the command starts.", "",
            "| phase | warm, s | cold numba cache, s |" if cold else "| phase | warm, s |",
            "|---|---:|---:|" if cold else "|---|---:|"]
    out += [f"| {label} | {ph[k]:.3f} |" + (f" {cold[k]:.3f} |" if cold else "") for k, label in PHASES]
    return "\n".join(out) + "\n" + (levels_markdown(rep["levels"]) if rep.get("levels") else "")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.startup", description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=7, help="warm runs (the median is reported)")
    ap.add_argument("--cold", type=int, default=2, help="cold runs of each kind (each compiles every kernel: ≈15 s)")
    ap.add_argument("--levels", action="store_true", help="also every shipped level cold, then warm (≈ 1 min)")
    ap.add_argument("--wheel", action="store_true", help="with --levels: from a wheel in a fresh venv too")
    ap.add_argument("--ab", metavar="PYTHON", help="with --levels: another checkout's OTHER/.venv/bin/python too, "
                                                    "taking turns level by level")
    ap.add_argument("--only", metavar="LEVELS", help="with --levels: only these shipped levels (comma-separated)")
    ap.add_argument("--rounds", type=int, default=1, help="with --levels: cold+warm runs per level and install, "
                                                           "taking turns; each figure is their median")
    ap.add_argument("--json", type=Path, help="also write the raw figures as JSON")
    ap.add_argument("--write", metavar="DOC", type=Path, help="write the table into DOC between the startup markers")
    args = ap.parse_args(argv)
    rep = run(args)
    table = markdown(rep)
    print(table)
    if args.json:
        args.json.write_text(json.dumps(rep, indent=1))
    if args.write:
        from bench.frames import write_doc  # imports numpy only; this process is done timing
        write_doc(args.write, table, BEGIN, END)
        print(f"wrote {args.write}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
