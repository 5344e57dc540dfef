"""The GLB reader against hostile files: one test per class of defect, and a structure-aware fuzzer.

Every refusal is a `gltf.ModelError` of one line naming the JSON path; nothing else escapes, and the
work is bounded (time and memory) whatever the file says.
Long runs by hand: the suite's own fuzz test with more examples (the same derandomized sequence,
extended), ``ROPEWORK_FUZZ_EXAMPLES=20000 bash scripts/test.sh tests/systems/lanyard/test_gltf_untrusted.py
-k mutated -n 0``; or fresh random examples for MINUTES, ``python -m tests.systems.lanyard.test_gltf_untrusted
MINUTES``. The figures of the last long runs are in docs/reliability.md.
"""
from __future__ import annotations

import copy
import io
import json
import os
import struct
import sys
import time
import tracemalloc
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from ropework.systems.lanyard import gltf
from tests.conftest import LEVELS
from tests.systems.lanyard.test_gltf import doc_and_blob, png, quad, rebuild

FUZZ_EXAMPLES = int(os.environ.get("ROPEWORK_FUZZ_EXAMPLES", 120))   # in the suite: ~10 s on this machine class
FUZZ_SECONDS = 3.0           # one parse, at most (loaded machine included)
FUZZ_PEAK = 320 * 2 ** 20    # bytes traced during one parse, at most


def refused(data: bytes, path: str, *words: str) -> str:
    with pytest.raises(gltf.ModelError) as e:
        gltf.parse(data)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(path + ": "), msg
    for w in words:
        assert w in msg, (w, msg)
    return msg


@pytest.fixture
def card(tmp_path):
    """(doc, blob) of a textured quad with normals."""
    nrm = np.tile([0.0, 0.0, 1.0], (4, 1))
    return doc_and_blob(quad(tmp_path / "q.glb", png=png(), normals=nrm).read_bytes())


