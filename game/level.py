"""Level files: TOML scenes, validated into plain dicts with every default filled in.

Level files are data. They name entity kinds by registered short names, never
modules, and every count and size is capped before anything is allocated.
"""
from __future__ import annotations

import re
import reprlib
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ropework import cost, plugins
from ropework import kinds as kinds_mod
from ropework.components.render import Layer
from ropework.kinds import colliders
from ropework.live import into, metadata
from ropework.schema import Key, LevelError, Table, printable, suggest, table, validate
from ropework.systems import pipeline

MAX_FILE_BYTES = 1 << 20   # a scene description, not a data dump: 1 MiB is generous
MAX_LAYERS = 32
MAX_POINTS = 2_000_000     # simulated points per scene: ~40 MB of state, still steps in tens of ms

LEVELS_DIR = Path(str(resources.files("ropework.levels")))   # the shipped levels: package data
DEFAULT_LEVEL = LEVELS_DIR / "rope.toml"

def _theme(body, cfg, name):
    body.scene.theme = body.frame.theme = cfg[name]


def _motion(body, cfg, name):
    body.scene.reduced_motion = body.frame.reduced_motion = cfg[name]


def _interpolate(body, cfg, name):
    body.scene.interpolate = cfg[name]


TOP = table(
    Key("title", "str", "", "shown in the window title and `--list`; defaults to the file name", live=metadata),
    Key("description", "str", "", "one line for `--list`", max_len=300, live=metadata),
    Key("theme", "choice", "light", "colour theme at start (T toggles)", choices=("light", "dark"), live=_theme),
    Key("seed", "int", 0, "seed of the scene's random generator (overridden by `--seed`)", lo=0, hi=2**32 - 1),
    Key("reduced_motion", "bool", False, "start with reduced motion (also `--reduced-motion`)", live=_motion),
    Key("interpolate", "bool", True, "draw each frame between the last two fixed steps, so a 50, 120 or 144 Hz "
        "display shows smooth motion; the steps are the same either way (V toggles)", live=_interpolate),
    Key("systems", "names", [], "opt-in systems to add by registered name (e.g. a plugin's), on top of the "
        "built-ins; never a module path", max_len=32),
)
LAYER_COMMON = (
    Key("kind", "str", None, "entity kind: one of the registered kinds (see below)"),
    Key("name", "str", "", "layer name; defaults to KIND or KIND-N", max_len=64),
    Key("z", "int", 0, "draw order: higher draws on top and is offered the pointer first (default: the layer's position in the file)", lo=-1000, hi=1000,
        live=into(Layer, "z")),
)


@dataclass
class Level:
    path: Path
    title: str
    description: str
    theme: str
    seed: int
    reduced_motion: bool
    systems: list[str]     # opt-in systems named by the level
    layers: list[dict]     # each: kind, name, z and the kind's keys, defaults filled
    interpolate: bool = True   # frames drawn between the last two steps (the top-level key)


def _syntax_line(e: Exception) -> int | None:
    m = re.search(r"line (\d+)", str(e))
    return int(m.group(1)) if m else None


def parse(path: Path) -> dict:
    path = Path(path)
    try:
        if not path.exists():
            raise LevelError(path, "", "no such level file")
        if not path.is_file():
            raise LevelError(path, "", "expected a level file, found a directory or device")
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise LevelError(path, "", f"expected a level file of at most {MAX_FILE_BYTES} bytes, found {size}")
        with path.open("rb") as f:
            raw = f.read(MAX_FILE_BYTES + 1)   # st_size can lie (/proc files, a file still being written)
        if len(raw) > MAX_FILE_BYTES:
            raise LevelError(path, "", f"expected a level file of at most {MAX_FILE_BYTES} bytes, found more")
    except OSError as e:   # a name too long, no permission, an I/O error: still one line, not a traceback
        raise LevelError(path, "", f"expected a readable level file, found {e.strerror or type(e).__name__}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise LevelError(path, "", f"expected UTF-8 TOML text, found an invalid byte at offset {e.start}") from None
    if not text.strip():
        raise LevelError(path, "", "expected TOML with at least one [[layer]], found an empty file")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(e)) or "invalid TOML"
        raise LevelError(path, "", f"TOML syntax error: {msg}", line=_syntax_line(e)) from None
    except RecursionError:
        raise LevelError(path, "", "TOML nested too deeply") from None


def load(path, size: tuple[float, float] = (1280, 720)) -> Level:
    """Read and validate a level file; raise LevelError with one line on any problem."""
    path = Path(path)
    return build(parse(path), path, size)


