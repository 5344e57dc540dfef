"""The GLB card model: the reader, its one-line errors, and the model's triangles and texture on the GPU."""
from __future__ import annotations

import io
import json
import struct

import numpy as np
import pytest
from PIL import Image

from ropework.level import load
from ropework.schema import LevelError
from ropework.systems.lanyard import gltf
from tests.conftest import LEVELS
from tests.lanyard import SIZE

SHIPPED = LEVELS / "badge-card.glb"


def png(rgb=(0, 200, 90), size=(8, 12)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, rgb).save(buf, format="PNG")
    return buf.getvalue()


def quad(path, **kw):
    pos = np.array([[0, 0, 0], [2, 0, 0], [2, 3, 0], [0, 3, 0]], np.float32)
    gltf.write(path, pos, np.array([0, 1, 2, 0, 2, 3]), uvs=np.array([[0, 1], [1, 1], [1, 0], [0, 0]]), **kw)
    return path


def test_the_shipped_model_is_a_textured_card():
    m = gltf.parse(SHIPPED.read_bytes())
    assert m.triangles == 64 and m.texture.shape == (688, 432, 4)
    assert m.roughness == 0.35 and m.metallic == 0.0
    n = np.linalg.norm(m.vertices[:, 3:6], axis=1)
    np.testing.assert_allclose(n, 1.0, atol=1e-5)


def test_normals_missing_are_made_from_the_faces_and_factors_read(tmp_path):
    m = gltf.parse(quad(tmp_path / "q.glb", colour=(0.5, 0.25, 1.0, 1.0), metallic=0.7, roughness=0.2).read_bytes())
    assert m.triangles == 2 and m.texture is None
    np.testing.assert_allclose(m.vertices[:, 3:6], np.tile([0, 0, 1], (4, 1)), atol=1e-6)   # counter-clockwise: +z
    np.testing.assert_allclose(m.colour, (0.5, 0.25, 1.0, 1.0))
    assert (m.metallic, m.roughness) == (pytest.approx(0.7), pytest.approx(0.2))


def test_fit_puts_the_model_in_the_card_frame(tmp_path):
    m = gltf.parse(quad(tmp_path / "q.glb").read_bytes())
    v = gltf.fit(m, 1.6, 2.25, 0.16)
    lo, hi = v[:, :3].min(axis=0), v[:, :3].max(axis=0)
    np.testing.assert_allclose(hi[1], -0.16, atol=1e-6)                   # top edge at the clip's reach
    np.testing.assert_allclose((lo[0] + hi[0]) / 2, 0.0, atol=1e-6)       # centred
    np.testing.assert_allclose(hi[0] - lo[0], 1.5, atol=1e-5)             # 2×3 scaled by 0.75 to fit 2.25 tall
    assert hi[2] == 0.0


def doc_and_blob(data: bytes):
    jl = struct.unpack_from("<I", data, 12)[0]
    return json.loads(data[20:20 + jl]), data[20 + jl + 8:]


def rebuild(doc, blob) -> bytes:
    js = json.dumps(doc).encode()
    js += b" " * (-len(js) % 4)
    total = 12 + 8 + len(js) + 8 + len(blob)
    return (struct.pack("<III", gltf.MAGIC, 2, total) + struct.pack("<II", len(js), gltf.JSON_CHUNK) + js
            + struct.pack("<II", len(blob), gltf.BIN_CHUNK) + blob)


