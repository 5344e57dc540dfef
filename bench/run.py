"""Rope benchmark: the engine against pymunk chains and the pure-Python port, in one run.

    .venv/bin/python -m bench.run                 # W1–W5, every contender (a few minutes)
    .venv/bin/python -m bench.run --quick         # smoke run: fewer repeats, stretch on a rope subset
    .venv/bin/python -m bench.run --levels        # ... plus each shipped level's own step
    .venv/bin/python -m bench.run --workloads W1,W4   # a subset
    .venv/bin/python -m bench.run --write docs/performance.md   # refresh the doc's generated section

Per workload of ../shared/perf/WORKLOADS.md and per contender: the median ms per fixed
step over several timed repeats after a warm-up, with min–max and IQR; the ratios of each
peer to the engine; the stretch reached after 600 steps (max and mean |segment − L| / L);
where the engine's step goes (esper dispatch, each system, each numba kernel called
directly); bytes of engine state per point at W4; the process's peak memory.
Run by hand, never as a test: timings depend on whatever else the machine is doing.
"""
from __future__ import annotations

import argparse
import dataclasses
import math
import os
import platform
import re
import resource
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):   # run as `python bench/run.py`: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("ARCADE_HEADLESS", "1")   # levels import arcade-backed systems; no display here

import numba  # noqa: E402
import numpy as np  # noqa: E402

from bench import host  # noqa: E402
from bench.contenders import CONTENDERS, Engine  # noqa: E402
from bench.workloads import STIFFNESS_STEPS, WORKLOADS, stretch  # noqa: E402
from ropework.systems.services import split  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TARGET_MS = {"W1": 0.5, "W2": 0.5, "W3": 0.5, "W4": 4.0, "W5": 8.0}   # per-step targets (W5: on two cores), ms
SEED_STRETCH = {"W1": 3.8, "W2": 29.0, "W3": 14.3, "W4": 14.3, "W5": 14.3}  # WORKLOADS.md: sequential order, max % of L (W5's ropes are W4's)
STIFF_TOLERANCE = 1.1     # target: max stretch may be at most this × the sequential order's
PEER_MS = {               # WORKLOADS.md, same kind of machine, for reference: Node, pymunk, pure Python
    "W1": (0.011, 0.016, 0.196), "W2": (0.034, 0.057, 0.544),
    "W3": (1.13, 2.34, 17.3), "W4": (12.5, 26.6, 185.0),
}
ENGINE_ONLY = {"W5"}      # workloads timed for the engine alone: pymunk needs ≈4 GB and minutes to build a million bodies, pure Python seconds a step
BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"   # the doc's generated section


@dataclass(frozen=True)
class Budget:
    repeats: int          # timed repeats per contender and workload (the median is over these)
    repeat_s: float       # s of stepping per repeat: small workloads step many times per repeat
    warmup: int           # untimed steps first (numba loads or compiles on the first)
    stiffness_s: float    # s a full 600-step stretch run may take before a rope subset is used
    level_warmup: int     # untimed scene steps before a level is timed


FULL = Budget(repeats=9, repeat_s=0.2, warmup=5, stiffness_s=10.0, level_warmup=60)
QUICK = Budget(repeats=3, repeat_s=0.05, warmup=2, stiffness_s=2.0, level_warmup=10)


@dataclass
class Timing:
    ms: list[float]       # ms per step, one value per repeat
    batch: int            # steps per repeat

    @property
    def median(self) -> float:
        return statistics.median(self.ms)

    @property
    def lo(self) -> float:
        return min(self.ms)

    @property
    def hi(self) -> float:
        return max(self.ms)

    @property
    def iqr(self) -> tuple[float, float]:
        if len(self.ms) < 4:
            return self.lo, self.hi
        q = statistics.quantiles(self.ms, n=4)
        return q[0], q[2]


@dataclass
class Result:
    timing: Timing
    stretch: tuple[float, float]      # max, mean: % of L after 600 steps
    stretch_ropes: str                # "all" or "every k-th rope (n)"


