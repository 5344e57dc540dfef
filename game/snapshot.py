"""Snapshots: the whole running state of a scene in one file, restored exactly — and the
per-field state digests that hash logs and ``ropework replay`` compare.

    scene.snapshot("moment.snap")     # every component, the pointer and grab, the RNG, the clock,
    scene.restore("moment.snap")      # the level as the studio left it; stepping on gives the same bits

The file format (docs/snapshots.md) is a magic line, a JSON header and raw little-endian
array bytes: nothing in it is ever executed (no object deserialisation), every length and offset is checked
against the file before use, and the work of reading it is bounded by ``MAX_BYTES``.

What is state is found, not listed: every dataclass component of every entity, each field
whose value is plain data (a numpy array of numbers, a number, a string, None, a list,
tuple or string-keyed dict of those) is saved; a field declared ``field(compare=False)``
(a solver's lane schedule) or holding anything else is derived from the plain data, and the
restore keeps the one the level's fresh build made.
A component a toy adds later is covered with no change here.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import zlib
from pathlib import Path

import esper
import numpy as np

from ropework.components import Layer
from ropework.schema import TEMP_NAME_CHARS, LevelError

MAGIC = b"ROPEWORK-SNAPSHOT\n"   # the file's first bytes: a foreign file is refused before anything else is read
VERSION = 1                      # the header's "version"; a reader refuses any other
MAX_BYTES = 1 << 30              # a snapshot file of at most 1 GiB is read (the largest level allowed is ~150 MB of state)
MAX_HEADER = 64 << 20            # bytes of JSON header at most (a 200,000-point scene's is ~30 kB)
ALIGN = 64                       # each array's bytes start at a multiple of this: aligned loads for numpy
DTYPES = ("<f4", "<f8", "<i4", "<i8", "<u4", "<u8", "<i2", "<u2", "|i1", "|u1", "|b1")   # what an array may be


class SnapshotError(LevelError):
    """A snapshot or hash log that cannot be used; str() is the one line shown to the user."""

    def __init__(self, file, message: str):
        super().__init__(file, "", message)


class _NotPlain(Exception):
    """A field value that is not plain data: derived, rebuilt by the level's build."""


