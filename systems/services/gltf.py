"""Read a card model from a GLB file (glTF 2.0, binary): its triangles, base-colour texture and factors.

Ours, with numpy and Pillow: a GLB is a 12-byte header, a JSON chunk that
describes typed views (accessors) into one binary chunk, and those bytes. A
reader library would hand back the same JSON and blob and leave the accessor
decoding to us, so it would add a dependency without removing this code.

What is read: every mesh the default scene's nodes reach (their translation,
rotation, scale or matrix applied, down the hierarchy), triangle primitives
only, POSITION (required), NORMAL (else area-weighted from the faces),
TEXCOORD_0 (else 0), indices (else the vertices in order); the first
primitive's material: pbrMetallicRoughness base-colour factor, metallic and
roughness factors, and its base-colour texture when the image is embedded in
the file (PNG or JPEG). Anything else (external files, sparse accessors, lines
or points, a value out of range) is refused with a `ModelError` whose text is
one line saying what was found, so a level can report it.
"""
from __future__ import annotations

import io
import json
import struct
from dataclasses import dataclass

import numpy as np
from PIL import Image, UnidentifiedImageError

MAGIC = 0x46546C67          # "glTF"
JSON_CHUNK = 0x4E4F534A     # "JSON"
BIN_CHUNK = 0x004E4942      # "BIN\0"
MAX_BYTES = 32 * 1024 * 1024   # a card, not a scene: bounds memory well under the 1 GiB budget
MAX_TRIANGLES = 200_000        # ≈ 6 MiB of vertices; the seed's card is ~300 triangles
MAX_TEXTURE_SIDE = 4096        # px, as card images
MAX_DEPTH = 32                 # node nesting followed at most (a cycle is refused before this)
COMPONENTS = {5120: np.int8, 5121: np.uint8, 5122: np.int16, 5123: np.uint16, 5125: np.uint32, 5126: np.float32}
WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}
TRIANGLES = 4


class ModelError(ValueError):
    """A GLB that cannot be used; str() is one line."""


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


def _fail(msg: str):
    raise ModelError(msg)


def _chunks(data: bytes) -> tuple[dict, bytes]:
    if len(data) < 20:
        _fail(f"a file of {len(data)} bytes, too short for a GLB")
    magic, version, length = struct.unpack_from("<III", data, 0)
    if magic != MAGIC:
        _fail("no GLB header (a .gltf text file or another format?)")
    if version != 2:
        _fail(f"glTF version {version}, expected 2")
    if length != len(data):
        _fail(f"a header length of {length} bytes for a file of {len(data)}")
    at, doc, blob = 12, None, b""
    while at + 8 <= length:
        size, kind = struct.unpack_from("<II", data, at)
        body = data[at + 8:at + 8 + size]
        if len(body) != size:
            _fail(f"a chunk of {size} bytes cut short at {len(body)}")
        if kind == JSON_CHUNK and doc is None:
            try:
                doc = json.loads(body.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
                _fail(f"JSON that does not parse ({type(e).__name__})")
        elif kind == BIN_CHUNK and not blob:
            blob = body
        at += 8 + size
    if not isinstance(doc, dict):
        _fail("no JSON chunk describing the model")
    return doc, blob


def _list(doc: dict, name: str) -> list:
    v = doc.get(name, [])
    if not isinstance(v, list) or not all(isinstance(e, dict) for e in v):
        _fail(f"{name!r} is not a list of objects")
    return v


def _index(v, n: int, what: str) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < n:
        _fail(f"{what} {v!r} out of range (0..{n - 1})")
    return v


def _view(doc: dict, blob: bytes, i) -> tuple[bytes, int]:
    """The bytes of buffer view i (from the GLB's binary chunk) and its stride (0: packed)."""
    views = _list(doc, "bufferViews")
    v = views[_index(i, len(views), "bufferView")]
    buffers = _list(doc, "buffers")
    b = _index(v.get("buffer", -1), len(buffers), "buffer")
    if b != 0 or "uri" in buffers[b]:
        _fail("a buffer outside the GLB's binary chunk (external files are not read)")
    off, size, stride = v.get("byteOffset", 0), v.get("byteLength", -1), v.get("byteStride", 0)
    if not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in (off, size, stride)) \
            or off + size > len(blob):
        _fail(f"bufferView {i} outside the binary chunk")
    return blob[off:off + size], stride


