"""Plain-data components. Numeric state is numpy, float32 unless said otherwise.

A *body* is one entity whose points live in contiguous arrays (`Points`); ropes,
cloth and tendril bundles are bodies, and the entities' components are the
arrays themselves, so systems run vectorised over every point of a body at once.
"""
from ropework.components.body import Bounds, Constraints, Forces, Pins, Points
from ropework.components.frame import Frame
from ropework.components.pointer import Grab, Pointer, PointerPins
from ropework.components.render import Layer, LinkStyle, Rail, RopeStyle
from ropework.components.rope import Ropes

__all__ = [
    "Bounds", "Constraints", "Forces", "Frame", "Pins", "Points",
    "Grab", "Pointer", "PointerPins",
    "Layer", "LinkStyle", "Rail", "RopeStyle", "Ropes",
]
