"""Read a card model from a GLB file (glTF 2.0, binary): its triangles, base-colour texture and factors.

A validator first. Every field the reader uses is checked for its JSON type, its range and the
object it names (the rules of the glTF 2.0 specification, declared once in `SCHEMA` below) before
numpy sees a byte, and the work is bounded by the caps below, summed from the JSON before any
accessor is decoded or any image is inflated. Anything unusable is a `ModelError` whose text is
one line, ``JSON.PATH: expected …, found …`` (``nodes[3].matrix[5]: expected a number, found
string "x"``), so a level can report it.

Ours, with numpy and Pillow, not pygltflib: that library maps the JSON onto dataclasses without
checking a single type or range (a string in a matrix passes, a cycle of children is kept), opens
external URIs on request, and leaves the accessor decoding to the caller, so every check here
would still be needed and the dependency would remove nothing.

What is read: every mesh the default scene's nodes reach (their translation, rotation, scale or
matrix applied, down the hierarchy), triangle primitives only, POSITION (required), NORMAL (else
area-weighted from the faces), TEXCOORD_0 (else 0), indices (else the vertices in order); the
first primitive's material: pbrMetallicRoughness base-colour factor, metallic and roughness
factors, and its base-colour texture when the image is inside the file (the binary chunk or a
data: URI; PNG or JPEG). Never read: external files (any URI but data:), sparse accessors, morph
targets, required extensions, lines or points. Skins, cameras, animations and other materials'
fields are ignored (the rest pose is drawn).
"""
from __future__ import annotations

import base64
import binascii
import io
import json
import math
import struct
from dataclasses import dataclass

import numpy as np
from PIL import Image

MAGIC = 0x46546C67          # "glTF"
JSON_CHUNK = 0x4E4F534A     # "JSON"
BIN_CHUNK = 0x004E4942      # "BIN\0"

# Caps: a card, not a scene. Each is checked from the JSON (or the PNG header) before the work it
# bounds; together they keep a parse under ~0.5 GiB and a few seconds (docs/reliability.md).
MAX_BYTES = 32 * 1024 * 1024     # bytes of a whole file; the shipped card is 50 KB
MAX_JSON_BYTES = 4 * 1024 * 1024  # bytes of the JSON chunk: its parsed objects take ~20× that at worst
MAX_OBJECTS = 4096               # entries of any top-level array (nodes, accessors, meshes, …)
MAX_PRIMITIVES = 256             # primitives of one mesh
MAX_INSTANCES = 1024             # (node, primitive) pairs drawn: a mesh under many nodes is decoded once, moved each time
MAX_TRIANGLES = 200_000          # summed over every instance; ≈ 6 MiB of vertices; the seed's card is ~300
MAX_VERTICES = 3 * MAX_TRIANGLES  # an accessor's count, and the vertices emitted over every instance
MAX_TEXTURE_SIDE = 4096          # px a side, as card images (GL texture limits)
MAX_TEXTURE_PIXELS = 2048 * 2048  # px (16 MiB as RGBA): a card is under 1,000 px on screen
MAX_INT = 2 ** 53                # an integer JSON field: what a JSON number holds exactly
MAX_INT_DIGITS = 16              # longer integer literals are never converted (Python's int() is quadratic)
MAX_MAGNITUDE = 1e15             # |a transform's number|: larger ones overflow float32 once composed

COMPONENTS = {5120: np.int8, 5121: np.uint8, 5122: np.int16, 5123: np.uint16, 5125: np.uint32, 5126: np.float32}
WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}
TRIANGLES = 4
MODES = range(7)                 # POINTS … TRIANGLE_FAN; only TRIANGLES is drawn
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PNG_KEPT = (b"IHDR", b"PLTE", b"tRNS", b"IDAT", b"IEND")   # what decodes the pixels; text, ICC, APNG… are dropped
# (colour type: allowed bit depths) of a PNG IHDR
PNG_DEPTHS = {0: (1, 2, 4, 8, 16), 2: (8, 16), 3: (1, 2, 4, 8), 4: (8, 16), 6: (8, 16)}
DATA_BUFFER = ("data:application/octet-stream;base64,", "data:application/gltf-buffer;base64,")
DATA_IMAGE = ("data:image/png;base64,", "data:image/jpeg;base64,")


class ModelError(ValueError):
    """A GLB that cannot be used; str() is one line, ``PATH: MESSAGE`` (PATH: where in the JSON)."""

    def __init__(self, path: str, message: str):
        self.path, self.message = path, message
        super().__init__(" ".join(f"{path + ': ' if path else ''}{message}".split()))


@dataclass
class CardModel:
    """vertices: float32[v, 8] — position, normal, uv (glTF's units, y up); indices: int32[3·t];
    colour: float64[4] — linear base-colour factor; metallic, roughness: 0..1;
    texture: uint8[h, w, 4] RGBA (top row first), or None."""

    vertices: np.ndarray
    indices: np.ndarray
    colour: np.ndarray
    metallic: float
    roughness: float
    texture: np.ndarray | None

    @property
    def triangles(self) -> int:
        return len(self.indices) // 3


