"""Capture: ``--record`` (off-screen, one fixed step per frame) to PNG, GIF or MP4, and the
window's G key (what is on screen, in real time) to GIF.

GIF frames last 20 ms — 50 fps, the fastest rate browsers honour — so a 60-step
recording plays at 5/6 of real time. MP4 plays at the simulation's 60 fps and
needs the optional ``video`` extra (imageio-ffmpeg, which carries its own ffmpeg).
"""
from __future__ import annotations

from pathlib import Path

from PIL import Image

from ropework import script
from ropework.components.frame import STEP

GIF_FRAME_MS = 20          # ms per GIF frame: 50 fps, the fastest rate browsers honour
GIF_COLOURS = 255          # palette entries per frame; one is left for the encoder
PALETTE_SAMPLES = 16       # frames a recording's shared palette is chosen from
GIF_RATES = (50, 25, 20, 10, 5)   # fps whose frame time is whole hundredths of a second, as GIF stores it
MP4_FPS = round(1 / STEP)  # one MP4 frame per fixed step: plays in real time
MP4_QUALITY = 7            # imageio-ffmpeg's 0..10 scale: sharp thin strokes without a large file
RECORD_MAX_WIDTH = 640     # px: window recordings are scaled down to this width to stay shareable
RECORD_MAX_SECONDS = 20.0  # s of window recording kept in memory (~230 MB of frames at 640×360)
FORMATS = (".png", ".gif", ".mp4")
VIDEO_EXTRA = "MP4 needs the optional video extra: pip install 'ropework[video]' (or record .gif or .png)"


class MissingExtra(RuntimeError):
    """An optional dependency is not installed; the message says how to install it."""


def _quantize(im: Image.Image, palette: Image.Image | None = None) -> Image.Image:
    """A palette frame: to ``palette`` if given (nearest colour), else to its own best 255 colours."""
    if palette is not None:
        return im.convert("RGB").quantize(palette=palette, dither=Image.Dither.NONE)
    return im.convert("RGB").quantize(colors=GIF_COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)


