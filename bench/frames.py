"""Whole frames: every shipped level stepped and drawn headless at 1280×720; draw calls; memory.

    .venv/bin/python -m bench.frames                               # everything (≈ 1 minute)
    .venv/bin/python -m bench.frames --quick                       # smoke run, fewer frames
    .venv/bin/python -m bench.frames --write docs/performance.md   # refresh the doc's frames section
    .venv/bin/python -m bench.frames --only rope,100k --no-memory  # a subset: level stems, 100k, dots100k, scaling, memory
    .venv/bin/python -m bench.frames --window --loaded --write docs/performance.md   # the real window (≈ 6 minutes)
    .venv/bin/python -m bench.frames --window --only rope,tendrils --ab ../other/.venv/bin/python   # interleaved A/B
    .venv/bin/python -m bench.frames --shots /tmp/shots --ab ../other/.venv/bin/python   # pictures, max difference

A *frame* is what the window does sixty times a second, minus the buffer swap: the
pointer events of that frame, one fixed step (`scene.step(1)`), the whole scene drawn
into an off-screen 1280×720 framebuffer (`ropework.render.Offscreen`) and `ctx.finish()`,
so the GL work is really done; nothing is read back. Frames per second is 1 / the
median frame time over the timed frames, after a warm-up.

While timed, every shipped level replays its gallery script (docs/scripts/NAME.txt,
written for 480×270, scaled to the frame and looped), so ropes are dragged and thrown,
tendrils whipped and electrified, the card flung and the dots swiped and clicked.
The generated scenes (`bench/levels.py`: a 100,000-point rope scene, the scaling probes
and, with `--only 1m`, the million-point curtain) are driven by game/testing/drive.py's scripted
hand, the one the soak and the determinism tests use.

Draw calls are `arcade.gl.Geometry.render` calls (game/stats.py `count_draws`),
counted every timed frame. They are also counted at 3 / 300 / 2,500 ropes, at 390 /
≈100,000 dots and with the spark pool empty / full, to show they do not grow with the
number of things drawn.

Memory (`--memory`, part of the full run) is measured in a fresh process that holds
only the 100,000-point rope scene: bytes of state arrays (every numpy array on the
scene's components), bytes of GL buffers alive (every `arcade.gl.Buffer`, sizes summed)
and textures, per simulated point, and the process's peak resident memory.

The studio's panel (E, `--only studio`) is timed in a fresh process with a real window
(it needs a display: Xvfb will do, on the same software GL): what the panel adds to a frame
at 1280×720 — the pointer events it handles, arcade.gui's update, its update and draw,
then `ctx.finish()` — closed, open and idle, and open while the pointer drags a slider,
on every shipped level (`--probe-studio rope,tendrils` for some).

The real window (`--window`) is what a player sees: each scene in a fresh process running
`ropework.cli.main([LEVEL, "--size", "1280x720"])` — `play()`, `PlayWindow`, `arcade.run()`,
the window's own frame pacing and buffer swaps — on an X display (a private Xvfb started here
unless `--display` names one; the software rasteriser through GLX), with the F overlay on and the level's
gallery script (or the scripted hand) played in real time through the window's own pointer
handlers. After `--warmup` seconds it counts `--seconds`: the overlay's FPS readings, a
timestamp after every buffer swap (the outside figure), and CPU seconds of the game process
(all threads) and of the Xvfb process from /proc/PID/stat, per frame. `--loaded` runs each
scene again with a process spinning on the last core; `--ab PYTHON` alternates every probe
with another checkout's interpreter (A/B in one run, the order flipped every round), and
`--rounds N` repeats. `--shots DIR` saves what the window draws after a fixed number of
scripted steps (deterministic), per scene, and with `--ab` the other checkout's picture, a
difference image and the largest per-channel difference: the check for a drawing change.

Run by hand, never as a test: timings depend on whatever else the machine is doing.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):   # run as `python bench/frames.py`: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
if not {"--probe-studio", "--probe-window", "--probe-shot"} & set(sys.argv):   # the studio and the window probe need a real window
    os.environ.setdefault("ARCADE_HEADLESS", "1")   # before anything imports arcade

import numpy as np  # noqa: E402

from bench import levels as gen  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SIZE = (1280, 720)             # px: the frame the targets are set at
SCRIPT_SIZE = (480, 270)       # px: the scene size the gallery scripts are written for (docs/scripts/gallery.sh)
SCRIPT_LOOP = 120              # frames: a gallery script is replayed every this many frames (its recording length)
TARGET_FPS = {"rope.toml": 60, "tendrils.toml": 60, "dotgrid.toml": 60, "lanyard.toml": 30, "100k": 30, "1m": 15}
BIG_SCENES = (   # (--only name, what the log calls it, its level text, its key in the report)
    ("100k", "100,000-point rope scene", lambda: gen.rope_level(gen.BIG_ROPES, gen.BIG_POINTS), "big"),
    ("1m", "1,000,000-point rope scene", lambda: gen.curtain_level(gen.MILLION_ROPES, gen.BIG_POINTS), "million"),
)
MAX_BYTES_PER_POINT = 100      # target: state and GPU buffers per simulated point
BEGIN, END = "<!-- frames:begin -->", "<!-- frames:end -->"   # the doc's generated section for this tool
MEMORY_FRAMES = 90             # frames the memory probe plays: past game/testing/drive.py's first press ...
PRESS_FRAME = 60               # ... which is at this frame (the input system builds its hit index then)


@dataclass(frozen=True)
class Budget:
    warmup: int        # untimed frames first (numba loads its cache, GL objects are made, toys get going)
    frames: int        # timed frames of a shipped level
    big_warmup: int    # the same for the 100,000-point scene, whose frames are slow
    big_frames: int
    profile_frames: int   # frames of the per-draw-call profile (--profile)


FULL = Budget(warmup=60, frames=300, big_warmup=20, big_frames=120, profile_frames=40)
QUICK = Budget(warmup=10, frames=40, big_warmup=5, big_frames=15, profile_frames=10)


@dataclass
class Frames:
    """Per-frame samples of one scene: seconds for the step, for the draw (+ finish), draw calls."""
    name: str
    elements: str      # what the scene holds, as the statistics overlay counts it ("69 points", "390 dots")
    step: list = field(default_factory=list)
    draw: list = field(default_factory=list)
    calls: list = field(default_factory=list)

    @property
    def frame_ms(self) -> float:
        return 1e3 * statistics.median(s + d for s, d in zip(self.step, self.draw))

    @property
    def fps(self) -> float:
        return 1e3 / self.frame_ms

    def pct_ms(self, q: int) -> float:
        """The q-th percentile frame time, ms (how bad the slow frames are)."""
        return 1e3 * float(np.percentile([s + d for s, d in zip(self.step, self.draw)], q))

    @property
    def step_ms(self) -> float:
        return 1e3 * statistics.median(self.step)

    @property
    def draw_ms(self) -> float:
        return 1e3 * statistics.median(self.draw)

    def to_json(self) -> dict:
        return {"name": self.name, "elements": self.elements, "fps": self.fps, "frame_ms": self.frame_ms,
                "p90_ms": self.pct_ms(90), "max_ms": self.pct_ms(100), "step_ms": self.step_ms, "draw_ms": self.draw_ms,
                "calls": sorted(set(self.calls))}


# ── driving a scene ──────────────────────────────────────────────────────────
def gallery_events(level: Path, size=SIZE):
    """frame → events of the level's gallery script scaled to ``size``, or None if it has none."""
    from ropework import script
    path = ROOT / "docs" / "scripts" / f"{level.stem}.txt"
    if not path.is_file():
        return None
    sx, sy = size[0] / SCRIPT_SIZE[0], size[1] / SCRIPT_SIZE[1]
    return {f: [(ev, x * sx, y * sy) for ev, x, y in evs] for f, evs in script.parse(path).items()}


