"""Test isolation: a fresh esper world per test (deleted after), one shared headless GL window."""
from __future__ import annotations

import os

os.environ.setdefault("ARCADE_HEADLESS", "1")   # before anything imports arcade

from pathlib import Path

import esper
import pytest

ROOT = Path(__file__).resolve().parent.parent
LEVELS = ROOT / "levels"


@pytest.fixture(autouse=True)
def fresh_world():
    """Each test runs in its own esper world, deleted afterwards with everything in it."""
    name = f"test-{os.getpid()}-{id(object())}"
    esper.switch_world(name)
    yield name
    esper.switch_world("default")
    esper.delete_world(name)


@pytest.fixture(scope="session")
def gl_window():
    """The one hidden arcade window (GL 4.5 on Mesa's software rasteriser via EGL) shared by render tests."""
    from ropework.render import headless_window
    return headless_window()


@pytest.fixture
def scenes():
    """Open scenes through this; they are all closed (worlds deleted) after the test."""
    from ropework.scene import Scene
    opened = []

    def open_(level, size=(800, 600), seed=0, **kw):
        s = Scene.load(level if Path(str(level)).is_absolute() else LEVELS / level, size=size, seed=seed, **kw)
        opened.append(s)
        return s
    yield open_
    for s in opened:
        s.close()


@pytest.fixture(params=["software", "hardware"])
def render_profile(request):
    """Each render profile in turn (`ropework.systems.services.profile`), put back after the test."""
    from ropework.systems.services import profile
    before = profile.use(request.param)
    yield profile.active()
    profile.use(before)