@dataclass
class Report:
    args: argparse.Namespace
    results: dict = field(default_factory=dict)    # (workload id, label) -> Result
    profile: dict = field(default_factory=dict)    # workload id -> {part: ms}
    levels: list = field(default_factory=list)     # (file, points, Timing or error)
    bytes_per_point: float = 0.0
    w4_state_bytes: int = 0
    peak_after_engine_mib: float = 0.0
    peak_mib: float = 0.0
    load: tuple = ()
    load_end: tuple = ()
    seconds: float = 0.0
    argv: list = field(default_factory=list)


def time_steps(step, budget: Budget, one_s: float) -> Timing:
    """Median-ready samples: `repeats` batches of enough steps to fill `repeat_s` each."""
    batch = max(1, round(budget.repeat_s / max(one_s, 1e-7)))
    ms = []
    for _ in range(budget.repeats):
        t = time.perf_counter()
        for _ in range(batch):
            step()
        ms.append((time.perf_counter() - t) / batch * 1e3)
    return Timing(ms, batch)


def one_step_s(c) -> float:
    t = time.perf_counter()
    c.step()
    return time.perf_counter() - t


def run_contender(cls, w, budget: Budget) -> Result:
    """Stretch after 600 steps and the step time, from one world when 600 steps are cheap."""
    c = cls(w)
    for _ in range(budget.warmup):
        c.step()
    est = min(one_step_s(c) for _ in range(3))
    done = budget.warmup + 3
    if est * STIFFNESS_STEPS <= budget.stiffness_s:
        for _ in range(STIFFNESS_STEPS - done):
            c.step()
        st, which = stretch(c.ropes_xy(), w.rest), "all"
        timing = time_steps(c.step, budget, est)
        c.close()
        return Result(timing, st, which)
    timing = time_steps(c.step, budget, est)
    c.close()
    # Ropes never interact: a subset steps bit for bit as inside the whole. Odd stride: all DIRS.
    stride = math.ceil(est * STIFFNESS_STEPS / budget.stiffness_s) | 1
    ids = w.rope_ids(stride)
    sub = cls(w, ids)
    for _ in range(STIFFNESS_STEPS):
        sub.step()
    st = stretch(sub.ropes_xy(), w.rest)
    sub.close()
    return Result(timing, st, f"1 rope in {stride} ({len(ids)} ropes)")


def profile_engine(w, budget: Budget) -> dict:
    """Where the engine's step goes: esper.process vs each system's process() vs its kernel."""
    from ropework.systems import relax as relax_mod
    from ropework.systems.integrate import _NO_EXTRA, integrate
    e = Engine(w)
    for _ in range(budget.warmup):
        e.step()
    pts, con, f, dt, box = e.points, e.constraints, e.forces, e.frame.dt, None   # no box, as the system passes it
    by_name = {proc.system_name: proc for proc in e.processors}
    others = [proc for name, proc in by_name.items() if name not in ("integrate", "relax")]

    def other_systems():
        for proc in others:
            proc.process(e.frame)

    parts = {"esper.process": e.step,
             "integrate.process": lambda: by_name["integrate"].process(e.frame),
             "relax.process": lambda: by_name["relax"].process(e.frame),
             "other systems": other_systems}
    parts["integrate kernel"] = lambda: integrate(pts.pos, pts.prev, pts.inv_mass, f.gravity, _NO_EXTRA,
                                                  f.damping, dt)
    relax_mod.schedule(con, pts.pos.shape)   # what the system keeps on Constraints: the plan, the kernels it calls
    sch = con.schedule
    parts["relax kernel"] = lambda: relax_mod._run(sch.calls, sch.views[5], pts.pos, pts.inv_mass, con.rest,
                                                   con.passes, box, box, con.share)
    parts["schedule"] = lambda: relax_mod.plan(len(pts.pos), True, con.a, con.b)
    out = {"others": sorted(n for n in by_name if n not in ("integrate", "relax"))}
    short = dataclasses.replace(budget, repeat_s=budget.repeat_s / 2)
    for name, fn in parts.items():
        t = time.perf_counter()
        fn()
        out[name] = time_steps(fn, short, time.perf_counter() - t).median
    out["relax ns per segment·pass"] = out["relax kernel"] * 1e6 / (len(con.a) * con.passes)
    e.close()
    return out


