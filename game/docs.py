"""Writes docs/levels.md from the key declarations: ``python -m ropework.docs > docs/levels.md``."""
from __future__ import annotations

from ropework import kinds
from ropework.cost import MAX_START_MS, MAX_STEP_MS
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
most {MAX_POINTS:,} simulated points in a scene. A level is also refused when it is
estimated, from what its keys multiply (points, links, passes, substeps, bends,
self-contact, colliders, straps laid at rest, live rings), to take more than
{MAX_STEP_MS:.0f} ms a step or {MAX_START_MS:,.0f} ms of work before its first step on a
2-core machine ([docs/reliability.md](reliability.md), Work bounds); `validate` warns
below that when the toy would run far slower than real time.

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

![levels/wire.toml: the stiff wire (bend = 1) held out as a rod by the pointer, a cord attached to its middle, the springy rod (bend = 0.3) knocked into a curl, the slack chain hanging, a long chain piled on the floor without passing through itself](img/wire.png)

![levels/snap.toml: a bob flung down and away, its rope snapped past break_at = 1.3 at the anchor](img/snap.png)

| key | unit, range | what it does |
|---|---|---|
| `bend` | 0 … 1 | bending stiffness: every three neighbours along a rope, or along a cloth's rows and columns, keep the angle they had when laid out (verlet-js's angle constraint, once a pass with step coefficient 1 / passes). 0 is the seeds' slack chain; 1 a stiff wire that springs back straight. Stable at every value: a bend only rotates points toward the rest angle. |
| `substeps` | count, 0 … 64 | 0 (default): the seeds' Gauss–Seidel `passes`. ≥ 1: XPBD — each step is cut into `substeps` substeps that each integrate and solve every link once (Ten Minute Physics' loop); `passes` is then not read, and a rope's stretch depends on its compliance and the substep count only. **This is the way to a rope that does not stretch**: `substeps = 16`, `compliance = 0`. |
| `compliance` | px per unit force, ≥ 0 | XPBD compliance of the links, read with `substeps` ≥ 1 (the seeds' passes have no compliance). A free point weighs 1 and a force is mass · px/s², so a link holding a weight of m points under gravity g stretches by compliance · m · g px (plus g · h² of discretisation at substep h). 0 is rigid. |
| `break_at` | stretch ratio, 0 or 1 … 100 | a link breaks when longer than break_at × its rest length after a step's solve (1.5: 150 %); a rope breaks at most once a step, at its most stretched link, and is drawn as its pieces. 0: never. The `tearable_cloth` example plugin tears by this key. |
| `self_collide` | true / false | the body's points keep two radii apart, found each step on a grid of cells 1.5 contact gaps wide and pushed apart in every pass; points within two radii of each other at rest (a rope's neighbours) are left to their links. |
| `radius` | px, ≥ 0 | a point's radius for self-contact; 0: half the segment (a cloth: half its spacing). |
| `sleep` | true / false | a body in which no point moved 0.01 px a step for 60 steps sleeps: integrate and relax skip it (no solve time) until a press takes one of its points. The lanyard's own `sleep` freezes its strap and card the same way. |
| `mass`, `tip_mass` (`[[layer.rope]]`) | free points' masses | a rope's points' mass, and its tip's (a pendulum bob). Constraints split their corrections by inverse mass: a heavy bob swings a light rope. |

