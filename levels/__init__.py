"""The shipped level files, as package data: ``importlib.resources.files("ropework.levels")``."""
