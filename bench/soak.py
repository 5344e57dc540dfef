"""Soak: every shipped level for an hour of simulated play, headless, watching for slow decay.

    .venv/bin/python -m bench.soak                       # 216,000 steps (an hour at 60 Hz) per level
    .venv/bin/python -m bench.soak --steps 20000 rope.toml
    .venv/bin/python -m bench.soak --json /tmp/soak.json

Each level is driven by the scripted hand of game/testing/drive.py (grabs, throws, clicks,
swipes, focus loss, and idle spells in which autopilots take over) and drawn into an
off-screen framebuffer every `RENDER_EVERY` steps. Checked all along: every float array
finite; after a warm-up, resident memory (/proc/self/statm) grows by less than
`MAX_GROWTH_MB`, the entity count never changes and the number of live GL objects
(arcade's ctx.stats, created − freed) never grows. Exit status 1 if any level fails.
CI runs a short version (tests/game/test_soak.py); the full run is `pytest -m slow` or this.
"""
from __future__ import annotations

import argparse
import ctypes
import gc
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("ARCADE_HEADLESS", "1")   # before anything imports arcade

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

STEPS = 216_000        # an hour at 60 steps per second
SIZE = (800, 600)      # px: the scene and its framebuffer
RENDER_EVERY = 600     # steps between drawn frames: enough to catch GL objects made per frame, cheap
CHECK_EVERY = 1_000    # steps between finite/entity/memory checks
WARMUP = 2_400         # steps before the baselines are taken: four hand cycles, every code path compiled and drawn
MAX_GROWTH_MB = 5.0    # resident memory may grow this much after the warm-up (allocator noise, not a leak)
PAGE = os.sysconf("SC_PAGE_SIZE")
GL_KEYS = ("texture", "framebuffer", "buffer", "program", "vertex_array", "geometry", "compute_shader", "query")


def _libc_trim():
    """glibc's malloc_trim, or None where the C library has none (musl, macOS)."""
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None


_TRIM = _libc_trim()


def rss_mb() -> float:
    """Resident set size of this process, MB, after handing the allocator's free pages back.

    Without the trim, memory freed earlier in the process (a test that ran before, a big
    level) stays resident inside malloc's heap, and a leak that reuses it does not show:
    CI once saw 87 MB hoarded after the warm-up read as no growth at all.
    """
    if _TRIM is not None:
        _TRIM(0)
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE / 2**20


def gl_live(ctx) -> int:
    """GL objects alive in the context: created − freed, over every kind arcade counts."""
    ctx.gc()
    return sum(getattr(ctx.stats, k)[0] - getattr(ctx.stats, k)[1] for k in GL_KEYS if hasattr(ctx.stats, k))


def non_finite(scene) -> list[str]:
    """Component fields holding NaN or ±inf, as "entity.Component.field"."""
    bad = []
    for ent, comps in scene.arrays().items():
        for cname, arrs in comps.items():
            for fname, a in arrs.items():
                if a.dtype.kind in "fc" and not np.isfinite(a).all():
                    bad.append(f"{ent}.{cname}.{fname}")
    return bad


def soak(path, steps: int = STEPS, size=SIZE, render_every: int = RENDER_EVERY, check_every: int = CHECK_EVERY,
         warmup: int = WARMUP, ctx=None, progress=None) -> dict:
    """Run one level; return its figures and a list of failures (empty: it passed)."""
    from ropework.render import Offscreen, headless_window
    from ropework.scene import Scene
    from ropework.testing.drive import Hand
    ctx = ctx or headless_window().ctx
    scene = Scene.load(path, size=size)
    off = Offscreen(ctx, size)
    hand = Hand(*size)
    entities = len(scene.entities())
    failures: list[str] = []
    base_rss = base_gl = None
    peak_rss = 0.0
    gl_now = 0
    t0 = time.perf_counter()
    try:
        for i in range(steps):
            hand.apply(scene, i)
            scene.step(1)
            done = i + 1
            if done % render_every == 0 or done == warmup:
                off.render(scene)
                ctx.finish()
                gl_now = gl_live(ctx)
                if base_gl is not None and gl_now > base_gl:
                    failures.append(f"GL objects grew {base_gl} → {gl_now} by step {done}")
                    base_gl = gl_now   # report each growth once
            if done == warmup:
                gc.collect()
                base_rss, base_gl = rss_mb(), gl_now
            if done % check_every == 0 or done == steps:
                bad = non_finite(scene)
                if bad:
                    failures.append(f"non-finite at step {done}: {', '.join(bad[:5])}")
                    break
                n = len(scene.entities())
                if n != entities:
                    failures.append(f"entity count {entities} → {n} at step {done}")
                    entities = n
                if base_rss is not None:
                    peak_rss = max(peak_rss, rss_mb())
                if progress and done % (check_every * 20) == 0:
                    progress(f"{Path(path).name}: {done}/{steps} steps, {rss_mb():.1f} MB")
        gc.collect()
        end_rss = rss_mb()
        growth = end_rss - base_rss if base_rss is not None else float("nan")
        if base_rss is not None and growth >= MAX_GROWTH_MB:
            failures.append(f"resident memory grew {growth:.1f} MB after the warm-up (limit {MAX_GROWTH_MB})")
        seconds = time.perf_counter() - t0
        return {"level": Path(path).name, "steps": steps, "seconds": round(seconds, 1),
                "ms_per_step": round(1000 * seconds / steps, 3), "entities": entities,
                "points": scene.point_count, "rss_start_mb": round(base_rss or 0.0, 1),
                "rss_end_mb": round(end_rss, 1), "rss_peak_mb": round(max(peak_rss, end_rss), 1),
                "rss_growth_mb": round(growth, 2), "gl_objects_start": base_gl, "gl_objects_end": gl_now,
                "failures": failures}
    finally:
        scene.close()
        del off
        gc.collect()
        ctx.gc()


def main(argv=None) -> int:
    from ropework import level
    p = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__.splitlines()[0])
    p.add_argument("levels", nargs="*", help="level file names in levels/ (default: every shipped level)")
    p.add_argument("--steps", type=int, default=STEPS, help=f"steps per level (default {STEPS})")
    p.add_argument("--json", metavar="OUT", help="also write the figures as JSON")
    args = p.parse_args(argv)
    paths = [level.LEVELS_DIR / Path(n).name for n in args.levels] or level.shipped()
    results = []
    print(f"{'level':16s} {'steps':>7s} {'s':>7s} {'ms/step':>8s} {'ents':>5s} {'RSS MB start→end':>18s} "
          f"{'growth':>7s} {'GL objs':>9s}  result", flush=True)
    for path in paths:
        r = soak(path, args.steps, progress=lambda m: print(f"  … {m}", file=sys.stderr, flush=True))
        results.append(r)
        print(f"{r['level']:16s} {r['steps']:7d} {r['seconds']:7.1f} {r['ms_per_step']:8.3f} {r['entities']:5d} "
              f"{r['rss_start_mb']:8.1f} → {r['rss_end_mb']:7.1f} {r['rss_growth_mb']:+7.2f} "
              f"{r['gl_objects_start']!s:>4s}→{r['gl_objects_end']!s:<4s}  "
              f"{'ok' if not r['failures'] else 'FAIL: ' + '; '.join(r['failures'])}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 1 if any(r["failures"] for r in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
