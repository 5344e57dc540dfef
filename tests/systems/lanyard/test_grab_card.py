"""Grab card: the pick box is hit exactly where a ray meets it; presses are taken by z; the drag aims at the ray–plane point."""
from __future__ import annotations

import numpy as np
import pytest

from ropework.components import Grab
from ropework.components.lanyard import Camera, Card
from ropework.systems.lanyard import camera as cam3
from ropework.systems.lanyard.grab_card import hits_card, proxy_corners
from tests.lanyard import SETTLE, SIZE, card_pixel, parts

W, H = SIZE
POSES = [  # (pos, rot): hanging, swung, turned, tipped, nearly edge-on, off to a corner
    ((0.0, 2.0, 0.0), (0.0, 0.0, 0.0)),
    ((1.2, 1.5, 0.3), (0.0, 0.0, -0.5)),
    ((-0.8, 2.2, -0.2), (0.0, 0.9, 0.0)),
    ((0.3, 1.0, 0.5), (0.6, -0.4, 0.2)),
    ((0.0, 2.0, 0.0), (0.0, 1.45, 0.0)),
    ((-4.0, -2.0, 1.0), (-0.3, 0.5, 0.9)),
]


def seed_camera():
    return Camera(fov=20.0, near=0.1, far=100.0, eye=np.array([0.0, 0.0, 30.0]), target=np.zeros(3))


def make_card(pos, rot):
    card = Card(size=np.array([1.6, 2.25, 0.04]), drop=0.16, hang=np.array([0, 0, -0.02]), proxy_margin=0.08)
    card.pos, card.rot = np.array(pos, float), np.array(rot, float)
    return card


def ray_hits_box(card, cam, x, y) -> bool:
    """Reference: slab test of the pixel's ray against the oriented pick box."""
    o, d = cam3.ray(cam, W, H, x, y)
    r = cam3.euler_xyz(card.rot)
    centre, half = card.proxy()
    c = card.pos + r @ centre
    lo, hi = -np.inf, np.inf
    for q in range(3):
        axis = r[:, q]
        e, f = axis @ (c - o), axis @ d
        if abs(f) < 1e-12:
            if abs(e) > half[q]:
                return False
            continue
        t1, t2 = (e - half[q]) / f, (e + half[q]) / f
        lo, hi = max(lo, min(t1, t2)), min(hi, max(t1, t2))
    return lo <= hi and hi > 0


@pytest.mark.parametrize("pos, rot", POSES)
def test_a_ray_through_the_card_hits_and_one_beside_it_misses(pos, rot):
    cam, card = seed_camera(), make_card(pos, rot)
    centre, half = card.proxy()
    middle = card.pos + cam3.euler_xyz(card.rot) @ centre
    (cx, cy), = cam3.project(cam, W, H, middle[None])[0]
    assert hits_card(card, cam, W, H, cx, cy)
    outline, _ = cam3.project(cam, W, H, proxy_corners(card))
    right = outline[:, 0].max()
    assert not hits_card(card, cam, W, H, right + 3, cy)       # just beside its right edge
    assert not hits_card(card, cam, W, H, cx, outline[:, 1].max() + 3)
    # Everywhere on a grid around it, the pymunk outline agrees with the ray–box slab test.
    xs = np.linspace(outline[:, 0].min() - 10, outline[:, 0].max() + 10, 23)
    ys = np.linspace(outline[:, 1].min() - 10, outline[:, 1].max() + 10, 23)
    agree = [hits_card(card, cam, W, H, x, y) == ray_hits_box(card, cam, x, y) for x in xs for y in ys]
    assert all(agree)


@pytest.fixture
def settled(scenes):
    s = scenes("lanyard.toml", size=SIZE)
    s.step(SETTLE)
    return s


def test_a_press_on_the_card_takes_it_and_records_the_grab_offset(settled):
    pts, card, grab, cam = parts(settled)
    (ent, _), = settled.find(Card)
    x, y = card_pixel(settled)
    last = pts.pos[-1].astype(np.float64).copy()
    settled.pointer_down(x, y)
    settled.step(1)
    assert grab.held and grab.hover and settled.pointer.claimed_by == ent
    hit = cam3.plane_point(cam, W, H, x, y)
    assert np.allclose(grab.offset, last - hit, atol=1e-3)     # the strap moved a hair in this step
    assert np.allclose(grab.target, hit + grab.offset)


def test_dragging_pulls_the_card_to_the_ray_plane_point_plus_offset(settled):
    pts, card, grab, cam = parts(settled)
    x, y = card_pixel(settled)
    settled.pointer_down(x, y)
    settled.step(1)
    to = (x + 60, y - 60)                                      # within the strap's reach
    settled.pointer_move(*to)
    settled.step(1)
    want = cam3.plane_point(cam, W, H, *to) + grab.offset
    assert np.array_equal(grab.target, want)
    start = pts.pos[-1].astype(np.float64).copy()
    gaps = []
    for _ in range(60):
        settled.step(1)
        gaps.append(np.linalg.norm(pts.pos[-1] - want))
    # It closes most of the gap in a few steps; the slack strap's weight then hangs on it a little
    # below the target (the seed's drag does not pin the end), about 0.1 units (≈6 px).
    gap0 = np.linalg.norm(want - start)
    assert gap0 > 0.8 and min(gaps[:12]) < 0.1 * gap0
    assert max(gaps[12:]) < 0.25 * gap0
    assert np.linalg.norm(pts.pos[-1] - start) > 0.7 * np.linalg.norm(want - start)
    assert np.allclose(card.pos, pts.pos[-1] + card.hang)
    settled.pointer_up(*to)
    settled.step(1)
    assert not grab.held and settled.pointer.claimed_by == -1


def test_the_card_above_a_rope_takes_the_press_from_it(scenes, tmp_path):
    level = tmp_path / "both.toml"
    level.write_text('[[layer]]\nkind = "ropes"\ngrab_radius = 400\n[[layer.rope]]\nanchor = 0.5\npoints = 20\n'
                     '[[layer]]\nkind = "lanyard"\n')
    s = scenes(level, size=SIZE)
    s.step(SETTLE)
    (_, grab_rope), = s.find(Grab)
    (ent, _), = s.find(Card)
    _, _, grab, _ = parts(s)
    x, y = card_pixel(s)
    s.pointer_down(x, y)
    s.step(1)
    assert grab.held and s.pointer.claimed_by == ent and grab_rope.held == -1
