"""Tearing: a ropework plugin that adds a system and an entity kind nobody shipped.

Registered through the ``ropework.systems`` entry point (see pyproject.toml):
ropework calls `plugin()` at start, and it registers with the same calls the
built-in toys' own ``plugin()`` functions use: a system placed by ``after=``,
and a kind that brings it into every scene that has a tearable cloth. The links
break by ropework's own `break_at` (a cloth layer's key): the kind sets it from
`tear_at`, and the system opts any other body of the scene in.
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
    from ropework.components import Constraints
    from ropework.kinds import KINDS, Kind, kind
    from ropework.schema import Key, table
    from ropework.systems.pipeline import RELAX, system

    @system("tear", RELAX, after=("relax",), default=False)
    class Tear(esper.Processor):
        """Tear: opt every body of the scene into ropework's own breaking, at its limit.

        Reads: Constraints, Tearable. Writes: Extras (a Breaking, once per body).

        The tearing itself is the `break_at` every rope and cloth layer has: relax removes each
        link stretched past its ratio once the step's passes are done, so only links the solver
        could not pull back in break, and both parts keep simulating. This system only gives a
        body that ratio — a Tearable's own, or TEAR_AT for a plain cloth whose level names the
        system in ``systems = [...]`` — from the next step on.
        """

        def process(self, frame):
            from ropework.components.solve import Breaking, Extras
            for ent, con in esper.get_component(Constraints):
                ex = esper.try_component(ent, Extras)
                if ex is None:
                    ex = Extras()
                    esper.add_component(ent, ex)
                if ex.breaking is None:
                    tear = esper.try_component(ent, Tearable)
                    ex.breaking = Breaking(np.full(len(con.a), tear.tear_at if tear else TEAR_AT, np.float32))

    cloth = KINDS["cloth"]

    def spawn(cfg, layer, frame):
        ent = cloth.spawn(dict(cfg, break_at=cfg["break_at"] or cfg["tear_at"]), layer, frame)
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
