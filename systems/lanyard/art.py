"""Pictures the lanyard is printed with, drawn in code with Pillow (seed 000, section 04).

`strap_texture` is the seed's woven band; `card_art` the badge's front, drawn from
the level's text and colours, and `card_back` its back. Each returns
uint8[h, w, 4] RGBA, top row first; colours are sRGB as written in the level.
"""
from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ropework.systems.services.colour import parse_colour

STRAP_SIZE = (2048, 128)   # px, (along the strap, across it): the seed's canvas
WEAVE_GAP = 4              # px between weave lines, both ways
WEAVE_ALPHA = 0.04         # weave lines: white at 4 % over the base
BORDER_ROWS = 6            # px of red border at the top and at the bottom of the band
TEXT_PX = 42               # px: the seed's "900 42px" print
TEXT_FIRST = 120           # px: centre of the first print along the band
TEXT_EVERY = 360           # px between print centres
TEXT_DROP = 2              # px: the seed centres the print 2 px below the middle

TITLE_CLEAR = 3           # art units (1 % of the card's width) of plain stock between the dots and the title
SUBTITLE_CLEAR = 3        # art units between the subtitle's baseline and the accent band: room for its descenders
ART_PX_PER_UNIT = 380      # card art pixels per scene unit of card: sharp at the layer's largest size
MAX_ART_SIDE = 1024        # px: a card's picture is never larger a side (the default card's is 608×855), so
                           # what a level's card dimensions ask of the GPU stays ~6 MB a face whatever they are
BOLD_FONTS = ("DejaVuSans-Bold.ttf", "LiberationSans-Bold.ttf", "Arial Bold.ttf", "Arial_Bold.ttf")
REGULAR_FONTS = ("DejaVuSans.ttf", "LiberationSans-Regular.ttf", "Arial.ttf")
FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts", "/Library/Fonts", "C:/Windows/Fonts")


@cache
def _font_file(names: tuple[str, ...]) -> str | None:
    for d in FONT_DIRS:
        root = Path(d)
        if not root.is_dir():
            continue
        for name in names:
            hit = next(iter(root.rglob(name)), None)
            if hit is not None:
                return str(hit)
    return None


