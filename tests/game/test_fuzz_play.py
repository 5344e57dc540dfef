"""Fuzzed play: a hypothesis state machine per shipped level throws everything a window can at a scene.

Rules: pointer move / down / up / leave (anywhere, a little outside the window too, and at
NaN, infinite and absurd coordinates that the input system must drop), focus
lost mid-drag, frames of any length through the window's `Clock` (0, a nanosecond, a
normal frame, 10 s, NaN, negative), minimise and restore, resizes (1×1, slivers, and back),
theme and reduced-motion toggles, reset, reloading the level, and hot reload
(`game.reload.LevelWatcher`) with the file broken and then fixed. After every rule:

- every float array of every component is finite;
- pinned points sit exactly on their pins (`Pins`);
- free points are inside `Bounds` where a body has them;
- no constraint is stretched past its rest length plus the window's diagonal (what a
  pointer can pull across in one step) — a blow-up, not a stiffness test;
- every spark pool keeps its size, and the entity count only changes by a reload;
- a broken level file leaves the running scene in place with a one-line error, and fixing
  the file loads it.

Machines are built for `game.level.shipped()`, so a new level is fuzzed with no edit here.
Examples and steps are kept small so the file runs in well under two minutes.
"""
from __future__ import annotations

import math
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from ropework import level
from ropework.clock import Clock
from ropework.components import Bounds, Constraints, Pins, Points
from ropework.components.tendrils import Sparks
from ropework.scene import Scene
from ropework.schema import LevelError

try:
    from ropework.reload import LevelWatcher
except ImportError:   # hot reload not built: the reload rules are skipped
    LevelWatcher = None

SIZE = (800, 600)                 # px: where every example starts
SIZES = [(1, 1), (2, 3), (1, 600), (800, 1), (320, 240), (1280, 720), (800, 600)]
FRAMES = [0.0, 1e-9, 1e-3, 1 / 60, 1 / 30, 0.05, 0.5, 10.0, math.nan, math.inf, -1.0]   # s: frame lengths
BROKEN = [b"\n[[[", b"\xff\xfe", b"\n[[layer]]\nkind = \"no-such-kind\"\n", b"\nbogus_key_for_fuzz = 1\n"]
WILD = [math.nan, math.inf, -math.inf, 1e30, -1e30, 1e18, 0.0, 400.0]   # px: pointer coordinates, most absurd
PIN_TOLERANCE = 1e-4              # px: pins are written, never integrated, so they sit exactly; float32 slack
BOUNDS_TOLERANCE = 1e-3           # px: a clamp writes the bound itself
EXAMPLES = 10                     # hypothesis examples per level (each builds its scene: the lanyard levels ~0.4 s);
                                  # 10 × 50 rules keeps the suite near ten minutes on the 2-core machine
STEPS = 50                        # rules per example

_COPY = tempfile.TemporaryDirectory(prefix="ropework-fuzz-")
LEVELS = Path(_COPY.name) / "levels"
shutil.copytree(level.LEVELS_DIR, LEVELS)   # edited copies live beside the originals' assets
_copies = iter(range(10**9))

fraction = st.floats(-0.05, 1.05, allow_nan=False)   # of the window's width or height


