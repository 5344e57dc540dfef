"""The pick proxies' outline test: inside the convex hull of projected corners, as pymunk says."""
import numpy as np
import pymunk

from ropework.systems.services.hitquery import BOX_MARGIN, inside_outline


def pymunk_inside(outline, x, y) -> bool:
    """The hull test alone: pymunk's Poly over every corner, at any pixel."""
    poly = pymunk.Poly(pymunk.Body(body_type=pymunk.Body.STATIC), [tuple(map(float, p)) for p in outline])
    poly.cache_bb()
    return poly.point_query((float(x), float(y))).distance <= 0.0


def test_the_bounding_box_shortcut_answers_as_the_hull_does_at_its_edges_corners_and_outside():
    rng = np.random.default_rng(3)
    checked = inside = 0
    for _ in range(60):
        outline = rng.uniform(0, 800, (8, 2)) * rng.uniform(0.05, 1.0) + rng.uniform(0, 400, 2)
        lo, hi = outline.min(axis=0), outline.max(axis=0)
        pts = [*outline, lo, hi, (lo[0], hi[1]), (hi[0], lo[1]),                    # corners and the box's
               *rng.uniform(lo - 50, hi + 50, (40, 2)),                                 # around it
               (np.nextafter(lo[0], -np.inf), outline[outline[:, 0].argmin(), 1]),      # a hair outside
               (np.nextafter(hi[0], np.inf), outline[outline[:, 0].argmax(), 1]),
               (lo[0] - 2 * BOX_MARGIN, outline[outline[:, 0].argmin(), 1]),             # just past the margin
               (outline[outline[:, 1].argmax(), 0], hi[1] + 2 * BOX_MARGIN)]
        for x, y in pts:
            want = pymunk_inside(outline, x, y)
            assert inside_outline(outline, x, y) == want, (outline.tolist(), x, y)
            checked += 1
            inside += want
    assert inside > 200 and checked - inside > 1000       # both answers were met many times
