"""Memory is bounded by what is asked: the largest accepted recordings, script and level peak
under 1 GiB resident, and a GIF's peak does not grow with its length.

Each command runs in a fresh process (`python -m ropework ... --record`), and its peak
resident set is the kernel's own count for that child (`os.wait4` → ru_maxrss), taken by a
small Python in between so that nothing the test process holds is counted. docs/reliability.md has the figures.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
from PIL import Image

from ropework import level
from ropework.docs import builtin_kinds
from ropework.kinds import lanyard

CEILING_MIB = 1024                 # the goal: any accepted command under 1 GiB
GIF_GROWTH_MIB = 32                # a 40× longer GIF may hold at most this much more (it holds two frames)
LARGEST = "8192x8192"              # --size's largest


# Linux keeps a process's peak across exec: a child forked from this (large) test process would
# report our size as its own. So a fresh, small Python starts the command and reports its peak.
MEASURE = """
import os, subprocess, sys
p = subprocess.Popen([sys.executable, "-m", "ropework", *sys.argv[1:]], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(p.pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)
"""


def peak_mib(tmp_path, *args, cold: bool = False) -> float:
    """Run ``python -m ropework ARGS`` in ``tmp_path``; its peak RSS in MiB. Fails on a non-zero exit.

    ``cold``: with empty kernel (numba) and shader (Mesa) caches, as a first run on a new machine:
    both compilers run inside the command, and their peak counts with the rest.
    """
    env = dict(os.environ, ARCADE_HEADLESS="1")
    if cold:
        env.update(ROPEWORK_CACHE_DIR=str(tmp_path / "kernels"), MESA_SHADER_CACHE_DIR=str(tmp_path / "mesa"))
    r = subprocess.run([sys.executable, "-c", MEASURE, *map(str, args)], cwd=tmp_path, capture_output=True,
                       text=True, timeout=600, env=env)
    code, kib = map(int, r.stdout.split())
    assert code == 0, r.stderr
    return kib / 1024          # Linux reports KiB


def largest_level(tmp_path) -> str:
    """A level at every cap at once, at --size's largest: a 2,000,000-point dot grid (gap 5.8 px at
    8192²), a tendrils bundle, ropes and a cloth (every kind, each with buffers of its own), under lanyards
    up to the layer cap, each composite, one with a 100×100-unit card (the size caps) printed with a 4096² PNG (the
    image cap) — what a level can ask of RAM and of the GPU together."""
    Image.new("RGB", (lanyard.MAX_IMAGE_SIDE,) * 2, (200, 40, 40)).save(tmp_path / "big.png")
    layers = ['[[layer]]\nkind = "dotgrid"\ngap = 5.8\ninertia = true\n']
    layers += ['[[layer]]\nkind = "tendrils"\n', '[[layer]]\nkind = "ropes"\n' + '[[layer.rope]]\nanchor = 0.5\n' * 3,
               '[[layer]]\nkind = "cloth"\n']
    layers += [f'[[layer]]\nkind = "{k}"\n' for k in ("bridge", "net", "wheel", "web", "blob", "sign", "cradle")]
    layers += ['[[layer]]\nkind = "lanyard"\ncard_width = 100.0\ncard_height = 100.0\ncard_image = "big.png"\n']
    layers += ['[[layer]]\nkind = "lanyard"\n'] * (level.MAX_LAYERS - len(layers))
    path = tmp_path / "largest.toml"
    path.write_text("".join(layers), "utf-8")
    lv = level.load(path, (8192, 8192))      # accepted: at the caps, not past them
    assert len(lv.layers) == level.MAX_LAYERS and {c["kind"] for c in lv.layers} == set(builtin_kinds())
    return path.name


def test_the_largest_level_as_the_largest_png(tmp_path):
    name = largest_level(tmp_path)
    assert peak_mib(tmp_path, name, "--record", "out.png", "--frames", 2, "--size", LARGEST, cold=True) < CEILING_MIB


def test_a_gif_at_the_largest_size(tmp_path):
    assert peak_mib(tmp_path, "rope", "--record", "out.gif", "--frames", 3, "--size", LARGEST, cold=True) < CEILING_MIB


def test_a_gifs_peak_does_not_grow_with_its_length(tmp_path):
    short = peak_mib(tmp_path, "tendrils", "--record", "a.gif", "--frames", 10, "--size", "320x180")
    long = peak_mib(tmp_path, "tendrils", "--record", "b.gif", "--frames", 400, "--size", "320x180")
    assert Image.open(tmp_path / "b.gif").n_frames > 300           # the autopilot keeps it moving: ~every step a frame
    assert long - short < GIF_GROWTH_MIB, (short, long)


@pytest.mark.parametrize("lines", [8, 45_000])
def test_script_ranges_are_not_expanded(tmp_path, lines):
    """Eight lines (1.4 GiB expanded), then as many as the 1 MiB script cap holds, each moving over
    a million frames: one entry a line, not a million events."""
    (tmp_path / "in.txt").write_text("0-1000000 move 1 2 3 4\n" * lines, "utf-8")
    mib = peak_mib(tmp_path, "rope", "--record", "out.png", "--frames", 2, "--size", "64x64", "--input", "in.txt")
    assert mib < CEILING_MIB / 2

