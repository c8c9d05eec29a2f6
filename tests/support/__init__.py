"""Helpers shared by the tests, tools/ and bench/: importable without third-party packages, from 3.8 on."""
