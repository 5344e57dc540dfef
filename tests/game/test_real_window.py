"""A real window, driven as a person would: Xvfb, the real game (not headless), xdotool.

Starts a private X display, runs ``python -m ropework levels/rope.toml --size 800x600`` on it
with ARCADE_HEADLESS unset, then moves the mouse, presses on the middle rope, drags it,
releases outside the window, minimises and restores, resizes (to 1×1 and back), presses
T, R and Space, and closes with Escape. The game must exit 0 with nothing on stderr, and a
screenshot taken mid-drag (``import -window root``) must show the rope displaced.

Needs Xvfb, xdotool and ImageMagick's ``import`` (.ci/run installs them: xvfb xdotool
x11-utils imagemagick); skipped with the reason when they are missing. Short sleeps
between actions are the real time a hand takes; everything else polls with a timeout.
"""
from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import ROOT

TOOLS = ("Xvfb", "xdotool", "import")
DISPLAYS = range(91, 99)     # private display numbers to try, first free wins
SCREEN = (1280, 1024)        # px: the virtual screen, larger than the window so "outside" exists
SIZE = (800, 600)            # px: the game window
ROPE = (0, 212, 255)         # the middle rope's colour in levels/rope.toml (#00d4ff)
NEAR = 40                    # per-channel distance that still counts as the rope's colour (anti-aliasing)
START_TIMEOUT = 45.0         # s for the game's window to appear (imports, numba cache, GL context)
HAND = 0.04                  # s between a hand's small mouse moves

pytestmark = pytest.mark.skipif(not all(shutil.which(t) for t in TOOLS),
                                reason=f"needs {', '.join(TOOLS)} (apt: xvfb xdotool x11-utils imagemagick)")


def _my_displays() -> list[int]:
    """The numbers of DISPLAYS this test process may take: each pytest-xdist worker its own share. Two
    workers looking for a free number at once both took :91, and both games got one X server's mouse."""
    worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw"))
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    return [d for d in DISPLAYS if (d - DISPLAYS[0]) % workers == worker]


def poll(what, timeout: float, every: float = 0.1):
    """Call ``what()`` until it returns something truthy; fail after ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = what()
        if got:
            return got
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout} s waiting for {what.__doc__ or what}")


@pytest.fixture
def display():
    n = next((d for d in _my_displays() if not Path(f"/tmp/.X11-unix/X{d}").exists()
              and not Path(f"/tmp/.X{d}-lock").exists()), None)
    if n is None:
        pytest.skip("no free X display number in 91..98")
    xvfb = subprocess.Popen(["Xvfb", f":{n}", "-screen", "0", f"{SCREEN[0]}x{SCREEN[1]}x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def ready():
        """the X display"""
        return subprocess.run(["xdotool", "getmouselocation"], env={**os.environ, "DISPLAY": f":{n}"},
                              capture_output=True).returncode == 0
    try:
        poll(ready, 15)
        yield f":{n}"
    finally:
        xvfb.terminate()
        xvfb.wait(10)


class Desk:
    """The hand on the mouse and keyboard of one display."""

    def __init__(self, display: str):
        self.env = {**os.environ, "DISPLAY": display}
        self.env.pop("ARCADE_HEADLESS", None)
        self.window = ""

    def xdo(self, *args) -> str:
        r = subprocess.run(["xdotool", *map(str, args)], env=self.env, capture_output=True, text=True, timeout=10)
        return r.stdout.strip()

    def find_window(self) -> str:
        """the game's window"""
        ids = self.xdo("search", "--onlyvisible", "--name", "^ropework").split()
        return ids[0] if ids else ""

    def screenshot(self) -> np.ndarray:
        from PIL import Image
        png = subprocess.run(["import", "-window", "root", "png:-"], env=self.env, capture_output=True,
                             timeout=20).stdout
        return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)

    def rope_x(self, img: np.ndarray) -> float | None:
        """Mean x of the middle rope's pixels in the window, or None if none are seen."""
        h, w = SIZE[1], SIZE[0]
        near = (np.abs(img[:h, :w] - ROPE) <= NEAR).all(axis=2)
        ys, xs = np.nonzero(near)
        return float(xs.mean()) if len(xs) > 50 else None

    def move(self, x, y):
        self.xdo("mousemove", "--window", self.window, x, y)

    def drag(self, a, b, steps=20):
        for i in range(1, steps + 1):
            self.move(a[0] + (b[0] - a[0]) * i // steps, a[1] + (b[1] - a[1]) * i // steps)
            time.sleep(HAND)


class Game:
    """The real game on the display: ``with Game(desk) as game: ...``; exits checked by the caller."""

    def __init__(self, desk: Desk, cwd=ROOT, level=ROOT / "levels" / "rope.toml"):
        self.desk = desk
        self.cwd = cwd
        self.level = level

    def __enter__(self):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "ropework", str(self.level), "--size", f"{SIZE[0]}x{SIZE[1]}"],
            cwd=self.cwd, env=self.desk.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            self.desk.window = poll(self.desk.find_window, START_TIMEOUT, 0.2)

            def drawn():
                """the first frames, with the middle rope hanging straight"""
                x = self.desk.rope_x(self.desk.screenshot())
                return x is not None and abs(x - SIZE[0] / 2) < 10 and x
            self.still = poll(drawn, 20, 0.2)
        except BaseException:
            self.__exit__()
            raise
        return self

    def quit(self) -> tuple[int, str]:
        """Escape; the exit status and stderr (stdout in self.out)."""
        self.desk.xdo("windowfocus", self.desk.window)
        self.desk.xdo("key", "Escape")
        self.out, err = self.proc.communicate(timeout=20)
        return self.proc.returncode, err

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()