def driver(scene, level: Path | None):
    """A function (frame index) → apply that frame's pointer events to ``scene``."""
    from ropework import script
    events = gallery_events(level, (scene.width, scene.height)) if level is not None else None
    if events is not None:
        return lambda f: script.apply(scene, events.get(f % SCRIPT_LOOP, ()))
    from ropework.testing.drive import Hand
    hand = Hand(scene.width, scene.height)
    return lambda f: hand.apply(scene, f)


def play(scene, off, ctx, drive, warmup: int, frames: int, name: str, before_step=None) -> Frames:
    """Warm up, then time ``frames`` whole frames (events, step, draw, finish)."""
    from ropework.stats import count_draws
    for f in range(warmup):
        drive(f)
        if before_step:
            before_step()
        scene.step(1)
        off.render(scene)
        ctx.finish()
    from ropework.stats import elements
    out = Frames(name, ", ".join(f"{n:,} {label}" for label, n in elements(scene).items()))
    gc.collect()
    with count_draws() as n:
        for f in range(warmup, warmup + frames):
            t0 = time.perf_counter()
            drive(f)
            if before_step:
                before_step()
            scene.step(1)
            t1 = time.perf_counter()
            before = n[0]
            off.render(scene)
            ctx.finish()
            t2 = time.perf_counter()
            out.step.append(t1 - t0)
            out.draw.append(t2 - t1)
            out.calls.append(n[0] - before)
    return out


def call_label(frame) -> str:
    """Who made a draw call: the render system's function, and the gfx class if one made it."""
    via, where = "", "?"
    while frame is not None:
        path = Path(frame.f_code.co_filename)
        if path.name == "gfx.py" and not via and "self" in frame.f_locals:
            via = f" ({type(frame.f_locals['self']).__name__})"
        if path.parent.name == "systems":
            where = f"{path.stem}.{frame.f_code.co_name}"
            break
        frame = frame.f_back
    return where + via


def call_profile(scene, off, ctx, drive, start: int, frames: int) -> dict:
    """GL time of each draw call, alone: ``ctx.finish()`` before and after it (ms, median over frames).

    Returns {"calls": [(label, ms)], "frame_draw_ms": median draw time of the same frames with the
    extra finishes, "cpu_ms": what is left of it, the Python and numpy side of drawing}.
    """
    from arcade.gl import Geometry
    real = Geometry.render
    per_call: dict = {}
    order: list = []
    draws = []

    def render(self, *a, **k):
        ctx.finish()
        label = call_label(sys._getframe(1))
        t = time.perf_counter()
        out = real(self, *a, **k)
        ctx.finish()
        key = (label, sum(1 for x in current if x == label))
        current.append(label)
        if key not in per_call:
            per_call[key] = []
            order.append(key)
        per_call[key].append(time.perf_counter() - t)
        return out
    Geometry.render = render
    try:
        for f in range(start, start + frames):
            current = []
            drive(f)
            scene.step(1)
            t = time.perf_counter()
            off.render(scene)
            ctx.finish()
            draws.append(time.perf_counter() - t)
    finally:
        Geometry.render = real
    calls = [(f"{label}{f' #{n + 1}' if n else ''}", 1e3 * statistics.median(per_call[(label, n)]))
             for label, n in order if len(per_call[(label, n)]) * 2 >= frames]   # calls made in most frames
    draw_ms = 1e3 * statistics.median(draws)
    return {"calls": calls, "frame_draw_ms": draw_ms, "cpu_ms": max(0.0, draw_ms - sum(ms for _, ms in calls))}


def geometry_only(scene, off, ctx, repeats: int = 15) -> float:
    """ms to draw the scene with every pixel scissored away: vertex shading, triangle setup and
    binning (and the Python side) without rasterising; the full draw minus this is the raster."""
    ts = []
    for _ in range(repeats):
        with off.fbo.activate():
            ctx.viewport = (0, 0, *off.size)
            ctx.scissor = (0, 0, 1, 1)
            try:
                t = time.perf_counter()
                scene.draw(ctx)
                ctx.finish()
                ts.append(time.perf_counter() - t)
            finally:
                ctx.scissor = None
    return 1e3 * statistics.median(ts)


def draw_calls(scene, off, ctx, drive, steps: int = 3, before_step=None) -> int:
    """Draw calls in one frame that follows a step (so every layer has something new to draw)."""
    from ropework.stats import count_draws
    for f in range(steps):
        drive(f)
        if before_step:
            before_step()
        scene.step(1)
    with count_draws() as n:
        off.render(scene)
        ctx.finish()
    return n[0]


def fill_sparks(scene) -> int:
    """Every slot of every spark pool alive (a pool is a ring buffer: full is its worst case)."""
    from ropework.components.tendrils import Sparks
    total = 0
    for _, sp in scene.find(Sparks):
        alive = sp.life <= 0
        k = int(alive.sum())
        if k:
            sp.pos[alive] = scene.frame.rng.random((k, 2), dtype=np.float32) * np.float32((scene.width, scene.height))
            sp.life[alive] = 1.0
        total += sp.size
    return total


# ── measurements ─────────────────────────────────────────────────────────────
def machine(ctx=None) -> str:
    from bench import host
    from bench.run import cpu_model
    cpu = cpu_model()
    gl = ""
    if ctx is not None:
        from ropework.systems.services import profile
        gl = (f"; GL: {ctx.info.RENDERER}, OpenGL {'.'.join(map(str, ctx.gl_version))}, "
              f"the {profile.active().name} profile")
    import arcade
    return (f"{cpu}, {os.cpu_count()} cores; Linux {platform.release()}; Python {platform.python_version()}, "
            f"numpy {np.__version__}, arcade {arcade.version.VERSION}{gl}; {host.label()}")


def run(args) -> dict:
    from ropework.render import Offscreen, headless_window
    if getattr(args, "gpu_dots", False):
        from ropework.systems.dotgrid import draw_dots
        draw_dots.splat_pays = lambda *a: False
    budget = QUICK if args.quick else FULL
    ctx = headless_window(*SIZE).ctx
    off = Offscreen(ctx, SIZE)
    rep = {"machine": machine(ctx), "load": os.getloadavg(), "date": time.strftime("%Y-%m-%d"),
           "budget": budget.__dict__, "argv": args.argv, "levels": [], "scaling": {}}
    t_start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="ropework-frames-") as tmp:
        measure(args, budget, ctx, off, rep, Path(tmp))
    rep["load_end"] = os.getloadavg()
    rep["seconds"] = time.perf_counter() - t_start
    return rep


