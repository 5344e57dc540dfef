"""Draw links: only the links that can light a pixel of the viewport go to the GPU, and the picture
is what drawing every link gives."""
import numpy as np

from ropework.components import Constraints, Points
from ropework.render import Offscreen
from ropework.systems.draw_links import DrawLinks
from ropework.systems.services import gfx


def links_of(scene) -> gfx.Links:
    (draw,) = [d for d in scene.draws if isinstance(d, DrawLinks)]
    (links,) = draw._gl.values()
    return links


def bands(scene, off: Offscreen) -> tuple[list[np.ndarray], list[int]]:
    """Each band's pixels (it is one strip at this width) and the links its draw sent."""
    pictures, sent = [], []
    for strip in off.strips():
        pictures.append(strip.copy())
        sent.append(links_of(scene).count)
    return pictures, sent


def test_a_cloth_drawn_in_bands_sends_each_band_only_the_links_that_reach_it(scenes, gl_window, monkeypatch):
    """A picture larger than a band (`--record --size 8192x8192`) is drawn band by band: before the cull
    each band drew every link. Now each sends only those within reach of its rows, and every band's
    pixels are the same bits as when it drew them all."""
    scene = scenes("cloth.toml", size=(320, 200))
    scene.pointer_move(160, 60)
    scene.step(20)
    scene.pointer_down(160, 60)
    scene.pointer_move(120, 110)
    scene.step(20)
    (_, con), = scene.find(Constraints)
    off = Offscreen(gl_window.ctx, (320, 200), band_rows=40)
    off.render(scene)
    culled, sent = bands(scene, off)
    monkeypatch.setattr(gfx, "outcodes", lambda pos, box: None)    # the draw before the cull: every link
    off.render(scene)
    every, all_sent = bands(scene, off)
    assert all_sent == [len(con.a)] * 5
    assert sum(sent) < 2 * len(con.a) and max(sent) < len(con.a) // 2   # each link goes up once or twice, not 5 times
    assert all(np.array_equal(c, e) for c, e in zip(culled, every))
    off.release()


def test_a_cloth_held_past_the_window_edge_keeps_every_link_that_reaches_into_it(scenes, gl_window, monkeypatch):
    """A pinned grab follows a pointer moved past the scene's edge (the headless API and input scripts
    allow it; the window lets go there) while the bounds keep every free point inside: the held
    point's links cross the edge, and all are kept."""
    scene = scenes("cloth.toml", size=(320, 200))
    scene.pointer_move(160, 50)
    scene.pointer_down(160, 50)
    for i in range(40):
        scene.pointer_move(160 + 6 * i, 50 + i)       # out past the right edge, x = 394
        scene.step(1)
    (_, con), = scene.find(Constraints)
    (_, pts), = scene.find(Points)
    assert (pts.pos[:, 0] > 330).sum() == 1           # the held point, out of the window
    off = Offscreen(gl_window.ctx, (320, 200))
    off.render(scene)
    culled, sent = off.pixels(), links_of(scene).count
    monkeypatch.setattr(gfx, "outcodes", lambda pos, box: None)
    off.render(scene)
    assert sent == links_of(scene).count == len(con.a)
    assert np.array_equal(culled, off.pixels())
    off.release()