def test_play_the_rope_in_a_real_window(display):
    desk = Desk(display)
    with Game(desk) as game:
        # press on the middle rope, drag it right and down, look while it is held
        desk.move(400, 60)
        time.sleep(0.1)
        desk.move(400, 150)
        desk.xdo("mousedown", 1)
        desk.drag((400, 150), (620, 260))
        time.sleep(0.3)
        held = desk.rope_x(desk.screenshot())
        assert held is not None and held > game.still + 60, f"the rope did not follow the drag: x {game.still} → {held}"

        # release outside the window
        desk.drag((620, 260), (SIZE[0] + 200, SIZE[1] + 200), steps=8)
        desk.xdo("mouseup", 1)
        time.sleep(0.3)

        # keys: T for the theme; throw the rope and R at once puts it back
        desk.xdo("windowfocus", desk.window)
        time.sleep(0.1)
        desk.xdo("key", "t")
        desk.move(400, 150)
        desk.xdo("mousedown", 1)
        desk.drag((400, 150), (650, 300), steps=10)
        desk.xdo("mouseup", 1)
        desk.xdo("key", "r")                    # the rope would swing for seconds after the throw
        time.sleep(0.4)
        img = desk.screenshot()
        assert img[SIZE[1] - 20, SIZE[0] - 20].sum() < 3 * 60, "T did not switch to the dark theme"
        x = desk.rope_x(img)
        assert x is not None and abs(x - SIZE[0] / 2) < 10, f"R did not reset the thrown rope (x {x})"

        # minimise and restore (no window manager: unmapping is what minimising does to the window)
        desk.xdo("windowminimize", desk.window)
        desk.xdo("windowunmap", desk.window)
        time.sleep(0.4)
        desk.xdo("windowmap", desk.window)
        time.sleep(0.4)

        # resize, through a 1×1 sliver, and back; then pause and resume
        for w, h in ((640, 480), (1, 1), (1024, 700), SIZE):
            desk.xdo("windowsize", desk.window, w, h)
            time.sleep(0.3)
        desk.xdo("windowfocus", desk.window)
        for key in ("space", "space"):
            desk.xdo("key", key)
            time.sleep(0.2)
        status, err = game.quit()
    assert status == 0, err
    assert err == "", err


def test_the_pointer_works_after_a_resize(display):
    desk = Desk(display)
    with Game(desk) as game:
        desk.xdo("windowsize", desk.window, 700, 500)
        time.sleep(0.3)
        desk.move(350, 150)
        desk.xdo("mousedown", 1)
        desk.drag((350, 150), (500, 250), steps=8)
        time.sleep(0.3)
        assert game.proc.poll() is None, game.proc.communicate()[1][-400:]
        desk.xdo("mouseup", 1)
        status, err = game.quit()
    assert status == 0 and err == "", err