def shared_palette(frames: list[Image.Image]) -> Image.Image:
    """One palette for a whole recording, from up to PALETTE_SAMPLES frames spread over it.

    With one palette an unchanged pixel keeps its index, so the GIF encoder stores only
    the box that changed: a recording shrinks by a quarter to a half against per-frame palettes.
    """
    step = max(1, len(frames) // PALETTE_SAMPLES)
    sample = frames[::step][:PALETTE_SAMPLES]
    w, h = sample[0].size
    sheet = Image.new("RGB", (w, h * len(sample)))
    for i, im in enumerate(sample):
        sheet.paste(im.convert("RGB"), (0, h * i))
    return _quantize(sheet)


def write_gif(frames: list[Image.Image], out, durations_ms) -> Path:
    """Write palette frames as a looping GIF; ``durations_ms`` is one int or one per frame."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    frames[0].save(out, save_all=True, append_images=frames[1:], duration=durations_ms, loop=0,
                   optimize=False, disposal=1)
    return out


def mp4_writer(out, size):
    """A started imageio-ffmpeg writer for RGB frames of ``size``; raise MissingExtra without the extra."""
    try:
        import imageio_ffmpeg
    except ImportError:
        raise MissingExtra(VIDEO_EXTRA) from None
    w = imageio_ffmpeg.write_frames(str(out), size, fps=MP4_FPS, codec="libx264", pix_fmt_in="rgb24",
                                    pix_fmt_out="yuv420p", quality=MP4_QUALITY, macro_block_size=1,
                                    ffmpeg_log_level="error")
    w.send(None)
    return w


def _even(n: int) -> int:
    return max(2, n - n % 2)   # yuv420p needs even sides; an odd last row/column is dropped


def check_format(out) -> None:
    """Raise ValueError / MissingExtra before any work if ``out`` cannot be written."""
    suffix = Path(out).suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(f"--record: expected a file ending {', '.join(FORMATS)}, found {str(out)!r}")
    if suffix == ".mp4":
        try:
            import imageio_ffmpeg  # noqa: F401
        except ImportError:
            raise MissingExtra(VIDEO_EXTRA) from None


def gif_keeps(step: int, fps: int | None) -> bool:
    """Whether step ``step`` (0-based) becomes a GIF frame: every step when ``fps`` is None,
    else the last step of each 1/fps s, so the GIF plays in real time."""
    return fps is None or (step + 1) * fps // MP4_FPS > step * fps // MP4_FPS


def record(level, out, frames: int, size=(1280, 720), seed=None, input_script=None,
           reduced_motion=None, fps: int | None = None) -> Path:
    """Play ``level`` for ``frames`` steps with the scripted input and write ``out``.

    ``.png`` saves the last frame; ``.mp4`` every frame; ``.gif`` every frame at 50 fps, or
    with ``fps`` (one of GIF_RATES) a frame per 1/fps s, in real time and smaller.
    """
    if fps is not None and fps not in GIF_RATES:
        raise ValueError(f"--fps: expected one of {', '.join(map(str, GIF_RATES))}, found {fps}")
    from ropework.render import Offscreen, headless_window   # GL only once we record
    from ropework.scene import Scene
    out = Path(out)
    check_format(out)
    suffix = out.suffix.lower()
    events = script.parse(input_script) if input_script else {}
    scene = Scene.load(level, size=size, seed=seed, reduced_motion=reduced_motion)
    win = headless_window(*size)
    off = Offscreen(win.ctx, size)
    gif, last, video = [], None, None
    vsize = (_even(int(size[0])), _even(int(size[1])))
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        if suffix == ".mp4":
            video = mp4_writer(out, vsize)
        for f in range(frames):
            script.apply(scene, events.get(f, ()))
            scene.step(1)
            if (suffix == ".png" and f < frames - 1) or (suffix == ".gif" and not gif_keeps(f, fps)):
                continue
            off.render(scene)
            im = off.image().convert("RGB")
            if suffix == ".gif":
                gif.append(im)
            elif video is not None:
                video.send(im.crop((0, 0, *vsize)).tobytes())
            else:
                last = im
    finally:
        scene.close()
        if video is not None:
            video.close()
    if suffix == ".gif":
        palette = shared_palette(gif)
        write_gif([_quantize(im, palette) for im in gif], out, GIF_FRAME_MS if fps is None else 1000 // fps)
    elif suffix == ".png":
        last.save(out)
    return out


class GifRecorder:
    """Collects what is on screen at up to 50 fps and writes it as a GIF that plays in real time.

    Call ``due(dt)`` every drawn frame with its seconds; when it says True, ``add``
    that frame's image. Drawing faster than 50 fps skips frames; drawing slower
    makes the earlier frame last longer, so the GIF keeps wall-clock time.
    """

    def __init__(self, max_width: int = RECORD_MAX_WIDTH, max_seconds: float = RECORD_MAX_SECONDS):
        self.max_width = max_width
        self.max_seconds = max_seconds
        self.frames: list[Image.Image] = []
        self.durations: list[int] = []
        self.size: tuple[int, int] | None = None
        self._acc = 0.0                   # s since the last captured frame not yet given to it

    @property
    def seconds(self) -> float:
        return sum(self.durations) / 1000

    @property
    def full(self) -> bool:
        return self.seconds >= self.max_seconds

    def due(self, dt: float) -> bool:
        if not self.frames:
            return True                   # the first drawn frame is taken at once
        self._acc += max(0.0, dt)
        return self._acc * 1000 >= GIF_FRAME_MS and not self.full

    def add(self, image: Image.Image) -> None:
        """Add the frame drawn now; the previous frame lasts the time since it was taken."""
        ticks = int(self._acc * 1000 // GIF_FRAME_MS)      # whole 20 ms frames elapsed
        self._acc -= ticks * GIF_FRAME_MS / 1000
        if self.durations:
            self.durations[-1] = ticks * GIF_FRAME_MS
        if self.size is None:
            w, h = image.size
            scale = min(1.0, self.max_width / max(1, w))
            self.size = (max(1, round(w * scale)), max(1, round(h * scale)))
        if image.size != self.size:
            image = image.resize(self.size, Image.Resampling.BILINEAR)
        self.frames.append(_quantize(image))
        self.durations.append(GIF_FRAME_MS)

    def save(self, out) -> Path:
        if not self.frames:
            raise ValueError("no frames recorded")
        return write_gif(self.frames, out, self.durations)