class Play(RuleBasedStateMachine):
    LEVEL: Path = level.DEFAULT_LEVEL

    def __init__(self):
        super().__init__()
        self.path = LEVELS / f"fuzz-{next(_copies)}-{self.LEVEL.name}"
        self.text = self.LEVEL.read_bytes()
        self.mtime = 1_000_000_000_000_000_000   # ns: set by hand so every save is seen
        self._write(self.text)
        self.scene = Scene.load(self.path, size=SIZE)
        self.clock = Clock()
        self.watcher = LevelWatcher(self.path) if LevelWatcher else None
        self.broken = False
        self._counts()

    def _write(self, data: bytes) -> None:
        self.path.write_bytes(data)
        self.mtime += 1_000_000_000
        os.utime(self.path, ns=(self.mtime, self.mtime))

    def _counts(self) -> None:
        self.entities = len(self.scene.entities())
        self.sparks = [s.size for _, s in self.scene.find(Sparks)]

    def _adopt(self, new: Scene) -> None:
        old, self.scene = self.scene, new
        old.close()
        self._counts()

    def teardown(self):
        self.scene.close()
        self.path.unlink(missing_ok=True)

    # ── the pointer ─────────────────────────────────────────────────────────
    def _at(self, u, v):
        return u * self.scene.width, v * self.scene.height

    @rule(u=fraction, v=fraction)
    def move(self, u, v):
        self.scene.pointer_move(*self._at(u, v))

    @rule(u=fraction, v=fraction)
    def down(self, u, v):
        self.scene.pointer_down(*self._at(u, v))

    @rule(u=fraction, v=fraction)
    def up(self, u, v):
        self.scene.pointer_up(*self._at(u, v))

    @rule()
    def leave(self):
        self.scene.pointer_leave()

    @rule(kind=st.sampled_from(["move", "down", "up"]), x=st.sampled_from(WILD), y=st.sampled_from(WILD))
    def wild_pointer(self, kind, x, y):
        """Coordinates no window sends but the headless API and a broken driver can: dropped."""
        getattr(self.scene, f"pointer_{kind}")(x, y)
        self.scene.step(1)

    @rule(u=fraction, v=fraction, steps=st.integers(1, 20))
    def drag_then_lose_focus(self, u, v, steps):
        """Press on something, drag for a while, and lose the window's focus mid-drag."""
        x, y = self._at(u, v)
        self.scene.pointer_down(x, y)
        for i in range(steps):
            self.scene.pointer_move(x + 9 * i, y + 5 * i)
            self.scene.step(1)
        self.scene.pointer_leave()
        self.scene.step(1)

    # ── time ────────────────────────────────────────────────────────────────
    @rule(dt=st.sampled_from(FRAMES))
    def frame(self, dt):
        self.scene.step(self.clock.advance(dt))

    @rule(n=st.integers(1, 40))
    def steps(self, n):
        self.scene.step(n)

    @rule()
    def minimise_and_restore(self):
        self.clock.pause()
        assert self.clock.advance(10.0) == 0
        self.clock.resume()
        assert self.clock.advance(1 / 60) == 0   # the first frame back is dropped: no jump

    # ── the window ──────────────────────────────────────────────────────────
    @rule(size=st.sampled_from(SIZES))
    def resize(self, size):
        self.scene.resize(*size)

    @rule()
    def theme(self):
        self.scene.toggle_theme()

    @rule()
    def reduced_motion(self):
        if hasattr(self.scene, "toggle_reduced_motion"):
            self.scene.toggle_reduced_motion()

    @rule()
    def reset(self):
        self.scene.reset()

    @rule()
    def reload(self):
        """Open the level again at the current size (N/P and the number keys do this); a broken
        file is refused and the running scene stays."""
        try:
            new = Scene.load(self.path, size=(self.scene.width, self.scene.height))
        except LevelError as e:
            assert self.broken and len(str(e).splitlines()) == 1
            return
        assert not self.broken
        self._adopt(new)

    # ── hot reload ──────────────────────────────────────────────────────────
    @precondition(lambda self: self.watcher is not None and not self.broken)
    @rule(damage=st.sampled_from(BROKEN))
    def break_the_file(self, damage):
        self._write(self.text + damage)
        running = self.scene
        assert self.watcher.poll(self.scene) is None, "a broken file must not replace the scene"
        assert self.scene is running
        err = self.watcher.error
        assert err and len(err.splitlines()) == 1 and str(self.path) in err, err
        self.scene.step(2)                          # the old scene keeps running
        self.broken = True

    @precondition(lambda self: self.watcher is not None and self.broken)
    @rule()
    def fix_the_file(self):
        self._write(self.text)
        new = self.watcher.poll(self.scene)
        assert new is not None and self.watcher.error is None
        self._adopt(new)
        self.broken = False

    @precondition(lambda self: self.watcher is not None)
    @rule()
    def delete_and_restore_the_file(self):
        self.path.unlink()
        assert self.watcher.poll(self.scene) is None and self.watcher.error
        self._write(self.text)
        new = self.watcher.poll(self.scene)
        assert new is not None
        self._adopt(new)
        self.broken = False

    # ── invariants ──────────────────────────────────────────────────────────
    @invariant()
    def finite(self):
        for ent, comps in self.scene.arrays().items():
            for cname, arrs in comps.items():
                for fname, a in arrs.items():
                    if a.dtype.kind == "f":
                        assert np.isfinite(a).all(), f"{self.LEVEL.name}: {ent}.{cname}.{fname} not finite"

    @invariant()
    def pins_hold(self):
        for ent, pins in self.scene.find(Pins):
            pts = self.scene.component(ent, Points)
            err = np.abs(pts.pos[pins.index] - pins.anchor).max(initial=0.0)
            assert err <= PIN_TOLERANCE, f"{self.LEVEL.name}: a pinned point is {err} px off its pin"
            assert (pts.inv_mass[pins.index] == 0).all()

    @invariant()
    def inside_bounds(self):
        if self.scene.frame.steps == 0:   # a fresh build lays bodies out as the level says; the first step clamps
            return
        for ent, box in self.scene.find(Bounds):
            pts = self.scene.component(ent, Points)
            free = pts.pos[pts.inv_mass > 0]
            lo, hi = np.minimum(box.lo, box.hi), np.maximum(box.lo, box.hi)   # a window under 2·margin inverts it
            assert (free >= lo - BOUNDS_TOLERANCE).all() and (free <= hi + BOUNDS_TOLERANCE).all(), \
                f"{self.LEVEL.name}: a free point left its bounds"

    @invariant()
    def stretch_bounded(self):
        reach = math.hypot(self.scene.width, self.scene.height) + 2 * max(SIZE)
        for ent, c in self.scene.find(Constraints):
            pts = self.scene.component(ent, Points)
            length = np.linalg.norm(pts.pos[c.a] - pts.pos[c.b], axis=1)
            worst = float((length - c.rest - reach).max(initial=-1.0))
            assert worst <= 0, f"{self.LEVEL.name}: a constraint is stretched {worst:.1f} past rest + window"

    @invariant()
    def pools_and_entities_constant(self):
        assert len(self.scene.entities()) == self.entities
        assert [s.size for _, s in self.scene.find(Sparks)] == self.sparks