def test_s_and_g_save_into_the_current_folder_and_esc_ends_a_recording_into_a_gif(display, tmp_path):
    """README: S and G save into the current directory (not the repository's). Esc closes the window
    with a recording running; the GIF is written after the window has gone, and the game exits 0."""
    desk = Desk(display)
    with Game(desk, cwd=tmp_path) as game:
        desk.xdo("windowfocus", desk.window)
        desk.xdo("key", "s")
        desk.xdo("key", "g")

        def shot():
            """the screenshot in the current folder"""
            return list(tmp_path.glob("ropework-rope-*.png"))
        poll(shot, 20)
        time.sleep(0.5)                         # half a second of GIF
        desk.xdo("key", "Escape")

        def unmapped():
            """the window gone from the screen"""
            return not desk.xdo("search", "--onlyvisible", "--name", "^ropework")
        poll(unmapped, 10, 0.02)
        out, err = game.proc.communicate(timeout=60)
    assert game.proc.returncode == 0 and err == "", err
    gifs = list(tmp_path.glob("ropework-rope-*.gif"))
    assert len(gifs) == 1 and f"saved {gifs[0]}" in out, out
    assert not list(ROOT.glob("ropework-rope-*")), "a capture went into the repository"


def sliver_columns(img: np.ndarray) -> list[int]:
    """Columns within 45 px left or right of the lanyard card (its bright face), in runs at most 3 px
    wide, that are not the page for most of the card's height: the thin grey/red line a real window
    showed beside the card."""
    page = img[SIZE[1] - 5, SIZE[0] - 5]
    off_page = np.abs(img - page).sum(2) > 40
    run = np.cumsum(img.sum(2) > 600, axis=0)
    face = (run[40:] - run[:-40]) == 40                       # bright 40 px down: the card, not a dot or text
    cols, rows = np.flatnonzero(face.any(axis=0)), np.flatnonzero(face.any(axis=1))
    if len(cols) == 0:
        return []
    x0, x1, y0, y1 = cols.min(), cols.max(), rows.min(), rows.max() + 40
    near = list(range(max(0, x0 - 45), x0 - 1)) + list(range(x1 + 2, min(img.shape[1], x1 + 45)))
    hits = [x for x in near if off_page[y0:y1, x].sum() > 0.75 * (y1 - y0)]
    runs = np.split(np.array(hits, int), np.flatnonzero(np.diff(hits) != 1) + 1) if hits else []
    return [int(x) for r in runs if len(r) <= 3 for x in r]      # thin: the strap beside it is ~20 px wide


