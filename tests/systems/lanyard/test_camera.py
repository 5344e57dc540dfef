"""Camera maths: projection and pointer rays agree, and the seed's camera sees what the seed's does."""
import math

import numpy as np
import pytest

from ropework.components.lanyard import Camera
from ropework.systems.lanyard import camera as cam3

W, H = 1280, 720


def seed_camera():
    return Camera(fov=20.0, near=0.1, far=100.0, eye=np.array([0.0, 0.0, 30.0]), target=np.zeros(3))


def test_the_origin_is_the_centre_and_the_view_is_30_tan_10_high_at_z_0():
    cam = seed_camera()
    px, w = cam3.project(cam, W, H, [[0, 0, 0]])
    assert np.allclose(px, [[W / 2, H / 2]]) and w[0] == pytest.approx(30.0)
    half = 30 * math.tan(math.radians(10))
    top = cam3.plane_point(cam, W, H, W / 2, 0.0)
    right = cam3.plane_point(cam, W, H, W, H / 2)
    assert top == pytest.approx([0.0, half, 0.0]) and right == pytest.approx([half * W / H, 0.0, 0.0])


@pytest.mark.parametrize("x, y", [(0, 0), (100, 650), (1279, 5), (640, 360), (913.5, 222.25)])
def test_a_pixels_plane_point_projects_back_to_that_pixel(x, y):
    cam = seed_camera()
    for z in (0.0, -1.5, 2.0):
        p = cam3.plane_point(cam, W, H, x, y, z)
        assert p[2] == pytest.approx(z)
        px, _ = cam3.project(cam, W, H, p[None])
        assert px[0] == pytest.approx([x, y], abs=1e-6)


def test_euler_xyz_is_rx_ry_rz_as_three_js():
    r = cam3.euler_xyz((0.3, -0.7, 1.1))
    assert np.allclose(r @ r.T, np.identity(3))
    assert np.allclose(cam3.euler_xyz((0, 0, math.pi / 2)) @ [1, 0, 0], [0, 1, 0])
    assert np.allclose(cam3.euler_xyz((math.pi / 2, 0, 0)) @ [0, 1, 0], [0, 0, 1])
    assert np.allclose(r, cam3.euler_xyz((0.3, 0, 0)) @ cam3.euler_xyz((0, -0.7, 0)) @ cam3.euler_xyz((0, 0, 1.1)))


def test_matrices_are_kept_by_the_cameras_values_and_cannot_be_changed_by_a_caller():
    """The hover test asks for the view every step: a kept matrix is the same bits as a fresh one,
    a camera moved in place gets its new matrix, and no caller can write into a kept one."""
    cam = seed_camera()
    fresh = cam3.perspective(cam.fov, W / H, cam.near, cam.far) @ cam3.look_at(cam.eye.copy(), cam.target.copy())
    kept = cam3.view_projection(cam, W, H)
    assert cam3.view_projection(cam, W, H) is kept and np.array_equal(kept, fresh)
    with pytest.raises(ValueError):
        kept[0, 0] = 0.0
    for v in cam3.basis(cam.eye, cam.target):
        assert not v.flags.writeable
    cam.eye[0] = cam.target[0] = 4.0       # moved in place: the key is the values, not the array
    moved = cam3.view_projection(cam, W, H)
    assert not np.array_equal(moved, kept)
    assert np.array_equal(moved, cam3.perspective(cam.fov, W / H, cam.near, cam.far) @ cam3.look_at(cam.eye, cam.target))
    px, _ = cam3.project(cam, W, H, [[4.0, 0.0, 0.0]])
    assert np.allclose(px, [[W / 2, H / 2]])
