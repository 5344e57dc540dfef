"""The "tendrils" kind: glowing ropes hanging from the pointer, whipped into sparks (seed 002).

Each rope's point 0 is pinned to the pointer plus a small offset on a turning
circle; gravity pulls each rope in its own direction (a fan around straight
down), wind and a travelling wave stir the tips, and fast tips throw sparks.
Every constant below is the seed's and is a level key of the same name.
"""
from __future__ import annotations

import math

import esper
import numpy as np

from ropework.components import Constraints, Forces, Layer, PointerPins, Points, Ropes
from ropework.components.tendrils import Autopilot, Sparks, TendrilLook, Tendrils
from ropework.cost import DRAW_NS_STROKE, RELAX_NS_CHAIN, TENDRIL_NS_POINT, Work
from ropework.kinds import Kind, toy
from ropework.live import into
from ropework.schema import Key, table
from ropework.systems.services.colour import parse_colour

ROPES = 16              # ropes in the bundle on a wide window
POINTS = 38             # points of the longest rope; each rope has POINTS − U{0..SPREAD−1}
SPREAD = 10             # how many different rope lengths there are, in points
NARROW_BELOW = 800.0    # px: a window narrower than this gets the small bundle (phones)
NARROW_ROPES = 9        # ropes in the small bundle
NARROW_POINTS = 26      # points of the small bundle's longest rope
SEGMENT_MIN = 5.0       # px: shortest rest length between neighbouring points
SEGMENT_MAX = 11.0      # px: longest (each rope draws its own, uniformly)
WIDTH_MIN = 1.2         # px: thinnest core stroke
WIDTH_MAX = 2.8         # px: thickest core stroke
FREQ_MIN = 0.6          # rad/s: slowest per-rope wind
FREQ_MAX = 1.8          # rad/s: fastest per-rope wind
PHASE_MAX = 6.28        # rad: per-rope phases are uniform in 0..this (the seed's 2π, rounded)
GRAVITY = 380.0         # px/s²: pull along each rope's own direction
FAN = 2.4               # rad: spread of the gravity directions around straight down (about ±64° for 16)
PASSES = 4              # relaxation passes per step: the seed's elastic stretch when whipped
PIN_SHARE = 1.0         # of the first link's error, the part point 1 takes: seed 002 gives it the whole
DRAG = 0.985            # fraction of velocity kept per step
WIND = 160.0            # px/s²: per-rope fast horizontal wind, scaled by i/n along the rope
GUST = 80.0             # px/s²: slow wind shared by the bundle (offset by the rope index)
GUST_FREQ = 0.37        # rad/s: the slow wind's frequency
WAVE = 90.0             # px/s²: vertical travelling wave, scaled by i/n
WAVE_FREQ = 1.3         # rad/s: the wave's frequency
WAVE_LAG = 0.2          # rad per point: the wave's phase lag along the rope (it travels to the tip)
ORBIT_RADIUS = 6.0      # px: anchors sit on a circle this size around the pointer
ORBIT_SPEED = 0.8       # rad/s: how fast that circle turns
ELECTRIC_DRAG = 0.9     # fraction of velocity kept per step while electrified: the seed's much stronger drag
ELECTRIC_SHAKE = 4500.0  # px/s²: ± uniform random force per axis, per point, per step while electrified
SPARKS = 900            # slots in the spark ring buffer
SPARK_THRESHOLD = 900.0  # px/s: tips faster than this may throw sparks
SPARK_CHANCE = 0.6      # probability a fast tip throws a spark, per step
SPARK_KEEP = 0.35       # fraction of the tip's velocity a spark leaves with
SPARK_JITTER = 100.0    # px/s: ± uniform random velocity added per axis
SPARK_LIFE = 0.5        # s: shortest spark life
SPARK_LIFE_SPREAD = 0.6  # s: lives are SPARK_LIFE + U(0, this)
SPARK_GRAVITY = 600.0   # px/s², down
SPARK_DRAG = 0.98       # fraction of a spark's velocity kept per step
GLOW_WIDTH = 6.0        # the glow stroke is this many core widths wide
GLOW_ALPHA = 0.14       # glow stroke opacity
CORE_ALPHA = 0.85       # core stroke opacity
ELECTRIC_GLOW = "#c8e6ff"   # glow colour while electrified, rgb(200, 230, 255)
ELECTRIC_GLOW_ALPHA = 0.18  # ... and its opacity
ELECTRIC_CORE = "#ffffff"   # core colour while electrified
ELECTRIC_CORE_ALPHA = 0.95  # ... and its opacity
TRAIL_KEEP = 0.78       # fraction of the old image kept per 1/60 s: the light trails
BACKDROP = "#050508"    # the colour the trails fade into; alpha 00 adds the light onto lower layers instead
POINTER_GLOW = 40.0     # px: radius of the radial glow at the pointer
HOME_X = 0.5            # the bundle hangs from here (fraction of the width) until the pointer arrives
HOME_Y = 0.3            # ... and of the height
AUTOPILOT_AFTER = 2.5   # s without pointer input before the autopilot moves the pointer
# The seed's palette: neon cyan, magenta, green, violet, amber, aqua; rope r takes colour r mod 6.
PALETTE = ["#19f0ff", "#ff2bd6", "#39ff14", "#9650ff", "#ffb000", "#00ffc8"]
MAX_ROPES = 10_000
MAX_POINTS = 10_000

