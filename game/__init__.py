"""ropework's app shell: levels, scenes (headless API), clock, window, CLI, recording."""
