"""A composite whose keys make no physical sense is refused with one line naming the key and the
allowed range; `validate` exits 2 with it."""
from __future__ import annotations

import subprocess
import sys

import pytest

from ropework import level
from ropework.kinds.composites.bridge import MAX_LINK, curve, longest_sag
from ropework.schema import LevelError

BAD = [
    ("bridge", "points = 40\nsag = 600\n", "layer[0].sag", "0..541 px for 40 points (links of at most 40 px"),
    ("bridge", "points = 10\n", "layer[0].points", "27..50000 to span 1024 px"),
    ("bridge", "from = [0.1, 0.8]\nto = [0.9, 0.8]\nsag = 140\npoints = 60\n", "layer[0].sag",
     "inside the 720 px scene"),
    ("bridge", "from = [0.5, 0.5]\nto = [0.5, 0.5]\n", "layer[0].to", "at least 1 px from `from`"),
    ("web", "threads = 0\n", "layer[0].threads", "3..128"),
    ("web", "at = [0.0, 0.5]\n", "layer[0].at", "inside the 1280×720 px scene"),
    ("wheel", "radius = 5\n", "layer[0].radius", "more than twice `point_radius` (6 px)"),
    ("wheel", "radius = 20\npoint_radius = 12\n", "layer[0].radius", "more than twice `point_radius` (24 px)"),
    ("wheel", "points = 8\nspokes = 9\n", "layer[0].spokes", "3..8"),
    ("wheel", "at = [0.5, 0.5]\nradius = 400\n", "layer[0].radius", "at most 360 px"),
    ("net", "size = [2000, 100]\n", "layer[0].size", "at most [1280, 576] px"),
    ("net", "cols = 1\n", "layer[0].cols", "2..300"),
    ("sign", "hang = 400\n", "layer[0].hang", "1..253 px"),
    ("blob", "radius = 4\n", "layer[0].radius", "more than twice `point_radius`"),
    ("blob", "fill = 0\n", "layer[0].fill", "0.1..1"),
    ("cradle", "radius = 30\n", "layer[0].spacing", "60..10000 px (2 × radius: balls that overlap at rest"),
    ("cradle", "balls = 40\n", "layer[0].spacing", "a row inside the 1280×720 px scene"),
    ("cradle", "length = 500\n", "layer[0].length", "1..412 px"),
    ("cradle", "restitution = 2\n", "layer[0].restitution", "0..1"),
]


@pytest.mark.parametrize("kind, keys, where, says", BAD, ids=[f"{b[0]}-{b[2].split('.')[-1]}-{i}" for i, b in
                                                               enumerate(BAD)])
def test_nonsense_is_refused_with_one_line(tmp_path, kind, keys, where, says):
    f = tmp_path / "bad.toml"
    f.write_text(f'[[layer]]\nkind = "{kind}"\n{keys}')
    with pytest.raises(LevelError) as e:
        level.load(f)
    text = str(e.value)
    assert "\n" not in text and str(f) in text and where in text and says in text, text


def test_the_longest_sag_a_bridge_is_allowed_spans_its_points_in_links_of_the_limit():
    p0, p1 = [128.0, 252.0], [1152.0, 252.0]       # the default ends at 1280 × 720
    import numpy as np
    most = longest_sag(np.array(p0), np.array(p1), 40)
    assert curve(np.array(p0), np.array(p1), most, 4096)[1] == pytest.approx(39 * MAX_LINK, rel=1e-3)


def test_validate_exits_2_with_the_line(tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text('[[layer]]\nkind = "web"\nthreads = 0\n')
    r = subprocess.run([sys.executable, "-m", "ropework", "validate", str(f)], capture_output=True, text=True)
    out = r.stdout + r.stderr
    assert r.returncode == 2 and "layer[0].threads" in out and "Traceback" not in out
    assert len(out.strip().splitlines()) == 1
