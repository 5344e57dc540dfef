"""Perspective camera maths for 3D layers: matrices, pointer rays, projection to pixels.

World space is the seed's three.js space: scene units, y up, the camera looking
down −z. Pixels are the scene's (origin top-left, y down). Everything here is
float64 numpy; the GL side receives float32 copies of the matrices.
"""
from __future__ import annotations

import functools
import math

import numpy as np

MEMO = 16   # matrices and bases kept by their inputs (a scene has a camera a 3D layer, seen at a size or two):
            # the pointer's hover test asks for them every step, and they only change with the camera


def perspective(fov_deg: float, aspect: float, near: float, far: float) -> np.ndarray:
    """OpenGL projection matrix (column vectors, clip = P @ view) for a vertical field of view."""
    f = 1.0 / math.tan(math.radians(fov_deg) / 2.0)
    return np.array([
        [f / aspect, 0.0, 0.0, 0.0],
        [0.0, f, 0.0, 0.0],
        [0.0, 0.0, (far + near) / (near - far), 2.0 * far * near / (near - far)],
        [0.0, 0.0, -1.0, 0.0],
    ])


def _key(v) -> tuple[float, ...]:
    return tuple(float(c) for c in v)


def _frozen(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)     # shared by every caller with the same inputs
    return a


def basis(eye, target, up=(0.0, 1.0, 0.0)) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(right, up, forward) unit vectors of a camera at ``eye`` looking at ``target`` (read-only)."""
    return _basis(_key(eye), _key(target), _key(up))


@functools.lru_cache(maxsize=MEMO)
def _basis(eye: tuple, target: tuple, up: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    eye, target, up = (np.asarray(v, np.float64) for v in (eye, target, up))
    fwd = target - eye
    fwd /= np.linalg.norm(fwd)
    right = np.cross(fwd, up)
    right /= np.linalg.norm(right)
    return _frozen(right), _frozen(np.cross(right, fwd)), _frozen(fwd)


def look_at(eye, target, up=(0.0, 1.0, 0.0)) -> np.ndarray:
    """World → camera matrix (the camera looks down its own −z)."""
    r, u, f = basis(eye, target, up)
    eye = np.asarray(eye, np.float64)
    m = np.identity(4)
    m[0, :3], m[1, :3], m[2, :3] = r, u, -f
    m[:3, 3] = -m[:3, :3] @ eye
    return m


def view_projection(cam, width: float, height: float) -> np.ndarray:
    """float64[4, 4], read-only: world → clip for a `components.lanyard.Camera` on a width×height viewport."""
    return _view_projection(float(cam.fov), float(cam.near), float(cam.far), _key(cam.eye), _key(cam.target),
                            float(width), float(height))


@functools.lru_cache(maxsize=MEMO)
def _view_projection(fov, near, far, eye, target, width, height) -> np.ndarray:
    return _frozen(perspective(fov, width / height, near, far) @ look_at(eye, target))


def ray(cam, width: float, height: float, x: float, y: float) -> tuple[np.ndarray, np.ndarray]:
    """(origin, unit direction) of the ray from the camera through pixel (x, y)."""
    nx = 2.0 * x / width - 1.0
    ny = 1.0 - 2.0 * y / height
    t = math.tan(math.radians(cam.fov) / 2.0)
    r, u, f = basis(cam.eye, cam.target)
    d = f + nx * t * (width / height) * r + ny * t * u
    return np.asarray(cam.eye, np.float64).copy(), d / np.linalg.norm(d)


def plane_point(cam, width: float, height: float, x: float, y: float, z: float = 0.0) -> np.ndarray | None:
    """Where the ray through pixel (x, y) meets the plane z = ``z`` (None if it never does)."""
    o, d = ray(cam, width, height, x, y)
    if abs(d[2]) < 1e-12:
        return None
    s = (z - o[2]) / d[2]
    return None if s <= 0.0 else o + s * d


def project(cam, width: float, height: float, world: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pixels (float64[n, 2], y down) of world points float[n, 3], and their clip w (≤ 0: behind the eye)."""
    world = np.asarray(world, np.float64).reshape(-1, 3)
    hom = np.empty((len(world), 4))
    hom[:, :3] = world
    hom[:, 3] = 1.0
    clip = hom @ view_projection(cam, width, height).T
    w = clip[:, 3]
    safe = np.where(np.abs(w) < 1e-12, 1e-12, w)
    px = np.empty((len(world), 2))
    px[:, 0] = (clip[:, 0] / safe + 1.0) * 0.5 * width
    px[:, 1] = (1.0 - clip[:, 1] / safe) * 0.5 * height
    return px, w


def euler_xyz(rot) -> np.ndarray:
    """float64[3, 3] rotation of three.js Euler angles in "XYZ" order: Rx · Ry · Rz."""
    a, b, c = (float(v) for v in rot)
    ca, sa, cb, sb, cc, sc = math.cos(a), math.sin(a), math.cos(b), math.sin(b), math.cos(c), math.sin(c)
    rx = np.array([[1, 0, 0], [0, ca, -sa], [0, sa, ca]])
    ry = np.array([[cb, 0, sb], [0, 1, 0], [-sb, 0, cb]])
    rz = np.array([[cc, -sc, 0], [sc, cc, 0], [0, 0, 1]])
    return rx @ ry @ rz


def model(pos, rot) -> np.ndarray:
    """float64[4, 4]: local → world for a frame at ``pos`` turned by Euler XYZ ``rot``."""
    m = np.identity(4)
    m[:3, :3] = euler_xyz(rot)
    m[:3, 3] = pos
    return m