def _accessor(doc: dict, blob: bytes, i, types: tuple[str, ...]) -> np.ndarray:
    """Accessor i as float64 or int64 [count, width]; normalised integers scaled to 0..1 or −1..1."""
    accs = _list(doc, "accessors")
    a = accs[_index(i, len(accs), "accessor")]
    if "sparse" in a:
        _fail(f"accessor {i} is sparse (not supported)")
    kind, ctype, count = a.get("type"), a.get("componentType"), a.get("count")
    if kind not in types or ctype not in COMPONENTS:
        _fail(f"accessor {i} is {kind} of component {ctype}, expected one of {', '.join(types)}")
    if not isinstance(count, int) or isinstance(count, bool) or not 0 < count <= 3 * MAX_TRIANGLES:
        _fail(f"accessor {i} has count {count!r} (1..{3 * MAX_TRIANGLES})")
    raw, stride = _view(doc, blob, a.get("bufferView"))
    dtype = np.dtype(COMPONENTS[ctype]).newbyteorder("<")
    width = WIDTH[kind]
    item = dtype.itemsize * width
    stride = stride or item
    off = a.get("byteOffset", 0)
    if not isinstance(off, int) or off < 0 or off + stride * (count - 1) + item > len(raw):
        _fail(f"accessor {i} reaches past its bufferView")
    rows = np.frombuffer(raw, np.uint8, count=stride * (count - 1) + item, offset=off)
    rows = np.lib.stride_tricks.as_strided(rows, (count, item), (stride, 1))
    out = np.ascontiguousarray(rows).view(dtype).reshape(count, width)
    if dtype.kind == "f":
        out = out.astype(np.float64)
        if not np.isfinite(out).all():
            _fail(f"accessor {i} holds a non-finite number")
        return out
    if a.get("normalized"):
        info = np.iinfo(dtype)
        return np.maximum(out.astype(np.float64) / info.max, -1.0)
    return out.astype(np.int64)