# How a running bundle takes each live key (see ropework.live).
def live_drag(body, cfg, name):
    """The drag kept per step; electrify writes Forces.damping from it each step, the next one included."""
    body.get(Tendrils).drag = cfg[name]
    if not body.get(Tendrils).electrified:
        body.get(Forces).damping = cfg[name]


def live_orbit_radius(body, cfg, name):
    """The anchors' circle, as the orbit system lays it out at this step's time."""
    td, pins = body.get(Tendrils), body.get(PointerPins)
    td.orbit_radius = cfg[name]
    a = td.angle + np.float32(td.orbit_speed * body.frame.t)
    pins.offset[:] = np.float32(cfg[name]) * np.stack([np.cos(a), np.sin(a)], 1)


def live_fan(body, cfg, name):
    td = body.get(Tendrils)
    r = np.arange(len(td.gdir))
    td.gdir = (math.pi / 2 + ((r + 0.5) / len(r) - 0.5) * cfg[name]).astype(np.float32)


def live_electric_glow(body, cfg, name):
    body.get(TendrilLook).electric_glow = (*parse_colour(cfg["electric_glow"])[:3], cfg["electric_glow_alpha"])


def live_electric_core(body, cfg, name):
    body.get(TendrilLook).electric_core = (*parse_colour(cfg["electric_core"])[:3], cfg["electric_core_alpha"])


COLOUR = table(Key("colour", "colour", "#19f0ff", "a rope colour; rope r takes entry r mod the count"))

