"""The version, in one place: packaging and the bytecode cache tag read it."""

__version__ = "0.5.0.dev3"
