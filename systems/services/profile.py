"""The render profile: every drawing choice that depends on what runs GL, decided once, here.

A GL implementation is one of two kinds, and the same picture is cheapest made differently on each:
  - a *software* rasteriser (Mesa's llvmpipe, softpipe or swrast, SwiftShader, Microsoft's GDI
    renderer): every primitive, sample and texel is CPU time on the cores the simulation also needs;
    a triangle costs ~0.36 µs before its pixels, a full-viewport quad ~8 ms at 1280×720;
  - a *hardware* GPU: primitives, samples and texels are nearly free, and reading pixels back to the
    CPU stalls the pipeline.

`probe` asks the context what it is (its renderer string and limits); `choose` turns that into a
`Profile`, a dataclass of named decisions, each with its reason beside it. Draw code asks
`active()` what to do (`active().cpu_mips`, …) and never reads the renderer string itself, so what
changes between a laptop's GPU and a headless server is all on this page.

The environment variable ROPEWORK_GL_PROFILE forces one: ``software``, ``hardware`` or ``auto`` (the
default: the probe decides). Both profiles draw the same picture on any GL 4.3 context — the
hardware profile runs on a software rasteriser too, only slower (docs/performance.md) — so the suite
draws every shipped level under both and compares them.

The window's multisampling is fixed when it is created, before its context exists to be probed:
`window_samples` answers from the forced profile, or (auto) from `probe_display`: a hidden 1×1 window
opened on the same display and closed again (~35 ms more at start on Xvfb), its probe kept for `active`.
Why not the others: a window opened without samples and opened again with them flashes and loses
what it showed; guessing from the last run's profile is wrong on the first run and whenever a laptop
switches GPUs; a headless EGL context can be another device than the display's.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass

ENV = "ROPEWORK_GL_PROFILE"   # forces a profile: "software", "hardware", or "auto" (probe; the default)
CHOICES = ("software", "hardware", "auto")

# Renderer strings of software rasterisers (lower case, a substring is enough): Mesa's ("llvmpipe (LLVM
# 15.0.6, 256 bits)", "softpipe", "Software Rasterizer" of swrast), Google's SwiftShader, Windows' GDI fallback.
SOFTWARE_RENDERERS = ("llvmpipe", "softpipe", "software rasterizer", "swrast", "swiftshader", "gdi generic")


@dataclass(frozen=True)
class StrokeCosts:
    """What a `gfx.Strokes` draw costs each way (ns), measured by `bench.strokes` on a 2-core machine
    under the software rasteriser: its triangles against the CPU painter (`stroke_raster`) and the
    canvas it paints into. `gfx.cpu_paints` weighs them; at 1280×720 the line falls near 9,000
    samples, so every shipped level's strokes stay triangles."""

    gpu_sample: float = 720.0    # per strip sample on the rasteriser (two thin triangles, ~1-3 px wide, ~8 px long)
    cpu_sample: float = 110.0    # the painter on one core, per sample of the same strokes
    cpu_pixel: float = 5.0       # the canvas per pixel of the scene: clear, upload (16 B), composite
    cpu_draw: float = 1.5e6      # the painter per draw: two kernel calls, a thread hand-off, a texture and a quad


@dataclass(frozen=True)
class DotCosts:
    """What the dot splat (`draw_dots.Splat`, a CPU painter) saves per dot and costs per covered pixel
    against the rasteriser's instanced quads (ns), measured on a 2-core machine under the software
    rasteriser (CPU per draw into 1280×720, both paths alternating, the pointer sweeping, 1-minute load
    5-7). The rasteriser spends ~0.9 µs on each dot's quad before any pixel, which the splat does not;
    its fragments cost about what the splat's pixels do, so what else is saved grows with a dot's side,
    not its area. Saved per dot: ~1.4 µs (seed program) and ~2.5 µs (look: swell, glow, stretch) for
    5 px dots drawn 1:1; a 1920×1080 grid of 5,184 dots drawn into 1280×720 (3.3 px dots), 1.6 / 1.9 µs;
    pixels.toml's 2,840 10 px squares, 3.9 µs. The splat costs ~15 ns a covered pixel whatever the grid
    (clear, upload, composite). Crossover at 1280×720: ~10,000 dots (seed), ~5,500 (look); the seed's
    page (390 dots), the scaled full-HD grid and pixels.toml stay quads."""

    quad: float = 900.0          # per dot: the quad's vertices and triangle set-up, before any fragment
    seed_side: float = 480.0     # per dot the splat saves beyond that, seed program, 5 px dot drawn 1:1 (∝ its side)
    look_side: float = 1600.0    # ... look program
    splat_pixel: float = 15.0    # per covered pixel the splat costs


@dataclass(frozen=True)
class Profile:
    """The decisions that depend on the GL implementation. Each field is read by one place (named)."""

    name: str                    # "software" or "hardware"
    # game/window.py: the window framebuffer's samples a pixel (0: single-sampled). Every draw already
    # anti-aliases its own edges (coverage in the shaders, the lanyard's supersampled layer), so MSAA only
    # smooths what coverage cannot (the lanyard's 3D silhouettes at 1:1). Software: the 4 samples and
    # their resolve at every swap cost more than the scene (43 → 8 ms of CPU a frame for the rope level,
    # 66 → 36 ms for tendrils, bench.frames --window). Hardware: 4, nearly free.
    window_samples: int
    # systems/lanyard/draw_lanyard.py: mip levels made on the CPU (`mip_levels`, the software rasteriser's own
    # filter, byte for byte at even sizes) instead of glGenerateMipmap. Software: its own took 0.15-0.19 s
    # a texture (its blit's set-up) at every lanyard start. Hardware: the GPU makes them in microseconds.
    cpu_mips: bool
    # systems/services/canvas.py: a CPU-painted image composites by reading the framebuffer back,
    # blending on the CPU and writing the result in, not by a blended quad. Software: the full-viewport
    # quad costs ~8 ms at 1280×720, read-back + blend + write ~3.5. Hardware: the quad is nearly free and
    # a read-back stalls the pipeline until every earlier draw has finished.
    readback_composite: bool
    # systems/services/gfx.py (`cpu_paints`): when a Strokes body may be painted on the CPU rather than
    # drawn as triangles. None: never (a GPU's triangles are cheaper at any count).
    strokes: StrokeCosts | None
    # systems/dotgrid/draw_dots.py (`splat_pays`): when a dense dot grid may be splatted on the CPU rather than
    # drawn as instanced quads. None: never.
    dots: DotCosts | None


