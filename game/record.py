"""Capture: ``--record`` (off-screen, one fixed step per frame) to PNG, GIF or MP4, and the
window's G key (what is on screen, in real time) to GIF.

GIF frames last 20 ms — 50 fps, the fastest rate browsers honour — so a 60-step
recording plays at 5/6 of real time. MP4 plays at the simulation's 60 fps and
needs the optional ``video`` extra (imageio-ffmpeg, which carries its own ffmpeg).
"""
from __future__ import annotations

import math
import os
import secrets
import stat
import struct
import zlib
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from PIL import Image  # GIF's encoder and ImageChops only when a GIF is written (GifWriter)

from ropework import script
from ropework.components.frame import STEP
from ropework.schema import TEMP_NAME_CHARS, printable

GIF_FRAME_MS = 20          # ms per GIF frame: 50 fps, the fastest rate browsers honour
GIF_COLOURS = 255          # palette entries per frame; one is left for the encoder
PALETTE_SAMPLES = 16       # frames a recording's shared palette is chosen from
PALETTE_SAMPLE_PIXELS = 1280 * 720   # pixels of each palette sample at most: 16 of them are held at once
PNG_LEVEL = 6              # zlib level of --record PNGs: Pillow's default
GIF_RATES = (50, 25, 20, 10, 5)   # fps whose frame time is whole hundredths of a second, as GIF stores it
MP4_FPS = round(1 / STEP)  # one MP4 frame per fixed step: plays in real time
MP4_QUALITY = 7            # imageio-ffmpeg's 0..10 scale: sharp thin strokes without a large file
RECORD_MAX_WIDTH = 640     # px: window recordings are scaled down to this width to stay shareable
RECORD_MAX_SECONDS = 20.0  # s of window recording kept in memory (~230 MB of frames at 640×360)
CONTEXT_SIZE = (64, 64)    # px: the hidden window --record needs for a GL context; it draws nothing
FORMATS = (".png", ".gif", ".mp4")
VIDEO_EXTRA = "MP4 needs the optional video extra: pip install 'ropework[video]' (or record .gif or .png)"


class MissingExtra(RuntimeError):
    """An optional dependency is not installed; the message says how to install it."""


def _quantize(im: Image.Image, palette: Image.Image | None = None) -> Image.Image:
    """A palette frame: to ``palette`` if given (nearest colour), else to its own best 255 colours."""
    rgb = im if im.mode == "RGB" else im.convert("RGB")    # no copy of a frame that is RGB already
    if palette is not None:
        return rgb.quantize(palette=palette, dither=Image.Dither.NONE)
    return rgb.quantize(colors=GIF_COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)


def sample(im: Image.Image) -> Image.Image:
    """A palette sample of a frame: every k-th pixel each way (its own colours, none blended) so a
    sample holds at most PALETTE_SAMPLE_PIXELS; frames up to 1280×720 are kept whole."""
    k = math.ceil(math.sqrt(im.width * im.height / PALETTE_SAMPLE_PIXELS))
    return im if k <= 1 else im.resize((max(1, im.width // k), max(1, im.height // k)), Image.Resampling.NEAREST)


def quantized(off, palette: Image.Image) -> Image.Image:
    """The Offscreen's picture as a palette frame, quantized strip by strip (nearest colour, so the
    same as whole): the RGB picture is never held at once."""
    im = Image.new("P", off.size)
    top = 0
    for strip in off.strips():
        im.paste(_quantize(Image.fromarray(np.ascontiguousarray(strip)), palette), (0, top))
        top += len(strip)
    im.putpalette(palette.getpalette())
    return im


def write_png(fp, size: tuple[int, int], strips) -> None:
    """Stream an RGB picture to a PNG, strip by strip (uint8[rows, w, 3], top first): never whole in memory.

    Each row is stored with PNG's Up filter (its difference from the row above),
    which makes the flat fills and smooth gradients of these scenes compress well.
    """
    def chunk(kind: bytes, data: bytes) -> None:
        fp.write(struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data)))
    w, h = size
    fp.write(b"\x89PNG\r\n\x1a\n")
    chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))   # 8-bit RGB, deflate, no interlace
    z = zlib.compressobj(PNG_LEVEL)
    above = np.zeros((1, w * 3), np.uint8)
    for strip in strips:
        rows = np.ascontiguousarray(strip).reshape(len(strip), w * 3)
        up = rows - np.concatenate([above, rows[:-1]])               # uint8: wraps mod 256, as PNG's Up
        data = z.compress(np.concatenate([np.full((len(rows), 1), 2, np.uint8), up], axis=1).tobytes())
        if data:
            chunk(b"IDAT", data)
        above = rows[-1:].copy()
    chunk(b"IDAT", z.flush())
    chunk(b"IEND", b"")


