"""A running scene: one esper world built from a level — the headless API.

    from ropework.scene import Scene
    scene = Scene.load("rope", size=(800, 600), seed=1)
    scene.pointer_down(400, 100); scene.step(30); scene.pointer_up(400, 100)
    state = scene.arrays()      # {entity: {"Points": {"pos": ..., ...}, ...}}
    scene.close()               # deletes the world

Coordinates are scene pixels: origin at the top-left, y down, as the seeds.
Same level, seed and input give bit-identical arrays.
"""
from __future__ import annotations

import dataclasses
import hashlib
import itertools
import math
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import esper
import numpy as np

from ropework import kinds
from ropework.components import Frame, Layer, Pointer, Points
from ropework.components.frame import STEP
from ropework.level import Level, frame, load, resolve
from ropework.systems import pipeline

_names = itertools.count(1)
C = TypeVar("C")    # a component class, as `Scene.find` returns its instances
MAX_SIZE = 16384.0   # px a side at most (GL's usual texture limit): a resize to inf or 1e30 is cut to this

BACKGROUND = {"light": (0.957, 0.957, 0.945, 1.0), "dark": (0.067, 0.067, 0.075, 1.0)}


class Scene:
    def __init__(self, level: Level, size=(1280, 720), seed: int | None = None,
                 reduced_motion: bool | None = None):
        self.level = level
        self.seed = level.seed if seed is None else int(seed)
        self.world = f"ropework-scene-{next(_names)}"
        self.theme = level.theme
        self.reduced_motion = level.reduced_motion if reduced_motion is None else bool(reduced_motion)
        self.width, self.height = fit_size(*size[:2])
        self.document: str | None = None   # the level file's text as the studio edited it; None: the file as it is
        self.tap = None                    # called (steps so far, kind, x, y) with each pointer event: a recorder
        self.interpolate = level.interpolate   # draw between the last two steps (`draw`'s alpha); V toggles
        self._before: dict = {}            # (entity, component, field) -> that field before the last step
        self._drawn: dict = {}             # the same keys -> scratch arrays the interpolated fields are drawn from
        self.strain = False                # the strain overlay (B): kept across rebuilds, as the theme
        self._closed = False
        self.builds = 0
        self._build()

    @classmethod
    def load(cls, path, size=(1280, 720), seed: int | None = None, reduced_motion: bool | None = None):
        """A scene of the level file ``path``, or of a shipped level by name (``"rope"``) or number."""
        size = fit_size(*size[:2])
        return cls(load(resolve(str(path)), size), size, seed, reduced_motion)

    # ── the world ────────────────────────────────────────────────────────────
    @contextmanager
    def active(self):
        """Make this scene's world esper's current one for the block."""
        self._check_open()
        previous = esper.current_world
        esper.switch_world(self.world)
        try:
            yield
        finally:
            if previous in esper.list_worlds():
                esper.switch_world(previous)

    def _check_open(self) -> None:
        if self._closed:
            raise SceneClosed(f"the scene of {self.level.path.name} is closed; open another with Scene.load(...)")

    def _build(self, relaid: bool = False, renumber=None) -> None:
        """Build the world from the level. ``renumber`` (a restore's): given the spawned
        [(entity, layer name or None, None)], it returns {entity: the id it must have}."""
        self._check_open()
        self.frame = Frame(dt=STEP, t=0.0, width=self.width, height=self.height,
                           rng=np.random.default_rng(self.seed), reduced_motion=self.reduced_motion,
                           theme=self.theme, relaid=relaid, strain=self.strain)
        self._before = {}
        self.builds += 1   # +1 a build or a restore: a state held from before is of another time (the rewind ring drops it)
        self._drop_world()   # a rebuild starts from an empty world
        with self.active():
            self.pointer_entity = esper.create_entity(Pointer())
            self.layers = sorted((Layer(c["name"], c["kind"], c["z"]) for c in self.level.layers),
                                 key=lambda layer: layer.z)
            for cfg in self.level.layers:
                layer = next(lay for lay in self.layers if lay.name == cfg["name"])
                kinds.KINDS[cfg["kind"]].spawn(cfg, layer, self.frame)
            if renumber is not None:
                self._renumber(renumber)
            self.processors, self.draws = pipeline.install(self.systems())

    def _renumber(self, renumber) -> None:
        """Give the world's entities the ids ``renumber`` asks for (esper numbers from 1 up, so
        ids left out are taken by placeholders and freed again)."""
        rows: list[tuple[int, str | None, tuple]] = []
        for ent in sorted(esper.get_entities()):
            comps: tuple = esper.components_for_entity(ent)
            lay = next((c for c in comps if isinstance(c, Layer)), None)
            rows.append((ent, None if lay is None else lay.name, comps))
        ids = renumber([(e, lay, None) for e, lay, _ in rows])
        if all(ids[e] == e for e, _, _ in rows):
            return
        esper.clear_database()
        spare = []
        for ent, _, comps in sorted(rows, key=lambda r: ids[r[0]]):
            want = ids[ent]
            while (made := esper.create_entity()) < want:
                spare.append(made)
            if made != want:
                raise ValueError(f"entity ids out of order: {made} made, {want} wanted")
            for c in comps:
                esper.add_component(want, c)
            if ent == self.pointer_entity:
                self.pointer_entity = want
        for e in spare:
            esper.delete_entity(e, immediate=True)

    def kinds(self) -> list[kinds.Kind]:
        """The scene's kinds, once each, topmost layer first."""
        by_z = sorted(self.level.layers, key=lambda c: -c["z"])
        return [kinds.KINDS[n] for n in dict.fromkeys(c["kind"] for c in by_z)]

    def systems(self) -> list[pipeline.SystemSpec]:
        """The systems this scene runs, in run order: the core ones, its kinds' and the level's opt-ins."""
        return [spec for spec, _ in frame(self.level)]

    def close(self) -> None:
        """Delete the scene's world and everything in it. Afterwards every call but close raises SceneClosed."""
        self._drop_world()
        self._closed = True

    def _drop_world(self) -> None:
        if self.world in esper.list_worlds():
            if esper.current_world == self.world:
                esper.switch_world("default")
            esper.delete_world(self.world)

    # ── time ─────────────────────────────────────────────────────────────────
    @property
    def still(self) -> bool:
        """Reduced motion in a scene one of whose kinds then holds still (seed 001's loop: one frame
        painted, then no loop): steps do nothing and pointer input is dropped."""
        return self.reduced_motion and any(k.still_when_reduced for k in self.kinds())

    def themes(self) -> tuple[str, ...]:
        """The themes every kind of the scene reads well in (T toggles between them)."""
        ok = [t for t in ("light", "dark") if all(t in k.themes for k in self.kinds())]
        return tuple(ok) or (self.theme,)

    def step(self, n: int = 1, each=None) -> None:
        """Advance ``n`` fixed steps of 1/60 s (none while `still`); ``each(scene)``, if given, is
        called after every step (the rewind ring's capture)."""
        if self.still:
            self.pointer.events.clear()
            return
        with self.active():
            for i in range(n):
                if i == n - 1:
                    self._keep_before()
                esper.process(self.frame)
                self.frame.steps += 1
                self.frame.t = self.frame.steps * self.frame.dt
                if each is not None:
                    each(self)

    @property
    def t(self) -> float:
        return self.frame.t

    # ── interpolated drawing ─────────────────────────────────────────────────
    def smoothed(self) -> list[tuple[int, object, str]]:
        """(entity, component, field) of every field drawn interpolated: what each layer's kind
        names in `Kind.smooth` (a body's Points.pos; the lanyard's card pose too)."""
        out: list[tuple[int, object, str]] = []
        with self.active():
            for ent, lay in sorted(esper.get_component(Layer), key=lambda e: e[0]):
                for cls, name in kinds.KINDS[lay.kind].smooth:
                    comp = esper.try_component(ent, cls)
                    if comp is not None:
                        out.append((ent, comp, name))
        return out

    def _keep_before(self) -> None:
        """Copy each smoothed field as it is before the step about to run (the frame's last), into
        buffers kept from the previous frame: one copy of the positions a frame, not a step."""
        if not self.interpolate:
            self._before = {}
            return
        kept = {}
        for ent, comp, name in self.smoothed():
            cur, key = getattr(comp, name), (ent, type(comp).__name__, name)
            buf = self._before.get(key)
            if buf is None or buf.shape != cur.shape or buf.dtype != cur.dtype:
                buf = np.array(cur)
            else:
                np.copyto(buf, cur)
            kept[key] = buf
        self._before = kept

    def forget_before(self) -> None:
        """The state jumped (a restore, a rewind): draw it as it is until the next step."""
        self._before = {}

    def _lerp(self, alpha: float) -> list[tuple[object, str, np.ndarray]]:
        """Put ``before + (now - before) * alpha`` (in the field's dtype) in each smoothed field for
        drawing; return (component, field, the step's array) to put back."""
        swapped = []
        for ent, comp, name in self.smoothed():
            cur, key = getattr(comp, name), (ent, type(comp).__name__, name)
            before = self._before.get(key)
            if before is None or before.shape != cur.shape or before.dtype != cur.dtype:
                continue                       # spawned since the last step: drawn where it is
            out = self._drawn.get(key)
            if out is None or out.shape != cur.shape or out.dtype != cur.dtype:
                out = self._drawn[key] = np.empty_like(cur)
            np.subtract(cur, before, out=out)
            np.multiply(out, out.dtype.type(alpha), out=out)
            np.add(out, before, out=out)
            setattr(comp, name, out)
            swapped.append((comp, name, cur))
        return swapped

    # ── input ────────────────────────────────────────────────────────────────
    @property
    def pointer(self) -> Pointer:
        with self.active():
            return esper.component_for_entity(self.pointer_entity, Pointer)

    def _event(self, kind: str, x: float = 0.0, y: float = 0.0) -> None:
        self.pointer.events.append((kind, float(x), float(y)))
        if self.tap is not None and not self.still:
            self.tap(self.frame.steps, kind, float(x), float(y))

    def pointer_move(self, x: float, y: float) -> None:
        self._event("move", x, y)

    def pointer_down(self, x: float, y: float) -> None:
        self._event("down", x, y)

    def pointer_up(self, x: float, y: float) -> None:
        self._event("up", x, y)

    def pointer_leave(self) -> None:
        """The pointer left the window, or the window lost focus: ends any grab."""
        self._event("leave")

    # ── scene controls ───────────────────────────────────────────────────────
    def resize(self, width: float, height: float) -> None:
        """Re-lay the scene for a new viewport (the seeds re-seed on resize)."""
        width, height = fit_size(width, height, (self.width, self.height))
        self._check_open()
        if (width, height) != (self.width, self.height):
            self.width, self.height = width, height
            self._build(relaid=True)

    def reset(self) -> None:
        self._build()

    def toggle_theme(self) -> str:
        """The other theme, where the scene's kinds have two (`themes`); the one it has otherwise."""
        themes = self.themes()
        if len(themes) > 1:
            self.theme = "dark" if self.theme == "light" else "light"
        elif self.theme not in themes:
            self.theme = themes[0]
        self.frame.theme = self.theme
        return self.theme

    def toggle_reduced_motion(self) -> bool:
        """Flip reduced motion for the running scene (systems read it every step) and its resets."""
        self.reduced_motion = self.frame.reduced_motion = not self.reduced_motion
        return self.reduced_motion

    # ── reading state ────────────────────────────────────────────────────────
    def entities(self) -> list[int]:
        with self.active():
            return sorted(esper.get_entities())

    def component(self, ent: int, cls):
        with self.active():
            return esper.component_for_entity(ent, cls)

    def find(self, cls: type[C]) -> list[tuple[int, C]]:
        """Every (entity, component) of a type, in entity order."""
        with self.active():
            return sorted(esper.get_component(cls), key=lambda ec: ec[0])

    def arrays(self) -> dict[int, dict[str, dict[str, np.ndarray]]]:
        """Every entity's numpy component fields (copies), keyed by component class name; a field
        declared ``field(compare=False)`` is a cache, remade from the others, and left out."""
        out: dict = {}
        with self.active():
            for ent in sorted(esper.get_entities()):
                comps: dict[str, dict[str, np.ndarray]] = {}
                comp: object
                for comp in esper.components_for_entity(ent):
                    if dataclasses.is_dataclass(comp):
                        arrs = {f.name: np.array(getattr(comp, f.name)) for f in dataclasses.fields(comp)
                                if f.compare and isinstance(getattr(comp, f.name), np.ndarray)}
                        if arrs:
                            comps[type(comp).__name__] = arrs
                out[ent] = comps
        return out

    def state_hash(self) -> str:
        """SHA-256 over every state array, in a fixed order: equal hashes, equal state."""
        h = hashlib.sha256()
        for ent, comps in self.arrays().items():
            for cname in sorted(comps):
                for fname in sorted(comps[cname]):
                    a = comps[cname][fname]
                    h.update(f"{ent}.{cname}.{fname}{a.dtype}{a.shape}".encode())
                    h.update(np.ascontiguousarray(a).tobytes())
        return h.hexdigest()

    # ── snapshots (ropework.snapshot; format: docs/snapshots.md) ─────────────
    def snapshot(self, path) -> Path:
        """Save the whole running state (components, pointer and grab, random generator, clock,
        the level as edited) to ``path``; `restore` brings it back exactly."""
        from ropework import snapshot
        return snapshot.save(self, path)

    def restore(self, path) -> None:
        """Bring this scene to the state saved in ``path`` (a snapshot of this scene's level
        file, unchanged since); SnapshotError, one line, and the scene as it was, otherwise."""
        from ropework import snapshot
        snapshot.restore(self, path)

    @classmethod
    def from_snapshot(cls, path, level_path=None):
        """A scene restored from a snapshot; its level file is the one the snapshot names unless
        ``level_path`` says otherwise."""
        from ropework import snapshot
        header, _ = snapshot.read(path)
        lv_path = Path(level_path if level_path is not None else header["level"].get("path", ""))
        sc = header["scene"]
        try:
            size = fit_size(float(sc["width"]), float(sc["height"]))
        except (KeyError, TypeError, ValueError):
            raise snapshot.SnapshotError(path, "corrupt: the header's scene has no width and height") from None
        scene = cls(load(lv_path, size), size)
        try:
            scene.restore(path)
        except BaseException:
            scene.close()
            raise
        return scene

    @property
    def point_count(self) -> int:
        return sum(p.n for _, p in self.find(Points))

    # ── drawing (needs a GL context: a window, or ARCADE_HEADLESS) ───────────
    def draw(self, ctx, alpha: float = 1.0) -> None:
        """Draw every layer, lowest z first, into the bound framebuffer.

        ``alpha`` in [0, 1]: the fraction of a step the clock holds past the last one. With
        `interpolate` on, each smoothed field (`smoothed`) is drawn at
        ``before + (now - before) * alpha``, between the state before the last step and after
        it, and put back afterwards: the physics never sees it. 1 draws the last step as it is."""
        ctx.viewport  # noqa: B018  (the caller owns the viewport)
        with self.active():
            lerp = self.interpolate and 0.0 <= alpha < 1.0 and self._before and not self.still
            swapped = self._lerp(alpha) if lerp else []
            try:
                for layer in self.layers:
                    for d in self.draws:
                        d.draw(self.frame, layer.name, ctx)
            finally:
                for comp, name, arr in swapped:
                    setattr(comp, name, arr)

    @property
    def background(self) -> tuple[float, float, float, float]:
        return BACKGROUND[self.theme]


class SceneClosed(RuntimeError):
    """The scene was closed (its world deleted); open a new one with Scene.load."""


def fit_size(width, height, current=(1.0, 1.0)) -> tuple[float, float]:
    """A viewport size each side within 1..MAX_SIZE px (inf and 1e30 are cut; NaN keeps ``current``)."""
    out = []
    for v, old in zip((width, height), current):
        v = float(v)
        out.append(float(old) if math.isnan(v) else min(max(1.0, v), MAX_SIZE))
    return out[0], out[1]
