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
def __getattr__(name: str):
    """``ropework.__version__``, looked up on first use: importlib.metadata scans the installed
    distributions (≈ 0.05 s of every start otherwise, for a string only --version prints)."""
    if name != "__version__":
        raise AttributeError(f"module 'ropework' has no attribute {name!r}")
    from importlib import metadata
    try:
        version = metadata.version("ropework")
    except metadata.PackageNotFoundError:   # imported from a source tree that was never installed
        version = "0+unknown"
    globals()["__version__"] = version
    return version