# ── JSON values ───────────────────────────────────────────────────────────────
class _Odd:
    """A JSON literal kept unconverted (a huge integer, an overflowing number, NaN): refused where read."""

    __slots__ = ("what",)

    def __init__(self, what: str):
        self.what = what


def _int_literal(s: str):
    digits = len(s.lstrip("-"))
    return int(s) if digits <= MAX_INT_DIGITS else _Odd(f"a {digits:,}-digit integer")


def _float_literal(s: str):
    v = float(s)
    return v if math.isfinite(v) else _Odd(f"the number {s[:24]}{'…' if len(s) > 24 else ''} (overflows)")


def _found(v) -> str:
    if isinstance(v, _Odd):
        return v.what
    if v is None or isinstance(v, bool):
        return json.dumps(v)
    if isinstance(v, (int, float)):
        return f"the number {v!r}"
    if isinstance(v, str):
        return "string " + json.dumps(v[:40]) + ("…" if len(v) > 40 else "")
    if isinstance(v, dict):
        return "an object"
    return f"an array of {len(v)}"


def _fail(path: str, message: str):
    raise ModelError(path, message)


def _expect(path: str, what: str, v):
    _fail(path, f"expected {what}, found {_found(v)}")


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


# ── the schema: the fields read, as the specification declares them ───────────
# A check is a function (value, path, reader) -> value. `SCHEMA[kind][key]` is (check, default);
# a key missing from an object takes the default (REQUIRED: refused when missing).
REQUIRED = object()


def integer(lo: int = 0, hi: int = MAX_INT):
    def check(v, path, r):
        if not _is_int(v) or not lo <= v <= hi:
            _expect(path, f"an integer {lo:,}..{hi:,}", v)
        return v
    return check


def number(lo: float = -MAX_MAGNITUDE, hi: float = MAX_MAGNITUDE):
    def check(v, path, r):
        if not _is_number(v) or not lo <= v <= hi:
            _expect(path, f"a number {lo:g}..{hi:g}", v)
        return float(v)
    return check


def numbers(n: int, lo: float = -MAX_MAGNITUDE, hi: float = MAX_MAGNITUDE):
    one = number(lo, hi)

    def check(v, path, r):
        if not isinstance(v, list) or len(v) != n:
            _expect(path, f"an array of {n} numbers", v)
        return [one(x, f"{path}[{k}]", r) for k, x in enumerate(v)]
    return check


def ref(table: str):
    """An index into the document's top-level array ``table``."""
    def check(v, path, r):
        n = len(r.table(table))
        if not _is_int(v) or not 0 <= v < n:
            _expect(path, f"an index into {table} (0..{n - 1})" if n else f"an index into {table}, which is empty", v)
        return v
    return check


def refs(table: str, most: int):
    """A non-empty array of distinct indices into ``table``."""
    one = ref(table)

    def check(v, path, r):
        if not isinstance(v, list) or not 1 <= len(v) <= most:
            _expect(path, f"an array of 1..{most:,} indices into {table}", v)
        seen = set()
        for k, x in enumerate(v):
            one(x, f"{path}[{k}]", r)
            if x in seen:
                _fail(f"{path}[{k}]", f"expected distinct indices, found {table}[{x}] named twice")
            seen.add(x)
        return v
    return check


def one_of(*values):
    def check(v, path, r):
        if type(v) not in (int, str) or v not in values:
            _expect(path, "one of " + ", ".join(json.dumps(x) for x in values), v)
        return v
    return check


def boolean(v, path, r):
    if not isinstance(v, bool):
        _expect(path, "true or false", v)
    return v


def string(v, path, r):
    if not isinstance(v, str):
        _expect(path, "a string", v)
    return v


def obj(v, path, r):
    if not isinstance(v, dict):
        _expect(path, "an object", v)
    return v


SCHEMA = {
    "asset": {"version": (string, REQUIRED), "minVersion": (string, "2.0")},
    "scene": {"nodes": (refs("nodes", MAX_OBJECTS), [])},
    "node": {"children": (refs("nodes", MAX_OBJECTS), []), "mesh": (ref("meshes"), None),
             "matrix": (numbers(16), None), "translation": (numbers(3), None),
             "rotation": (numbers(4, -1.0, 1.0), None), "scale": (numbers(3), None)},
    "mesh": {"primitives": (obj, REQUIRED)},          # the array is checked by `Reader.mesh`
    "primitive": {"attributes": (obj, REQUIRED), "indices": (ref("accessors"), None),
                  "material": (ref("materials"), None), "mode": (one_of(*MODES), TRIANGLES),
                  "targets": (obj, None)},
    "accessor": {"bufferView": (ref("bufferViews"), None), "byteOffset": (integer(0, MAX_BYTES), 0),
                 "componentType": (one_of(*COMPONENTS), REQUIRED), "normalized": (boolean, False),
                 "count": (integer(1, MAX_VERTICES), REQUIRED), "type": (one_of(*WIDTH), REQUIRED),
                 "sparse": (obj, None)},
    "bufferView": {"buffer": (ref("buffers"), REQUIRED), "byteOffset": (integer(0, MAX_BYTES), 0),
                   "byteLength": (integer(1, MAX_BYTES), REQUIRED), "byteStride": (integer(4, 252), None)},
    "buffer": {"byteLength": (integer(1, MAX_BYTES), REQUIRED), "uri": (string, None)},
    "material": {"pbrMetallicRoughness": (obj, {})},
    "pbr": {"baseColorFactor": (numbers(4, 0.0, 1.0), [1.0, 1.0, 1.0, 1.0]),
            "metallicFactor": (number(0.0, 1.0), 1.0), "roughnessFactor": (number(0.0, 1.0), 1.0),
            "baseColorTexture": (obj, None)},
    "textureInfo": {"index": (ref("textures"), REQUIRED), "texCoord": (integer(0, 0), 0)},
    "texture": {"source": (ref("images"), REQUIRED)},
    "image": {"bufferView": (ref("bufferViews"), None), "uri": (string, None),
              "mimeType": (one_of("image/png", "image/jpeg"), None)},
}
TABLES = ("scenes", "nodes", "meshes", "accessors", "bufferViews", "buffers", "materials", "textures", "images")