def time_levels(budget: Budget) -> list:
    from ropework.scene import Scene
    rows = []
    for path in sorted((ROOT / "levels").glob("*.toml")):
        try:
            scene = Scene.load(path, size=(1280, 720))
        except BaseException as exc:   # levels are being written as this runs: report, carry on
            rows.append((path.name, 0, f"does not load: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"))
            continue
        try:
            scene.step(budget.level_warmup)
            rows.append((path.name, scene.point_count, time_steps(scene.step, budget, one_step_s(scene))))
        except Exception as exc:
            rows.append((path.name, 0, f"step fails: {type(exc).__name__}: {exc}"))
        finally:
            scene.close()
    return rows


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024   # Linux reports KiB


def run(args) -> Report:
    budget = QUICK if args.quick else FULL
    chosen = [w for w in WORKLOADS if w.id in args.workloads]
    rep = Report(args, load=os.getloadavg())
    t0 = time.perf_counter()
    # The engine alone first: its state size, its profile, and the peak memory it needs.
    w4 = next((w for w in chosen if w.id == "W4"), None)
    if w4 is not None:
        e = Engine(w4)
        e.step()   # builds the caches a step keeps (the relax schedule)
        rep.w4_state_bytes = e.state_bytes()
        rep.bytes_per_point = rep.w4_state_bytes / w4.points
        e.close()
    for w in chosen:
        print(f"  {w.id} engine profile …", file=sys.stderr, flush=True)
        rep.profile[w.id] = profile_engine(w, budget)
    rep.peak_after_engine_mib = peak_mib()
    # Then each workload's contenders back to back, so a ratio compares runs minutes apart at most.
    for w in chosen:
        for cls in CONTENDERS:
            if w.id in ENGINE_ONLY and cls is not Engine:
                continue
            print(f"  {w.id} {cls.label} …", file=sys.stderr, flush=True)
            rep.results[w.id, cls.label] = run_contender(cls, w, budget)
    if args.levels:
        print("  levels …", file=sys.stderr, flush=True)
        rep.levels = time_levels(budget)
    rep.peak_mib = peak_mib()
    rep.load_end = os.getloadavg()
    rep.seconds = time.perf_counter() - t0
    return rep