def test_wrong_json_types_name_their_path(card):
    doc, blob = card
    d = copy.deepcopy(doc)
    d["nodes"][0]["matrix"] = [1, 0, 0, 0, 0, "x", 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
    refused(rebuild(d, blob), "nodes[0].matrix[5]", 'expected a number', 'found string "x"')
    d = copy.deepcopy(doc)
    d["meshes"][0]["primitives"][0]["attributes"] = [0]
    refused(rebuild(d, blob), "meshes[0].primitives[0].attributes", "expected an object", "found an array of 1")
    d = copy.deepcopy(doc)
    d["nodes"] = {"0": {}}
    refused(rebuild(d, blob), "nodes", "expected an array")
    d = copy.deepcopy(doc)
    d["accessors"][0]["count"] = 4.0
    refused(rebuild(d, blob), "accessors[0].count", "expected an integer", "found the number 4.0")


def test_a_huge_integer_is_refused_unconverted(card):
    doc, blob = card
    d = copy.deepcopy(doc)
    d["accessors"][0]["count"] = "HUGE"
    data = rebuild(d, blob).replace(b'"HUGE"', b"9" * 5000)
    js_len = struct.unpack_from("<I", data, 12)[0]
    fixed = json.dumps(d).replace('"HUGE"', "9" * 5000).encode()
    fixed += b" " * (-len(fixed) % 4)
    data = (struct.pack("<III", gltf.MAGIC, 2, 28 + len(fixed) + len(blob)) + struct.pack("<II", len(fixed),
            gltf.JSON_CHUNK) + fixed + struct.pack("<II", len(blob), gltf.BIN_CHUNK) + blob)
    assert js_len
    refused(data, "accessors[0].count", "a 5,000-digit integer")


def test_a_cycle_and_a_dag_of_nodes_are_refused_fast(card):
    doc, blob = card
    d = copy.deepcopy(doc)
    d["nodes"][0]["children"] = [0]
    d["scenes"] = []
    refused(rebuild(d, blob), "nodes[0]", "a cycle")
    d = copy.deepcopy(doc)                    # 40 nodes, each naming the next twice: 2^40 paths if followed
    d["nodes"] = [{"children": [i + 1, i + 1], "mesh": 0} for i in range(40)] + [{"mesh": 0}]
    t = time.perf_counter()
    refused(rebuild(d, blob), "nodes[0].children[1]", "distinct indices")
    d["nodes"] = [{"children": [i + 1]} for i in range(40)] + [{"mesh": 0, "children": [1]}]
    refused(rebuild(d, blob), "nodes[40].children[0]", "one parent")
    assert time.perf_counter() - t < 1.0


def test_a_mesh_under_many_nodes_is_bounded_and_decoded_once(card):
    doc, blob = card
    d = copy.deepcopy(doc)
    d["nodes"] = [{"children": list(range(1, 2001))}] + [{"mesh": 0} for _ in range(2000)]
    t = time.perf_counter()
    refused(rebuild(d, blob), "nodes[1025]", "too many nodes")
    assert time.perf_counter() - t < 1.0
    d["nodes"] = [{"children": [1, 2, 3]}] + [{"mesh": 0, "translation": [3.0 * k, 0, 0]} for k in range(3)]
    m = gltf.parse(rebuild(d, blob))
    assert m.triangles == 6 and np.ptp(m.vertices[:, 0]) == pytest.approx(8.0)


def test_a_singular_scale_with_normals_is_handled(card):
    doc, blob = card
    d = copy.deepcopy(doc)
    d["nodes"][0]["scale"] = [1.0, 1.0, 0.0]                # flattened: the face's normals still +z
    m = gltf.parse(rebuild(d, blob))
    np.testing.assert_allclose(m.vertices[:, 3:6], np.tile([0, 0, 1], (4, 1)), atol=1e-6)
    d["nodes"][0]["scale"] = [0.0, 0.0, 0.0]                # nothing left: finite, unit normals
    m = gltf.parse(rebuild(d, blob))
    assert np.isfinite(m.vertices).all()
    np.testing.assert_allclose(np.linalg.norm(m.vertices[:, 3:6], axis=1), 1.0, atol=1e-6)


def chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def with_image(doc, blob, image: bytes):
    d = copy.deepcopy(doc)
    img_view = d["images"][0]["bufferView"]
    off = len(blob)
    blob = blob + image + b"\0" * (-len(image) % 4)
    d["bufferViews"][img_view] = {"buffer": 0, "byteOffset": off, "byteLength": len(image)}
    d["buffers"][0]["byteLength"] = len(blob)
    return rebuild(d, blob)


def test_a_png_text_chunk_bomb_never_inflates(card):
    doc, blob = card
    good = png((10, 200, 90))
    bomb = zlib.compress(b"\0" * (8 * 2 ** 20), 9)          # 8 MiB of text from ~8 KB
    image = good[:33] + chunk(b"zTXt", b"note\0\0" + bomb) + good[33:]
    tracemalloc.start()
    m = gltf.parse(with_image(doc, blob, image))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert (m.texture[..., :3] == (10, 200, 90)).all() and peak < 4 * 2 ** 20


def test_a_png_too_large_is_refused_from_its_ihdr(card):
    doc, blob = card
    ihdr = chunk(b"IHDR", struct.pack(">IIBBBBB", 30000, 30000, 8, 2, 0, 0, 0))
    image = gltf.PNG_SIGNATURE + ihdr + chunk(b"IDAT", zlib.compress(b"\0")) + chunk(b"IEND", b"")
    refused(with_image(doc, blob, image), "images[0]", "30,000×30,000", "before decoding")
    buf = io.BytesIO()
    Image.new("RGB", (8, 8)).save(buf, format="GIF")
    refused(with_image(doc, blob, buf.getvalue()), "images[0]", "expected a PNG or JPEG")


def test_data_uris_are_read_and_other_uris_never_opened(card, tmp_path):
    import base64
    doc, blob = card
    d = copy.deepcopy(doc)
    d["buffers"][0]["uri"] = "data:application/octet-stream;base64," + base64.b64encode(blob).decode()
    assert gltf.parse(rebuild(d, b"")).triangles == 2
    (tmp_path / "secret.bin").write_bytes(blob)
    for uri in (str(tmp_path / "secret.bin"), "secret.bin", "file:///etc/passwd", "http://127.0.0.1/x.bin"):
        d["buffers"][0]["uri"] = uri
        refused(rebuild(d, b""), "buffers[0].uri", "external files are not read")


def test_required_extensions_and_bad_chunks_are_refused(card):
    doc, blob = card
    d = copy.deepcopy(doc)
    d["extensionsRequired"] = ["KHR_draco_mesh_compression"]
    refused(rebuild(d, blob), "extensionsRequired", "no extension is read")
    data = bytearray(rebuild(doc, blob))
    struct.pack_into("<I", data, 12, 2 ** 31)
    refused(bytes(data), "chunks[0].chunkLength")


def test_the_shipped_model_is_unchanged():
    m = gltf.parse((LEVELS / "badge-card.glb").read_bytes())
    assert m.triangles == 64 and m.texture.shape == (688, 432, 4)


# ── the fuzzer ────────────────────────────────────────────────────────────────
def _bases():
    import tempfile
    from pathlib import Path
    with tempfile.TemporaryDirectory() as tmp:
        q = quad(Path(tmp) / "q.glb", png=png(), normals=np.tile([0.0, 0.0, 1.0], (4, 1))).read_bytes()
    return [doc_and_blob(q), doc_and_blob((LEVELS / "badge-card.glb").read_bytes())]


BASES = _bases()
KEYS = sorted({k for spec in gltf.SCHEMA.values() for k in spec} | {"children", "nodes", "scene", "primitives"})
HUGE = "\x00HUGE\x00"
NUMBERS = st.one_of(st.sampled_from([-1, 0, 1, 2, 3, 4, 5, 7, 16, 252, 255, 256, 5126, 5125, 65535, 2 ** 31,
                                     2 ** 32 - 1, 2 ** 53 + 1, 2 ** 64, 0.5, -0.0, 1e38, 1e300, HUGE]),
                    st.integers(-2 ** 40, 2 ** 40), st.floats(allow_nan=True, allow_infinity=True))
VALUES = st.recursive(st.none() | st.booleans() | NUMBERS | st.text(max_size=6)
                      | st.sampled_from(["VEC3", "SCALAR", "image/png", "data:", "2.0", "x.bin"]),
                      lambda c: st.lists(c, max_size=5) | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=3),
                                                                         c, max_size=3), max_leaves=10)