def _local(node: dict) -> np.ndarray:
    """A node's 4×4 transform: its matrix (column-major) or T·R·S."""
    if "matrix" in node:
        m = np.asarray(node["matrix"], np.float64)
        if m.shape != (16,) or not np.isfinite(m).all():
            _fail("a node matrix that is not 16 finite numbers")
        return m.reshape(4, 4).T
    t = np.asarray(node.get("translation", [0, 0, 0]), np.float64)
    q = np.asarray(node.get("rotation", [0, 0, 0, 1]), np.float64)
    s = np.asarray(node.get("scale", [1, 1, 1]), np.float64)
    if t.shape != (3,) or q.shape != (4,) or s.shape != (3,) or not (np.isfinite(t).all()
                                                                      and np.isfinite(q).all() and np.isfinite(s).all()):
        _fail("a node translation, rotation or scale of the wrong size")
    x, y, z, w = q / max(np.linalg.norm(q), 1e-12)
    r = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                  [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                  [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
    m = np.identity(4)
    m[:3, :3] = r * s
    m[:3, 3] = t
    return m


def _texture(doc: dict, blob: bytes, material: dict) -> np.ndarray | None:
    ref = material.get("pbrMetallicRoughness", {}).get("baseColorTexture")
    if ref is None:
        return None
    textures = _list(doc, "textures")
    tex = textures[_index(ref.get("index") if isinstance(ref, dict) else None, len(textures), "texture")]
    images = _list(doc, "images")
    img = images[_index(tex.get("source"), len(images), "image")]
    if "bufferView" not in img:
        _fail("a texture image outside the file (external files are not read)")
    raw, _ = _view(doc, blob, img["bufferView"])
    try:
        with Image.open(io.BytesIO(raw)) as im:
            if im.format not in ("PNG", "JPEG"):
                _fail(f"a {im.format} texture, expected PNG or JPEG")
            if max(im.size) > MAX_TEXTURE_SIDE:
                _fail(f"a texture of {im.size[0]}×{im.size[1]} px (at most {MAX_TEXTURE_SIDE} a side)")
            return np.asarray(im.convert("RGBA"), np.uint8).copy()
    except (UnidentifiedImageError, OSError, SyntaxError, Image.DecompressionBombError) as e:
        _fail(f"a texture that is not a readable image ({type(e).__name__})")


def parse(data: bytes) -> CardModel:
    """The card model in a GLB file's bytes; ModelError (one line) on anything unusable."""
    if len(data) > MAX_BYTES:
        _fail(f"a file of {len(data):,} bytes (at most {MAX_BYTES:,})")
    doc, blob = _chunks(data)
    meshes, nodes = _list(doc, "meshes"), _list(doc, "nodes")
    scenes = _list(doc, "scenes")
    if scenes:
        roots = scenes[_index(doc.get("scene", 0), len(scenes), "scene")].get("nodes", [])
    else:
        roots = list(range(len(nodes)))
    verts, idx, count, first = [], [], 0, None
    stack = [(_index(r, len(nodes), "node"), np.identity(4), 0) for r in roots]
    while stack:
        n, parent, depth = stack.pop()
        if depth > MAX_DEPTH:
            _fail(f"nodes nested deeper than {MAX_DEPTH} (a cycle?)")
        node = nodes[n]
        world = parent @ _local(node)
        stack += [(_index(c, len(nodes), "node"), world, depth + 1) for c in node.get("children", [])]
        if "mesh" not in node:
            continue
        for prim in meshes[_index(node["mesh"], len(meshes), "mesh")].get("primitives", []):
            if prim.get("mode", TRIANGLES) != TRIANGLES:
                _fail(f"a primitive of mode {prim.get('mode')}, expected triangles (4)")
            attrs = prim.get("attributes", {})
            if "POSITION" not in attrs:
                _fail("a primitive without POSITION")
            pos = _accessor(doc, blob, attrs["POSITION"], ("VEC3",))
            v = len(pos)
            tri = (_accessor(doc, blob, prim["indices"], ("SCALAR",)).reshape(-1) if "indices" in prim
                   else np.arange(v))
            if tri.dtype.kind == "f" or len(tri) % 3 or (len(tri) and (tri.min() < 0 or tri.max() >= v)):
                _fail(f"indices that are not triangles of its {v} vertices")
            pos = pos @ world[:3, :3].T + world[:3, 3]
            if "NORMAL" in attrs:
                nrm = _accessor(doc, blob, attrs["NORMAL"], ("VEC3",))
                if len(nrm) != v:
                    _fail(f"{len(nrm)} normals for {v} vertices")
                nrm = nrm @ np.linalg.inv(world[:3, :3]).T
            else:
                a, b, c = (pos[tri[k::3]] for k in range(3))
                face = np.cross(b - a, c - a)
                nrm = np.zeros_like(pos)
                for k in range(3):
                    np.add.at(nrm, tri[k::3], face)
            nrm /= np.maximum(np.linalg.norm(nrm, axis=1, keepdims=True), 1e-12)
            uv = (_accessor(doc, blob, attrs["TEXCOORD_0"], ("VEC2",)) if "TEXCOORD_0" in attrs
                  else np.zeros((v, 2)))
            if len(uv) != v:
                _fail(f"{len(uv)} texture coordinates for {v} vertices")
            verts.append(np.concatenate([pos, nrm, uv], axis=1))
            idx.append(tri + count)
            count += v
            if sum(len(i) for i in idx) > 3 * MAX_TRIANGLES:
                _fail(f"more than {MAX_TRIANGLES:,} triangles")
            if first is None:
                first = prim
    if not idx or not sum(len(i) for i in idx):
        _fail("no triangles in the default scene")
    materials = _list(doc, "materials")
    mat = materials[_index(first["material"], len(materials), "material")] if "material" in first else {}
    pbr = mat.get("pbrMetallicRoughness", {})
    colour = np.asarray(pbr.get("baseColorFactor", [1.0, 1.0, 1.0, 1.0]), np.float64)
    metal, rough = pbr.get("metallicFactor", 1.0), pbr.get("roughnessFactor", 1.0)
    if colour.shape != (4,) or not all(isinstance(x, (int, float)) and 0.0 <= x <= 1.0
                                       for x in (*colour.tolist(), metal, rough)):
        _fail("material factors outside 0..1")
    return CardModel(vertices=np.concatenate(verts).astype(np.float32), indices=np.concatenate(idx).astype(np.int32),
                     colour=colour, metallic=float(metal), roughness=float(rough), texture=_texture(doc, blob, mat))


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
