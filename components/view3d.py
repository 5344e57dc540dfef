"""How a 3D layer is seen and lit: its perspective camera and its lights."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Camera:
    """A perspective camera over the layer's whole viewport.

    fov: vertical field of view, degrees; near, far: clip distances, scene units.
    eye, target: float64[3] — where it stands and what it looks at, scene units
    (world space: y up, the seed's three.js space). The aspect ratio is the
    viewport's; `ropework.systems.services.camera` turns this into matrices and pointer rays.
    """

    fov: float
    near: float
    far: float
    eye: np.ndarray
    target: np.ndarray


@dataclass
class Lights:
    """An ambient term plus directional lights, in the seed's three.js units.

    ambient: ambient intensity (three.js physical units: π lights an albedo to itself).
    direction: float32[k, 3] — unit vectors toward each light (from its position, as
    three.js directional lights point at the origin); colour: float32[k, 3] linear RGB;
    intensity: float32[k].
    """

    ambient: float
    direction: np.ndarray
    colour: np.ndarray
    intensity: np.ndarray
