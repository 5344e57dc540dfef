"""Tearing: a ropework plugin that adds a system and an entity kind nobody shipped.

Registered through the ``ropework.systems`` entry point (see pyproject.toml):
ropework calls `plugin()` at start, and it registers with the same calls the
built-in toys' own ``plugin()`` functions use: a system placed by ``after=``,
and a kind that brings it into every scene that has a tearable cloth.
"""
from __future__ import annotations

from dataclasses import dataclass

import esper
import numpy as np

TEAR_AT = 1.6   # a link breaks when stretched past this many times its rest length


@dataclass
class Tearable:
    """Marks a body whose constraints break when stretched past ``tear_at`` × rest length."""

    tear_at: float = TEAR_AT


def plugin() -> None:
    from ropework.components import Constraints, Points
    from ropework.kinds import KINDS, Kind, kind
    from ropework.schema import Key, table
    from ropework.systems.pipeline import RELAX, system

    @system("tear", RELAX, after=("relax",), default=False)
    class Tear(esper.Processor):
        """Tear: remove every constraint stretched past its body's limit.

        Reads: Points, Constraints, Tearable. Writes: Constraints (fewer of them).

        Runs after relaxation, so only links the solver could not pull back in
        break. Both parts keep simulating: they are just points with fewer links.
        """

        def process(self, frame):
            for _, (pts, con, tear) in esper.get_components(Points, Constraints, Tearable):
                d = np.linalg.norm(pts.pos[con.b] - pts.pos[con.a], axis=1)
                keep = d <= con.rest * tear.tear_at
                if not keep.all():   # arrays are only rebuilt on the step something tears
                    con.a, con.b, con.rest = con.a[keep], con.b[keep], con.rest[keep]

    cloth = KINDS["cloth"]

    def spawn(cfg, layer, frame):
        ent = cloth.spawn(cfg, layer, frame)
        esper.add_component(ent, Tearable(cfg["tear_at"]))
        return ent

    kind(Kind(
        name="tearable_cloth",
        doc="(plugin ropework-tearing) A cloth whose links break when stretched too far.",
        schema=table(*cloth.schema.keys.values(),
                     Key("tear_at", "float", TEAR_AT, "a link breaks past this many times its rest length",
                         lo=1.01, hi=100.0)),
        spawn=spawn,
        points=cloth.points,
        systems=cloth.systems + ("tear",),   # a cloth's systems, and the tearing
    ))