def build(data: dict, path, size: tuple[float, float] = (1280, 720)) -> Level:
    """Validate parsed level data (``parse``'s dict, or the studio's document) as the level
    file ``path``; raise LevelError with one line on any problem. ``load`` and ``validate``
    come through here, so the studio refuses exactly what they refuse."""
    kinds_mod.load_builtin()
    path = Path(path)
    plugins.autoload()
    top = validate(data, TOP, path, skip=("layer",))
    for i, name in enumerate(top["systems"]):
        if name not in pipeline.REGISTRY.specs:
            hint = suggest(name, pipeline.REGISTRY.specs).replace("valid keys", "registered systems")
            raise LevelError(path, f"systems[{i}]", f"unknown system {name!r}{hint}")
    layers_raw = data.get("layer")
    if layers_raw is None:
        raise LevelError(path, "layer", "expected at least one [[layer]] table, found none")
    if not isinstance(layers_raw, list) or not all(isinstance(t, dict) for t in layers_raw):
        raise LevelError(path, "layer", "expected an array of tables ([[layer]])")
    if not 1 <= len(layers_raw) <= MAX_LAYERS:
        raise LevelError(path, "layer", f"expected 1..{MAX_LAYERS} layers, found {len(layers_raw)}")
    layers, total = [], 0
    for i, raw in enumerate(layers_raw):
        p = f"layer[{i}]"
        kind_name = raw.get("kind")
        if kind_name is None:
            raise LevelError(path, f"{p}.kind", "missing; expected one of " + ", ".join(sorted(kinds_mod.KINDS)))
        if not isinstance(kind_name, str) or kind_name not in kinds_mod.KINDS:
            hint = suggest(str(kind_name), kinds_mod.KINDS).replace("valid keys", "registered kinds")
            raise LevelError(path, f"{p}.kind", f"unknown entity kind {reprlib.repr(kind_name)}{hint}")
        k = kinds_mod.KINDS[kind_name]
        schema = Table({**{c.name: c for c in LAYER_COMMON}, **k.schema.keys}, k.schema.arrays)
        if k.presets and isinstance(raw.get("preset"), str) and raw["preset"] in k.presets:
            raw = {**k.presets[raw["preset"]], **raw}
        cfg = validate(raw, schema, path, p)
        if k.check is not None:
            k.check(cfg, path, p)
        if cfg.get("collider"):
            colliders.check(cfg, path, p, size)
        cfg["name"] = cfg["name"] or (kind_name if i == 0 else f"{kind_name}-{i}")
        cfg["z"] = cfg["z"] if "z" in raw else i
        weight = k.weight(cfg, *size)
        total += k.points(cfg, *size) + weight
        if total > MAX_POINTS:
            raise LevelError(path, p, f"expected at most {MAX_POINTS} points in a scene"
                             + (" (its many ropes counted in points' worth of memory)" if weight else "")
                             + f", found {total} so far")
        layers.append(cfg)
    if not any(c["kind"] == "lanyard" for c in layers):
        for i, c in enumerate(layers):
            for j, a in enumerate(c.get("attach") or ()):
                if a.get("card"):
                    raise LevelError(path, f"layer[{i}].attach[{j}].card", "expected a lanyard layer in the scene "
                                     "whose card the point is pinned to, found none")
    names = [c["name"] for c in layers]
    for i, n in enumerate(names):
        if names.index(n) != i:
            raise LevelError(path, f"layer[{i}].name", f"expected a unique layer name, found {n!r} twice")
    cost.check(layers, path, size)          # work a step, and before the first, within the stated bounds
    return Level(path=path, title=top["title"] or printable(path.stem), description=top["description"],
                 theme=top["theme"], seed=top["seed"], reduced_motion=top["reduced_motion"], systems=top["systems"], layers=layers,
                 interpolate=top["interpolate"])


def shipped() -> list[Path]:
    """The shipped level files, in `--list` order (the window's number keys open them so)."""
    return sorted(LEVELS_DIR.glob("*.toml"))


def resolve(name: str) -> Path:
    """The level file a user means: a path that exists, else a shipped level's name
    (``rope.toml`` or ``rope``, as ``--list`` prints it), its number, or the run line
    its header prints (``levels/rope.toml``, from any folder); anything else is
    returned as a path, so loading it names the file that is missing."""
    path = Path(name)
    try:
        if path.exists() or not name:
            return path
    except OSError:     # a name the system refuses (a component over 255 bytes): loading it says so, in one line
        return path
    levels = shipped()
    if name.isdigit() and 1 <= int(name) <= len(levels):
        return levels[int(name) - 1]
    for lv in levels:
        if name in (lv.name, lv.stem, f"levels/{lv.name}"):
            return lv
    return path


def frame(lv: Level) -> list[tuple[pipeline.SystemSpec, str]]:
    """The systems a scene of ``lv`` runs, in run order, each with who brings it:
    "core" (every scene), the kinds that bring it (`Kind.systems`), or "level" (its ``systems``)."""
    by: dict[str, list[str]] = {}
    for name in sorted({c["kind"] for c in lv.layers}):
        for n in kinds_mod.KINDS[name].systems:
            by.setdefault(n, []).append(name)
    for n in lv.systems:
        by.setdefault(n, []).append("level")
    specs = pipeline.order(pipeline.scene_systems(by))
    return [(s, "core" if s.default else ", ".join(by[s.name])) for s in specs]


def frame_table(lv: Level) -> str:
    """`frame` as the text ``ropework frame LEVEL`` prints: one row a system, in run order."""
    rows = [(s.stage, s.name, who, s.module) for s, who in frame(lv)]
    head = ("stage", "system", "brought by", "module")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(3)]
    lines = [f"{lv.title}: {len(rows)} systems, in run order"]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r[:3], widths)) + "  " + r[3] for r in [head, *rows]]
    return "\n".join(line.rstrip() for line in lines)
