"""ropework: interactive Verlet physics toys on esper and Arcade.

The package is layered so that imports run one way:

    ropework.components  plain-data components (numpy arrays), no behaviour
    ropework.systems     one module per system, the frame table, and the services
                         systems use (ropework.systems.services: GL batching,
                         camera maths, hit queries, colours, card art)
    ropework.*           the app shell: level loading, kinds, scenes, window, CLI

Importing this package imports nothing else; ``python -m ropework`` and the
``ropework`` command run the toy.
"""
from importlib import metadata as _metadata

try:
    __version__ = _metadata.version("ropework")
except _metadata.PackageNotFoundError:   # imported from a source tree that was never installed
    __version__ = "0+unknown"
