"""The render seam: the probe picks a profile, the variable forces one, and both draw the same pictures.

Both profiles run on this machine's software rasteriser (the hardware profile only slower), so every
shipped level is drawn under each and the two pictures compared: at most PROFILE_LEVELS of 255 apart
in any channel, and at most PROFILE_PIXELS of the pixels differing at all. The one difference seen is
the lanyard's mip levels at odd sizes (glGenerateMipmap against the CPU's copy of it, within 1):
badge.toml, 3 pixels of 64,000 by 1 level.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ropework.levels
from ropework.render import Offscreen
from ropework.systems.services import profile

PROFILE_LEVELS = 2        # the largest channel difference, of 255, between the two profiles' pictures
PROFILE_PIXELS = 1e-3     # the fraction of pixels whose colour may differ at all
SHIPPED = sorted(p.stem for p in Path(ropework.levels.__file__).parent.glob("*.toml"))

LLVMPIPE = profile.Probe("llvmpipe (LLVM 15.0.6, 256 bits)", "Mesa", "4.5", 4)
SOFTPIPE = profile.Probe("softpipe", "Mesa", "3.3", 4)
SWIFTSHADER = profile.Probe("Google SwiftShader", "Google Inc.", "4.5", 4)
GEFORCE = profile.Probe("NVIDIA GeForce RTX 3060/PCIe/SSE2", "NVIDIA Corporation", "4.6", 32)
RADEON_1X = profile.Probe("AMD Radeon Graphics (radeonsi, renoir)", "AMD", "4.6", 1)


def test_the_probe_picks_software_for_a_software_rasteriser_and_hardware_for_a_gpu():
    for probe in (LLVMPIPE, SOFTPIPE, SWIFTSHADER):
        assert profile.choose(probe) is profile.SOFTWARE, probe.renderer
    assert profile.choose(GEFORCE) is profile.HARDWARE
    assert profile.choose(None) is profile.SOFTWARE           # nothing probed: what costs least if wrong


def test_a_forced_profile_wins_over_the_probe():
    assert profile.choose(LLVMPIPE, "hardware") is profile.HARDWARE
    assert profile.choose(GEFORCE, "software") is profile.SOFTWARE
    assert profile.choose(GEFORCE, "auto") is profile.HARDWARE


def test_a_gpu_without_multisampling_gets_a_single_sampled_window():
    chosen = profile.choose(RADEON_1X)
    assert chosen.name == "hardware" and chosen.window_samples == 0 and not chosen.cpu_mips


def test_the_software_profile_is_every_cpu_path_and_the_hardware_none():
    s, h = profile.SOFTWARE, profile.HARDWARE
    assert (s.window_samples, s.cpu_mips, s.readback_composite) == (0, True, True)
    assert s.strokes is not None and s.dots is not None
    assert (h.window_samples, h.cpu_mips, h.readback_composite, h.strokes, h.dots) == (4, False, False, None, None)


def test_the_variable_forces_a_profile_and_a_bad_value_is_one_line(monkeypatch):
    monkeypatch.setenv(profile.ENV, "Hardware")
    assert profile.forced() == "hardware" and profile.window_samples() == 4
    monkeypatch.setenv(profile.ENV, "software")
    assert profile.window_samples() == 0
    monkeypatch.delenv(profile.ENV)
    assert profile.forced() == "auto"
    monkeypatch.setenv(profile.ENV, "gpu")
    with pytest.raises(ValueError, match=r"ROPEWORK_GL_PROFILE: expected one of software, hardware, auto, found 'gpu'"):
        profile.forced()


def test_the_command_refuses_a_bad_profile_with_exit_status_2(tmp_path):
    env = {"ROPEWORK_GL_PROFILE": "fast", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    r = subprocess.run([sys.executable, "-m", "ropework", "--list"], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines() == [
        "ropework: error: ROPEWORK_GL_PROFILE: expected one of software, hardware, auto, found 'fast'"]


def test_this_machine_probes_as_software(gl_window):
    found = profile.probe(gl_window.ctx)
    assert found.software and "llvmpipe" in found.renderer.lower()
    assert profile.choose(found) is profile.SOFTWARE


def played(scenes, name, size=(320, 200)):
    """``name`` mid-drag, as the band test plays it."""
    scene = scenes(f"{name}.toml" if not Path(name).is_absolute() else name, size=size)
    w, h = size
    scene.pointer_move(w / 2, 0.3 * h)
    scene.step(20)
    scene.pointer_down(w / 2, 0.3 * h)
    scene.pointer_move(0.375 * w, 0.55 * h)
    scene.step(20)
    return scene


def drawn_under(name: str, ctx, scene) -> np.ndarray:
    before = profile.use(name)
    try:
        off = Offscreen(ctx, (scene.width, scene.height))
        off.render(scene)
        return off.pixels()[..., :3].astype(int)
    finally:
        profile.use(before)


def apart(a: np.ndarray, b: np.ndarray) -> tuple[int, float]:
    """(the largest channel difference, the fraction of pixels that differ)."""
    d = np.abs(a - b).max(axis=2)
    return int(d.max()), float(np.count_nonzero(d)) / d.size


@pytest.mark.parametrize("name", SHIPPED)
def test_both_profiles_draw_every_shipped_level_alike(scenes, gl_window, name):
    """Each profile draws its own scene (GL objects are a scene's: the lanyard's mips are made by each)."""
    soft = drawn_under("software", gl_window.ctx, played(scenes, name))
    hard = drawn_under("hardware", gl_window.ctx, played(scenes, name))
    levels, pixels = apart(soft, hard)
    assert levels <= PROFILE_LEVELS and pixels <= PROFILE_PIXELS, (name, levels, pixels)


def test_the_comparison_sees_a_different_picture(scenes, gl_window):
    """The tolerance is tight enough to fail: the rope level against itself a few steps later."""
    a = drawn_under("software", gl_window.ctx, played(scenes, "rope"))
    later = played(scenes, "rope")
    later.step(3)
    levels, pixels = apart(a, drawn_under("hardware", gl_window.ctx, later))
    assert levels > PROFILE_LEVELS and pixels > PROFILE_PIXELS


def test_the_hardware_profile_draws_a_dense_grid_as_quads_and_composites_nothing(scenes, gl_window, tmp_path):
    """The software profile splats a dense grid on the CPU and composites it by read-back; the hardware
    one draws every dot's quad. The pictures part by the GPU's 8-bit rounding between blends (the splat's
    own tolerance, tests/systems/dotgrid/test_draw_dots_splat.py)."""
    from ropework.systems.dotgrid import draw_dots
    from tests.dots import dot_level
    from tests.systems.dotgrid.test_draw_dots_splat import LOOK, MAX_LEVELS, MEAN_LEVELS, SIZE, drive
    pictures, splats = {}, {}
    for name in ("software", "hardware"):
        scene = scenes(dot_level(tmp_path, gap=3.04, **LOOK), size=SIZE)
        drive(scene, 3)
        pictures[name] = drawn_under(name, gl_window.ctx, scene)
        drawer = next(d for d in scene.draws if isinstance(d, draw_dots.DrawDots))
        (gl,) = drawer._gl.values()
        splats[name] = gl.splat.canvas.blits if gl.splat is not None else None
    assert splats["software"] == 1 and splats["hardware"] is None
    d = np.abs(pictures["software"] - pictures["hardware"])
    assert d.max() <= MAX_LEVELS and d.mean() <= MEAN_LEVELS, (d.max(), d.mean())


def test_the_hardware_profile_strokes_a_curtain_as_triangles(scenes, gl_window, tmp_path):
    """A curtain of 60 thin ropes is painted on the CPU under the software profile and stroked as
    triangles under the hardware one: the painter's tolerance (tests/systems/services/test_stroke_raster.py)."""
    from tests.systems.services.test_stroke_raster import curtain, strokes
    lvl = curtain(tmp_path, ropes=60, points=40, width=1.2)
    pictures, painted = {}, {}
    for name in ("software", "hardware"):
        scene = played(scenes, lvl, size=(480, 270))
        pictures[name] = drawn_under(name, gl_window.ctx, scene)
        painted[name] = [s.painted for s in strokes(scene)]
    assert any(painted["software"]) and not any(painted["hardware"])
    assert np.abs(pictures["software"] - pictures["hardware"]).max() <= 2