# ── what is state ────────────────────────────────────────────────────────────
def _plain(v):
    """``v`` as JSON (tuples marked), or raise _NotPlain."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, np.generic) and v.dtype.kind in "biuf":
        return {"scalar": np.dtype(v.dtype).str, "v": v.item()}
    if isinstance(v, (list, tuple)):
        items = [_plain(x) for x in v]
        return {"tuple": items} if isinstance(v, tuple) else {"list": items}
    if isinstance(v, dict) and all(isinstance(k, str) for k in v):
        return {"dict": {k: _plain(x) for k, x in v.items()}}
    raise _NotPlain


def _unplain(v, file):
    if isinstance(v, dict):
        if "tuple" in v and isinstance(v["tuple"], list):
            return tuple(_unplain(x, file) for x in v["tuple"])
        if "list" in v and isinstance(v["list"], list):
            return [_unplain(x, file) for x in v["list"]]
        if "dict" in v and isinstance(v["dict"], dict):
            return {k: _unplain(x, file) for k, x in v["dict"].items()}
        if v.get("scalar") in DTYPES and isinstance(v.get("v"), (bool, int, float)):
            return np.dtype(v["scalar"]).type(v["v"])
        raise SnapshotError(file, f"expected a plain value, found a table with keys {sorted(v)[:4]}")
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    raise SnapshotError(file, f"expected a plain value, found {type(v).__name__}")


def _array_ok(a) -> bool:
    return isinstance(a, np.ndarray) and np.dtype(a.dtype).newbyteorder("<").str in DTYPES


def fields(comp):
    """(name, value) of each state field of a dataclass component: arrays as they are, other
    plain values as JSON; derived fields (not plain data) are left out."""
    out = []
    for f in dataclasses.fields(comp):
        v = getattr(comp, f.name)
        if f.metadata.get("held") and dataclasses.is_dataclass(v):   # a component held in another
            out.extend((f"{f.name}.{n}", x) for n, x in fields(v))     # (a body's Extras): its fields, by path
            continue
        if not f.compare:            # declared no part of the component's value: a cache
            continue
        if _array_ok(v):
            out.append((f.name, v))
            continue
        try:
            out.append((f.name, _plain(v)))
        except _NotPlain:
            pass
    return out


def derived(comp) -> list[str]:
    """The fields of ``comp`` a snapshot leaves to the build (not plain data)."""
    kept = {n for n, _ in fields(comp)}
    return [f.name for f in dataclasses.fields(comp) if f.name not in kept]


def _label(comp) -> str:
    return type(comp).__name__


def _entities(scene):
    """[(entity, layer name or None, [dataclass components])] in entity order."""
    out = []
    with scene.active():
        for ent in sorted(esper.get_entities()):
            comps = [c for c in esper.components_for_entity(ent) if dataclasses.is_dataclass(c)]
            lay = next((c for c in comps if isinstance(c, Layer)), None)
            out.append((ent, None if lay is None else lay.name, comps))
    return out


FRAME_FIELDS = ("dt", "t", "width", "height", "reduced_motion", "theme", "steps", "relaid")   # Frame's plain fields


def _frame_state(frame) -> dict:
    return {**{k: getattr(frame, k) for k in FRAME_FIELDS},
            "rng": _plain(_rng_state(frame.rng))}


def _rng_state(rng) -> dict:
    st = rng.bit_generator.state
    return {k: v for k, v in st.items()}


# ── digests (hash logs) ──────────────────────────────────────────────────────
def digests(scene) -> dict[str, str]:
    """A digest (16 hex digits of SHA-256) of each piece of state, in a fixed order:
    ``"ENTITY.Component.field"`` for every component field a snapshot saves, and
    ``"frame.NAME"`` for the clock and the random generator. Equal digests, equal state."""
    out: dict[str, str] = {}
    for ent, _, comps in _entities(scene):
        for comp in comps:
            for name, v in fields(comp):
                h = hashlib.sha256()
                if isinstance(v, np.ndarray):
                    h.update(f"{v.dtype.str}{v.shape}".encode())
                    h.update(np.ascontiguousarray(v).tobytes())
                else:
                    h.update(json.dumps(v, sort_keys=True).encode())
                out[f"{ent}.{_label(comp)}.{name}"] = h.hexdigest()[:16]
    for k, v in _frame_state(scene.frame).items():
        out[f"frame.{k}"] = hashlib.sha256(json.dumps(v, sort_keys=True).encode()).hexdigest()[:16]
    return out


def combined(d: dict[str, str]) -> str:
    """One digest of all ``digests``: the hash a hash log's step line carries."""
    return hashlib.sha256("\n".join(f"{k}={v}" for k, v in d.items()).encode()).hexdigest()[:32]


# ── saving ───────────────────────────────────────────────────────────────────
def file_hash(path) -> str:
    """SHA-256 of a level file's bytes (what a snapshot names its level by)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def save(scene, path) -> Path:
    """Write ``scene``'s whole state to ``path`` (atomically: a failed write leaves no file)."""
    path = Path(path)
    arrays: list[np.ndarray] = []
    entities = []
    offset = 0
    specs = []
    for ent, layer, comps in _entities(scene):
        ce = []
        for comp in comps:
            fs = {}
            for name, v in fields(comp):
                if isinstance(v, np.ndarray):
                    a = np.ascontiguousarray(v).astype(v.dtype.newbyteorder("<"), copy=False)
                    offset = -(-offset // ALIGN) * ALIGN
                    specs.append({"dtype": a.dtype.str, "shape": list(a.shape), "offset": offset})
                    fs[name] = {"array": len(arrays)}
                    arrays.append(a)
                    offset += a.nbytes
                else:
                    fs[name] = {"value": v}
            ce.append({"class": _label(comp), "fields": fs})
        entities.append({"id": ent, "layer": layer, "components": ce})
    lv = scene.level
    header = {
        "format": "ropework-snapshot", "version": VERSION,
        "level": {"file": lv.path.name, "path": str(Path(lv.path).resolve()), "sha256": file_hash(lv.path),
                  "document": scene.document},
        "scene": {"seed": scene.seed, "theme": scene.theme, "reduced_motion": scene.reduced_motion,
                  "width": scene.width, "height": scene.height},
        "frame": _frame_state(scene.frame),
        "entities": entities, "arrays": specs,
    }
    body, pos, crc = [], 0, 0
    for spec, a in zip(specs, arrays):
        body.append(b"\0" * (spec["offset"] - pos))
        body.append(memoryview(a).cast("B") if a.size else b"")
        pos = spec["offset"] + a.nbytes
    for part in body:
        crc = zlib.crc32(part, crc)
    header["body"] = {"bytes": pos, "crc32": crc}
    head = json.dumps(header, separators=(",", ":")).encode()
    start = len(MAGIC) + 8 + len(head)
    base = -(-start // ALIGN) * ALIGN
    _atomic_write(path, [MAGIC, len(head).to_bytes(8, "little"), head, b"\0" * (base - start), *body])
    return path


def _atomic_write(path: Path, parts) -> None:
    """Write ``parts`` through a temporary file in the same folder and a rename: a failed write
    leaves the old file or none, never half of one. (No fsync: a snapshot is a convenience, and
    one fsync of a 100,000-point scene's 3 MB cost more than the whole save.)"""
    import tempfile
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:TEMP_NAME_CHARS]}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            for part in parts:
                f.write(part)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


