"""Composites: scenes' building blocks made of the solver's own pieces — a bridge, a net, a wheel,
a spider web, a soft blob, a hanging sign, Newton's cradle — each a kind with a few keys, laid out as one body of
points, links and pins (`body.spawn_body`), built only on what a plugin may use: `ropework.kinds`,
the components, `colliders.build`/`hold` (the cradle's balls) and `solver.constraint_type` (the
blob's area)."""
from __future__ import annotations

from ropework.kinds import kind
from ropework.kinds.composites import blob, bridge, cradle, net, sign, web, wheel

KINDS = (bridge.KIND, net.KIND, wheel.KIND, web.KIND, blob.KIND, sign.KIND, cradle.KIND)


def plugin() -> None:
    """Register the composite kinds: bridge, net, wheel, web, blob, sign, cradle."""
    for k in KINDS:
        kind(k)