def _chunks(data: bytes) -> tuple[dict, bytes | None]:
    """The JSON document and the binary chunk (None when there is none), their framing checked."""
    if len(data) < 20:
        _fail("header", f"expected a GLB (12-byte header, then chunks), found a file of {len(data)} bytes")
    magic, version, length = struct.unpack_from("<III", data, 0)
    if magic != MAGIC:
        _fail("header", f"expected the GLB magic \"glTF\", found {data[:4]!r} (a .gltf text file or another format?)")
    if version != 2:
        _fail("header.version", f"expected 2, found {version}")
    if length != len(data):
        _fail("header.length", f"expected the file's {len(data):,} bytes, found {length:,}")
    at, k, doc, blob = 12, 0, None, None
    while at < length:
        if at + 8 > length:
            _fail(f"chunks[{k}]", f"expected an 8-byte chunk header, found {length - at} bytes")
        size, kind = struct.unpack_from("<II", data, at)
        if size % 4 or at + 8 + size > length:
            _fail(f"chunks[{k}].chunkLength", f"expected a multiple of 4 within the file's "
                  f"{length - at - 8:,} remaining bytes, found {size:,}")
        body = data[at + 8:at + 8 + size]
        if k == 0:
            if kind != JSON_CHUNK:
                _fail("chunks[0].chunkType", f"expected JSON (0x{JSON_CHUNK:08X}), found 0x{kind:08X}")
            if size > MAX_JSON_BYTES:
                _fail("chunks[0].chunkLength", f"expected at most {MAX_JSON_BYTES:,} bytes of JSON, found {size:,}")
            try:
                doc = json.loads(body.decode("utf-8"), parse_int=_int_literal, parse_float=_float_literal,
                                 parse_constant=lambda s: _Odd(s))
            except (UnicodeDecodeError, ValueError, RecursionError) as e:
                _fail("chunks[0]", f"expected UTF-8 JSON, found text that does not parse ({type(e).__name__})")
        elif kind == BIN_CHUNK:
            if k != 1:
                _fail(f"chunks[{k}].chunkType", "expected the binary chunk second, found it later")
            blob = body
        at += 8 + size                               # other chunk types are skipped, as the specification asks
        k += 1
    if not isinstance(doc, dict):
        _expect("(document)", "a JSON object", doc)
    return doc, blob