def test_no_line_beside_the_swinging_lanyard_card_in_a_real_window(display):
    """moeru.toml in a real window (4x multisampled, GLX): while the card swung in, 3 of 20 screenshots
    showed a thin card-coloured line 4 px beside it, which no headless frame ever had."""
    desk = Desk(display)
    proc = subprocess.Popen([sys.executable, "-m", "ropework", "moeru", "--size", f"{SIZE[0]}x{SIZE[1]}"],
                            cwd=ROOT, env=desk.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        desk.window = poll(desk.find_window, START_TIMEOUT, 0.2)
        desk.xdo("mousemove", SIZE[0] + 100, SIZE[1] + 100)       # the pointer off the window: no dot moves
        time.sleep(2.5)                                            # the title banner (2 s) has gone
        seen = []
        for _ in range(20):
            img = desk.screenshot()[:SIZE[1], :SIZE[0]]
            seen.append(sliver_columns(img))
            time.sleep(0.25)
        assert sum(bool(s) for s in seen) == 0, f"lines beside the card: {seen}"
        desk.xdo("windowfocus", desk.window)
        desk.xdo("key", "Escape")
        _, err = proc.communicate(timeout=20)
        assert proc.returncode == 0 and err == "", err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def test_i_records_the_hand_and_the_left_arrow_rewinds_in_a_real_window(display, tmp_path):
    """I records a drag as an input script (beside a shipped level: the current folder) that plays back
    headless; a held ← scrubs the swinging rope back to before the drag, and it plays on from
    there when let go. The screenshots stay in the test's folder (rewind-*.png) to be looked at."""
    desk = Desk(display)
    with Game(desk, cwd=tmp_path) as game:
        desk.xdo("windowfocus", desk.window)
        desk.xdo("key", "i")
        time.sleep(0.3)
        desk.move(400, 150)
        desk.xdo("mousedown", 1)
        desk.drag((400, 150), (640, 300), steps=15)
        recording = desk.screenshot()
        _save(recording, tmp_path / "rewind-1-recording-drag.png")
        held = desk.rope_x(recording)
        assert held is not None and held > game.still + 60, f"the rope did not follow the drag: {held}"
        desk.xdo("mouseup", 1)
        time.sleep(0.3)
        desk.xdo("key", "i")                       # stop: the script is written

        def script():
            """the input script in the current folder"""
            return list(tmp_path.glob("ropework-rope-*-input.txt"))
        txt = poll(script, 10)[0]
        swinging = desk.screenshot()
        _save(swinging, tmp_path / "rewind-2-swinging.png")

        desk.xdo("keydown", "Left")
        try:
            def straight():
                """the rope scrubbed back to hanging straight, before the drag"""
                img = desk.screenshot()
                x = desk.rope_x(img)
                return [img] if x is not None and abs(x - SIZE[0] / 2) < 6 else None
            back, = poll(straight, 30, 0.2)
            _save(back, tmp_path / "rewind-3-scrubbed-back.png")
        finally:
            desk.xdo("keyup", "Left")
        time.sleep(0.5)
        after = desk.screenshot()
        _save(after, tmp_path / "rewind-4-played-on.png")
        x = desk.rope_x(after)
        assert x is not None and abs(x - SIZE[0] / 2) < 6, f"after the rewind the rope swings at {x}"
        status, err = game.quit()
    assert status == 0 and err == "", err
    assert f"saved {txt.name}" in game.out
    snap = txt.with_suffix(".snap")
    frames = int(txt.read_text().splitlines()[0].split(":")[1].split()[0])
    png = tmp_path / "replayed.png"
    r = subprocess.run([sys.executable, "-m", "ropework", "rope", "--from", str(snap), "--input", str(txt),
                        "--record", str(png), "--frames", str(max(1, frames))],
                       env={**os.environ, "ARCADE_HEADLESS": "1"}, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and png.is_file(), r.stderr


def _save(img: np.ndarray, path: Path) -> None:
    from PIL import Image
    Image.fromarray(img.astype(np.uint8)).save(path)


SANDBOX = """\
# a sandbox to draw in
title = "sandbox"

[[layer]]
kind = "ropes"
draw = true              # a drag on empty space draws a rope
rail = false
grab_radius = 20

[[layer.rope]]
anchor = 0.5
colour = "#00d4ff"
"""
DRAWN = (255, 102, 0)    # the first drawn rope's colour (ropework.draw.PALETTE[0], #ff6600)


def test_draw_a_rope_in_a_real_window_and_save_it(display, tmp_path):
    """A drag on empty space of a sandbox level lays a rope along the stroke; released, it falls;
    Ctrl+S writes it into the level file as a rope entry with its path."""
    path = tmp_path / "sandbox.toml"
    path.write_text(SANDBOX)
    desk = Desk(display)
    with Game(desk, cwd=tmp_path, level=path) as game:
        desk.move(120, 120)
        time.sleep(0.1)
        desk.xdo("mousedown", 1)
        desk.drag((120, 120), (320, 180), steps=15)
        desk.drag((320, 180), (330, 300), steps=10)
        time.sleep(0.2)
        stroke = desk.screenshot()[:SIZE[1], :SIZE[0]]           # the stroke, before the release
        desk.xdo("mouseup", 1)
        time.sleep(0.15)
        laid = desk.screenshot()[:SIZE[1], :SIZE[0]]
        time.sleep(1.0)
        fallen = desk.screenshot()[:SIZE[1], :SIZE[0]]
        from PIL import Image
        Image.fromarray(np.concatenate([stroke, laid, fallen], axis=1).astype(np.uint8)).save(tmp_path / "drawn.png")

        def pixels(img):
            ys, xs = np.nonzero((np.abs(img - DRAWN) <= NEAR).all(axis=2))
            return ys, xs
        assert len(pixels(stroke)[0]) < 20, "a rope appeared before the release"
        ys, xs = pixels(laid)
        assert len(xs) > 100 and 100 < xs.mean() < 340, f"no rope along the stroke ({len(xs)} pixels)"
        ys2, _ = pixels(fallen)
        assert len(ys2) > 100 and ys2.mean() > ys.mean() + 40, "the drawn rope did not fall"
        desk.xdo("windowfocus", desk.window)
        desk.xdo("key", "ctrl+s")

        def saved():
            """the level file with the drawn rope"""
            return "path = [[" in path.read_text()
        poll(saved, 10)
        status, err = game.quit()
    err = "".join(line for line in err.splitlines(True) if "kernels" not in line)   # a first run compiles
    assert status == 0 and err == "", err
    text = path.read_text()
    assert text.startswith(SANDBOX) and 'pin = "none"' in text, text
