"""By-hand benchmarks (never tests): `python -m bench.run --help`."""
