"""The tendrils' draw, paired in one process: this checkout's DrawTendrils against another's, and each pass's share.

    .venv/bin/python -m bench.tendrils_draw --against ../other        # CPU a frame, this vs that checkout's drawer
    .venv/bin/python -m bench.tendrils_draw --passes                  # what leaving out each pass saves
    .venv/bin/python -m bench.tendrils_draw --against ../other --png /tmp/td   # also frames side by side, 4× crops
    .venv/bin/python -m bench.tendrils_draw --against ../other --sequence --frames 300   # still, whipped, fading
    .venv/bin/python -m bench.tendrils_draw --against ../other --level /tmp/big.toml     # a bigger bundle

tendrils.toml is loaded headless at 1280×720 and its gallery script played (bench.frames's driver). Every
step is drawn by each drawer in turn, into an off-screen framebuffer of its own, the order flipped every
frame, so both see the same scene and the same load; each draw is fenced by `ctx.finish()`. The figure is
the median of this process's CPU time per draw (every thread: the GL rasteriser's threads and the main
thread, whose share is also given). `--against` loads the other checkout's systems/tendrils/draw_tendrils.py as a
module beside ours (same components, same ropework). The pictures are compared every tenth frame: the
largest per-channel difference and the most pixels differing (by any, by more than 8, by more than 32
levels). `--png` saves every 60th frame (other | this) with a 4× crop of 80×60 px about its largest
difference (other | this | difference × 4), and the crop about the largest difference of the run (worst-). `--passes` draws with copies of our drawer
that leave out the fade, the show, the glow stroke, the core stroke or both strokes, and gives what each
saved: where the frame's time goes, paired as above.

Run by hand, never as a test: timings depend on whatever else the machine is doing.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("ARCADE_HEADLESS", "1")
if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SIZE = (1280, 720)
WARMUP = 40             # frames played before timing: the trail and the spark pool fill up


def _other_drawer(checkout: Path):
    path = checkout / "systems" / "tendrils" / "draw_tendrils.py"
    if not path.is_file():
        raise SystemExit(f"bench.tendrils_draw: {path}: no such file (--against takes a checkout's root)")
    spec = importlib.util.spec_from_file_location("ropework.systems._draw_tendrils_other", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.DrawTendrils()


def run(args) -> None:
    import arcade

    from bench.frames import driver
    from ropework.render import Offscreen
    from ropework.scene import Scene
    from ropework.systems.services import gfx
    from ropework.systems.tendrils import draw_tendrils as dt

    win = arcade.Window(64, 64, visible=False)
    ctx = win.ctx
    level = args.level or ROOT / "levels" / "tendrils.toml"
    scene = Scene.load(str(level), size=SIZE)
    shipped = level.parent == ROOT / "levels"                     # its gallery script, or ropework.testing.drive's hand
    drive = _sequence(scene, level) if args.sequence else driver(scene, level if shipped else None)
    warmup = 0 if args.sequence else WARMUP
    slot = next(k for k, d in enumerate(scene.draws) if isinstance(d, dt.DrawTendrils))
    skip = {"now": None, "drawer": "this"}
    drawers = {"this": scene.draws[slot]}
    if args.against:
        drawers["other"] = _other_drawer(Path(args.against))
    if args.passes:
        from arcade.gl.vertex_array import Geometry
        real_render, real_strokes = Geometry.render, gfx.Strokes.draw

        def render(self, program, *a, **k):                     # the fade's and the show's runs of tiles
            gl = drawers[skip["drawer"]]._gl or {}
            if not ((skip["now"] == "fade" and program is gl.get("fade")) or
                    (skip["now"] == "show" and program is gl.get("show"))):
                real_render(self, program, *a, **k)

        def strokes(self, viewport, width_scale=1.0, alpha_scale=1.0, override=None):
            glow = width_scale > 1.5
            if skip["now"] not in ("strokes", "glow" if glow else "core"):
                real_strokes(self, viewport, width_scale, alpha_scale, override)
        real_pair = gfx.Strokes.draw_pair

        def pair(self, viewport, outer, inner):                 # glow and core in one pass: leave out one, or both
            now = skip["now"]
            if now == "glow":
                real_strokes(self, viewport, *inner)
            elif now == "core":
                real_strokes(self, viewport, *outer)
            elif now != "strokes":
                real_pair(self, viewport, outer, inner)
        Geometry.render, gfx.Strokes.draw, gfx.Strokes.draw_pair = render, strokes, pair
        for name in ("fade", "show", "glow", "core", "strokes"):
            drawers["no " + name] = dt.DrawTendrils()
    offs = {k: Offscreen(ctx, SIZE) for k in drawers}
    cpu = {k: [] for k in drawers}
    main = {k: [] for k in drawers}
    diffs = []
    worst = [0]
    order = list(drawers)
    for f in range(warmup + args.frames):
        drive(f)
        scene.step(1)
        for k in (order if f % 2 else order[::-1]):
            skip["now"], skip["drawer"] = (k[3:] if k.startswith("no ") else None), k
            scene.draws[slot] = drawers[k]
            ctx.finish()
            p0, t0 = time.process_time(), time.thread_time()
            offs[k].render(scene)
            ctx.finish()
            if f >= warmup:
                cpu[k].append(time.process_time() - p0)
                main[k].append(time.thread_time() - t0)
        if "other" in drawers and f >= warmup and f % 10 == 0:
            a, b = (offs[k].pixels()[:, :, :3] for k in ("this", "other"))
            d = np.abs(a.astype(int) - b).max(axis=2)
            diffs.append((int(d.max()), int((d > 0).sum()), int((d > 8).sum()), int((d > 32).sum()),
                          _phase(f) if args.sequence else "all"))
            if args.png and (f % 60 == 0 or d.max() > worst[0]):
                from PIL import Image
                args.png.mkdir(parents=True, exist_ok=True)
                y, x = np.unravel_index(int(np.argmax(d)), d.shape)
                y0, x0 = int(np.clip(y - 30, 0, d.shape[0] - 60)), int(np.clip(x - 40, 0, d.shape[1] - 80))
                ring = np.repeat(np.minimum(255, 4 * d)[:, :, None], 3, 2).astype(np.uint8)
                crop = np.concatenate([im[y0:y0 + 60, x0:x0 + 80] for im in (b, a, ring)], 1)
                crop = Image.fromarray(crop).resize((crop.shape[1] * 4, crop.shape[0] * 4), Image.NEAREST)
                name = f"tendrils-{f:04d}" if f % 60 == 0 else "worst"
                if f % 60 == 0:
                    Image.fromarray(np.concatenate([b, a], 1)).save(args.png / f"{name}-other-this.png")
                crop.save(args.png / f"{name}-crop4x-other-this-diff.png")     # 80×60 px about its largest difference
                if d.max() > worst[0]:
                    worst[0] = int(d.max())
                    if f % 60 == 0:
                        crop.save(args.png / "worst-crop4x-other-this-diff.png")
    scene.draws[slot] = drawers["this"]
    scene.close()
    med = {k: 1e3 * statistics.median(v) for k, v in cpu.items()}
    print(f"tendrils.toml at {SIZE[0]}×{SIZE[1]}, {args.frames} frames after {warmup}; 1-minute load "
          f"{os.getloadavg()[0]:.2f}. CPU per draw, median (all threads / main thread), ms:")
    for k in drawers:
        extra = ""
        if k == "other":
            extra = f"   this/other {med['this'] / med['other']:.3f}"
        elif k.startswith("no "):
            extra = f"   saves {med['this'] - med[k]:.2f}"
        print(f"  {k:11s} {med[k]:7.2f} / {1e3 * statistics.median(main[k]):6.2f}{extra}")
    for phase in dict.fromkeys(d[4] for d in diffs):
        got = [d for d in diffs if d[4] == phase]
        print(f"  pictures, {phase} (every 10th frame): max difference {max(d[0] for d in got)}, "
              f"at most {max(d[1] for d in got)} pixels differ (of {SIZE[0] * SIZE[1]}), "
              f"{max(d[2] for d in got)} by more than 8, {max(d[3] for d in got)} by more than 32")


STILL, WHIPPED = 60, 180     # --sequence: frames the pointer holds still, then the gallery script's whip and
                             # electrify to this frame; after it the pointer is still again and the trails fade


def _phase(f: int) -> str:
    return "still" if f < STILL else "whipped" if f < WHIPPED else "fading"


def _sequence(scene, level):
    """--sequence's driver: the pointer still where the script starts, the script once, then still again."""
    from bench.frames import gallery_events
    from ropework import script
    events = gallery_events(level, (scene.width, scene.height))
    start = events[0]

    def drive(f):
        if f == 0:
            script.apply(scene, start)
        elif STILL <= f < WHIPPED:
            script.apply(scene, events.get(f - STILL, ()))
    return drive


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="bench.tendrils_draw", description=__doc__.splitlines()[0])
    ap.add_argument("--against", metavar="CHECKOUT", help="another checkout's root: its DrawTendrils drawn beside ours")
    ap.add_argument("--passes", action="store_true", help="also copies of our drawer each leaving out one pass")
    ap.add_argument("--frames", type=int, default=300, help="timed frames (default 300)")
    ap.add_argument("--level", type=Path, help="another tendrils level than levels/tendrils.toml (a bundle big "
                                               "enough for the CPU stroke painter, say)")
    ap.add_argument("--sequence", action="store_true", help=f"no warm-up; pointer still for {STILL} frames, the "
                    f"gallery script to frame {WHIPPED}, then still (trails fading); pictures compared by phase")
    ap.add_argument("--png", type=Path, help="with --against: save every 60th frame, other | this, here")
    args = ap.parse_args(argv)
    if not args.against and not args.passes:
        ap.error("give --against CHECKOUT, --passes or both")
    run(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