class Reader:
    """One GLB's document, read through `SCHEMA`; decoded accessors are kept, so a mesh under many
    nodes is decoded once."""

    def __init__(self, doc: dict, blob: bytes | None):
        self.doc, self.blob = doc, blob
        self._tables: dict[str, list] = {}
        self._decoded: dict[int, np.ndarray] = {}
        self._buffers: dict[int, bytes] = {}

    def table(self, name: str) -> list:
        """A top-level array (empty when missing), checked to be at most MAX_OBJECTS objects."""
        if name not in self._tables:
            v = self.doc.get(name, [])
            if not isinstance(v, list) or len(v) > MAX_OBJECTS:
                _expect(name, f"an array of at most {MAX_OBJECTS:,} objects", v)
            for k, e in enumerate(v):
                obj(e, f"{name}[{k}]", self)
            self._tables[name] = v
        return self._tables[name]

    def field(self, o: dict, kind: str, key: str, path: str):
        """``o[key]`` checked by ``SCHEMA[kind][key]``, or its default."""
        check, default = SCHEMA[kind][key]
        if key not in o:
            if default is REQUIRED:
                _fail(path, f"expected {key!r}, found none")
            return default
        return check(o[key], f"{path}.{key}", self)

    def fields(self, o: dict, kind: str, path: str) -> dict:
        return {key: self.field(o, kind, key, path) for key in SCHEMA[kind]}

    # ── bytes ──
    def buffer(self, i: int) -> bytes:
        if i in self._buffers:
            return self._buffers[i]
        path = f"buffers[{i}]"
        b = self.fields(self.table("buffers")[i], "buffer", path)
        uri = b["uri"]
        if uri is None:
            if i != 0 or self.blob is None:
                _fail(path, "expected a uri (only buffers[0] may be the GLB's binary chunk), found none"
                      if i else "expected the GLB's binary chunk, found a file without one")
            raw = self.blob
            if not len(raw) - 3 <= b["byteLength"] <= len(raw):
                _fail(f"{path}.byteLength", f"expected the binary chunk's {len(raw):,} bytes (less up to 3 of "
                      f"padding), found {b['byteLength']:,}")
        else:
            raw = _data_uri(uri, DATA_BUFFER, f"{path}.uri")
            if len(raw) != b["byteLength"]:
                _fail(f"{path}.byteLength", f"expected the data URI's {len(raw):,} bytes, found {b['byteLength']:,}")
        self._buffers[i] = raw[:b["byteLength"]]
        return self._buffers[i]

    def view(self, i: int) -> tuple[bytes, int | None]:
        """The bytes of buffer view i and its byteStride (None: packed)."""
        path = f"bufferViews[{i}]"
        v = self.fields(self.table("bufferViews")[i], "bufferView", path)
        if v["byteStride"] is not None and v["byteStride"] % 4:
            _expect(f"{path}.byteStride", "a multiple of 4", v["byteStride"])
        raw = self.buffer(v["buffer"])
        off, size = v["byteOffset"], v["byteLength"]
        if off + size > len(raw):
            _fail(path, f"expected bytes within buffers[{v['buffer']}]'s {len(raw):,}, "
                  f"found {off:,} + {size:,} = {off + size:,}")
        return raw[off:off + size], v["byteStride"]

    def accessor_head(self, i: int) -> dict:
        """Accessor i's fields, checked (no bytes read): what its count promises is summed before decoding."""
        path = f"accessors[{i}]"
        a = self.fields(self.table("accessors")[i], "accessor", path)
        if a["sparse"] is not None:
            _fail(f"{path}.sparse", "expected no sparse storage (not read), found an object")
        if a["bufferView"] is None:
            _fail(path, "expected a bufferView (an accessor of zeros is not read), found none")
        if a["normalized"] and a["componentType"] in (5125, 5126):
            _fail(f"{path}.normalized", "expected false for float or unsigned-int components, found true")
        return a

    def accessor(self, i: int, path: str, types: tuple[str, ...], component_types: tuple[int, ...],
                 normalized: bool | None = None, indices: bool = False) -> np.ndarray:
        """Accessor i (named at ``path``) as float64 or int64 [count, width], decoded once; normalised
        integers scaled to 0..1 or −1..1. ``normalized``: the flag required (None: either)."""
        a = self.accessor_head(i)
        at = f"accessors[{i}]"
        if a["type"] not in types:
            _fail(f"{at}.type", f"expected {' or '.join(types)} for {path}, found {json.dumps(a['type'])}")
        if a["componentType"] not in component_types:
            _fail(f"{at}.componentType", f"expected one of {', '.join(map(str, component_types))} for {path}, "
                  f"found {a['componentType']}")
        if normalized is not None and a["normalized"] != normalized:
            _fail(f"{at}.normalized", f"expected {json.dumps(normalized)} for {path}, found {json.dumps(a['normalized'])}")
        if i in self._decoded:
            return self._decoded[i]
        raw, stride = self.view(a["bufferView"])
        if indices and stride is not None:
            _fail(f"bufferViews[{a['bufferView']}].byteStride", f"expected none for {path} (indices are packed), "
                  f"found {stride}")
        dtype = np.dtype(COMPONENTS[a["componentType"]]).newbyteorder("<")
        width, count, off = WIDTH[a["type"]], a["count"], a["byteOffset"]
        item = dtype.itemsize * width
        if stride is not None and stride < item:
            _fail(f"bufferViews[{a['bufferView']}].byteStride", f"expected at least the {item} bytes of an "
                  f"element of {at}, found {stride}")
        stride = stride or item
        if off % dtype.itemsize:
            _expect(f"{at}.byteOffset", f"a multiple of the component's {dtype.itemsize} bytes", off)
        need = off + stride * (count - 1) + item
        if need > len(raw):
            _fail(f"{at}.count", f"expected elements within bufferViews[{a['bufferView']}]'s {len(raw):,} bytes, "
                  f"found {count:,} reaching {need:,}")
        rows = np.frombuffer(raw, np.uint8, count=need - off, offset=off)
        rows = np.lib.stride_tricks.as_strided(rows, (count, item), (stride, 1), writeable=False)
        out = np.ascontiguousarray(rows).view(dtype).reshape(count, width)
        if dtype.kind == "f":
            out = out.astype(np.float64)
            if not np.isfinite(out).all():
                _fail(at, f"expected finite numbers, found {np.count_nonzero(~np.isfinite(out)):,} not")
        elif a["normalized"]:
            out = np.maximum(out.astype(np.float64) / np.iinfo(dtype).max, -1.0)
        else:
            out = out.astype(np.int64)
        self._decoded[i] = out
        return out

    # ── the hierarchy ──
    def node(self, i: int) -> dict:
        path = f"nodes[{i}]"
        n = self.fields(self.table("nodes")[i], "node", path)
        if n["matrix"] is not None and any(n[k] is not None for k in ("translation", "rotation", "scale")):
            _fail(path, "expected a matrix or translation/rotation/scale, found both")
        return n

    def draws(self) -> list[tuple[str, np.ndarray, int]]:
        """(node path, world matrix float64[4, 4], mesh index) of every node with a mesh the default
        scene reaches. Each node is visited once: a node with two parents (or named twice), a cycle,
        a root that is someone's child, is refused before any transform is composed."""
        nodes = self.table("nodes")
        parsed = [self.node(i) for i in range(len(nodes))]
        parent: dict[int, int] = {}
        for i, n in enumerate(parsed):
            for k, c in enumerate(n["children"]):
                if c in parent:
                    _fail(f"nodes[{i}].children[{k}]", f"expected a node with one parent, found nodes[{c}], "
                          f"already a child of nodes[{parent[c]}] (each node is reached once)")
                parent[c] = i
        forest = [i for i in range(len(parsed)) if i not in parent]
        reached, stack = set(), list(forest)
        while stack:
            i = stack.pop()
            reached.add(i)
            stack += parsed[i]["children"]
        if len(reached) < len(parsed):
            i = min(set(range(len(parsed))) - reached)
            _fail(f"nodes[{i}]", "expected a tree of nodes, found a cycle (a node that is its own ancestor)")
        scenes = self.table("scenes")
        if scenes:
            s = self.doc.get("scene", 0)
            ref("scenes")(s, "scene", self)
            roots = self.field(scenes[s], "scene", "nodes", f"scenes[{s}]")
            for k, r in enumerate(roots):
                if r in parent:
                    _fail(f"scenes[{s}].nodes[{k}]", f"expected a root node, found nodes[{r}], "
                          f"a child of nodes[{parent[r]}]")
        else:
            roots = forest
        out, stack = [], [(r, np.identity(4)) for r in reversed(roots)]
        while stack:
            i, up = stack.pop()
            with np.errstate(over="ignore", invalid="ignore"):
                world = up @ _local(parsed[i], f"nodes[{i}]")
            if not np.isfinite(world).all():
                _fail(f"nodes[{i}]", "expected a world transform of finite numbers, found one that overflows")
            if parsed[i]["mesh"] is not None:
                out.append((f"nodes[{i}]", world, parsed[i]["mesh"]))
            stack += [(c, world) for c in reversed(parsed[i]["children"])]
        return out