def palette_samples(n: int) -> list[int]:
    """Which of a recording's ``n`` frames its palette is chosen from: up to PALETTE_SAMPLES spread over it."""
    return list(range(0, n, max(1, n // PALETTE_SAMPLES)))[:PALETTE_SAMPLES]


def shared_palette(sample: list[Image.Image]) -> Image.Image:
    """One palette for a whole recording, from a few of its frames (`palette_samples`).

    With one palette an unchanged pixel keeps its index, so the GIF encoder stores only
    the box that changed: a recording shrinks by a quarter to a half against per-frame palettes.
    """
    w, h = sample[0].size
    sheet = Image.new("RGB", (w, h * len(sample)))
    for i, im in enumerate(sample):
        sheet.paste(im.convert("RGB"), (0, h * i))
    return _quantize(sheet)


class OutputError(OSError):
    """An output file that cannot be written; str() is the one line shown to the user."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def _reason(e: OSError) -> str:
    return e.strerror or type(e).__name__


def check_target(out) -> Path:
    """Raise OutputError now, before any work, if ``out`` cannot become a file.

    The folder is created if missing; the target must be absent or a regular file
    (or a link to one); a short probe file proves the folder takes new files.
    """
    if not str(out):
        raise OutputError("--record: expected an output file name, found an empty one")
    out = Path(out)
    name = printable(out)
    try:
        st = os.stat(out)
    except FileNotFoundError:
        st = None
    except OSError as e:                          # a name too long, a loop of links, a parent that is a file
        raise OutputError(f"{name}: cannot write here: {_reason(e)}") from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        what = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file (a FIFO, socket or device)"
        raise OutputError(f"{name}: expected a file to write, found {what}")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        discard(temp_for(out))
    except OSError as e:
        raise OutputError(f"{name}: cannot write here: {_reason(e)}") from None
    return out


def temp_for(out: Path) -> Path:
    """A new empty file beside ``out`` (same folder, so the final rename is atomic), ending as ``out`` does."""
    while True:
        tmp = out.parent / f".{out.stem[:TEMP_NAME_CHARS]}.{secrets.token_hex(4)}.part{out.suffix[:8]}"
        try:   # mode 0666 less the umask, as the file would have been made directly
            os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            return tmp
        except FileExistsError:
            continue


def discard(tmp: Path) -> None:
    try:
        os.unlink(tmp)
    except OSError:
        pass


@contextmanager
def atomic(out):
    """Write to a temporary file beside ``out``, renamed over it only once complete.

    Yields the temporary path. Any OSError (a full disk, a folder made read-only
    meanwhile) leaves ``out`` as it was and becomes one OutputError line.
    """
    out = Path(out)
    try:
        tmp = temp_for(out)
    except OSError as e:
        raise OutputError(f"{printable(out)}: cannot write here: {_reason(e)}") from None
    try:
        yield tmp
        os.replace(tmp, out)
    except OutputError:
        discard(tmp)
        raise
    except OSError as e:
        discard(tmp)
        raise OutputError(f"{printable(out)}: could not write: {_reason(e)}") from None
    except BaseException:
        discard(tmp)
        raise


class GifWriter:
    """Streams palette frames to a looping GIF, one at a time: only the last two are held.

    Every frame must share one palette (`shared_palette`). Like Pillow's ``save_all``
    with ``disposal=1``, each frame stores only the box that changed since the
    previous one, and a frame identical to the previous one adds its time to it.
    """

    def __init__(self, fp):
        from PIL import GifImagePlugin, ImageChops  # imported here: a PNG recording never needs them
        self._gif, self._chops = GifImagePlugin, ImageChops
        self.fp = fp
        self.frames = 0
        self._shown: Image.Image | None = None      # the last frame given, as the viewer will show it
        self._pending: tuple[Image.Image, tuple, int] | None = None   # (frame, box that changed, ms) not yet written

    def add(self, im: Image.Image, duration_ms: int) -> None:
        if self._shown is None:
            header, _ = self._gif.getheader(im, None, {"loop": 0, "duration": duration_ms})
            self.fp.write(b"".join(header))
            self._pending, self._shown = (im, (0, 0, *im.size), duration_ms), im
            return
        bbox = self._chops.difference(im, self._shown).getbbox(alpha_only=False)
        if bbox is None:                           # identical: the pending frame lasts longer
            pim, off, ms = self._pending
            self._pending = (pim, off, ms + duration_ms)
            return
        self._flush()
        self._pending, self._shown = (im, bbox, duration_ms), im

    def _flush(self) -> None:
        if self._pending is not None:
            im, box, ms = self._pending
            if box != (0, 0, *im.size):
                im = im.crop(box)
            for chunk in self._gif.getdata(im, box[:2], duration=ms, disposal=1):
                self.fp.write(chunk)
            self.frames += 1
            self._pending = None

    def close(self) -> None:
        self._flush()
        self.fp.write(b";")


def write_gif(frames: list[Image.Image], out, durations_ms) -> Path:
    """Write palette frames (each with its own palette) as a looping GIF, atomically;
    ``durations_ms`` is one int or one per frame."""
    out = check_target(out)
    with atomic(out) as tmp:
        frames[0].save(tmp, format="GIF", save_all=True, append_images=frames[1:], duration=durations_ms, loop=0,
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
    """Raise ValueError / MissingExtra before any work if ``out`` is not a format we write."""
    suffix = Path(out).suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(f"--record: expected a file ending {', '.join(FORMATS)}, found {printable(out)!r}")
    if suffix == ".mp4":
        try:
            import imageio_ffmpeg  # noqa: F401
        except ImportError:
            raise MissingExtra(VIDEO_EXTRA) from None


def gif_keeps(step: int, fps: int | None) -> bool:
    """Whether step ``step`` (0-based) becomes a GIF frame: every step when ``fps`` is None,
    else the last step of each 1/fps s, so the GIF plays in real time."""
    return fps is None or (step + 1) * fps // MP4_FPS > step * fps // MP4_FPS


def gif_steps(frames: int, fps: int | None) -> list[int]:
    """The steps (0-based) of a ``frames``-step recording that become GIF frames; a recording
    shorter than one 1/fps s frame still shows its last step."""
    return [f for f in range(frames) if gif_keeps(f, fps)] or [frames - 1]


def _play(level, frames: int, size, seed, reduced_motion, events, wanted, start=None, log=None):
    """Play ``level`` for ``frames`` steps (from the snapshot ``start`` if given); after each step
    in ``wanted`` draw it and yield the Offscreen. ``log(scene)`` (a hash log) makes one after
    the scene is built and is told of every step."""
    from ropework.render import Offscreen, headless_window  # GL only once we record
    from ropework.scene import Scene
    win = headless_window(*CONTEXT_SIZE)      # only a GL context: every picture is drawn off-screen
    if start is not None:
        scene = Scene.from_snapshot(start, level)
    else:
        scene = Scene.load(level, size=size, seed=seed, reduced_motion=reduced_motion)
    off = None
    hashes = None if log is None else log(scene)
    try:
        off = Offscreen(win.ctx, size)
        for f in range(frames if hashes is not None else max(wanted, default=-1) + 1):
            script.apply(scene, events.get(f, ()))
            scene.step(1)
            if hashes is not None:
                hashes.after(scene, f + 1)
            if f in wanted:
                off.render(scene)
                yield off
    finally:
        if hashes is not None:
            hashes.close()
        if off is not None:
            off.release()
        scene.close()


def record(level, out, frames: int, size=(1280, 720), seed=None, input_script=None,
           reduced_motion=None, fps: int | None = None, start=None, hash_every: int | None = None,
           hash_log=None) -> Path:
    """Play ``level`` for ``frames`` steps with the scripted input and write ``out``.

    ``.png`` saves the last frame; ``.mp4`` every frame; ``.gif`` every frame at 50 fps, or
    with ``fps`` (one of GIF_RATES) a frame per 1/fps s, in real time and smaller.
    The target is checked before anything is simulated, and written atomically:
    a failed write leaves no partial file and raises OutputError. Frames stream to
    the encoder as they are drawn: memory does not grow with ``frames``. A GIF is
    played twice (the scene is deterministic): first for the few frames its one
    palette is chosen from, then to encode every frame.
    """
    if fps is not None and fps not in GIF_RATES:
        raise ValueError(f"--fps: expected one of {', '.join(map(str, GIF_RATES))}, found {fps}")
    if not 1 <= frames:
        raise ValueError(f"--frames: expected at least 1, found {frames}")
    check_format(out)
    out = check_target(out)
    if hash_every:
        hash_log = check_target(hash_log or hash_log_for(out))     # before any work, and named as itself
    suffix = out.suffix.lower()
    events = script.parse(input_script) if input_script else script.Script()
    log = None
    if hash_every:
        from ropework.hashlog import HashLog
        log = lambda scene: HashLog(hash_log, scene, hash_every, input_script, frames)  # noqa: E731

    def play(wanted, log=None):
        return _play(level, frames, size, seed, reduced_motion, events, wanted, start, log)
    if suffix == ".gif":
        steps = gif_steps(frames, fps)
        palette = shared_palette([sample(off.rgb()) for off in play({steps[i] for i in palette_samples(len(steps))})])
        ms = GIF_FRAME_MS if fps is None else 1000 // fps
        with atomic(out) as tmp, open(tmp, "wb") as fp:
            gif = GifWriter(fp)
            for off in play(set(steps), log):
                gif.add(quantized(off, palette), ms)
            gif.close()
    elif suffix == ".mp4":
        vsize = (_even(int(size[0])), _even(int(size[1])))
        with atomic(out) as tmp:
            video = mp4_writer(tmp, vsize)
            try:
                for off in play(set(range(frames)), log):
                    video.send(off.rgb().crop((0, 0, *vsize)).tobytes())
            finally:
                video.close()
    else:
        with atomic(out) as tmp, open(tmp, "wb") as fp:
            for off in play({frames - 1}, log):
                write_png(fp, off.size, off.strips())
    return out


def hash_log_for(out) -> Path:
    """Where ``--hash-every`` writes beside a recording ``OUT.gif``: ``OUT.hashes``."""
    out = Path(out)
    return out.with_name(out.stem + ".hashes")


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