def test_the_hardware_profile_has_the_gpu_make_the_lanyards_mips(scenes, gl_window, monkeypatch):
    """Under the hardware profile the CPU makes no mip level; the GPU's are in the texture all the same."""
    from pyglet import gl

    from ropework.systems.lanyard import draw_lanyard
    made = []
    monkeypatch.setattr(draw_lanyard, "mip_levels", lambda rgba: made.append(rgba.shape) or [])
    for name, expect in (("hardware", False), ("software", True)):
        made.clear()
        drawn_under(name, gl_window.ctx, played(scenes, "lanyard"))
        assert bool(made) is expect, name
    before = profile.use("hardware")
    try:
        shared = draw_lanyard.Shared()
        tex = shared.texture(gl_window.ctx, ("test",), lambda: np.full((64, 32, 4), 200, np.uint8))
    finally:
        profile.use(before)
    width = gl.GLint(0)
    gl.glBindTexture(gl.GL_TEXTURE_2D, tex.glo)
    gl.glGetTexLevelParameteriv(gl.GL_TEXTURE_2D, 5, gl.GL_TEXTURE_WIDTH, width)   # 32 → 1 at level 5
    assert width.value == 1


def test_asked_before_any_context_the_profile_is_the_forced_or_software_one_and_not_kept(monkeypatch):
    """A first run's kernel warm-up asks before the GL context exists: it gets an answer, and the
    probe still decides once there is a context."""
    monkeypatch.setattr(profile, "_current_window", lambda: None)
    monkeypatch.setattr(profile, "_found", None)
    before = profile.use(None)
    try:
        assert profile.active() is profile.SOFTWARE and profile._active is None
        monkeypatch.setenv(profile.ENV, "hardware")
        assert profile.active() is profile.HARDWARE and profile._active is None
    finally:
        profile.use(before)


def test_the_windows_samples_come_from_the_displays_probe_under_auto(monkeypatch):
    """Before the window exists: a GPU's display gets 4 samples a pixel, a software rasteriser's none,
    one that cannot multisample none; the probe is kept for `active`."""
    monkeypatch.delenv(profile.ENV, raising=False)
    for found, samples in ((GEFORCE, 4), (LLVMPIPE, 0), (RADEON_1X, 0)):
        monkeypatch.setattr(profile, "_found", None)
        monkeypatch.setattr(profile, "probe_display", lambda found=found: found)
        assert profile.window_samples() == samples, found.renderer
        assert profile.found() is found
    monkeypatch.setattr(profile, "_found", None)
    monkeypatch.setattr(profile, "probe_display", lambda: None)      # no display to ask: single-sampled
    assert profile.window_samples() == 0