def measure(args, budget: Budget, ctx, off, rep: dict, tmp: Path) -> None:
    from ropework.level import shipped
    from ropework.scene import Scene

    def log(msg):
        print(f"  {msg}", file=sys.stderr, flush=True)

    # 1. every shipped level, scripted
    for path in shipped():
        if args.only and path.stem not in args.only:
            continue
        log(f"{path.name} …")
        scene = Scene.load(path, size=SIZE)
        try:
            drive = driver(scene, path)
            fr = play(scene, off, ctx, drive, budget.warmup, budget.frames, path.name)
            if args.profile:
                rep.setdefault("profiles", {})[path.name] = call_profile(
                    scene, off, ctx, drive, budget.warmup + budget.frames, budget.profile_frames)
        finally:
            scene.close()
        rep["levels"].append(fr.to_json())
        log(f"{path.name}: {fr.fps:.1f} fps, step {fr.step_ms:.2f} ms, draw {fr.draw_ms:.2f} ms, calls {sorted(set(fr.calls))}")

    # 2. the 100,000-point rope scene, and the million-point one (``--only 1m``: not in a full run)
    for big, label, text, key in BIG_SCENES:
        if (args.only or big != "100k") and big not in args.only:
            continue
        log(f"{label} …")
        path = gen.write(tmp / f"rope{big}.toml", text())
        scene = Scene.load(path, size=SIZE)
        try:
            drive = driver(scene, None)
            fr = play(scene, off, ctx, drive, budget.big_warmup, budget.big_frames, big)
            if args.profile:
                prof = rep.setdefault("profiles", {})[big] = call_profile(
                    scene, off, ctx, drive, budget.big_warmup + budget.big_frames, budget.profile_frames)
                prof["geometry_ms"] = geometry_only(scene, off, ctx)
            steps = []
            for _ in range(max(20, budget.big_frames // 2)):
                t = time.perf_counter()
                scene.step(1)
                steps.append(time.perf_counter() - t)
            rep[key] = fr.to_json() | {"step_only_ms": 1e3 * statistics.median(steps),
                                       "ropes": scene.point_count // gen.BIG_POINTS, "points_per_rope": gen.BIG_POINTS}
            if args.png:
                off.render(scene)
                png = args.png if big == "100k" else args.png.with_name(f"{args.png.stem}-{big}{args.png.suffix}")
                off.image().convert("RGB").save(png)
        finally:
            scene.close()
        log(f"{big}: {fr.fps:.1f} fps, step {fr.step_ms:.2f} ms, draw {fr.draw_ms:.2f} ms, calls {sorted(set(fr.calls))}")

    # 2b. the 100,000-dot grid with the look keys (swell, glow, streaks), dotgrid.toml's gallery script
    if not args.only or "dots100k" in args.only:
        log("100,000-dot look grid …")
        gap = gen.gap_for(gen.BIG_DOTS, SIZE)
        path = gen.write(tmp / "dots100k.toml", gen.dot_level(gap) + gen.DOT_LOOK)
        scene = Scene.load(path, size=SIZE)
        try:
            fr = play(scene, off, ctx, driver(scene, ROOT / "levels" / "dotgrid.toml"), budget.big_warmup,
                      budget.big_frames, f"100,000-dot grid, gap {gap:g}, swell + glow + streaks")
        finally:
            scene.close()
        rep["levels"].append(fr.to_json())
        log(f"100k dots: {fr.fps:.1f} fps, step {fr.step_ms:.2f} ms, draw {fr.draw_ms:.2f} ms, calls {sorted(set(fr.calls))}")

    # 3. draw calls against counts
    if not args.only or "scaling" in args.only:
        log("draw calls against counts …")
        sc = rep["scaling"]
        for n in gen.ROPE_COUNTS:
            scene = Scene.load(gen.write(tmp / f"ropes{n}.toml", gen.rope_level(n, 20, ends=True)), size=SIZE)
            sc[f"{n:,} ropes"] = (scene.point_count, draw_calls(scene, off, ctx, driver(scene, None)))
            scene.close()
        for _label, gap in (("dots", None), ("dots", gen.gap_for(gen.BIG_DOTS, SIZE))):
            scene = Scene.load(gen.write(tmp / "dots.toml", gen.dot_level(gap)), size=SIZE)
            from ropework.components.dotgrid import DotGrid
            n = sum(g.n for _, g in scene.find(DotGrid))
            sc[f"{n:,} dots"] = (n, draw_calls(scene, off, ctx, driver(scene, None)))
            scene.close()
        for pool in (None, gen.BIG_SPARKS):
            scene = Scene.load(gen.write(tmp / "tendrils.toml", gen.tendrils_level(pool)), size=SIZE)
            drive = driver(scene, None)
            sc[f"spark pool empty ({'default' if pool is None else f'{pool:,}'} slots)"] = (
                0, draw_calls(scene, off, ctx, drive))
            size = fill_sparks(scene)
            sc[f"spark pool full ({size:,} sparks)"] = (
                size, draw_calls(scene, off, ctx, drive, steps=1, before_step=lambda: fill_sparks(scene)))
            if pool is not None:
                fr = play(scene, off, ctx, drive, budget.warmup // 2, budget.frames // 3, "tendrils, full pool",
                          before_step=lambda: fill_sparks(scene))
                rep["sparks_full"] = fr.to_json() | {"sparks": size}
            scene.close()
        log("draw calls: " + ", ".join(f"{k} {v[1]}" for k, v in sc.items()))

    # 4. memory, in a process of its own
    if not args.only or "studio" in args.only:
        log("studio panel (fresh process, real window) …")
        rep["studio"] = studio_in_child()
        log(f"studio: {rep['studio'] or 'skipped: no display'}")
    if args.memory and (not args.only or "memory" in args.only):
        log("memory (fresh process) …")
        rep["memory"] = memory_in_child()
        log(f"memory: {rep['memory']}")


STUDIO_FRAMES = 60    # frames timed per case of the studio probe, after as many warm-up frames
STUDIO_DRAG_EVENTS = 3  # pointer-drag events a frame while the probe drags a slider (a mouse sends several)


def studio_in_child(levels: str = "all") -> dict | None:
    """`probe_studio` in a process of its own with a real window; None without a display."""
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return None
    env = {k: v for k, v in os.environ.items() if k != "ARCADE_HEADLESS"}
    out = subprocess.run([sys.executable, "-m", "bench.frames", "--probe-studio", levels], cwd=ROOT, check=True,
                         capture_output=True, text=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def probe_studio(levels: str = "all", frames: int = STUDIO_FRAMES) -> dict:
    """Milliseconds the studio's panel adds to a frame (median), per level and case: closed; open
    and idle; open while the pointer drags a live key's slider (passes, else the open layer's
    first live key: a key that rebuilds would time the layer's spawn, not the panel; STUDIO_DRAG_EVENTS
    drag events a frame, through the window's own handlers, as a mouse would). What is timed is
    what the panel does in a frame: the events, arcade.gui's per-frame update, the studio's
    update and draw, then `ctx.finish()`. Closed and open alternate in blocks (closed, open,
    closed, open), so a change in the machine's load falls on both. ``levels``: "all" (every
    shipped level) or stems separated by commas."""
    import pyglet

    from ropework import level as levelmod
    from ropework.controller import Controller
    from ropework.render import Offscreen
    from ropework.scene import Scene
    from ropework.window import PlayWindow
    names = [p.stem for p in levelmod.shipped()] if levels == "all" else levels.split(",")
    out = {}
    for name in names:
        ctl = Controller(Scene.load(name, size=SIZE))
        win = PlayWindow(SIZE, ctl.title)
        win.start(ctl)
        win.set_vsync(False)              # a swap must not wait for a refresh the measurement is not about
        ctx = win.ctx
        off = Offscreen(ctx, SIZE)        # the frame the rest of this benchmark draws into
        scene_times = []

        def timed(n, events=None):
            times = []
            for i in range(n):
                pyglet.app.platform_event_loop.dispatch_posted_events()
                win.dispatch_events()
                ctl.scene.step(1)
                ctx.finish()
                t0 = time.perf_counter()
                off.render(ctl.scene)
                ctx.finish()
                scene_times.append(time.perf_counter() - t0)
                with off.fbo.activate():
                    t0 = time.perf_counter()
                    if events is not None:
                        events(i)
                    view = win.studio.view
                    if view is not None and view.enabled:
                        view.ui.on_update(1 / 60)   # arcade.gui's per-frame update (a field's caret)
                    win.studio.update()
                    win.studio.draw()
                    ctx.finish()
                    times.append(time.perf_counter() - t0)
                win.flip()
            return times[n // 2:]
        closed, idle = [], []
        for _block in range(2):
            closed += timed(frames)
            ctl.toggle_studio()
            idle += timed(frames)
            ctl.toggle_studio()
        ctl.toggle_studio()
        timed(4)
        view = win.studio.view
        sliders = [(k, wd) for k, wd in view._widgets.items() if isinstance(k, tuple) and k[0] == "slider"]
        live = [(k, wd) for k, wd in sliders if ctl.studio.key(k[1], k[2]).live is not None and k[2] != "z"]
        # the slider a player drags to feel a key: passes where there is one, else the first live key's
        slider = next((wd for k, wd in live if k[2] == "passes"), live[0][1] if live else None)
        dragging = []
        if slider is not None:
            x0, x1, y = slider.left + 10, slider.right - 10, slider.center_y

            def send(*event):             # to the window's handlers now (pyglet would queue it for the next frame)
                pyglet.event.EventDispatcher.dispatch_event(win, *event)
            send("on_mouse_press", slider.center_x, y, 1, 0)

            def drag(i):
                for k in range(STUDIO_DRAG_EVENTS):
                    t = ((i * STUDIO_DRAG_EVENTS + k) % 40) / 20
                    x = x0 + (x1 - x0) * (t if t <= 1 else 2 - t)
                    send("on_mouse_drag", x, y, 1, 0, 1, 0)
            dragging = timed(2 * frames, drag)
            send("on_mouse_release", x0, y, 1, 0)
        out[name] = {"closed_ms": 1000 * statistics.median(closed), "open_ms": 1000 * statistics.median(idle),
                     "dragging_ms": 1000 * statistics.median(dragging) if dragging else None,
                     "scene_draw_ms": 1000 * statistics.median(scene_times)}
        win.close()
        ctl.close()
    return out


def memory_in_child(runs: int = 2) -> dict:
    """The probe in a process of its own, twice; the second is kept: a kernel compiled in the first
    (numba's cache is keyed on source files that others may be editing) would inflate the peak."""
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-m", "bench.frames", "--probe-memory"], cwd=ROOT, check=True,
                             capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def state_bytes(scene) -> int:
    """Bytes of every numpy array held by the scene's components (each array counted once)."""
    seen, total = set(), 0
    with scene.active():
        import esper
        for ent in list(esper.get_entities()):
            for comp in esper.components_for_entity(ent):
                for v in vars(comp).values() if hasattr(comp, "__dict__") else ():
                    if isinstance(v, np.ndarray) and id(v) not in seen:
                        seen.add(id(v))
                        total += v.nbytes
    return total


def probe_memory() -> dict:
    """In a fresh process: the 100,000-point rope scene's state and GL bytes, and the peak RSS."""
    from arcade.gl import Buffer, Texture2D

    from ropework.render import Offscreen, headless_window
    from ropework.scene import Scene

    def rss_mib():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

    def gl_bytes():
        gc.collect()
        objs = gc.get_objects()
        return (sum(o.size for o in objs if isinstance(o, Buffer)),
                sum(o.byte_size for o in objs if isinstance(o, Texture2D)))

    ctx = headless_window(*SIZE).ctx
    off = Offscreen(ctx, SIZE)
    base_buf, base_tex = gl_bytes()
    rss = {"before_scene": rss_mib()}
    with tempfile.TemporaryDirectory(prefix="ropework-mem-") as tmp:
        level = gen.write(Path(tmp) / "rope100k.toml", gen.rope_level(gen.BIG_ROPES, gen.BIG_POINTS))
        scene = Scene.load(level, size=SIZE)
        rss["loaded"] = rss_mib()
        drive = driver(scene, None)
        for f in range(MEMORY_FRAMES):
            if f == PRESS_FRAME:
                rss["before_press"] = rss_mib()
                t_press = time.perf_counter()
            drive(f)
            scene.step(1)
            off.render(scene)
            ctx.finish()
            if f == PRESS_FRAME:
                rss["after_press"] = rss_mib()
                press_s = time.perf_counter() - t_press
    state = state_bytes(scene)
    buf, tex = gl_bytes()
    n = scene.point_count
    return {"points": n, "state_bytes": state,
            "gl_buffer_bytes": buf - base_buf, "gl_texture_bytes": tex - base_tex,
            "gl_buffer_bytes_total": buf, "gl_texture_bytes_total": tex,
            "bytes_per_point": (state + buf - base_buf) / n,
            "rss_mib": rss | {"end": rss_mib()}, "press_frame_s": press_s,
            "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


# ── the real window ──────────────────────────────────────────────────────────
WINDOW_SECONDS = 10.0     # s of scripted play timed per scene in the real window (a median over 10 s)
WINDOW_WARMUP = 3.0       # s played first, untimed: kernels load, shaders compile, the toys get going
WINDOW_SCREEN = (1280, 800)   # px: the Xvfb screen the window opens on (the window is SIZE)
WINDOW_BEGIN, WINDOW_END = "<!-- window:begin -->", "<!-- window:end -->"   # the doc's section for --window
WINDOW_TIMEOUT = 240.0    # s one probe may take at most (imports, a cold kernel cache, the play, the exit)


def _cpu_seconds(pid) -> float:
    """utime + stime of process ``pid`` ("self" for this one), all its threads, seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _xvfb_pid(display: str) -> int | None:
    """The pid of the Xvfb serving ``display`` (":65"), found in /proc; None if there is none."""
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            argv = (d / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argv and Path(argv[0].decode(errors="replace")).name == "Xvfb" and display.encode() in argv:
            return int(d.name)
    return None


def probe_window(level: str, seconds: float, warmup: float, xvfb_pid: int | None) -> dict:
    """In a fresh process with a real display: the game as a player runs it (`ropework.cli.main`,
    so `play()`, `PlayWindow`, `arcade.run()` and pyglet's own pacing), the F overlay on, the
    level's gallery script (or ropework.testing.drive's hand) played in real time through the window's
    pointer handlers, then the window closed. Returns the overlay's FPS figures, the frames
    counted from outside (a timestamp after every buffer swap) and CPU seconds per frame of
    this process (all its threads: Python, numba, the GL rasteriser) and of the X server."""
    from ropework import cli
    from ropework import window as win_mod
    real_start = win_mod.PlayWindow.start
    out: dict = {"level": level}

    def start(win, ctl):
        real_start(win, ctl)
        ctl.toggle_stats()                                   # F: the overlay's own figure is part of the reading
        path = Path(level)
        events = gallery_events(path, (win.width, win.height)) if path.stem != "generated" else None
        hand = None
        if events is None:
            from ropework.testing.drive import Hand
            hand = Hand(win.width, win.height)
        t0 = time.perf_counter()
        state = {"f": 0, "down": False, "flips": [], "overlay": [], "cpu0": None}
        real_update, real_flip, real_frame = win._update, win.flip, ctl.rates.frame

        def pointer(kind, x, y):
            wy = win.height - y
            if kind == "move":
                if state["down"]:
                    win.on_mouse_drag(x, wy, 0, 0, 1, 0)
                else:
                    win.on_mouse_motion(x, wy, 0, 0)
            elif kind == "down":
                state["down"] = True
                win.on_mouse_press(x, wy, 1, 0)
            elif kind == "up":
                state["down"] = False
                win.on_mouse_release(x, wy, 1, 0)
            else:
                state["down"] = False
                win.on_mouse_leave(x, wy)

        def update(dt):
            now = time.perf_counter() - t0
            due = int(now * 60)                              # the script's frames are 1/60 s of a hand's time
            for f in range(state["f"], due + 1):
                evs = events.get(f % SCRIPT_LOOP, ()) if events is not None else hand.events(f)
                for kind, x, y in evs:
                    pointer(kind, x, y)
            state["f"] = due + 1
            if now >= warmup and state["cpu0"] is None:
                state["cpu0"] = (time.perf_counter(), _cpu_seconds("self"),
                                 _cpu_seconds(xvfb_pid) if xvfb_pid else None)
            if now >= warmup + seconds:
                win.close()
                return
            real_update(dt)

        def flip():
            real_flip()
            if state["cpu0"] is not None:
                state["flips"].append(time.perf_counter())

        def frame(dt):
            updated = real_frame(dt)
            if updated and state["cpu0"] is not None:
                state["overlay"].append(ctl.rates.fps)
            return updated

        win._update, win.flip, ctl.rates.frame = update, flip, frame
        out["_state"] = state

    win_mod.PlayWindow.start = start
    argv = [level, "--size", f"{SIZE[0]}x{SIZE[1]}"]
    code = cli.main(argv)
    if "_state" not in out:                               # the game refused the level or never opened
        raise SystemExit(f"bench.frames: {level}: the game exited with status {code} before its first frame")
    state = out.pop("_state")
    t_end, cpu_end = time.perf_counter(), _cpu_seconds("self")
    x_end = _cpu_seconds(xvfb_pid) if xvfb_pid else None
    flips = np.asarray(state["flips"])
    t_start, cpu_start, x_start = state["cpu0"]
    n = len(flips)
    gaps = np.diff(flips) if n > 1 else np.asarray([np.nan])
    out |= {"exit": code, "frames": n, "seconds": t_end - t_start,
            "fps_outside": n / (t_end - t_start),
            "fps_median_gap": 1.0 / float(np.median(gaps)),
            "p90_frame_ms": 1e3 * float(np.percentile(gaps, 90)),
            "fps_overlay_median": float(statistics.median(state["overlay"])) if state["overlay"] else float("nan"),
            "overlay_readings": len(state["overlay"]),
            "cpu_ms_per_frame": 1e3 * (cpu_end - cpu_start) / max(n, 1),
            "xvfb_cpu_ms_per_frame": 1e3 * (x_end - x_start) / max(n, 1) if xvfb_pid else None,
            "load": os.getloadavg()}
    return out


class _Xvfb:
    """A private X display (Xvfb) for the window runs, or the one DISPLAY names."""

    def __init__(self, display: str | None):
        self.proc = None
        if display:
            self.display = display
        else:
            n = next(d for d in range(60, 99) if not Path(f"/tmp/.X11-unix/X{d}").exists()
                     and not Path(f"/tmp/.X{d}-lock").exists())
            self.display = f":{n}"
            self.proc = subprocess.Popen(["Xvfb", self.display, "-screen", "0",
                                          f"{WINDOW_SCREEN[0]}x{WINDOW_SCREEN[1]}x24", "-nolisten", "tcp"],
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            end = time.monotonic() + 15
            while not Path(f"/tmp/.X11-unix/X{n}").exists():
                if time.monotonic() > end or self.proc.poll() is not None:
                    raise SystemExit(f"bench.frames: Xvfb {self.display} did not start")
                time.sleep(0.1)
        self.pid = self.proc.pid if self.proc else _xvfb_pid(self.display)

    def close(self):
        if self.proc:
            self.proc.terminate()
            self.proc.wait(10)


class _Busy:
    """A process spinning on one core (the last), for the loaded-machine runs: a build or a browser's share."""

    def __init__(self):
        core = max(os.sched_getaffinity(0))
        self.core = core
        self.proc = subprocess.Popen([sys.executable, "-c", f"import os; os.sched_setaffinity(0, {{{core}}})\nwhile True: pass"])

    def close(self):
        self.proc.terminate()
        self.proc.wait(10)


def window_scenes(only, tmp: Path) -> list[tuple[str, str]]:
    """(name, level argument) of every scene the window runs time: the shipped levels, 100k and
    dots100k (and the million-point scene when ``--only`` names 1m: in a full run it would take minutes)."""
    from ropework.level import shipped
    out = [(p.name, str(p)) for p in shipped() if not only or p.stem in only]
    for big, _label, text, _key in BIG_SCENES:
        if (not only and big == "100k") or big in only:
            d = tmp / big
            d.mkdir()
            out.append((big, str(gen.write(d / "generated.toml", text()))))
    if not only or "dots100k" in only:   # the 100,000-dot look grid, played by the scripted hand
        d = tmp / "dots100k"
        d.mkdir()
        out.append(("dots100k", str(gen.write(d / "generated.toml",
                                              gen.dot_level(gen.gap_for(gen.BIG_DOTS, SIZE)) + gen.DOT_LOOK))))
    return out


def window_run(args) -> dict:
    """Every scene in the real window, idle and (``--loaded``) with a busy process on the other core;
    with ``--ab PYTHON`` the same probes alternate with that interpreter's checkout (A = it, B = ours)."""
    xvfb = _Xvfb(args.display)
    env = {k: v for k, v in os.environ.items() if k != "ARCADE_HEADLESS"} | {"DISPLAY": xvfb.display,
                                                                         "PYTHONDONTWRITEBYTECODE": "1"}
    pythons = [("this", sys.executable)] + ([("ab", args.ab)] if args.ab else [])
    rep = {"machine": machine(), "load": os.getloadavg(), "date": time.strftime("%Y-%m-%d"),
           "argv": args.argv, "seconds_per_scene": args.seconds, "warmup": args.warmup, "rows": []}
    t_all = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory(prefix="ropework-window-") as tmp:
            scenes = window_scenes(args.only, Path(tmp))
            modes = ["idle"] + (["loaded"] if args.loaded else [])
            for rnd in range(args.rounds):
                for name, lvl in scenes:
                    for mode in modes:
                        for who, py in (pythons if rnd % 2 == 0 else pythons[::-1]):
                            busy = _Busy() if mode == "loaded" else None
                            try:
                                r = subprocess.run([py, str(ROOT / "bench" / "frames.py"), "--probe-window", lvl,
                                                    "--seconds", str(args.seconds), "--warmup", str(args.warmup),
                                                    "--xvfb-pid", str(xvfb.pid or 0)],
                                                   cwd=ROOT, env=env, capture_output=True, text=True,
                                                   timeout=WINDOW_TIMEOUT)
                            finally:
                                if busy:
                                    busy.close()
                            if r.returncode != 0:
                                raise SystemExit(f"bench.frames: the window probe of {name} failed:\n{r.stderr[-2000:]}")
                            row = json.loads(r.stdout.strip().splitlines()[-1]) | {
                                "name": name, "mode": mode, "who": who, "python": py, "round": rnd}
                            rep["rows"].append(row)
                            print(f"  {name} {mode} {who}: overlay {row['fps_overlay_median']:.1f} FPS, outside "
                                  f"{row['fps_outside']:.1f} FPS (median gap {row['fps_median_gap']:.1f}), game CPU "
                                  f"{row['cpu_ms_per_frame']:.1f} ms/frame, Xvfb "
                                  f"{float('nan') if row['xvfb_cpu_ms_per_frame'] is None else row['xvfb_cpu_ms_per_frame']:.1f} ms/frame, load "
                                  f"{row['load'][0]:.2f}", file=sys.stderr, flush=True)
    finally:
        xvfb.close()
    rep["load_end"] = os.getloadavg()
    rep["seconds"] = time.perf_counter() - t_all
    return rep


SHOT_STEPS = 150   # fixed steps played before a comparison screenshot (past the gallery script's first loop)


def probe_shot(level: str, out: Path, steps: int = SHOT_STEPS) -> None:
    """In a fresh process with a real display: the game's window (`PlayWindow`, as `play()` opens
    it) plays ``level`` for ``steps`` fixed steps of its gallery script (or the scripted hand),
    drawing every step into the window's own framebuffer as a frame does; the last frame's scene
    (no overlays) is saved to ``out``. Deterministic: the same checkout draws the same picture,
    so two checkouts' pictures differ only by what their drawing does."""
    from ropework import script
    from ropework.controller import Controller
    from ropework.scene import Scene
    from ropework.window import PlayWindow
    scene = Scene.load(level, size=SIZE)
    ctl = Controller(scene)
    win = PlayWindow(SIZE, ctl.title)
    win.start(ctl)
    events = gallery_events(Path(level), SIZE) if Path(level).stem != "generated" else None
    from ropework.testing.drive import Hand
    hand = Hand(*SIZE)
    for f in range(steps):
        win.dispatch_events()
        script.apply(scene, events.get(f % SCRIPT_LOOP, ()) if events is not None else hand.events(f))
        scene.step(1)
        win.switch_to()
        win._draw_scene()
        img = win._grab() if f == steps - 1 else None
        win.flip()
    img.save(out)
    win.close()
    ctl.close()


def shots_run(args) -> dict:
    """A screenshot of every scene drawn by this checkout and (``--ab``) by another; the largest
    per-channel difference and the share of pixels that differ at all, per scene."""
    xvfb = _Xvfb(args.display)
    env = {k: v for k, v in os.environ.items() if k != "ARCADE_HEADLESS"} | {"DISPLAY": xvfb.display,
                                                                         "PYTHONDONTWRITEBYTECODE": "1"}
    args.shots.mkdir(parents=True, exist_ok=True)
    out = {}
    try:
        with tempfile.TemporaryDirectory(prefix="ropework-shots-") as tmp:
            for name, lvl in window_scenes(args.only, Path(tmp)):
                stem = Path(name).stem
                paths = {}
                for who, py in [("after", sys.executable)] + ([("before", args.ab)] if args.ab else []):
                    paths[who] = args.shots / f"{stem}-{who}.png"
                    subprocess.run([py, str(ROOT / "bench" / "frames.py"), "--probe-shot", lvl, str(paths[who])],
                                   cwd=ROOT, env=env, check=True, timeout=WINDOW_TIMEOUT)
                if args.ab:
                    from PIL import Image
                    a, b = (np.asarray(Image.open(paths[w]).convert("RGB")).astype(int) for w in ("before", "after"))
                    d = np.abs(a - b).max(axis=2)
                    Image.fromarray((np.minimum(d * 8, 255)).astype(np.uint8)).save(args.shots / f"{stem}-diff.png")
                    out[name] = {"max": int(d.max()), "differ": float((d > 0).mean()), "over_8": float((d > 8).mean())}
                    print(f"  {name}: max difference {d.max()}, {100 * (d > 0).mean():.3f} % of pixels differ, "
                          f"{100 * (d > 8).mean():.3f} % by more than 8", file=sys.stderr, flush=True)
    finally:
        xvfb.close()
    return out


def window_markdown(rep: dict) -> str:
    """The real-window table: per scene and mode, medians over rounds."""
    rows = rep["rows"]
    load = rep["load"]
    names = list(dict.fromkeys(r["name"] for r in rows))
    whos = list(dict.fromkeys(r["who"] for r in rows))
    modes = list(dict.fromkeys(r["mode"] for r in rows))
    out = [f"Machine: {rep['machine']}.  ",
           f"Run: `python -m bench.frames{''.join(' ' + a for a in rep['argv'])}` on {rep['date']}, "
           f"{rep['seconds']:.0f} s; 1-minute load average {load[0]:.2f} before it, {rep['load_end'][0]:.2f} after"
           + (" — **the machine was busy (load > 1.5 during the run): these figures are pessimistic**"
              if max([load[0], rep["load_end"][0]] + [r["load"][0] for r in rows]) > 1.5 else "") + ".  ",
           f"Each scene is the game itself (`python -m ropework LEVEL --size {SIZE[0]}x{SIZE[1]}`'s `play()`, "
           f"pyglet's event loop and pacing, the F overlay on) on Xvfb with software GL, its gallery script played "
           f"in real time through the window's pointer handlers; {rep['warmup']:g} s untimed, then "
           f"{rep['seconds_per_scene']:g} s timed. *Overlay*: the median of the F overlay's FPS readings; "
           "*outside*: buffer swaps counted per second of wall time; CPU per frame: utime + stime of the game "
           "process (every thread: Python, numba, the GL rasteriser) and of the Xvfb process over the timed seconds "
           "(/proc/PID/stat), divided by the frames. *loaded*: a process spinning on the last core meanwhile.", ""]
    ab = len(whos) > 1
    if ab:
        other = next(r["python"] for r in rows if r["who"] == "ab")
        out += [f"A/B: every probe alternated with `{other}` (another checkout, *before*), one after the other, "
                "so both see the same load; *after* is this checkout.", ""]
    head = ("| scene | mode | FPS, overlay | FPS, outside | frame ms, 90th pct | game CPU ms/frame | Xvfb CPU ms/frame "
            "| load |")
    if ab:
        head = head.replace("| FPS, overlay | FPS, outside | frame ms, 90th pct | game CPU ms/frame |",
                            "| FPS, overlay (before → after) | FPS, outside | frame ms, 90th pct | game CPU ms/frame "
                            "(before → after) | CPU ratio |")
    out += [head, "|---|---|" + "---:|" * (head.count("|") - 3)]

    def med(rs, k):
        vals = [r[k] for r in rs if r[k] is not None]
        return statistics.median(vals) if vals else float("nan")
    for name in names:
        for mode in modes:
            got = {w: [r for r in rows if r["name"] == name and r["mode"] == mode and r["who"] == w] for w in whos}
            if not all(got.values()):
                continue
            label = {"100k": "100,000-point rope scene", "1m": "1,000,000-point rope scene"}.get(name, name)
            a = got["this"]
            load_ = statistics.median(r["load"][0] for rs in got.values() for r in rs)
            if ab:
                b = got["ab"]
                if not med(b, 'cpu_ms_per_frame'):   # the other side's probe drew no frame: say so, no ratio
                    out.append(f"| {label} | {mode} | (no frames) → **{med(a, 'fps_overlay_median'):.1f}** "
                               f"| {med(a, 'fps_outside'):.1f} | {med(a, 'p90_frame_ms'):.1f} "
                               f"| — → **{med(a, 'cpu_ms_per_frame'):.1f}** | — "
                               f"| {med(a, 'xvfb_cpu_ms_per_frame'):.1f} | {load_:.2f} |")
                    continue
                out.append(f"| {label} | {mode} | {med(b, 'fps_overlay_median'):.1f} → **{med(a, 'fps_overlay_median'):.1f}** "
                           f"| {med(a, 'fps_outside'):.1f} | {med(a, 'p90_frame_ms'):.1f} "
                           f"| {med(b, 'cpu_ms_per_frame'):.1f} → **{med(a, 'cpu_ms_per_frame'):.1f}** "
                           f"| {med(a, 'cpu_ms_per_frame') / med(b, 'cpu_ms_per_frame'):.2f} "
                           f"| {med(a, 'xvfb_cpu_ms_per_frame'):.1f} | {load_:.2f} |")
            else:
                out.append(f"| {label} | {mode} | {med(a, 'fps_overlay_median'):.1f} | {med(a, 'fps_outside'):.1f} "
                           f"| {med(a, 'p90_frame_ms'):.1f} | {med(a, 'cpu_ms_per_frame'):.1f} "
                           f"| {med(a, 'xvfb_cpu_ms_per_frame'):.1f} | {load_:.2f} |")
    return "\n".join(out) + "\n"


# ── the report ───────────────────────────────────────────────────────────────
def fmt_ms(ms: float) -> str:
    return f"{ms:.2f}" if ms < 1000 else f"**{ms / 1e3:.1f} s**"


def meets(fps: float, target) -> str:
    if target is None:
        return "—"
    return "yes" if fps >= target else f"no ({target / fps:.1f}× short)"


def markdown(rep: dict) -> str:
    b = rep["budget"]
    load, load_end = rep["load"], rep["load_end"]
    busy = load[0] > 1.5
    out = [f"Machine: {rep['machine']}.  ",
           f"Run: `python -m bench.frames{''.join(' ' + a for a in rep['argv'])}` on {rep['date']}, "
           f"{rep['seconds']:.0f} s; 1-minute load average {load[0]:.2f} before it started"
           + (" — **the machine was busy (load > 1.5): these figures are pessimistic**" if busy else "")
           + f", {load_end[0]:.2f} at the end (the run itself keeps one to two cores busy).  ",
           f"A frame: pointer events, `scene.step(1)`, the scene drawn into a {SIZE[0]}×{SIZE[1]} off-screen "
           "framebuffer, `ctx.finish()`; nothing read back. FPS = 1 / the median frame time over "
           f"{b['frames']} frames after {b['warmup']} warm-up frames ({b['big_frames']} after {b['big_warmup']} for "
           "the 100,000-point scene).", ""]
    if rep["levels"] or rep.get("big") or rep.get("million"):
        out += ["### Frames at 1280×720 (software GL)", "",
                "| scene | holds | FPS (median) | frame ms, median / 90th pct / worst | of which step | of which draw "
                "| draw calls per frame | target | meets it |",
                "|---|---:|---:|---:|---:|---:|---:|---:|:---:|"]
        rows = list(rep["levels"])
        if rep.get("big"):
            big = rep["big"]
            rows.append(big | {"name": f"100,000-point rope scene ({big['ropes']:,} ropes × {big['points_per_rope']})",
                               "key": "100k"})
        if rep.get("million"):
            m = rep["million"]
            rows.append(m | {"name": f"1,000,000-point rope scene ({m['ropes']:,} ropes × {m['points_per_rope']})",
                             "key": "1m"})
        for r in rows:
            key = r.get("key", r["name"])
            target = TARGET_FPS.get(key)
            calls = "–".join(str(c) for c in (r["calls"][0], r["calls"][-1])) if len(r["calls"]) > 1 else str(r["calls"][0])
            out.append(f"| {r['name']} | {r['elements']} | {r['fps']:.0f} | {r['frame_ms']:.2f} / {r['p90_ms']:.2f} / {fmt_ms(r['max_ms'])} "
                       f"| {r['step_ms']:.2f} | {r['draw_ms']:.2f} | {calls} "
                       f"| {'≥ ' + str(target) if target else '—'} | {meets(r['fps'], target)} |")
        if rep.get("big"):
            big = rep["big"]
            out += ["", f"100,000-point scene: `bench/levels.py` `rope_level({big['ropes']}, {big['points_per_rope']})` "
                    f"— WORKLOADS.md's W4 shape (segment {gen.BIG_SEGMENT:g} px, {gen.BIG_PASSES} passes) hanging from "
                    f"the top of the window, {gen.BIG_WIDTH:g} px strokes, no end dots; step alone (no drawing): "
                    f"**{big['step_only_ms']:.1f} ms** ({1e3 / big['step_only_ms']:.0f} steps per second)."]
        if rep.get("million"):
            m = rep["million"]
            out += ["", f"1,000,000-point scene (`--only 1m`): `bench/levels.py` `curtain_level({m['ropes']}, "
                    f"{m['points_per_rope']})` — W5's shape, written as {gen.MILLION_BANDS} repeated `[[layer.rope]]` "
                    f"tables (`count`, `every`); step alone: **{m['step_only_ms']:.1f} ms**."]
        if rep.get("sparks_full"):
            s = rep["sparks_full"]
            out += ["", f"Tendrils with a {s['sparks']:,}-spark pool kept full: {s['fps']:.0f} FPS "
                    f"(step {s['step_ms']:.2f} ms, draw {s['draw_ms']:.2f} ms)."]
    if rep.get("profiles"):
        out += ["", "### Where the drawing time goes", "",
                f"Each draw call timed alone (`ctx.finish()` before and after it; median over {b['profile_frames']} "
                "frames after the timed ones); *CPU side* is the rest of the draw time of the same frames: Python, "
                "numpy and the uploads.", "",
                "| scene | draw ms | GL time of each draw call, ms | CPU side, ms |", "|---|---:|---|---:|"]
        for name, p in rep["profiles"].items():
            name = "100,000-point rope scene" if name == "100k" else name
            calls = "; ".join(f"{label} {ms:.2f}" for label, ms in p["calls"])
            out.append(f"| {name} | {p['frame_draw_ms']:.2f} | {calls} | {p['cpu_ms']:.2f} |")
        if "geometry_ms" in rep["profiles"].get("100k", {}):
            p = rep["profiles"]["100k"]
            out += ["", f"100,000-point scene drawn with every pixel scissored away (vertex shading, triangle "
                    f"setup and binning, uploads): {p['geometry_ms']:.1f} ms of its {p['frame_draw_ms']:.1f} ms; "
                    f"the other {max(0.0, p['frame_draw_ms'] - p['geometry_ms']):.1f} ms is rasterising and "
                    "blending the strokes' pixels."]
    if rep["scaling"]:
        out += ["", "### Draw calls per frame against counts", "",
                "| scene | elements | draw calls in a frame after a step |", "|---|---:|---:|"]
        for k, (n, calls) in rep["scaling"].items():
            out.append(f"| {k} | {n:,} | {calls} |")
    if rep.get("studio"):
        out += ["", f"### The studio's panel (E) at {SIZE[0]}×{SIZE[1]} (a real window on the same software GL)", "",
                "Milliseconds the panel adds to a frame (its events, update and draw, then `ctx.finish()`; "
                f"median of {STUDIO_FRAMES} frames; target ≤ 2 ms open, nothing closed):", "",
                "| level | closed | open, idle | open, a slider dragged | the scene's own draw, same run |",
                "|---|---|---|---|---|"]
        for name, m in rep["studio"].items():
            drag = "no slider" if m["dragging_ms"] is None else f"{m['dragging_ms']:.3f}"
            out.append(f"| {name} | {m['closed_ms']:.3f} | {m['open_ms']:.3f} | {drag} | "
                       f"{m['scene_draw_ms']:.3f} |")
    if rep.get("memory"):
        m = rep["memory"]
        r = m["rss_mib"]
        verdict = "meets" if m["bytes_per_point"] <= MAX_BYTES_PER_POINT else "misses"
        out += ["", "### Memory at 100,000 points (a fresh process holding only that scene, numba's cache warm)", "",
                f"- State: {m['state_bytes']:,} bytes of numpy arrays on the scene's components "
                f"= {m['state_bytes'] / m['points']:.1f} bytes per point.",
                f"- GPU side: {m['gl_buffer_bytes']:,} bytes of GL buffers made for the scene "
                f"= {m['gl_buffer_bytes'] / m['points']:.1f} bytes per point (textures and framebuffers are "
                f"per window, not per point: {m['gl_texture_bytes_total'] / 2**20:.1f} MiB in all).",
                f"- Together: **{m['bytes_per_point']:.1f} bytes per simulated point** (target ≤ {MAX_BYTES_PER_POINT}: "
                f"{verdict} it).",
                f"- Not counted above: the hand's first press (the input system's pymunk hit query, "
                f"`game/hitquery.py`): resident memory grew {r['after_press'] - r['before_press']:.0f} MiB in that "
                f"frame, which took {m['press_frame_s']:.2f} s.",
                f"- Process peak RSS (`getrusage` ru_maxrss): **{m['peak_rss_mib']:.0f} MiB**; resident "
                f"{r['before_scene']:.0f} MiB before the scene was loaded (Python, numpy, numba, arcade, a GL context), "
                f"{r['loaded']:.0f} MiB with it loaded, {r['before_press']:.0f} MiB after {PRESS_FRAME} frames "
                f"(numba's kernels and the software rasteriser's shaders and bins in), {r['after_press']:.0f} MiB after the press."]
    return "\n".join(out) + "\n"


def write_doc(path: Path, table: str, begin: str = BEGIN, end: str = END) -> None:
    """Replace this tool's generated section; if the doc has none yet, add it at the end under its heading."""
    block = f"{begin}\n{table}{end}"
    text = path.read_text() if path.exists() else "# Performance\n"
    if begin in text and end in text:
        text = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: block, text, flags=re.S)
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(text)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.frames", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer frames (a smoke run)")
    ap.add_argument("--only", default="", help="comma-separated subset: level stems (rope, tendrils, …), 100k, "
                    "1m (the million-point scene: only when named), dots100k, scaling, memory, studio")
    ap.add_argument("--gpu-dots", action="store_true", help="draw dot grids with their GPU programs only, never "
                    "the CPU splat: the draw before it, for a before/after")
    ap.add_argument("--no-memory", dest="memory", action="store_false", help="skip the memory probe")
    ap.add_argument("--no-profile", dest="profile", action="store_false",
                    help="skip the per-draw-call profile of each scene")
    ap.add_argument("--json", type=Path, help="also write the raw figures as JSON")
    ap.add_argument("--png", type=Path, help="save the 100,000-point scene's last frame here, to look at")
    ap.add_argument("--write", metavar="DOC", type=Path, help="write the tables into DOC between the frames markers")
    ap.add_argument("--probe-memory", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--probe-studio", nargs="?", const="all", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--render", metavar="JSON", type=Path, help="no measuring: the tables from a --json file")
    ap.add_argument("--window", action="store_true", help="the real window instead: every scene played on Xvfb "
                    "(started here unless --display names one), F overlay and outside figures, CPU per frame")
    ap.add_argument("--loaded", action="store_true", help="with --window: also each scene with a busy process "
                    "on the other core")
    ap.add_argument("--display", help="with --window: the X display to use (default: start a private Xvfb)")
    ap.add_argument("--seconds", type=float, default=WINDOW_SECONDS, help="with --window: timed seconds per scene")
    ap.add_argument("--warmup", type=float, default=WINDOW_WARMUP, help="with --window: untimed seconds first")
    ap.add_argument("--rounds", type=int, default=1, help="with --window: runs of each scene (medians are shown)")
    ap.add_argument("--ab", metavar="PYTHON", help="with --window: alternate every probe with this interpreter "
                    "(another checkout's .venv/bin/python): an interleaved A/B")
    ap.add_argument("--shots", metavar="DIR", type=Path, help="screenshots of every scene in the real window "
                    "into DIR; with --ab also the other checkout's and their differences")
    ap.add_argument("--probe-window", metavar="LEVEL", help=argparse.SUPPRESS)
    ap.add_argument("--probe-shot", nargs=2, metavar=("LEVEL", "PNG"), help=argparse.SUPPRESS)
    ap.add_argument("--xvfb-pid", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.probe_shot:
        probe_shot(args.probe_shot[0], Path(args.probe_shot[1]))
        return 0
    if args.probe_window:
        print(json.dumps(probe_window(args.probe_window, args.seconds, args.warmup, args.xvfb_pid or None)))
        return 0
    if args.probe_memory:
        print(json.dumps(probe_memory()))
        return 0
    if args.probe_studio:
        print(json.dumps(probe_studio(args.probe_studio)))
        return 0
    args.argv, skip = [], False   # the run line shows what shapes the figures, not where files went
    for a in sys.argv[1:] if argv is None else argv:
        if skip or a in ("--json", "--png", "--write", "--render", "--display", "--ab"):
            skip = not skip
            continue
        args.argv.append(a)
    args.only = [s.strip() for s in args.only.split(",") if s.strip()]
    if args.shots:
        shots_run(args)
        return 0
    measure, render, markers = ((window_run, window_markdown, (WINDOW_BEGIN, WINDOW_END)) if args.window
                                else (run, markdown, ()))
    rep = json.loads(args.render.read_text()) if args.render else measure(args)
    table = render(rep)
    print(table)
    if args.json and not args.render:
        args.json.write_text(json.dumps(rep, indent=1, default=str))
    if args.write:
        write_doc(args.write, table, *markers)
        print(f"wrote {args.write}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