def _local(n: dict, path: str) -> np.ndarray:
    """A node's 4×4 transform: its matrix (column-major) or T·R·S."""
    if n["matrix"] is not None:
        m = np.asarray(n["matrix"], np.float64).reshape(4, 4).T
        if not np.array_equal(m[3], [0, 0, 0, 1]):
            _fail(f"{path}.matrix", f"expected an affine matrix (last row 0, 0, 0, 1), found {m[3].tolist()}")
        return m
    t = np.asarray(n["translation"] or [0, 0, 0], np.float64)
    q = np.asarray(n["rotation"] or [0, 0, 0, 1], np.float64)
    s = np.asarray(n["scale"] or [1, 1, 1], np.float64)
    norm = np.linalg.norm(q)
    if not 0.5 < norm < 1.5:
        _fail(f"{path}.rotation", f"expected a unit quaternion, found one of length {norm:.3g}")
    x, y, z, w = q / norm
    r = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                  [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                  [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
    m = np.identity(4)
    m[:3, :3] = r * s
    m[:3, 3] = t
    return m


def _normal_matrix(m: np.ndarray) -> np.ndarray:
    """float64[3, 3] taking a normal through the linear part ``m``: its cofactor matrix, sign(det)·det·m⁻ᵀ.
    Unlike m⁻ᵀ it exists when m is singular (a zero scale flattens the mesh): the normals of faces
    in the flattened plane stay right, those of faces flattened to nothing become zero."""
    c = np.empty((3, 3))
    for r in range(3):
        for k in range(3):
            minor = np.delete(np.delete(m, r, 0), k, 1)
            c[r, k] = (-1) ** (r + k) * (minor[0, 0] * minor[1, 1] - minor[0, 1] * minor[1, 0])
    return c * (1.0 if np.linalg.det(m) >= 0 else -1.0)


def _face_normals(pos: np.ndarray, tri: np.ndarray) -> np.ndarray:
    """float64[v, 3]: each vertex's area-weighted sum of its faces' normals (not normalised)."""
    a, b, c = (pos[tri[k::3]] for k in range(3))
    face = np.cross(b - a, c - a)
    nrm = np.zeros_like(pos)
    for k in range(3):
        np.add.at(nrm, tri[k::3], face)
    return nrm


def _data_uri(uri: str, prefixes: tuple[str, ...], path: str) -> bytes:
    """The bytes of a base64 data: URI; any other URI (a file, the network) is never opened."""
    if not uri.startswith("data:"):
        _fail(path, f"expected the bytes inside the file (a data: URI), found {_found(uri)} "
              "(external files are not read)")
    if not uri.startswith(prefixes):
        _fail(path, f"expected a data URI beginning {' or '.join(prefixes)}, found {_found(uri)}")
    body = uri.split(",", 1)[1]
    try:
        return base64.b64decode(body, validate=True)
    except (binascii.Error, ValueError):
        _fail(path, "expected base64 after the comma, found characters that are not")


def _png(raw: bytes, path: str) -> bytes:
    """The PNG with only the chunks that decode its pixels, after its IHDR has been checked against the
    caps: text chunks (a zTXt can inflate to far more than the file), ICC profiles and animation never
    reach Pillow, so nothing inflates but the pixels, and those are bounded before decoding."""
    at, out, k, seen = 8, [PNG_SIGNATURE], 0, set()
    while True:
        if at + 12 > len(raw):
            _fail(path, f"expected a PNG chunk at byte {at:,}, found the end of the image (cut short)")
        size, kind = struct.unpack_from(">I4s", raw, at)
        end = at + 12 + size
        if size > 2 ** 31 - 1 or end > len(raw) or not kind.isalpha():
            _fail(path, f"expected a PNG chunk at byte {at:,}, found a header of {size:,} bytes of "
                  f"type {kind!r} (corrupt or cut short)")
        body = raw[at + 8:at + 8 + size]
        if k == 0:
            if kind != b"IHDR" or size != 13:
                _fail(path, "expected the PNG's first chunk to be a 13-byte IHDR, found another")
            w, h, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if not (1 <= w <= MAX_TEXTURE_SIDE and 1 <= h <= MAX_TEXTURE_SIDE and w * h <= MAX_TEXTURE_PIXELS):
                _fail(path, f"expected a texture of at most {MAX_TEXTURE_SIDE} px a side and "
                      f"{MAX_TEXTURE_PIXELS:,} px, found {w:,}×{h:,} (by its IHDR, before decoding)")
            if depth not in PNG_DEPTHS.get(colour, ()) or interlace > 1:
                _fail(path, f"expected a PNG colour type and bit depth, found {colour} at {depth} bits")
        elif kind[0:1].isupper() and kind not in PNG_KEPT:
            _fail(path, f"expected only the PNG's critical chunks IHDR, PLTE, IDAT, IEND, found {kind.decode()}")
        if kind in PNG_KEPT:
            if kind != b"IDAT" and kind in seen and kind != b"IEND":
                _fail(path, f"expected one {kind.decode()} chunk, found two")
            seen.add(kind)
            out.append(raw[at:end])
        at, k = end, k + 1
        if kind == b"IEND":
            break
    if b"IDAT" not in seen:
        _fail(path, "expected image data (an IDAT chunk), found none")
    return b"".join(out)


def _image(raw: bytes, path: str) -> np.ndarray:
    """uint8[h, w, 4]: a PNG or JPEG's pixels, its size checked from its header before decoding."""
    if raw.startswith(PNG_SIGNATURE):
        raw = _png(raw, path)
    elif not raw.startswith(b"\xff\xd8\xff"):
        _fail(path, "expected a PNG or JPEG image, found bytes that are neither")
    try:
        with Image.open(io.BytesIO(raw), formats=("PNG", "JPEG")) as im:
            w, h = im.size                                  # a JPEG's frame header: nothing decoded yet
            if not (w <= MAX_TEXTURE_SIDE and h <= MAX_TEXTURE_SIDE and w * h <= MAX_TEXTURE_PIXELS):
                _fail(path, f"expected a texture of at most {MAX_TEXTURE_SIDE} px a side and "
                      f"{MAX_TEXTURE_PIXELS:,} px, found {w:,}×{h:,} (by its header, before decoding)")
            return np.asarray(im.convert("RGBA"), np.uint8).copy()
    except ModelError:
        raise
    except Exception as e:  # noqa: BLE001  Pillow raises OSError, SyntaxError, ValueError, zlib.error, … on a bad image
        _fail(path, f"expected an image that decodes, found one that does not ({type(e).__name__}: {str(e)[:60]})")


def _texture(r: Reader, pbr: dict, path: str) -> np.ndarray | None:
    info = pbr["baseColorTexture"]
    if info is None:
        return None
    at = f"{path}.baseColorTexture"
    t = r.fields(info, "textureInfo", at)
    src = r.field(r.table("textures")[t["index"]], "texture", "source", f"textures[{t['index']}]")
    ipath = f"images[{src}]"
    img = r.fields(r.table("images")[src], "image", ipath)
    if (img["bufferView"] is None) == (img["uri"] is None):
        _fail(ipath, "expected a bufferView or a uri, found " + ("neither" if img["uri"] is None else "both"))
    if img["uri"] is not None:
        raw = _data_uri(img["uri"], DATA_IMAGE, f"{ipath}.uri")
    else:
        if img["mimeType"] is None:
            _fail(ipath, "expected a mimeType with its bufferView, found none")
        raw, _ = r.view(img["bufferView"])
    return _image(raw, ipath)


def parse(data: bytes) -> CardModel:
    """The card model in a GLB file's bytes; ModelError (one line) on anything unusable."""
    if len(data) > MAX_BYTES:
        _fail("", f"expected a file of at most {MAX_BYTES:,} bytes, found {len(data):,}")
    r = Reader(*_chunks(data))
    asset = r.doc.get("asset")
    obj(asset, "asset", r)
    version, least = r.field(asset, "asset", "version", "asset"), r.field(asset, "asset", "minVersion", "asset")
    if not version.startswith("2."):
        _fail("asset.version", f"expected glTF 2.x, found {_found(version)}")
    if least != "2.0":
        _fail("asset.minVersion", f"expected 2.0 (the version read), found {_found(least)}")
    required = r.doc.get("extensionsRequired", [])
    if required != []:
        _expect("extensionsRequired", "none (no extension is read)", required)
    for name in TABLES:
        r.table(name)
    # The plan: every (instance, primitive) checked and its triangles and vertices counted from the
    # JSON before a single accessor is decoded.
    plan, triangles, vertices = [], 0, 0
    meshes: dict[int, list[dict]] = {}
    for node_path, world, m in r.draws():
        if m not in meshes:
            mpath = f"meshes[{m}]"
            prims = r.table("meshes")[m].get("primitives")
            if not isinstance(prims, list) or not 1 <= len(prims) <= MAX_PRIMITIVES:
                _expect(f"{mpath}.primitives", f"an array of 1..{MAX_PRIMITIVES} primitives", prims)
            meshes[m] = [_primitive(r, p, f"{mpath}.primitives[{k}]") for k, p in enumerate(prims)]
        for p in meshes[m]:
            plan.append((node_path, world, p))
            triangles += p["triangles"]
            vertices += p["vertices"]
            if len(plan) > MAX_INSTANCES:
                _fail(node_path, f"expected at most {MAX_INSTANCES:,} primitives drawn, found more "
                      "(a mesh under too many nodes?)")
            if triangles > MAX_TRIANGLES or vertices > MAX_VERTICES:
                _fail(node_path, f"expected at most {MAX_TRIANGLES:,} triangles and {MAX_VERTICES:,} vertices "
                      f"drawn, found {triangles:,} and {vertices:,} so far (counted before decoding)")
    if not plan:
        _fail("scenes", "expected a mesh in the default scene, found no triangles")
    verts, idx, count = [], [], 0
    for node_path, world, p in plan:
        pos, nrm, uv, tri = _decode(r, p)
        lin = world[:3, :3]
        with np.errstate(over="ignore", invalid="ignore"):
            pos = pos @ lin.T + world[:3, 3]
            if not np.isfinite(pos).all() or np.abs(pos).max() > 1e30:
                _fail(node_path, "expected vertices within float range once moved, found them overflowing")
            face = _face_normals(pos, tri)
            if nrm is not None:
                nrm = nrm @ _normal_matrix(lin).T
                scale = np.linalg.norm(nrm, axis=1, keepdims=True)
                lost = scale[:, 0] <= 1e-9 * max(float(scale.max()), 1e-300)
                nrm[lost] = face[lost]                # a normal a singular transform flattened: its faces'
            else:
                nrm = face
            length = np.linalg.norm(nrm, axis=1, keepdims=True)
            nrm = np.where(length > 0, nrm / np.where(length > 0, length, 1.0), [0.0, 0.0, 1.0])
        verts.append(np.concatenate([pos, nrm, uv], axis=1))
        idx.append(tri + count)
        count += len(pos)
    first = plan[0][2]
    mpath = f"materials[{first['material']}]" if first["material"] is not None else ""
    mat = r.table("materials")[first["material"]] if mpath else {}
    pbr_obj = r.field(mat, "material", "pbrMetallicRoughness", mpath)
    ppath = f"{mpath}.pbrMetallicRoughness"
    pbr = r.fields(pbr_obj, "pbr", ppath)
    out = np.concatenate(verts).astype(np.float32)
    if not np.isfinite(out).all():
        _fail(plan[0][0], "expected vertices within float32 range, found them overflowing")
    return CardModel(vertices=out, indices=np.concatenate(idx).astype(np.int32),
                     colour=np.asarray(pbr["baseColorFactor"], np.float64), metallic=pbr["metallicFactor"],
                     roughness=pbr["roughnessFactor"], texture=_texture(r, pbr, ppath))


def _primitive(r: Reader, prim, path: str) -> dict:
    """A primitive's fields and its accessors' heads checked, with the triangles and vertices it adds."""
    obj(prim, path, r)
    p = r.fields(prim, "primitive", path)
    if p["mode"] != TRIANGLES:
        _fail(f"{path}.mode", f"expected triangles (4), found {p['mode']}")
    if p["targets"] is not None:
        _fail(f"{path}.targets", "expected no morph targets (not applied), found some")
    attrs = p["attributes"]
    for name, v in attrs.items():
        ref("accessors")(v, f"{path}.attributes.{name}", r)
    if "POSITION" not in attrs:
        _fail(f"{path}.attributes", "expected a POSITION accessor, found none")
    heads = {name: r.accessor_head(attrs[name]) for name in ("POSITION", "NORMAL", "TEXCOORD_0") if name in attrs}
    v = heads["POSITION"]["count"]
    for name, h in heads.items():
        if h["count"] != v:
            _fail(f"accessors[{attrs[name]}].count", f"expected POSITION's {v:,} for {name}, found {h['count']:,}")
    n = r.accessor_head(p["indices"])["count"] if p["indices"] is not None else v
    if n % 3:
        _fail(f"accessors[{p['indices']}].count" if p["indices"] is not None else f"accessors[{attrs['POSITION']}].count",
              f"expected a multiple of 3 (triangles), found {n:,}")
    return {**p, "path": path, "triangles": n // 3, "vertices": v}


def _decode(r: Reader, p: dict):
    """(positions float64[v, 3], normals or None, uvs float64[v, 2], indices int64[3·t]) of a planned primitive."""
    attrs, path = p["attributes"], p["path"]
    pos = r.accessor(attrs["POSITION"], f"{path}.attributes.POSITION", ("VEC3",), (5126,))
    nrm = (r.accessor(attrs["NORMAL"], f"{path}.attributes.NORMAL", ("VEC3",), (5126,))
           if "NORMAL" in attrs else None)
    uv = (r.accessor(attrs["TEXCOORD_0"], f"{path}.attributes.TEXCOORD_0", ("VEC2",), (5126, 5121, 5123))
          if "TEXCOORD_0" in attrs else np.zeros((len(pos), 2)))
    if "TEXCOORD_0" in attrs and r.accessor_head(attrs["TEXCOORD_0"])["componentType"] != 5126 \
            and not r.accessor_head(attrs["TEXCOORD_0"])["normalized"]:
        _fail(f"accessors[{attrs['TEXCOORD_0']}].normalized", "expected true for integer texture coordinates, found false")
    if p["indices"] is None:
        tri = np.arange(len(pos), dtype=np.int64)
    else:
        tri = r.accessor(p["indices"], f"{path}.indices", ("SCALAR",), (5121, 5123, 5125), normalized=False,
                         indices=True).reshape(-1)
        if tri.size and tri.max() >= len(pos):
            k = int(np.argmax(tri >= len(pos)))
            _fail(f"accessors[{p['indices']}]", f"expected indices below POSITION's {len(pos):,} vertices, "
                  f"found {int(tri[k]):,} at element {k:,}")
    return pos, nrm, uv, tri


def fit(model: CardModel, width: float, height: float, drop: float) -> np.ndarray:
    """float32[v, 8]: the model's vertices scaled (uniformly) and moved into the card's frame —
    inside width × height units, its top centre at (0, −drop), its front (largest z) at z = 0."""
    v = model.vertices.copy()
    lo, hi = v[:, :3].min(axis=0), v[:, :3].max(axis=0)
    size = np.maximum(hi - lo, 1e-9)
    s = min(width / size[0], height / size[1])
    centre_x = (lo[0] + hi[0]) / 2
    v[:, 0] = (v[:, 0] - centre_x) * s
    v[:, 1] = (v[:, 1] - hi[1]) * s - drop
    v[:, 2] = (v[:, 2] - hi[2]) * s
    return v


def write(path, positions, indices, uvs=None, normals=None, colour=(1.0, 1.0, 1.0, 1.0), metallic=0.0,
          roughness=0.5, png: bytes | None = None) -> None:
    """A minimal GLB: one mesh, one material, an optional embedded PNG (for the shipped model and the tests)."""
    parts, views, accessors = [], [], []

    def add(arr: np.ndarray, kind: str, ctype: int, target=None):
        raw = np.ascontiguousarray(arr).tobytes()
        off = sum(len(p) for p in parts)
        parts.append(raw + b"\0" * (-len(raw) % 4))
        views.append({"buffer": 0, "byteOffset": off, "byteLength": len(raw), **({"target": target} if target else {})})
        acc = {"bufferView": len(views) - 1, "componentType": ctype, "count": len(arr), "type": kind}
        if kind == "VEC3" and ctype == 5126:
            acc["min"], acc["max"] = arr.min(axis=0).tolist(), arr.max(axis=0).tolist()
        accessors.append(acc)
        return len(accessors) - 1

    attrs = {"POSITION": add(np.asarray(positions, np.float32), "VEC3", 5126, 34962)}
    if normals is not None:
        attrs["NORMAL"] = add(np.asarray(normals, np.float32), "VEC3", 5126, 34962)
    if uvs is not None:
        attrs["TEXCOORD_0"] = add(np.asarray(uvs, np.float32), "VEC2", 5126, 34962)
    ind = add(np.asarray(indices, np.uint32).reshape(-1), "SCALAR", 5125, 34963)
    pbr = {"baseColorFactor": list(colour), "metallicFactor": metallic, "roughnessFactor": roughness}
    doc = {"asset": {"version": "2.0", "generator": "ropework"}, "scene": 0, "scenes": [{"nodes": [0]}],
           "nodes": [{"mesh": 0}], "meshes": [{"primitives": [{"attributes": attrs, "indices": ind, "material": 0}]}],
           "materials": [{"pbrMetallicRoughness": pbr}], "accessors": accessors, "bufferViews": views}
    if png is not None:
        off = sum(len(p) for p in parts)
        parts.append(png + b"\0" * (-len(png) % 4))
        views.append({"buffer": 0, "byteOffset": off, "byteLength": len(png)})
        doc["images"] = [{"bufferView": len(views) - 1, "mimeType": "image/png"}]
        doc["textures"] = [{"source": 0}]
        pbr["baseColorTexture"] = {"index": 0}
    blob = b"".join(parts)
    doc["buffers"] = [{"byteLength": len(blob)}]
    js = json.dumps(doc, separators=(",", ":")).encode()
    js += b" " * (-len(js) % 4)
    total = 12 + 8 + len(js) + 8 + len(blob)
    with open(path, "wb") as f:
        f.write(struct.pack("<III", MAGIC, 2, total))
        f.write(struct.pack("<II", len(js), JSON_CHUNK) + js)
        f.write(struct.pack("<II", len(blob), BIN_CHUNK) + blob)