`[[layer.attach]]` (ropes): the point at `from_at` (0 … 1 of its length; 1, the default, its tip) of
rope `from` is held, at zero length, on the point at `at` (0 … 1) of rope `to` — ropes are numbered
from 0 in the order the layer declares them, a table's `count` repeated in place — or, with
`collider = N` instead of `to`, on the layer's collider N (numbered from 0 in the order of its
`[[layer.collider]]` tables), at `offset = [x, y]` px from its centre (a collider does not turn, so
the offset keeps its direction; unset: on its surface facing where the point starts — a circle's
edge, another shape's reach). A held point does not collide with its holder. A rope's anchor
(`from_at = 0`) held by a collider leaves the rail: the collider carries it. A rope with an end held
on a collider is laid at the start straight between its ends (or, with only its anchor held,
straight down from it), so a bob pulled out starts on a taut rope and a chain spans its two balls.
The pull splits by inverse mass (a collider's `mass`, a point's): a 40-unit bob swings a rope of
1-unit points; a 0.05-unit one is stopped by it. `break_force` (mass · px/s², 0 never): the
attachment lets go when its correction over a step, as a force, passes it (gravity on one free
point is 900).

With `card = true` instead, the point is pinned to the card of the scene's lanyard layer (the first
one): each step it is put on the card's clip, its top centre, where the screen shows it. One way:
the card is infinitely heavy to the rope. The card is a 3-D body in world units, locked to a strap
that steps on its own cadence (`low_power` halves it) and springs and tilts by the seed's rules, so
a pull from a rope in screen pixels has no place to act; the rope follows the card, and the hand
drags the card. A rope's anchor so pinned leaves the rail; `break_force` does not apply (the point
is pinned). Refused with one line: a rope or
collider that does not exist, more than one of `to`, `collider` and `card` or none, `to` without
`at`, `offset` without `collider`, `card = true` in a scene without a lanyard layer, a fraction
outside 0 … 1, a point attached to itself, or two pinned anchors attached to each other (cycles
that cannot be solved).

**B** in the window shows the strain overlay: every link of a ropes or cloth body drawn in the colour
of its stretch, grey at or below its rest length, amber half way, red at its `break_at` ratio (a
link that never breaks, `break_at = 0`, is measured against 1.5: red at 150 % of its rest length),
so a player sees where a rope is about to snap.

![The strain overlay (B): the hanging rope pulled down, amber near its anchor; the drawn bridge grey](img/strain.png)

"""


COLLIDERS = """## Colliders (ropes and cloth)

![A rope draped over three pegs, a cloth over a ball (levels/pegs.toml)](img/pegs.png)

Each `[[layer.collider]]` of a `ropes` or `cloth` layer is a static (or, with `kinematic`, draggable;
or, with a `mass`, dynamic) shape that layer's points are kept out of, in every relaxation pass after
the links, with friction;
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
| `mass` | free points' masses, 0 … 10⁶ | 0 (default): static, or kinematic. More: a dynamic body of that mass (a rope point weighs 1, or its rope's `mass`). Not for a plane or a kinematic collider. |
| `restitution` | 0 … 1 | when two colliders meet, the share of their approach speed they part with: 1 elastic, 0 (default) they move on together — plastic, as every other contact of the solver (a point on a shape, the box clamp), so nothing bounces unless a level asks and a heap comes to rest. A pair takes the larger of its two values. |

No tunnelling: once a step a point that moved further than half the thinnest collider's width is
walked along its move in steps of that half width, and stops at the last sample short of a shape
(a rope thrown at 5,000 px/s against a 10 px box is sampled every 5 px of its 83 px step). A rope
laid through a shape thinner than its points' spacing at the start stays through it: contact is
between points and shapes, and a link between two points may cross a thin one. Refused
with one line (exit 2): a radius or size ≤ 0, a polygon of fewer than 3 corners or not convex, a
fraction outside 0 … 1, a negative `mass`, a `restitution` outside 0 … 1, a `mass` on a plane or a
kinematic collider. A collider wholly outside the scene is a warning.

### Dynamic colliders

![A pendulum bob, a chain between two balls on a cord, a Newton's cradle (levels/balls.toml)](img/balls.png)

A collider with a `mass` moves: once a step its centre takes the points' Verlet step (the layer's
`gravity` and `damping`); in every pass the points it touches and the points held on it
(`[[layer.attach]]` with `collider`) push and pull it, each correction split by inverse mass, and
it is kept inside the window box by its reach (a circle: its radius). It moves without turning:
a circle is exact; any other shape may be dynamic and then translates only, and meets the points
and the box but not other colliders. A dynamic circle is kept out of every other collider (static,
kinematic or dynamic), frictionlessly. The pointer drags a dynamic collider as a kinematic one
(infinitely heavy while held) and a release throws it with the hand's speed.