SOFTWARE = Profile("software", window_samples=0, cpu_mips=True, readback_composite=True,
                   strokes=StrokeCosts(), dots=DotCosts())
HARDWARE = Profile("hardware", window_samples=4, cpu_mips=False, readback_composite=False,
                   strokes=None, dots=None)
PROFILES = {p.name: p for p in (SOFTWARE, HARDWARE)}


@dataclass(frozen=True)
class Probe:
    """What a GL context says it is: GL_RENDERER, GL_VENDOR, its GL version and GL_MAX_SAMPLES."""

    renderer: str
    vendor: str
    version: str
    max_samples: int

    @property
    def software(self) -> bool:
        r = self.renderer.lower()
        return any(s in r for s in SOFTWARE_RENDERERS)


def probe(ctx) -> Probe:
    """Ask ``ctx`` (an arcade.gl Context, current) what it is."""
    info = ctx.info
    return Probe(str(info.RENDERER), str(info.VENDOR), f"{info.MAJOR_VERSION}.{info.MINOR_VERSION}",
                 int(info.MAX_SAMPLES))


def forced() -> str:
    """The profile ROPEWORK_GL_PROFILE asks for ("auto" when unset). ValueError (one line) for any
    other value: the CLI checks it before anything opens."""
    value = os.environ.get(ENV, "auto").strip().lower() or "auto"
    if value not in CHOICES:
        raise ValueError(f"{ENV}: expected one of {', '.join(CHOICES)}, found {value!r}")
    return value


def choose(found: Probe | None, force: str = "auto") -> Profile:
    """The profile for a context that says ``found`` (None: not probed), unless ``force`` names one.
    A GPU whose multisampled framebuffers hold fewer samples than the profile asks gets what it has."""
    if force != "auto":
        chosen = PROFILES[force]
    elif found is None or found.software:
        chosen = SOFTWARE
    else:
        chosen = HARDWARE
    if found is not None and chosen.window_samples > found.max_samples:
        from dataclasses import replace
        chosen = replace(chosen, window_samples=found.max_samples if found.max_samples > 1 else 0)
    return chosen


_active: Profile | None = None     # the process's profile, once chosen (one GL implementation a process)
_found: Probe | None = None        # what the context said


def active() -> Profile:
    """The process's profile: chosen on first use from ROPEWORK_GL_PROFILE and a probe of the current
    arcade window's context. Asked before any GL context exists (a first run's kernel warm-up asks
    which painters will run), it answers the forced profile or the software one, unprobed and not
    kept: warming a kernel that then never runs costs only the compile."""
    global _active, _found
    if _active is None:
        force = forced()
        if _found is None:
            window = _current_window()
            if window is None:
                return choose(None, force)
            _found = probe(window.ctx)
        _active = choose(_found, force)
    return _active


def _current_window():
    """arcade's current window, or None (arcade not imported, or no window opened yet)."""
    arcade = sys.modules.get("arcade")
    if arcade is None:
        return None
    try:
        return arcade.get_window()
    except RuntimeError:
        return None


def found() -> Probe | None:
    """What the probe found (None before `active` first ran)."""
    return _found


def use(profile: Profile | str | None) -> Profile | None:
    """Make ``profile`` (a `Profile` or its name) the active one; None chooses again on next use.
    Returns the one that was active (tests and benchmarks put it back)."""
    global _active
    before = _active
    _active = PROFILES[profile] if isinstance(profile, str) else profile
    return before


def probe_display() -> Probe | None:
    """The display's GL, for what must be known before the real window exists (its samples): pyglet's
    hidden *shadow window* is asked where there is one, else (arcade turns it off) a hidden 1×1 window
    is opened and closed. None when no window can be opened: the real window will say why."""
    try:
        import pyglet
        import pyglet.window
        from pyglet import gl
        shadow = getattr(gl, "_shadow_window", None)
        window = shadow if shadow is not None else pyglet.window.Window(1, 1, visible=False)
    except Exception:          # no display, no GL
        return None
    try:
        window.switch_to()
        samples = gl.GLint(0)
        gl.glGetIntegerv(gl.GL_MAX_SAMPLES, samples)
        info = window.context.get_info()
        return Probe(info.get_renderer(), info.get_vendor(), ".".join(map(str, info.get_version())),
                     int(samples.value))
    finally:
        if window is not shadow:
            window.close()


def window_samples() -> int:
    """The samples a pixel for the window about to be opened: the forced profile's, or (auto) the
    profile of what `probe_display` finds. The probe is kept, so `active` does not ask again."""
    global _found
    force = forced()
    if force != "auto":
        return PROFILES[force].window_samples
    if _found is None:
        _found = probe_display()
    return choose(_found).window_samples