# ── the report ───────────────────────────────────────────────────────────────
def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo, or "unknown CPU"."""
    try:
        return next(ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                    if ln.startswith("model name"))
    except (OSError, StopIteration):
        return "unknown CPU"


def machine() -> str:
    cpu = cpu_model()
    import esper
    import pymunk
    return (f"{cpu}, {os.cpu_count()} cores; Linux {platform.release()}; Python {platform.python_version()}, "
            f"numpy {np.__version__}, numba {numba.__version__}, esper {getattr(esper, '__version__', '3.x')}, "
            f"pymunk {pymunk.version}; {host.label()}")


def fmt(ms: float) -> str:
    return f"{ms:.3g}" if ms < 100 else f"{ms:.0f}"


def markdown(rep: Report) -> str:
    budget = QUICK if rep.args.quick else FULL
    labels = [c.label for c in CONTENDERS]
    ids = [w for w in WORKLOADS if (w.id, "engine") in rep.results]
    out = [f"Machine: {machine()}.  ",
           f"Run: `{' '.join(['python -m bench.run'] + rep.argv)}` on {time.strftime('%Y-%m-%d')}, "
           f"{rep.seconds:.0f} s; 1-minute load average {rep.load[0]:.2f} at the start, {rep.load_end[0]:.2f} at the end "
           f"(other work on the machine shows up as spread).  ",
           f"Each figure is the median of {budget.repeats} timed repeats after {budget.warmup} warm-up steps "
           f"(a repeat is a batch of steps filling ≈{budget.repeat_s * 1e3:.0f} ms); [min–max] beside it.",
           "",
           "### Time per fixed step (ms, median [min–max])",
           "",
           "| workload | points | " + " | ".join(labels) + " | pymunk ÷ engine | pure Python ÷ engine "
           "| target | engine meets it |",
           "|---|---:|" + "---:|" * len(labels) + "---:|---:|---:|:---:|"]
    for w in ids:
        r = {lab: rep.results.get((w.id, lab)) for lab in labels}
        cells = [f"{fmt(x.timing.median)} [{fmt(x.timing.lo)}–{fmt(x.timing.hi)}]" if x else "—" for x in r.values()]
        e = r["engine"].timing.median
        ratio = [f"{r[lab].timing.median / e:.1f}×" if r[lab] else "—" for lab in ("pymunk", "pure Python")]
        target = TARGET_MS[w.id]
        out.append(f"| {w.id} {w.name} | {w.points:,} | " + " | ".join(cells) + " | " + " | ".join(ratio)
                   + f" | ≤ {target:g} | {'yes' if e <= target else f'no ({e / target:.1f}× over)'} |")
    big = [w.id for w in ids if w.points >= split.PARALLEL_POINTS]
    threads = (f" {', '.join(big)}: the engine's step runs on {split.threads()} threads "
               f"(`split.PARALLEL_POINTS` = {split.PARALLEL_POINTS:,} points); every smaller workload on one."
               if big else "")
    out += ["", "Ratios above 1× mean the engine is faster." + threads + " WORKLOADS.md measured the peers on this kind of "
            "machine at (Node, pymunk, pure Python): "
            + "; ".join(f"{w.id} {PEER_MS[w.id][0]:g} / {PEER_MS[w.id][1]:g} / {PEER_MS[w.id][2]:g} ms"
                        for w in ids if w.id in PEER_MS)
            + ".",
            "", "### Stiffness after 600 steps (|segment − L| / L, % — max / mean)", "",
            "| workload | seed's sequential order (max) | " + " | ".join(labels)
            + " | engine max ÷ pure-Python max |",
            "|---|---:|" + "---:|" * len(labels) + "---:|"]
    notes = set()
    for w in ids:
        cells = []
        for lab in labels:
            x = rep.results.get((w.id, lab))
            if not x:
                cells.append("—")
                continue
            mark = ""
            if x.stretch_ropes != "all":
                notes.add(f"{w.id} {lab}: {x.stretch_ropes}")
                mark = "*"
            cells.append(f"{x.stretch[0]:.2f} / {x.stretch[1]:.2f}{mark}")
        e, ref = rep.results[w.id, "engine"], rep.results.get((w.id, "pure Python"))
        ratio = f"{e.stretch[0] / ref.stretch[0]:.3f}" if ref else "—"
        ok = "" if not ref else (" ✓" if e.stretch[0] <= STIFF_TOLERANCE * ref.stretch[0] else " ✗")
        out.append(f"| {w.id} | {SEED_STRETCH[w.id]:g} | " + " | ".join(cells) + f" | {ratio}{ok} |")
    if notes:
        out += ["", "\\* stretch measured on a subset of the ropes, to keep the run short (ropes never touch, so "
                "each one steps exactly as it does in the whole workload): " + "; ".join(sorted(notes)) + "."]
    if rep.profile:
        others = next(iter(rep.profile.values()))["others"]
        out += ["", "### Where the engine's step goes (ms per step, median; each part timed on its own)", "",
                "| workload | whole step (`esper.process`) | integrate kernel | relax kernel "
                "| relax schedule (once per topology, not per step) "
                "| relax ns per segment·pass | Python around the two kernels | other systems "
                "| esper dispatch |",
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for w in ids:
            p = rep.profile.get(w.id)
            if not p:
                continue
            procs = p["integrate.process"] + p["relax.process"] + p["other systems"]
            wrap = p["integrate.process"] + p["relax.process"] - p["integrate kernel"] - p["relax kernel"]
            out.append(f"| {w.id} | {p['esper.process']:.4f} | {p['integrate kernel']:.4f} | {p['relax kernel']:.4f} "
                       f"| {p['schedule']:.4f} | {p['relax ns per segment·pass']:.1f} "
                       f"| {max(wrap, 0.0):.4f} | {p['other systems']:.4f} "
                       f"| {max(p['esper.process'] - procs, 0.0):.4f} |")
        out += ["", f"Other systems: the {len(others)} other registered simulation systems, run on this world with "
                "nothing of theirs to do (" + ", ".join(f"`{o}`" for o in others) + "). Differences of medians "
                "below zero (timing noise) are shown as 0."]
    if rep.levels:
        out += ["", "### Shipped levels: `Scene.load(path, size=(1280, 720))`, ms per `scene.step()`", "",
                "| level | points in `Points` | ms per step, median [min–max] | target ≤ 0.5 |", "|---|---:|---:|:---:|"]
        for name, n, t in rep.levels:
            if isinstance(t, Timing):
                out.append(f"| {name} | {f'{n:,}' if n else '—'} | {fmt(t.median)} [{fmt(t.lo)}–{fmt(t.hi)}] "
                           f"| {'yes' if t.median <= 0.5 else 'no'} |")
            else:
                out.append(f"| {name} | — | {t} | — |")
    out += ["", "### Memory", ""]
    if rep.w4_state_bytes:
        out.append(f"- Engine state at W4: {rep.w4_state_bytes:,} bytes of numpy arrays on the body entity (the "
                   "relax schedule cached on `Constraints` included) for "
                   f"100,000 points = **{rep.bytes_per_point:.1f} bytes per point** (target ≤ 100; GPU-side "
                   "buffers are not counted here: W4 is never drawn).")
    out.append(f"- Process peak RSS (`getrusage` ru_maxrss) after the engine's profile runs (every chosen workload, "
               f"before any peer runs): {rep.peak_after_engine_mib:.0f} MiB (Python, numpy, numba, esper, pymunk, "
               f"arcade imported); whole run including the peers: {rep.peak_mib:.0f} MiB.")
    return "\n".join(out) + "\n"


DOC_HEAD = """# Performance

