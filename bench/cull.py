"""Off-screen culling: the draw with and without it, interleaved in one process, and the pictures.

    .venv/bin/python -m bench.cull                        # every case below
    .venv/bin/python -m bench.cull --only giant,giant-8k --reps 3

Each case is a level loaded headless, stepped a few steps with ropework.testing.drive's hand, then
drawn whole again and again (one framebuffer: `render` and `ctx.finish()`; a picture of several
`Offscreen` bands: every band drawn and read back, as `--record` does), the
cull on and off in turn (A, B, A, B …, so both see the same load; "off" is `gfx.outcodes`
answering "all inside", the code before the cull). The figure is the median CPU time of this
process (every thread, the software rasteriser's included) and wall time per picture, their ratio, and how
many links / stroke samples the draws sent (summed over the bands); the two pictures must be equal (max
difference 0: pixel by pixel up to 4096², past that every band's bytes hashed).

- giant: the 1000 × 1000 shear cloth of tests/game/test_ranges.py's slowest case (≈ 4 M links)
  at its 160 × 90: the cloth is fitted into the window (`cloth.fitted_spacing`), so every link
  is on-screen and the cull can only cost its check;
- giant-8k: the same cloth recorded at 8192 × 8192 (`--record --size 8192x8192`): eight 1024-row
  bands, each of which drew every link before;
- 100k-8k: bench/levels.py's 100,000-point rope scene (2,500 ropes × 40) recorded at 8192 × 8192: its
  strokes stay on the GPU there (`gfx.cpu_paints` weighs the picture's pixels), eight bands;
- cloth, rope, tendrils: the shipped levels at 1280 × 720 (nothing is off-screen: the check's cost);
- offtop: a cloth whose pinned top row hangs below the window (`top` past the height), 640 × 360.

Run by hand, never as a test: timings depend on whatever else the machine is doing.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("ARCADE_HEADLESS", "1")
if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
GIANT = '[[layer]]\nkind = "cloth"\ncols = 1000\nrows = 1000\n'   # the largest cloth the work bound takes:
                                                                  # with shear it would step ≈ 0.45 s, refused
OFFTOP = '[[layer]]\nkind = "cloth"\ncols = 60\nrows = 20\ntop = 900\nfit = 1.0\nwidth = 3.0\n'
CASES = {   # name: (level text or shipped file, size, steps before the timed draws)
    "giant": (GIANT, (160, 90), 2),
    "giant-8k": (GIANT, (8192, 8192), 1),
    "100k-8k": (None, (8192, 8192), 5),
    "cloth": (ROOT / "levels" / "cloth.toml", (1280, 720), 60),
    "rope": (ROOT / "levels" / "rope.toml", (1280, 720), 60),
    "tendrils": (ROOT / "levels" / "tendrils.toml", (1280, 720), 60),
    "offtop": (OFFTOP, (640, 360), 60),
}


def sent(scene) -> int:
    """Links and stroke samples the scene's last draw sent to the GPU."""
    from bench.strokes import strokes_of
    from ropework.systems.services import gfx
    links = sum(x.count for d in scene.draws for v in getattr(d, "_gl", {}).values()
                for x in (v if isinstance(v, tuple) else (v,)) if isinstance(x, gfx.Links))
    return links + sum(s.sent for s in strokes_of(scene))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default=",".join(CASES), help="comma-separated cases: " + ", ".join(CASES))
    ap.add_argument("--reps", type=int, default=5, help="pictures per arm (the 8k case: at most 3)")
    args = ap.parse_args(argv)
    from ropework import script
    from ropework.render import Offscreen, headless_window
    from ropework.scene import Scene
    from ropework.systems.services import gfx
    from ropework.testing.drive import Hand
    ctx = headless_window().ctx
    real = gfx.outcodes
    print(f"load {os.getloadavg()[0]:.1f} (1 min) at start", flush=True)
    with tempfile.TemporaryDirectory(prefix="ropework-cull-") as tmp:
        for name in args.only.split(","):
            text, size, steps = CASES[name]
            if text is None:
                from bench import levels as gen
                text = gen.rope_level(gen.BIG_ROPES, gen.BIG_POINTS)
            path = text if isinstance(text, Path) else Path(tmp) / f"{name}.toml"
            if not isinstance(text, Path):
                path.write_text(text, "utf-8")
            scene = Scene.load(path, size=size, seed=1)
            hand = Hand(*size)
            for f in range(steps):
                script.apply(scene, hand.events(f))
                scene.step(1)
            off = Offscreen(ctx, size)
            times = {"off": [], "on": []}
            counts, pictures = {}, {}
            reps = min(args.reps, 3) if size[0] * size[1] > 4096 * 4096 else args.reps
            for r in range(reps + 1):                    # the first round warms both arms, untimed
                for arm in (("off", "on") if r % 2 == 0 else ("on", "off")):
                    gfx.outcodes = real if arm == "on" else (lambda pos, box: None)
                    try:
                        c, w = time.process_time(), time.perf_counter()
                        off.render(scene)
                        if off.rows < size[1]:               # the other bands are drawn as they are read
                            sums, bands, total = [], set(), 0
                            for strip in off.strips(4):
                                sums.append(hashlib.sha256(strip.tobytes()).hexdigest())
                                if off._band not in bands:   # a band just drawn: what it sent
                                    bands.add(off._band)
                                    total += sent(scene)
                        else:                                # one framebuffer: the draw alone, done
                            ctx.finish()
                        c, w = time.process_time() - c, time.perf_counter() - w
                        if off.rows == size[1]:
                            sums = [hashlib.sha256(s.tobytes()).hexdigest() for s in off.strips(4)]
                    finally:
                        gfx.outcodes = real
                    counts[arm] = total if off.rows < size[1] else sent(scene)
                    if r:
                        times[arm].append((c, w))
                    pictures.setdefault(arm, sums)
            same = pictures["off"] == pictures["on"]
            if size[0] * size[1] <= 4096 * 4096:         # small enough to compare pixel by pixel
                imgs = {}
                for arm in ("off", "on"):
                    gfx.outcodes = real if arm == "on" else (lambda pos, box: None)
                    try:
                        off.render(scene)
                        imgs[arm] = off.pixels().astype(np.int16)
                    finally:
                        gfx.outcodes = real
                diff = int(np.abs(imgs["off"] - imgs["on"]).max())
            else:
                diff = 0 if same else -1                 # -1: some band's bytes differ (their hashes)
            med = {a: (statistics.median(t[0] for t in v), statistics.median(t[1] for t in v)) for a, v in times.items()}
            print(f"{name:9s} {size[0]}x{size[1]}: cull off {med['off'][0] * 1e3:9.1f} ms CPU {med['off'][1] * 1e3:9.1f} wall, "
                  f"on {med['on'][0] * 1e3:9.1f} CPU {med['on'][1] * 1e3:9.1f} wall, ratio on/off CPU "
                  f"{med['on'][0] / med['off'][0]:.3f}; sent {counts['off']:,} → {counts['on']:,}; "
                  f"max pixel difference {diff}; load {os.getloadavg()[0]:.1f}", flush=True)
            off.release()
            scene.close()


if __name__ == "__main__":
    main()