def broken(kind, data):
    doc, blob = doc_and_blob(data)
    prim = doc["meshes"][0]["primitives"][0]
    if kind == "truncated":
        return data[:len(data) // 2]
    if kind == "magic":
        return b"GLTF" + data[4:]
    if kind == "json":
        return data[:20] + b"}" + data[21:]
    if kind == "index":
        blob = bytearray(blob)
        idx = doc["accessors"][prim["indices"]]
        view = doc["bufferViews"][idx["bufferView"]]
        struct.pack_into("<I", blob, view["byteOffset"], 99)
        return rebuild(doc, bytes(blob))
    if kind == "external":
        doc["buffers"][0]["uri"] = "../../secret.bin"
    elif kind == "lines":
        prim["mode"] = 1
    elif kind == "sparse":
        doc["accessors"][0]["sparse"] = {"count": 1}
    elif kind == "no position":
        del prim["attributes"]["POSITION"]
    elif kind == "accessor":
        doc["accessors"][prim["indices"]]["count"] = 9_999
    elif kind == "texture":
        doc["images"] = [{"uri": "face.png"}]
        doc["textures"] = [{"source": 0}]
        doc["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"] = {"index": 0}
    return rebuild(doc, blob)


@pytest.mark.parametrize("kind, found", [
    ("truncated", "header.length: expected"), ("magic", "header: expected the GLB magic"),
    ("json", "chunks[0]: expected UTF-8 JSON"), ("index", "accessors[2]: expected indices below"),
    ("external", "buffers[0].uri: expected the bytes inside the file"),
    ("lines", "meshes[0].primitives[0].mode: expected triangles"), ("sparse", "accessors[0].sparse"),
    ("no position", "attributes: expected a POSITION"), ("accessor", "accessors[2].count: expected elements within"),
    ("texture", "images[0].uri: expected the bytes inside the file"),
])
def test_a_malformed_model_is_one_level_error_line(tmp_path, kind, found):
    (tmp_path / "card.glb").write_bytes(broken(kind, quad(tmp_path / "q.glb").read_bytes()))
    (tmp_path / "m.toml").write_text('[[layer]]\nkind = "lanyard"\ncard_model = "card.glb"\n')
    with pytest.raises(LevelError) as e:
        load(tmp_path / "m.toml")
    msg = str(e.value)
    assert "\n" not in msg and "layer[0].card_model" in msg and "'card.glb'" in msg and found in msg, msg


def test_a_model_outside_the_level_folder_is_refused(tmp_path):
    (tmp_path / "inner").mkdir()
    (tmp_path / "inner" / "m.toml").write_text('[[layer]]\nkind = "lanyard"\ncard_model = "../q.glb"\n')
    quad(tmp_path / "q.glb")
    with pytest.raises(LevelError, match="leads outside it"):
        load(tmp_path / "inner" / "m.toml")


def test_the_models_triangles_and_texture_reach_the_gpu(scenes, gl_window, tmp_path):
    from ropework.render import Offscreen
    from ropework.systems.lanyard.draw_lanyard import DrawLanyard
    quad(tmp_path / "card.glb", png=png((10, 200, 90)), roughness=0.9)
    (tmp_path / "m.toml").write_text('theme = "dark"\n[[layer]]\nkind = "lanyard"\ncard_model = "card.glb"\n')
    s = scenes(tmp_path / "m.toml", size=SIZE, reduced_motion=True)
    s.step(2)
    off = Offscreen(gl_window.ctx, SIZE)
    off.render(s)
    drawer = next(d for d in s.draws if isinstance(d, DrawLanyard))
    (gl,) = drawer._gl.values()
    geo = gl.parts["model"]
    assert geo.num_vertices == 6                                          # 2 triangles drawn
    on_gpu = np.frombuffer(geo.index_buffer.read(), np.int32)
    np.testing.assert_array_equal(on_gpu, [0, 1, 2, 0, 2, 3])
    tex = gl.model[2]
    assert tex.size == (8, 12)
    texels = np.frombuffer(tex.read(), np.uint8).reshape(12, 8, 4)
    assert (texels[..., :3] == (10, 200, 90)).all()
    from tests.lanyard import card_pixel
    x, y = card_pixel(s)
    r, g, b = off.pixels()[int(y), int(x), :3].astype(int)
    assert g > 150 and r < 80                                             # the texture's green, lit, on screen


def test_the_shipped_model_level_draws_all_its_triangles(scenes, gl_window):
    from ropework.render import Offscreen
    from ropework.systems.lanyard.draw_lanyard import DrawLanyard
    s = scenes("model.toml", size=SIZE, reduced_motion=True)
    Offscreen(gl_window.ctx, SIZE).render(s)
    drawer = next(d for d in s.draws if isinstance(d, DrawLanyard))
    (gl,) = drawer._gl.values()
    assert gl.model_triangles == 64 and gl.parts["model"].num_vertices == 192