SETTINGS = settings(max_examples=EXAMPLES, stateful_step_count=STEPS, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

for _path in level.shipped():
    _name = "".join(w.capitalize() for w in _path.stem.replace("-", "_").split("_"))
    _machine = type(f"Play{_name}", (Play,), {"LEVEL": _path})
    _machine.TestCase.settings = SETTINGS
    globals()[f"TestPlay{_name}"] = _machine.TestCase


def test_a_machine_per_shipped_level():
    names = {n for n in globals() if n.startswith("TestPlay")}
    assert len(names) == len(level.shipped()) > 0


def test_the_level_copies_load():
    """The machines play copies beside the originals' files; each copy loads like its original."""
    for p in level.shipped():
        try:
            level.load(LEVELS / p.name)
        except LevelError as e:   # pragma: no cover - a shipped level must load
            raise AssertionError(str(e)) from None


def test_non_finite_and_absurd_pointer_coordinates_are_dropped():
    """NaN, ±inf and 1e30 through the headless API leave every shipped level finite (they are
    dropped by the input system; 1e30 would overflow float32 distances)."""
    for path in level.shipped():
        scene = Scene.load(path, size=SIZE)
        try:
            scene.pointer_move(400, 100)
            scene.pointer_down(400, 100)
            scene.step(3)
            for v in WILD[:5]:
                scene.pointer_move(v, -v)
                scene.pointer_down(v, 3.0)
                scene.step(2)
            scene.pointer_up(400, 100)
            scene.step(3)
            assert 0 <= scene.pointer.x <= SIZE[0] and 0 <= scene.pointer.y <= SIZE[1]
            for _ent, comps in scene.arrays().items():
                for cname, arrs in comps.items():
                    for fname, a in arrs.items():
                        assert a.dtype.kind != "f" or np.isfinite(a).all(), f"{path.name}: {cname}.{fname}"
        finally:
            scene.close()