SCHEMA = table(
    Key("ropes", "int", ROPES, "ropes in the bundle", lo=1, hi=MAX_ROPES),
    Key("points", "int", POINTS, "points of the longest rope", lo=2, hi=MAX_POINTS),
    Key("spread", "int", SPREAD, "rope r has `points` − U{0..spread−1} points", lo=1, hi=MAX_POINTS),
    Key("narrow_below", "float", NARROW_BELOW, "px: a narrower window gets `narrow_ropes` × `narrow_points`",
        lo=0.0, hi=100_000.0),
    Key("narrow_ropes", "int", NARROW_ROPES, "ropes on a narrow window", lo=1, hi=MAX_ROPES),
    Key("narrow_points", "int", NARROW_POINTS, "points of the longest rope on a narrow window", lo=2, hi=MAX_POINTS),
    Key("segment_min", "float", SEGMENT_MIN, "shortest segment rest length, px", lo=0.5, hi=1000.0),
    Key("segment_max", "float", SEGMENT_MAX, "longest segment rest length, px (uniform per rope)", lo=0.5, hi=1000.0),
    Key("width_min", "float", WIDTH_MIN, "thinnest core stroke, px", lo=0.1, hi=100.0),
    Key("width_max", "float", WIDTH_MAX, "thickest core stroke, px (uniform per rope)", lo=0.1, hi=100.0),
    Key("freq_min", "float", FREQ_MIN, "slowest per-rope wind frequency, rad/s", lo=0.0, hi=100.0),
    Key("freq_max", "float", FREQ_MAX, "fastest per-rope wind frequency, rad/s", lo=0.0, hi=100.0),
    Key("phase_max", "float", PHASE_MAX, "per-rope phases are uniform in 0..this, rad", lo=0.0, hi=100.0),
    Key("gravity", "float", GRAVITY, "pull along each rope's own direction, px/s²", lo=-100_000.0, hi=100_000.0, live=into(Tendrils, "gravity")),
    Key("fan", "float", FAN, "spread of the gravity directions around straight down, rad", lo=0.0, hi=2 * math.pi, live=live_fan),
    Key("passes", "int", PASSES, "constraint relaxation passes per step (stiffness)", lo=1, hi=500, live=into(Constraints, "passes")),
    Key("pin_share", "float", PIN_SHARE, "share of the first link's length error point 1 takes (point 0 "
        "is pinned to the pointer): 1 as seed 002's code, 0.5 half of it", lo=0.5, hi=1.0,
        live=into(Constraints, "share")),
    Key("drag", "float", DRAG, "fraction of velocity kept per step", lo=0.0, hi=1.0, live=live_drag),
    Key("wind", "float", WIND, "per-rope fast horizontal wind amplitude, px/s²", lo=0.0, hi=100_000.0, live=into(Tendrils, "wind")),
    Key("gust", "float", GUST, "shared slow horizontal wind amplitude, px/s²", lo=0.0, hi=100_000.0, live=into(Tendrils, "gust")),
    Key("gust_freq", "float", GUST_FREQ, "shared slow wind frequency, rad/s", lo=0.0, hi=100.0, live=into(Tendrils, "gust_freq")),
    Key("wave", "float", WAVE, "vertical travelling wave amplitude, px/s²", lo=0.0, hi=100_000.0, live=into(Tendrils, "wave")),
    Key("wave_freq", "float", WAVE_FREQ, "travelling wave frequency, rad/s", lo=0.0, hi=100.0, live=into(Tendrils, "wave_freq")),
    Key("wave_lag", "float", WAVE_LAG, "travelling wave phase lag per point, rad", lo=-100.0, hi=100.0, live=into(Tendrils, "wave_lag")),
    Key("orbit_radius", "float", ORBIT_RADIUS, "radius of the anchors' circle around the pointer, px",
        lo=0.0, hi=10_000.0, live=live_orbit_radius),
    Key("orbit_speed", "float", ORBIT_SPEED, "turn rate of the anchors' circle, rad/s", lo=-100.0, hi=100.0, live=into(Tendrils, "orbit_speed")),
    Key("electric_drag", "float", ELECTRIC_DRAG, "fraction of velocity kept per step while the button is held",
        lo=0.0, hi=1.0, live=into(Tendrils, "electric_drag")),
    Key("electric_shake", "float", ELECTRIC_SHAKE, "± random force per axis per point while held, px/s²",
        lo=0.0, hi=1_000_000.0, live=into(Tendrils, "electric_shake")),
    Key("sparks", "int", SPARKS, "slots in the spark ring buffer (0: no sparks)", lo=0, hi=1_000_000),
    Key("spark_threshold", "float", SPARK_THRESHOLD, "tip speed that may throw sparks, px/s", lo=0.0, hi=1e7, live=into(Sparks, "threshold")),
    Key("spark_chance", "float", SPARK_CHANCE, "probability a fast tip throws a spark per step", lo=0.0, hi=1.0, live=into(Sparks, "chance")),
    Key("spark_keep", "float", SPARK_KEEP, "fraction of the tip velocity a spark takes", lo=-10.0, hi=10.0, live=into(Sparks, "keep")),
    Key("spark_jitter", "float", SPARK_JITTER, "± random spark velocity per axis, px/s", lo=0.0, hi=1e6, live=into(Sparks, "jitter")),
    Key("spark_life", "float", SPARK_LIFE, "shortest spark life, s", lo=0.0, hi=3600.0, live=into(Sparks, "life_min")),
    Key("spark_life_spread", "float", SPARK_LIFE_SPREAD, "spark lives are spark_life + U(0, this), s",
        lo=0.0, hi=3600.0, live=into(Sparks, "life_spread")),
    Key("spark_gravity", "float", SPARK_GRAVITY, "downward pull on sparks, px/s²", lo=-100_000.0, hi=100_000.0, live=into(Sparks, "gravity")),
    Key("spark_drag", "float", SPARK_DRAG, "fraction of a spark's velocity kept per step", lo=0.0, hi=1.0, live=into(Sparks, "drag")),
    Key("glow_width", "float", GLOW_WIDTH, "glow stroke width in core widths", lo=0.0, hi=100.0, live=into(TendrilLook, "glow_width")),
    Key("glow_alpha", "float", GLOW_ALPHA, "glow stroke opacity", lo=0.0, hi=1.0, live=into(TendrilLook, "glow_alpha")),
    Key("core_alpha", "float", CORE_ALPHA, "core stroke opacity", lo=0.0, hi=1.0, live=into(TendrilLook, "core_alpha")),
    Key("electric_glow", "colour", ELECTRIC_GLOW, "glow colour while electrified", live=live_electric_glow),
    Key("electric_glow_alpha", "float", ELECTRIC_GLOW_ALPHA, "glow opacity while electrified", lo=0.0, hi=1.0, live=live_electric_glow),
    Key("electric_core", "colour", ELECTRIC_CORE, "core colour while electrified", live=live_electric_core),
    Key("electric_core_alpha", "float", ELECTRIC_CORE_ALPHA, "core opacity while electrified", lo=0.0, hi=1.0, live=live_electric_core),
    Key("trail_keep", "float", TRAIL_KEEP, "fraction of the old image kept per 1/60 s (0: no trails)",
        lo=0.0, hi=0.999, live=into(TendrilLook, "keep")),
    Key("backdrop", "colour", BACKDROP, "colour the trails fade into; \"#rrggbb00\" adds the light onto lower layers", live=into(TendrilLook, "backdrop", parse_colour)),
    Key("pointer_glow", "float", POINTER_GLOW, "radius of the glow at the pointer, px (0: none)", lo=0.0, hi=10_000.0, live=into(TendrilLook, "pointer_glow")),
    Key("home_x", "float", HOME_X, "where the bundle hangs before the pointer arrives, fraction of the width",
        lo=0.0, hi=1.0),
    Key("home_y", "float", HOME_Y, "... and of the height", lo=0.0, hi=1.0),
    Key("autopilot", "bool", True, "move the pointer on a slow path when nobody does (off with reduced motion)"),
    Key("autopilot_after", "float", AUTOPILOT_AFTER, "seconds without input before the autopilot starts",
        lo=0.0, hi=1e6, live=into(Autopilot, "after")),
    palette=(COLOUR, 0, 1000, "the rope colours (none given: the seed's six neon colours)"),
)


