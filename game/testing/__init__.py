"""What the tests and the benchmarks share: drivers and references, importable from an install.

- `drive`: the scripted hand (`Hand`, `run`) that plays every shipped level for the
  determinism hashes, the soak and the benchmarks: grabs, throws, clicks, idle spells.
- `reference`: the seeds' loops and the standard workloads' loop in plain, sequential
  Python, slow and obvious on purpose: the tests step them beside the engine, and the
  benchmarks time the workloads' loop as the pure-Python peer.

Neither imports OpenGL, numba or esper.
"""
