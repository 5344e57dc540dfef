"""Systems, one module each, named for the verb they perform.

Importing this package imports every module in it, and each registers its system
with `systems.pipeline` exactly the way a plugin registers its own. The frame, in
stage order (`pipeline.STAGES`):

    input → integrate → relax → emit → render
"""
import importlib
import pkgutil

from systems.pipeline import STAGES, order, system  # noqa: F401

for _m in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    importlib.import_module(f"{__name__}.{_m}")
