"""hatchling: the build hook ``exceptstar``, a stub in the wheel for each module using ``except*``.

Turned on by the project: ``exceptstar`` in ``[build-system] requires`` and
an empty ``[tool.hatch.build.targets.wheel.hooks.exceptstar]`` table (found
through the ``hatch`` entry point ``exceptstar``).  For a standard wheel it
adds ``_compiler.stubs``'s ``.pyi`` for each included module whose tokens
hold an ``except*`` clause, beside the module in the wheel (written to a
temporary folder, never beside the sources); the sdist and editable wheels
get none, so the project's own checks read its modules.  A ``.pyi`` the
project ships itself is kept.
"""

import os
import shutil
import tempfile

from hatchling.builders.hooks.plugin.interface import (  # type: ignore[import-not-found, unused-ignore]
    BuildHookInterface,
)
from hatchling.plugin import hookimpl  # type: ignore[import-not-found, unused-ignore]

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Dict, Optional, Type


class StubsHook(BuildHookInterface):  # type: ignore[misc, type-arg, unused-ignore]
    """Adds the stubs to a standard wheel."""

    PLUGIN_NAME = "exceptstar"
    folder: "Optional[str]" = None

    def initialize(self, version: str, build_data: "Dict[str, Any]") -> None:
        if self.target_name != "wheel" or version != "standard":
            return
        from exceptstar._compiler.stubs import stub

        included = list(self.build_config.builder.recurse_included_files())
        shipped = {os.path.normpath(item.distribution_path) for item in included}
        for item in included:
            target = os.path.normpath(item.distribution_path)
            if not target.endswith(".py") or target[:-3] + ".pyi" in shipped:
                continue
            with open(item.path, "rb") as file:
                text = stub(file.read(), item.path)
            if text is None:
                continue
            if self.folder is None:
                self.folder = tempfile.mkdtemp(prefix="exceptstar-stubs-")
            path = os.path.join(self.folder, target[:-3] + ".pyi")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="") as out:
                out.write(text)
            build_data["force_include"][path] = target[:-3] + ".pyi"

    def finalize(self, version: str, build_data: "Dict[str, Any]", artifact_path: str) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None


def _register() -> "Type[StubsHook]":
    return StubsHook


# Called rather than applied as a decorator: hatchling's marker is untyped where
# hatchling is not installed (the linting environment), and mypy names that
# differently from version to version.
hatch_register_build_hook = hookimpl(_register)