def _slots(v, out):
    """(container, key) of every value in the JSON tree."""
    items = v.items() if isinstance(v, dict) else enumerate(v) if isinstance(v, list) else ()
    for k, x in items:
        out.append((v, k))
        _slots(x, out)
    return out


@st.composite
def mutated(draw) -> bytes:
    doc, blob = copy.deepcopy(draw(st.sampled_from(BASES)))
    blob = bytearray(blob)
    for _ in range(draw(st.integers(1, 4))):
        how = draw(st.sampled_from(["replace", "replace", "delete", "insert", "graph", "blob", "truncate"]))
        slots = _slots(doc, [])
        if how in ("replace", "delete", "insert") and slots:
            box, key = draw(st.sampled_from(slots))
            if how == "replace":
                box[key] = draw(VALUES)
            elif how == "delete":
                del box[key]
            elif isinstance(box[key], dict):
                box[key][draw(st.sampled_from(KEYS))] = draw(VALUES)
            elif isinstance(box[key], list):
                box[key].append(copy.deepcopy(box[key][0]) if box[key] and draw(st.booleans()) else draw(VALUES))
        elif how == "graph":
            n = draw(st.integers(1, 12))
            doc["nodes"] = [{"mesh": 0, **({"children": draw(st.lists(st.integers(-1, n), max_size=4))}
                                           if draw(st.booleans()) else {})} for _ in range(n)]
            doc["scenes"] = [{"nodes": draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3))}]
        elif how == "blob" and len(blob) >= 4:
            at = draw(st.integers(0, len(blob) // 4 - 1)) * 4
            word = draw(st.sampled_from([0, 1, 3, 99, 2 ** 31, 2 ** 32 - 1, 0x7F800000, 0x7FC00000, 0x7F7FFFFF]))
            struct.pack_into("<I", blob, at, word)
        elif how == "truncate":
            del blob[draw(st.integers(0, len(blob))):]
    js = json.dumps(doc).replace(json.dumps(HUGE), "9" * 5000).encode()
    js += b" " * (-len(js) % 4)
    data = bytearray(struct.pack("<III", gltf.MAGIC, 2, 28 + len(js) + len(blob)) + struct.pack("<II", len(js),
                     gltf.JSON_CHUNK) + js + struct.pack("<II", len(blob), gltf.BIN_CHUNK) + blob)
    if draw(st.integers(0, 5)) == 0:                        # a chunk header or the file header
        at = draw(st.sampled_from([4, 8, 12, 16, 20 + len(js), 24 + len(js)]))
        struct.pack_into("<I", data, at, draw(st.sampled_from([0, 1, 3, 4, 2 ** 31, 2 ** 32 - 1, gltf.BIN_CHUNK])))
    return bytes(data)


COUNT = [0]


def check_one(data: bytes) -> None:
    """A clean model or the one-line error; nothing else, within FUZZ_SECONDS and FUZZ_PEAK."""
    COUNT[0] += 1
    tracemalloc.start()
    t = time.perf_counter()
    try:
        m = gltf.parse(data)
    except gltf.ModelError as e:
        assert "\n" not in str(e) and str(e)
    else:
        assert m.vertices.dtype == np.float32 and m.vertices.shape[1] == 8 and np.isfinite(m.vertices).all()
        assert len(m.indices) % 3 == 0 and 0 <= m.indices.min() and m.indices.max() < len(m.vertices)
        assert m.texture is None or (m.texture.ndim == 3 and m.texture.shape[2] == 4)
    finally:
        elapsed, peak = time.perf_counter() - t, tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert elapsed < FUZZ_SECONDS and peak < FUZZ_PEAK, (elapsed, peak)


@settings(max_examples=FUZZ_EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(mutated())
def test_a_mutated_glb_is_a_model_or_one_line(data):
    check_one(data)


if __name__ == "__main__":                                  # the long run, by hand
    minutes = float(sys.argv[1]) if len(sys.argv) > 1 else 20.0
    end, batches = time.monotonic() + 60 * minutes, 0
    long_run = settings(max_examples=2000, deadline=None, database=None, suppress_health_check=list(HealthCheck))(
        given(mutated())(check_one))
    while time.monotonic() < end:
        long_run()
        batches += 1
        print(f"{COUNT[0]:,} examples, no finding", flush=True)
