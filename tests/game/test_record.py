"""Capture: GIF frame count and timing, MP4 with the optional video extra."""
import pytest
from PIL import Image

from ropework.record import GIF_FRAME_MS, GifRecorder, gif_keeps, record
from tests.conftest import LEVELS


def gif_durations(path):
    im = Image.open(path)
    out = []
    for i in range(im.n_frames):
        im.seek(i)
        out.append(im.info["duration"])
    return im, out


def test_recorded_gif_has_a_frame_per_step_at_50_fps(tmp_path, gl_window):
    script = tmp_path / "in.txt"
    script.write_text("0 move 240 30\n1 down 240 30\n1-30 move 240 30 420 250\n")   # keeps the rope moving
    out = record(LEVELS / "rope.toml", tmp_path / "r.gif", 30, size=(480, 270), input_script=script)
    im, durations = gif_durations(out)
    assert im.n_frames == 30 and im.size == (480, 270)
    assert durations == [GIF_FRAME_MS] * 30 and sum(durations) == 600   # 50 fps: ≤ browsers' cap


def test_png_is_the_last_frame(tmp_path, gl_window):
    out = record(LEVELS / "rope.toml", tmp_path / "r.png", 3, size=(161, 121))
    assert Image.open(out).size == (161, 121)


def test_mp4_with_the_video_extra(tmp_path, gl_window):
    ffmpeg = pytest.importorskip("imageio_ffmpeg", reason="the optional video extra is not installed")
    out = record(LEVELS / "rope.toml", tmp_path / "r.mp4", 12, size=(161, 121))   # odd sides are trimmed to even
    frames, seconds = ffmpeg.count_frames_and_secs(str(out))
    assert frames == 12 and abs(seconds - 12 / 60) < 0.02
    reader = ffmpeg.read_frames(str(out))
    assert next(reader)["size"] == (160, 120)
    reader.close()


def test_window_recorder_caps_width_and_length():
    rec = GifRecorder(max_width=100, max_seconds=0.1)
    n = 0
    while rec.due(0.02):
        rec.add(Image.new("RGB", (400, 200), (n, 0, 0)))
        n += 1
    assert rec.size == (100, 50) and rec.full and n == 5 and rec.seconds == pytest.approx(0.1)


def test_gif_at_a_lower_rate_plays_in_real_time(tmp_path, gl_window):
    script = tmp_path / "in.txt"
    script.write_text("0 move 240 30\n1 down 240 30\n1-60 move 240 30 420 250\n")
    out = record(LEVELS / "rope.toml", tmp_path / "r.gif", 60, size=(160, 90), input_script=script, fps=25)
    im, durations = gif_durations(out)
    assert sum(durations) == 1000 and all(d % 40 == 0 for d in durations)   # 1 s; identical frames merge
    assert [f for f in range(60) if gif_keeps(f, 25)][:5] == [2, 4, 7, 9, 11]   # the last step of each 40 ms
    with pytest.raises(ValueError, match="--fps"):
        record(LEVELS / "rope.toml", tmp_path / "x.gif", 2, size=(16, 9), fps=30)