def shape(cfg: dict, width: float) -> tuple[int, int]:
    """(ropes, points of the longest rope) for a window ``width`` px wide."""
    if width < cfg["narrow_below"]:
        return cfg["narrow_ropes"], cfg["narrow_points"]
    return cfg["ropes"], cfg["points"]


def spawn(cfg: dict, layer: Layer, frame) -> int:
    rng = frame.rng
    w, h = frame.width, frame.height
    R, S = shape(cfg, w)
    # the seed's draws, one array each: length, segment, phase, frequency, width
    counts = np.maximum(S - np.floor(rng.random(R) * cfg["spread"]).astype(np.int32), 2)
    segment = cfg["segment_min"] + rng.random(R) * (cfg["segment_max"] - cfg["segment_min"])
    phase = rng.random(R) * cfg["phase_max"]
    freq = cfg["freq_min"] + rng.random(R) * (cfg["freq_max"] - cfg["freq_min"])
    width = cfg["width_min"] + rng.random(R) * (cfg["width_max"] - cfg["width_min"])
    r = np.arange(R)
    gdir = math.pi / 2 + ((r + 0.5) / R - 0.5) * cfg["fan"]
    angle = r / R * 2 * math.pi

    ropes = Ropes.of_counts(counts)
    n = int(ropes.count.sum())
    rope_of = np.repeat(r, counts).astype(np.int32)
    along = np.arange(n) - ropes.start[rope_of]
    home = (cfg["home_x"] * w, cfg["home_y"] * h)
    # all points in a straight line below the anchor, at rest (prev = pos)
    pos = np.stack([np.full(n, home[0]), home[1] + along * segment[rope_of]], axis=1)
    points = Points.at(pos)
    points.inv_mass[ropes.start] = 0.0
    offset = cfg["orbit_radius"] * np.stack([np.cos(angle), np.sin(angle)], 1)
    a, b = ropes.chain_constraints()
    palette = [parse_colour(c["colour"]) for c in cfg.get("palette") or [{"colour": c} for c in PALETTE]]
    glow_rgb, core_rgb = parse_colour(cfg["electric_glow"])[:3], parse_colour(cfg["electric_core"])[:3]
    tendrils = Tendrils(
        gdir=gdir.astype(np.float32), phase=phase.astype(np.float32), freq=freq.astype(np.float32),
        angle=angle.astype(np.float32), rope_of=rope_of, along=along.astype(np.float32),
        frac=(along / counts[rope_of]).astype(np.float32), shake=np.zeros((n, 2), np.float32),
        gravity=cfg["gravity"], wind=cfg["wind"], gust=cfg["gust"], gust_freq=cfg["gust_freq"],
        wave=cfg["wave"], wave_freq=cfg["wave_freq"], wave_lag=cfg["wave_lag"],
        orbit_radius=cfg["orbit_radius"], orbit_speed=cfg["orbit_speed"], drag=cfg["drag"],
        electric_drag=cfg["electric_drag"], electric_shake=cfg["electric_shake"],
    )
    look = TendrilLook(
        colour=np.array([palette[i % len(palette)] for i in range(R)], np.float32),
        width=width.astype(np.float32), glow_width=cfg["glow_width"], glow_alpha=cfg["glow_alpha"],
        core_alpha=cfg["core_alpha"], electric_glow=(*glow_rgb, cfg["electric_glow_alpha"]),
        electric_core=(*core_rgb, cfg["electric_core_alpha"]), keep=cfg["trail_keep"],
        backdrop=parse_colour(cfg["backdrop"]), pointer_glow=cfg["pointer_glow"],
    )
    sparks = Sparks.pool(cfg["sparks"], threshold=cfg["spark_threshold"], chance=cfg["spark_chance"],
                         keep=cfg["spark_keep"], jitter=cfg["spark_jitter"], life_min=cfg["spark_life"],
                         life_spread=cfg["spark_life_spread"], gravity=cfg["spark_gravity"],
                         drag=cfg["spark_drag"])
    return esper.create_entity(
        points, ropes, tendrils, look, sparks, layer,
        PointerPins(index=ropes.start.copy(), offset=offset.astype(np.float32)),
        Constraints(a=a, b=b, rest=segment[rope_of[a]].astype(np.float32), passes=cfg["passes"],
                    share=cfg["pin_share"]),
        Forces(gravity=np.zeros(2, np.float32), damping=cfg["drag"], extra=np.zeros((n, 2), np.float32)),
        *([Autopilot(home=home, after=cfg["autopilot_after"])] if cfg["autopilot"] else []),
    )


