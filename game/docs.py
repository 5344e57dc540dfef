"""Writes docs/levels.md from the key declarations: ``python -m ropework.docs > docs/levels.md``."""
from __future__ import annotations

from ropework import kinds
from ropework.level import LAYER_COMMON, MAX_FILE_BYTES, MAX_LAYERS, MAX_POINTS, TOP
from ropework.schema import markdown, table

INTRO = f"""# Level files

A level is a TOML file that describes one scene: a few top-level keys and one or
more `[[layer]]` tables, each naming an entity **kind** by its registered short
name. Several layers make one scene: they are drawn in ascending `z`, and a
pointer press is offered to the topmost layer first (the first that takes it —
a rope grab, a card hit — keeps it; the rest fall through).

Level files are data: they never name code to import. Every key below is
checked: a wrong type, an out-of-range value, an unknown key (with the closest
valid one suggested) or a TOML syntax error stops loading with one line naming
the file, the key path, what was expected and what was found, and exit status 2.

Caps: a file is at most {MAX_FILE_BYTES} bytes, at most {MAX_LAYERS} layers, at
most {MAX_POINTS:,} simulated points in a scene.

The *studio* column says what the in-window studio (E, [docs/studio.md](studio.md))
does with a change: *live* keys reach the running scene on the next step with
nothing reset; *rebuild* keys shape a layer's layout, counts or topology, so a
change spawns that layer again (the other layers run on).

Coordinates are scene pixels with the origin at the top-left and y down, as in
the reference toys. Run a level with `python -m ropework levels/NAME.toml`; start
your own by copying a shipped one (each starts with a comment naming its run line).

```toml
# python -m ropework levels/mine.toml
title = "Two ropes"
theme = "dark"

[[layer]]
kind = "ropes"
passes = 20

[[layer.rope]]
anchor = 0.3
points = 30
colour = "#ff6600"

[[layer.rope]]
anchor = 0.7
points = 12
colour = "#00d4ff"
```
"""


SOLVE = """## Bending, compliance, breaking, attachments, self-contact, sleep (ropes and cloth)

A `ropes` or `cloth` layer (and, for `bend`, `compliance` and `break_at`, each `[[layer.rope]]`)
takes these keys; every default leaves the body exactly as the seeds have it. `levels/wire.toml`
and `levels/snap.toml` show them.

| key | unit, range | what it does |
|---|---|---|
| `bend` | 0 … 1 | bending stiffness: every three neighbours along a rope, or along a cloth's rows and columns, keep the angle they had when laid out (verlet-js's angle constraint, once a pass with step coefficient 1 / passes). 0 is the seeds' slack chain; 1 a stiff wire that springs back straight. Stable at every value: a bend only rotates points toward the rest angle. |
| `substeps` | count, 0 … 64 | 0 (default): the seeds' Gauss–Seidel `passes`. ≥ 1: XPBD — each step is cut into `substeps` substeps that each integrate and solve every link once (Ten Minute Physics' loop); `passes` is then not read, and a rope's stretch depends on its compliance and the substep count only. **This is the way to a rope that does not stretch**: `substeps = 16`, `compliance = 0`. |
| `compliance` | px per unit force, ≥ 0 | XPBD compliance of the links, read with `substeps` ≥ 1 (the seeds' passes have no compliance). A free point weighs 1 and a force is mass · px/s², so a link holding a weight of m points under gravity g stretches by compliance · m · g px (plus g · h² of discretisation at substep h). 0 is rigid. |
| `break_at` | stretch ratio, 0 or 1 … 100 | a link breaks when longer than break_at × its rest length after a step's solve (1.5: 150 %); a rope breaks at most once a step, at its most stretched link, and is drawn as its pieces. 0: never. The `tearable_cloth` example plugin tears by this key. |
| `self_collide` | true / false | the body's points keep two radii apart, found each step by a spatial hash (cell = 1.5 contact gaps) and pushed apart in every pass; points within two radii of each other at rest (a rope's neighbours) are left to their links. |
| `radius` | px, ≥ 0 | a point's radius for self-contact; 0: half the segment (a cloth: half its spacing). |
| `sleep` | true / false | a body in which no point moved 0.01 px a step for 60 steps sleeps: integrate and relax skip it (no solve time) until a press takes one of its points. The lanyard's own `sleep` freezes its strap and card the same way. |
| `mass`, `tip_mass` (`[[layer.rope]]`) | free points' masses | a rope's points' mass, and its tip's (a pendulum bob). Constraints split their corrections by inverse mass: a heavy bob swings a light rope. |

`[[layer.attach]]` (ropes): the point at `from_at` (0 … 1 of its length; 1, the default, its tip) of
rope `from` is held, at zero length, on the point at `at` (0 … 1) of rope `to` — ropes are numbered
from 0 in the order the layer declares them, a table's `count` repeated in place. The pull splits
by inverse mass. `break_force` (mass · px/s², 0 never): the attachment lets go when its correction
over a step, as a force, passes it (gravity on one free point is 900). Refused with one line: a
rope that does not exist, a fraction outside 0 … 1, a point attached to itself, or two pinned
anchors attached to each other (cycles that cannot be solved).

**B** in the window shows the strain overlay: every link of a ropes or cloth body drawn in the colour
of its stretch, grey at or below its rest length, amber half way, red at its `break_at` ratio (a
link that never breaks, `break_at = 0`, is measured against 1.5: red at 150 % of its rest length),
so a player sees where a rope is about to snap.

![The strain overlay (B): the hanging rope pulled down, amber near its anchor; the drawn bridge grey](img/strain.png)

"""