Restitution is a velocity pass after the solve (Müller et al.'s position-based dynamics): contact
between colliders moves them apart without changing their speeds, then each pair in contact that
is closing at speed v leaves parting at e · v, pair by pair in order and again until none closes
(at most 64 sweeps). An approach slower than 2 · |g| · dt (30 px/s under the default gravity) is
a resting contact and parts at 0, so a pile of balls comes to rest instead of chattering. Pair by
pair, a row of touching balls hands an impact on as Newton's cradle does: in `levels/balls.toml`
and the tests, a ball arriving at 4 px a step at four resting ones of restitution 1 leaves the far
one at 98.5 % of its speed (the strings take the rest) and the other four below 3 %; with
restitution 0 the five move on together at a fifth of it (to 10 %, the strings again). With `sleep`,
a layer sleeps only once its dynamic colliders are still too, and a press on one of them wakes it.

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

COMPOSITES = """## Composites (bridge, net, wheel, web, blob, sign, cradle)

Scene pieces made of the solver's own parts — points, distance links, pins, the colliders and,
for the blob, an area constraint type declared as a plugin declares one — each a kind with a few
keys. `levels/playground.toml` has most of them side by side; `levels/bridge.toml`,
`levels/web.toml` and `levels/cradle.toml` are scenes built on one each. Their pictures are made by
`bash docs/scripts/composites.sh`.

- Positions are `at = [x, y]` (a bridge: `from`, `to`) as fractions of the scene's width and height,
  as a collider's; lengths (`radius`, `size`, `sag`, `hang`, `length`, `spacing`) are px; angles degrees.
- A composite is judged in the default 1280 × 720 scene, where `validate` loads a level: one that
  cannot be built there is refused with one line naming the key and the range it allows (exit 2) —
  a bridge whose points cannot span it in links of at most 40 px at its sag, a wheel no larger than
  twice its points' radius, a web with fewer than 3 threads or a hub on the edge, balls of a cradle
  that overlap at rest, a sign whose ropes would be held above the scene. In a scene of another size
  it is laid out by the same keys (px stay px), its free points kept inside by the box clamp.
- Each is one body: it meets its own layer's `[[layer.collider]]` shapes (a wheel rolls on them, a
  ball with `mass` drops onto a bridge or into a web or a net), not another layer's body.
- The pointer grabs any point (pinned to the cursor while held, `grab_radius`), and drags a dynamic
  or kinematic collider.

"""

PICTURES = {   # kind -> (picture under docs/, what it shows): made by docs/scripts/composites.sh
    "bridge": ("img/composite-bridge.png", "A planked bridge between two posts with three balls on it, a sign above "
               "(levels/bridge.toml)"),
    "net": ("img/composite-net.png", "A net held at its corners catching a ball"),
    "wheel": ("img/composite-wheel.png", "A wheel that rolled down a slope"),
    "web": ("img/composite-web.png", "A spider web held at the scene's edges, a ball caught in it (levels/web.toml)"),
    "blob": ("img/composite-blob.png", "Two blobs squashed on a shelf and on the floor, keeping their area"),
    "sign": ("img/composite-sign.png", "A sign hanging on two ropes, a ball resting on it"),
    "cradle": ("img/composite-cradle.png", "Newton's cradle: the far ball swung out by the first one's impact "
               "(levels/cradle.toml)"),
}


def builtin_kinds() -> list[str]:
    """Kinds shipped with ropework (a plugin documents its own)."""
    return sorted(n for n, k in kinds.KINDS.items() if k.spawn.__module__.startswith("ropework.kinds."))


def levels_markdown() -> str:
    kinds.load_builtin()
    lines = [INTRO, "## Top-level keys", ""]
    lines += markdown("Scene", TOP)[1:]
    lines += ["## `[[layer]]` — keys every layer has", ""]
    lines += markdown("Layer", table(*LAYER_COMMON), "layer.")[1:]
    lines += [SOLVE, COLLIDERS, DRAWN, COMPOSITES, "## Entity kinds", ""]
    for name in builtin_kinds():
        k = kinds.KINDS[name]
        lines += [f"## kind = \"{name}\"", "", k.doc, ""]
        if name in PICTURES:
            lines += [f"![{PICTURES[name][1]}]({PICTURES[name][0]})", ""]
        themes = " and ".join(k.themes) if len(k.themes) > 1 else f"{k.themes[0]} only ({k.theme_note}; T says so)"
        lines += [f"Themes (T): {themes}.", ""]
        if k.motion_note:
            lines += [f"Reduced motion (M, `--reduced-motion`, `reduced_motion = true`): {k.motion_note}.", ""]
        lines += markdown(f"`{name}` layer keys", k.schema, "layer.")[1:]
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    print(levels_markdown(), end="")