# ── reading ──────────────────────────────────────────────────────────────────
def read(path) -> tuple[dict, list[np.ndarray]]:
    """(header, arrays) of a snapshot file, every offset and length checked; SnapshotError otherwise."""
    path = Path(path)
    try:
        size = os.stat(path).st_size
        if size > MAX_BYTES:
            raise SnapshotError(path, f"expected a snapshot of at most {MAX_BYTES} bytes, found {size}")
        with open(path, "rb") as f:
            raw = f.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise SnapshotError(path, "no such snapshot file") from None
    except IsADirectoryError:
        raise SnapshotError(path, "expected a snapshot file, found a folder") from None
    except OSError as e:
        raise SnapshotError(path, f"expected a readable snapshot file, found {e.strerror or type(e).__name__}") from None
    if len(raw) > MAX_BYTES:
        raise SnapshotError(path, f"expected a snapshot of at most {MAX_BYTES} bytes, found more")
    if not raw.startswith(MAGIC):
        raise SnapshotError(path, "not a ropework snapshot (its first bytes are not 'ROPEWORK-SNAPSHOT')")
    if len(raw) < len(MAGIC) + 8:
        raise SnapshotError(path, "truncated: the header's length is missing")
    n = int.from_bytes(raw[len(MAGIC):len(MAGIC) + 8], "little")
    start = len(MAGIC) + 8
    if n > MAX_HEADER or start + n > len(raw):
        raise SnapshotError(path, f"truncated or corrupt: a header of {n} bytes does not fit the file's {len(raw)}")
    try:
        header = json.loads(raw[start:start + n].decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise SnapshotError(path, "corrupt: the header is not JSON") from None
    if not isinstance(header, dict) or header.get("format") != "ropework-snapshot":
        raise SnapshotError(path, "corrupt: the header is not a ropework snapshot's")
    if header.get("version") != VERSION:
        raise SnapshotError(path, f"expected snapshot format version {VERSION}, found {header.get('version')!r}")
    for key, kind in (("level", dict), ("scene", dict), ("frame", dict), ("entities", list), ("arrays", list)):
        if not isinstance(header.get(key), kind):
            raise SnapshotError(path, f"corrupt: header key {key!r} expected a {kind.__name__}")
    base = -(-(start + n) // ALIGN) * ALIGN
    body = memoryview(raw)[base:] if base <= len(raw) else memoryview(b"")
    sums = header.get("body")
    if not (isinstance(sums, dict) and isinstance(sums.get("bytes"), int) and isinstance(sums.get("crc32"), int)):
        raise SnapshotError(path, "corrupt: the header has no body length and checksum")
    if len(body) != sums["bytes"]:
        raise SnapshotError(path, f"truncated or padded: {sums['bytes']} bytes of arrays expected, found {len(body)}")
    if zlib.crc32(body) != sums["crc32"]:
        raise SnapshotError(path, "corrupt: the arrays' checksum (CRC-32) does not match")
    arrays = []
    for i, spec in enumerate(header["arrays"]):
        try:
            dtype, shape, off = spec["dtype"], spec["shape"], spec["offset"]
            ok = (dtype in DTYPES and isinstance(shape, list) and len(shape) <= 4
                  and all(isinstance(s, int) and 0 <= s < 1 << 31 for s in shape)
                  and isinstance(off, int) and off >= 0)
        except (TypeError, KeyError):
            ok = False
        if not ok:
            raise SnapshotError(path, f"corrupt: array {i}'s description is not a dtype, shape and offset")
        count = int(np.prod(shape, dtype=np.int64))
        nbytes = count * np.dtype(dtype).itemsize
        if off + nbytes > len(body):
            raise SnapshotError(path, f"truncated: array {i} ({nbytes} bytes at {off}) runs past the file's end")
        arrays.append(np.frombuffer(body, dtype=dtype, count=count, offset=off).reshape(shape))
    return header, arrays


def check_level(header: dict, path, lv) -> None:
    """Refuse a snapshot of another level, or of a level file changed since."""
    want = header["level"]
    name, sha = want.get("file"), want.get("sha256")
    if name != Path(lv.path).name:
        raise SnapshotError(path, f"a snapshot of {name!r}, not of {Path(lv.path).name!r}")
    try:
        now = file_hash(lv.path)
    except OSError as e:
        raise SnapshotError(path, f"its level {lv.path} cannot be read: {e.strerror or type(e).__name__}") from None
    if now != sha:
        raise SnapshotError(path, f"the level file {lv.path} has changed since the snapshot "
                                  f"(sha256 {str(sha)[:12]}…, now {now[:12]}…)")


def level_of(header: dict, path, lv_path, size):
    """The level the snapshot ran: its file, or the studio's edited text of it where the header
    holds one, validated as a level file is."""
    import tomllib

    from ropework import level
    doc = header["level"].get("document")
    if doc is None:
        return level.load(lv_path, size), None
    if not isinstance(doc, str) or len(doc) > level.MAX_FILE_BYTES:
        raise SnapshotError(path, "corrupt: the header's level document is not a level file's text")
    try:
        return level.build(tomllib.loads(doc), lv_path, size), doc
    except (tomllib.TOMLDecodeError, RecursionError):
        raise SnapshotError(path, "corrupt: the header's level document is not TOML") from None
    except LevelError as e:
        raise SnapshotError(path, f"its edited level is refused: {e.path or 'top'}: {e.message}") from None


def restore(scene, path) -> None:
    """Bring ``scene`` (of the snapshot's level file) to the snapshot's state, exactly.

    The scene is built again from the snapshot's level data, size and seed; its entities
    are numbered as the snapshot's (esper iterates in entity order, so a scene whose
    studio rebuilt a layer keeps its order); then every saved field is written in. The
    running scene is untouched unless every check passes."""
    header, arrays = read(path)
    check_level(header, path, scene.level)
    sc = header["scene"]
    try:
        width, height = float(sc["width"]), float(sc["height"])
        seed, theme, motion = int(sc["seed"]), str(sc["theme"]), bool(sc["reduced_motion"])
    except (KeyError, TypeError, ValueError):
        raise SnapshotError(path, "corrupt: the header's scene has no width, height, seed, theme and motion") from None
    lv, doc = level_of(header, path, scene.level.path, (width, height))
    plan = _plan(header, arrays, path)
    old = (scene.level, scene.seed, scene.theme, scene.reduced_motion, scene.width, scene.height, scene.document)
    scene.level, scene.seed, scene.theme, scene.reduced_motion = lv, seed, theme, motion
    scene.width, scene.height, scene.document = width, height, doc
    try:
        scene._build(renumber=lambda fresh: renumber(plan, fresh, path))
        _write(scene, header, arrays, plan, path)
    except BaseException:
        (scene.level, scene.seed, scene.theme, scene.reduced_motion, scene.width, scene.height,
         scene.document) = old
        scene._build()
        raise


def _plan(header, arrays, path):
    """The snapshot's entities as [(id, layer, {class: {field: value or array}})], checked."""
    out = []
    for i, e in enumerate(header["entities"]):
        try:
            ent, layer, comps = e["id"], e["layer"], e["components"]
            ok = isinstance(ent, int) and 1 <= ent < 1 << 40 and (layer is None or isinstance(layer, str))
        except (TypeError, KeyError):
            ok = False
        if not ok or not isinstance(comps, list):
            raise SnapshotError(path, f"corrupt: entity {i} has no id, layer and components")
        cs = {}
        for c in comps:
            if not (isinstance(c, dict) and isinstance(c.get("class"), str) and isinstance(c.get("fields"), dict)):
                raise SnapshotError(path, f"corrupt: a component of entity {ent} has no class and fields")
            fs = {}
            for name, f in c["fields"].items():
                if isinstance(f, dict) and "array" in f:
                    j = f["array"]
                    if not (isinstance(j, int) and 0 <= j < len(arrays)):
                        raise SnapshotError(path, f"corrupt: {c['class']}.{name} names array {j!r}")
                    fs[name] = arrays[j]
                elif isinstance(f, dict) and "value" in f:
                    fs[name] = _unplain(f["value"], path)
                else:
                    raise SnapshotError(path, f"corrupt: {c['class']}.{name} is neither an array nor a value")
            cs[c["class"]] = fs
        out.append((ent, layer, cs))
    ids = [p[0] for p in out]
    if ids != sorted(set(ids)):
        raise SnapshotError(path, "corrupt: entity ids repeat or are out of order")
    return out


def renumber(plan, fresh, path) -> dict[int, int]:
    """fresh entity → the snapshot's id: the k-th entity of each layer (None: the pointer) is the
    k-th of that layer in the snapshot."""
    def groups(rows):
        g: dict = {}
        for ent, layer, _ in rows:
            g.setdefault(layer, []).append(ent)
        return g
    want, have = groups(plan), groups(fresh)
    if {k: len(v) for k, v in want.items()} != {k: len(v) for k, v in have.items()}:
        raise SnapshotError(path, "its entities do not match the ones the level builds "
                                  f"(layers {sorted(map(str, want))} vs {sorted(map(str, have))})")
    return {h: w for k in have for h, w in zip(have[k], want[k])}


def _write(scene, header, arrays, plan, path) -> None:
    by_id = {ent: (layer, comps) for ent, layer, comps in _entities(scene)}
    for ent, layer, saved in plan:
        if ent not in by_id or by_id[ent][0] != layer:
            raise SnapshotError(path, f"entity {ent} of layer {layer!r} is not in the level's build")
        comps = {_label(c): c for c in by_id[ent][1]}
        if set(comps) != set(saved):
            raise SnapshotError(path, f"entity {ent}: components {sorted(saved)} in the snapshot, "
                                      f"{sorted(comps)} in the level's build")
        for cname, fs in saved.items():
            for dotted, v in fs.items():
                comp, name = comps[cname], dotted
                while "." in name:           # a field of a component held in this one
                    head, name = name.split(".", 1)
                    held = {f.name for f in dataclasses.fields(comp) if f.metadata.get("held")}
                    inner = getattr(comp, head) if head in held else None
                    if not dataclasses.is_dataclass(inner):
                        raise SnapshotError(path, f"{cname} has no part {dotted!r} (a snapshot of another version?)")
                    comp = inner
                if name not in {f.name for f in dataclasses.fields(comp)}:
                    raise SnapshotError(path, f"{cname} has no field {dotted!r} (a snapshot of another version?)")
                cur = getattr(comp, name)
                if isinstance(v, np.ndarray):
                    if isinstance(cur, np.ndarray) and cur.shape == v.shape and cur.dtype == v.dtype and cur.flags.writeable:
                        np.copyto(cur, v)            # in place: whatever holds a view of it sees the restored values
                    else:
                        setattr(comp, name, np.array(v, dtype=v.dtype.newbyteorder("=")))
                else:
                    setattr(comp, name, v)
    fr = header["frame"]
    try:
        for k in FRAME_FIELDS:
            setattr(scene.frame, k, type(getattr(scene.frame, k))(fr[k]))
        st = _unplain(fr["rng"], path)
        scene.frame.rng.bit_generator.state = st
    except (KeyError, TypeError, ValueError) as e:
        raise SnapshotError(path, f"corrupt: the clock or random generator state is refused ({type(e).__name__})") from None