STROKES_PER_LINK = 2     # the glow and the core each stroke every link once a frame (draw_tendrils)


def work(cfg: dict, w: float, h: float) -> Work:
    n = max(r * (p - 1) for r, p in (shape(cfg, 0.0), shape(cfg, math.inf)))
    points = max(r * p for r, p in (shape(cfg, 0.0), shape(cfg, math.inf)))
    return Work(links=n, passes=cfg["passes"], relax_ns=RELAX_NS_CHAIN, draw_ns=n * STROKES_PER_LINK * DRAW_NS_STROKE,
                step_ns=points * TENDRIL_NS_POINT)


plugin = toy(Kind(
    "tendrils",
    "Glowing ropes pinned to the pointer: whip them into sparks, hold to electrify (seed 002).",
    SCHEMA, spawn,
    # a resize can cross narrow_below either way: cap the larger of the two bundles
    points=lambda cfg, w, h: max(r * n for r, n in (shape(cfg, 0.0), shape(cfg, math.inf))),
    work=work,
    systems=("autopilot", "orbit", "input", "electrify", "blow", "integrate", "relax",
             "emit_sparks", "fly_sparks", "draw_tendrils"),
    counts=(("sparks", Sparks, lambda c: int(np.count_nonzero(c.life > 0))),),
    themes=("dark",),
    theme_note="its glow is light added onto its own dark backdrop, as seed 002 draws it",
    motion_note="the wind, the wave, the sparks and the autopilot stop; the ropes still follow the pointer",
))