def font(size: int, bold: bool = True) -> tuple[ImageFont.FreeTypeFont, int]:
    """(font, stroke width): a bold sans of ``size`` px (at least 1); without one, Pillow's own font, stroked to look bold."""
    size = max(1, int(size))
    path = _font_file(BOLD_FONTS if bold else REGULAR_FONTS)
    if path is not None:
        return ImageFont.truetype(path, size), 0
    return ImageFont.load_default(size), (max(1, size // 24) if bold else 0)


def _rgb(colour: str) -> tuple[int, int, int]:
    return tuple(int(round(c * 255)) for c in parse_colour(colour)[:3])  # type: ignore[return-value]


def strap_texture(text: str, base: str = "#111113", border: str = "#d90429", ink: str = "#ffffff",
                  gap: tuple[int, int] = (WEAVE_GAP, WEAVE_GAP), line: tuple[int, int] = (1, 1),
                  alpha: float = WEAVE_ALPHA) -> np.ndarray:
    """The seed's band, uint8[128, 2048, 4]: base, 4 % white weave every 4 px both ways,
    6 px borders at top and bottom, bold text every 360 px from x = 120.

    ``gap`` (along, across), ``line`` (px wide, along and across) and ``alpha`` set the weave:
    the defaults are the seed's canvas; the lanyard draws a coarser one, sized to the strap on
    screen (draw_lanyard.weave), since the seed's 4 px lines are 0.6 screen px at its width."""
    w, h = STRAP_SIZE
    img = np.empty((h, w, 3), np.float64)
    img[:] = _rgb(base)
    # Weave: lines, vertical then horizontal, each "source over" at alpha — crossings get both.
    vert = (np.arange(w) % gap[0]) < line[0]
    horiz = (np.arange(h) % gap[1]) < line[1]
    img[:, vert] += (255.0 - img[:, vert]) * alpha
    img[horiz, :] += (255.0 - img[horiz, :]) * alpha
    img[:BORDER_ROWS] = _rgb(border)
    img[h - BORDER_ROWS:] = _rgb(border)
    pic = Image.fromarray(np.round(img).astype(np.uint8))
    draw = ImageDraw.Draw(pic)
    face, stroke = font(TEXT_PX)
    for cx in range(TEXT_FIRST, w, TEXT_EVERY):
        draw.text((cx, h / 2 + TEXT_DROP), text, fill=_rgb(ink), font=face, anchor="mm",
                  stroke_width=stroke, stroke_fill=_rgb(ink))
    return np.asarray(pic.convert("RGBA"))


def _fit(draw: ImageDraw.ImageDraw, text: str, width: float, size: int, bold: bool):
    """Largest font ≤ size px whose rendering of ``text`` fits ``width`` px."""
    while True:
        face, stroke = font(size, bold)
        if size <= 8 or draw.textlength(text, font=face) + 2 * stroke <= width:
            return face, stroke
        size = int(size * 0.9)


def art_size(size_units, scale: float = 1.0) -> tuple[int, int]:
    """(w, h) px of a card face of ``size_units`` (width, height, …): ART_PX_PER_UNIT, fewer where a
    side would pass MAX_ART_SIDE, never under 1 px; ``scale`` 0.5 for the back."""
    w_units, h_units = float(size_units[0]), float(size_units[1])
    per_unit = min(ART_PX_PER_UNIT, MAX_ART_SIDE / max(w_units, h_units, 1e-9)) * scale
    return max(1, int(round(w_units * per_unit))), max(1, int(round(h_units * per_unit)))


def card_art(size_units, title: str, subtitle: str, colour: str, ink: str, accent: str) -> np.ndarray:
    """The badge's front, uint8[h, w, 4]: a dotted field, the punched slot, the title and
    subtitle, and an accent band — proportioned to the card's width × height."""
    w, h = art_size(size_units)
    pic = Image.new("RGB", (w, h), _rgb(colour))
    draw = ImageDraw.Draw(pic)
    u = w / 100.0                                   # art unit: 1 % of the card's width
    ink_rgb, bg = _rgb(ink), np.array(_rgb(colour), float)
    faint = tuple(int(v) for v in np.round(bg + (np.array(ink_rgb) - bg) * 0.16))
    margin = 8 * u
    face, stroke = _fit(draw, title, w - 2 * margin, int(22 * u), True)
    band = h - 17 * u                               # the accent band's top
    # The title's baseline at 64 % of the height, but never so low that the subtitle under it (its
    # baseline 9 u lower, descenders SUBTITLE_CLEAR u more) reaches the band: a landscape card is
    # only ~71 u tall, and there 64 % put the subtitle under the band.
    ty = min(h * 0.64, band - (9 + SUBTITLE_CLEAR) * u)
    # The dotted field stops a clear band above the title's ink: a dot touching a letter's top
    # drew, shrunk on screen, a dark speck on the card face (over "moeru"'s e).
    ink_top = draw.textbbox((margin, ty), title, font=face, anchor="ls", stroke_width=stroke)[1] if title else ty
    gap = max(6 * u, 2.0)                           # the moeru dot grid, in miniature (never under 2 px)
    r = 0.55 * u
    for gy in np.arange(16 * u, min(h * 0.58, ink_top - TITLE_CLEAR * u - r), gap):
        for gx in np.arange(gap, w - gap / 2, gap):
            draw.ellipse((gx - r, gy - r, gx + r, gy + r), fill=faint)
    slot_w, slot_h = 22 * u, 4.5 * u                # where the clip bites
    draw.rounded_rectangle((w / 2 - slot_w / 2, 5 * u, w / 2 + slot_w / 2, 5 * u + slot_h),
                           radius=slot_h / 2, fill=tuple(int(v * 0.55) for v in _rgb(colour)))
    draw.text((margin, ty), title, fill=ink_rgb, font=face, anchor="ls", stroke_width=stroke, stroke_fill=ink_rgb)
    sface, _ = _fit(draw, subtitle, w - 2 * margin, int(6.5 * u), False)
    draw.text((margin, ty + 9 * u), subtitle, fill=ink_rgb, font=sface, anchor="ls")
    draw.rectangle((0, band, w, h), fill=_rgb(accent))
    tag, _ = font(int(5.5 * u), True)
    draw.text((margin, band + 8.5 * u), "ALL ACCESS", fill=(255, 255, 255), font=tag, anchor="lm")
    draw.text((w - margin, band + 8.5 * u), "№ 000", fill=(255, 255, 255), font=tag, anchor="rm")
    return np.asarray(pic.convert("RGBA"))


def card_back(size_units, colour: str, ink: str, accent: str, title: str) -> np.ndarray:
    """The badge's back, uint8[h, w, 4]: plain stock with the accent band and a small mark."""
    w, h = art_size(size_units, 0.5)
    pic = Image.new("RGB", (w, h), _rgb(colour))
    draw = ImageDraw.Draw(pic)
    u = w / 100.0
    draw.rectangle((0, h - 17 * u, w, h), fill=_rgb(accent))
    face, stroke = _fit(draw, title, w * 0.6, int(9 * u), True)
    bg = np.array(_rgb(colour), float)
    mark = tuple(int(v) for v in np.round(bg + (np.array(_rgb(ink)) - bg) * 0.35))
    draw.text((w / 2, h * 0.45), title, fill=mark, font=face, anchor="mm", stroke_width=stroke, stroke_fill=mark)
    return np.asarray(pic.convert("RGBA"))


def load_png(path, size_units=None) -> np.ndarray:
    """uint8[h, w, 4] of a PNG file (already checked by the level loader), scaled down to the
    card's `art_size` where it is larger: the GPU holds what the card can show, not what the file has."""
    with Image.open(path) as im:
        im = im.convert("RGBA")
    if size_units is not None:
        aw, ah = art_size(size_units)
        if im.width > aw or im.height > ah:
            im = im.resize((min(im.width, aw), min(im.height, ah)), Image.Resampling.LANCZOS, reducing_gap=3.0)
    return np.asarray(im)