COLLIDERS = """## Colliders (ropes and cloth)

![A rope draped over three pegs, a cloth over a ball (levels/pegs.toml)](img/pegs.png)

Each `[[layer.collider]]` of a `ropes` or `cloth` layer is a static (or, with `kinematic`, draggable)
shape that layer's points are kept out of, in every relaxation pass after the links, with friction;
the window edges stay the box clamp (`margin`). A point's radius against them is the layer's `radius`
(0: half the segment or spacing), a rope's own `radius` overriding it.

| key | unit, range | what it does |
|---|---|---|
| `shape` | circle / capsule / box / polygon / plane | circle: a disc of `radius`; capsule: a segment of length `size[0]` with a `radius`; box: an oriented rectangle `size = [width, height]`; polygon: a convex polygon of `points`; plane: a half-plane, its surface through `at`, solid below at angle 0. |
| `at` | [x, y], fractions 0 … 1 of the scene's width and height | the shape's centre (a plane: a point of its surface). |
| `radius` | px, > 0 | circle and capsule radius (default 20). |
| `size` | [w, h] px, > 0 | box width and height; a capsule's segment length is `size[0]` (default [40, 40]). |
| `angle` | degrees, −360 … 360 | rotation, clockwise on screen (a plane: its surface's tilt; 0 a floor). |
| `points` | [[x, y], …] px, 3 … 64, convex | a polygon's corners, offsets from `at` before rotation, in order around it (either way). |
| `friction` | coefficient, 0 … 100 | static friction μs (default 0.5): a point resting on a surface tilted θ stays while tan θ < μs, position-based (its motion along the surface this step is undone while shorter than μs × the push). |
| `kinetic` | coefficient, 0 … 100, or −1 | kinetic friction μk while sliding (the motion along the surface shortened by μk × the push); −1 (default): the same as `friction`. |
| `kinematic` | true / false | the collider can be dragged with the pointer (default false). |

No tunnelling: once a step a point that moved further than half the thinnest collider's width is
walked along its move in steps of that half width, and stops at the first sample inside a shape (a
rope end thrown at 5,000 px/s against a 10 px box is sampled every 5 px of its 83 px step). Refused
with one line (exit 2): a radius or size ≤ 0, a polygon of fewer than 3 corners or not convex, a
fraction outside 0 … 1. A collider wholly outside the scene is a warning.

"""


DRAWN = """## Drawn ropes (ropes)

![Drawn ropes: a bridge pinned on two pegs, a rope attached to its middle and pinned on the floor board, one dropped free](img/drawn.png)

A `ropes` layer with `draw = true` is a sandbox: in the window, a drag that starts on empty space
(no free point within `grab_radius`, no kinematic collider) draws a stroke, and the release lays a
rope along it — its points `segment` apart — that falls and behaves as any rope. With the studio
open (E) every ropes layer draws (the topmost one takes the stroke). Where the stroke starts and
ends decides how the rope is held:

- on a collider of the layer: that end is **pinned** where the stroke crosses the collider's rim
  (a kinematic collider, dragged later, leaves the pin where it was);
- on another rope (within 10 px of one of its points): that end is **attached** to it with a
  `[[layer.attach]]` entry at that place; a press near a rope grabs it, so **Shift** starts a
  stroke on a rope;
- elsewhere: free.

**O** pins the end of a drawn rope nearest the pointer where it hangs now (its `path` is laid
again through where its points are), or frees it if it was pinned; **Backspace** removes the
last drawn rope (and the attachments that hold it or hang on it); **Ctrl+Z** undoes either, and
**Ctrl+S** saves (a shipped level: a copy here, as the studio saves).

A drawn rope is an ordinary `[[layer.rope]]` entry, so a level file can be written by hand too:

```toml
[[layer.rope]]
anchor = 0.1                      # its first corner's x (not read for a drawn rope)
points = 39                       # laid along the path, `segment` apart
pin = "both"                      # start, end, both or none
colour = "#ff6600"
path = [[0.17, 0.31], [0.3, 0.4], [0.52, 0.53], [0.81, 0.31]]   # corners, fractions of the scene
```

`path` holds the stroke's corners (within 0.5 px of it, at most 4096, as fractions 0 … 1 of the
scene's width and height); `points` are laid along it from the first corner, and past its last
corner straight on. A drawn rope has `count = 1`. `pin` is every rope's: `"start"` (the default:
a hanging rope's anchor), `"end"`, `"both"` or `"none"`. The rope counts against the scene's point
budget like any other: one that would pass it is refused with validate's line, in the window, and
the scene plays on. A level saved with drawn ropes loads, validates and plays as the scene did
after a reset (R).

"""


def builtin_kinds() -> list[str]:
    """Kinds shipped with ropework (a plugin documents its own)."""
    return sorted(n for n, k in kinds.KINDS.items() if k.spawn.__module__.startswith("ropework.kinds."))


def levels_markdown() -> str:
    kinds.load_builtin()
    lines = [INTRO, "## Top-level keys", ""]
    lines += markdown("Scene", TOP)[1:]
    lines += ["## `[[layer]]` — keys every layer has", ""]
    lines += markdown("Layer", table(*LAYER_COMMON), "layer.")[1:]
    lines += [SOLVE, COLLIDERS, DRAWN, "## Entity kinds", ""]
    for name in builtin_kinds():
        k = kinds.KINDS[name]
        lines += [f"## kind = \"{name}\"", "", k.doc, ""]
        themes = " and ".join(k.themes) if len(k.themes) > 1 else f"{k.themes[0]} only ({k.theme_note}; T says so)"
        lines += [f"Themes (T): {themes}.", ""]
        if k.motion_note:
            lines += [f"Reduced motion (M, `--reduced-motion`, `reduced_motion = true`): {k.motion_note}.", ""]
        lines += markdown(f"`{name}` layer keys", k.schema, "layer.")[1:]
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    print(levels_markdown(), end="")