How fast ropework steps its ropes, measured against pymunk chains and a plain pure-Python
port of the seeds' loop, on the standard workloads of `../shared/perf/WORKLOADS.md`.

Rerun (about two minutes; `--quick` for a smoke run, `--levels` to add each shipped level):

    .venv/bin/python -m bench.run --levels --write docs/performance.md

## Latest results

"""


def write_doc(path: Path, table: str) -> None:
    """Replace the generated section between the markers; everything else is prose and stays."""
    block = f"{BEGIN}\n{table}{END}"
    if path.exists() and BEGIN in (text := path.read_text()) and END in text:
        text = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: block, text, flags=re.S)
    else:
        text = DOC_HEAD + block + "\n"
    path.write_text(text)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer, shorter repeats; stretch on rope subsets")
    ap.add_argument("--levels", action="store_true", help="also time each levels/*.toml scene's step at 1280×720")
    ap.add_argument("--workloads", default="W1,W2,W3,W4,W5", help="comma-separated subset, e.g. W1,W3")
    ap.add_argument("--write", metavar="DOC", type=Path,
                    help="write the table into DOC between the bench markers (e.g. docs/performance.md)")
    args = ap.parse_args(argv)
    args.workloads = [s.strip().upper() for s in args.workloads.split(",") if s.strip()]
    rep = run(args)
    rep.argv = list(sys.argv[1:] if argv is None else argv)
    table = markdown(rep)
    print(table)
    if args.write:
        write_doc(args.write, table)
        print(f"wrote {args.write}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
