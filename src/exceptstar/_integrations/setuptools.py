"""setuptools: the wheel of a project that builds with exceptstar gets a stub for each module using ``except*``.

The ``setuptools.finalize_distribution_options`` entry point ``exceptstar``
runs for every setuptools build in an environment that has exceptstar; it
acts only for a project whose ``pyproject.toml`` names exceptstar in
``[build-system] requires`` (so in the build's own environment, as
``python -m build`` and pip make it).  Then the ``build_py`` command, the
one that copies the modules into the tree the wheel is made of, also writes
``_compiler.stubs``'s ``.pyi`` beside each module whose tokens hold an
``except*`` clause.  The sources and the sdist stay as they are, and an
editable install gets no stubs: the project's own checks read its modules.
A ``.pyi`` the project has itself is kept.
"""

import os
import re

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Dict

def finalize(dist: "Any") -> None:
    """The entry point: wrap ``dist``'s ``build_py`` (whichever class it is, set now or later)."""
    if getattr(dist, "_exceptstar_stubs", False) or not required_by_project(os.getcwd()):
        return  # wrapped already (the options finalized again), or not a project of ours
    dist._exceptstar_stubs = True
    made: Dict[Any, Any] = {}
    get_command_class = dist.get_command_class

    # Asked when the command is run, so a build_py set by setup.py or
    # [tool.setuptools.cmdclass] after this hook still gets the stubs.
    def command_class(command: str) -> "Any":
        found = get_command_class(command)
        if command != "build_py":
            return found
        if found not in made:
            made[found] = _with_stubs(found)
        return made[found]

    dist.get_command_class = command_class


def required_by_project(root: str) -> bool:
    """Whether ``root``'s ``pyproject.toml`` names exceptstar among its build requirements."""
    path = os.path.join(root, "pyproject.toml")
    if not os.path.isfile(path):
        return False
    toml = _toml_reader()
    if toml is None:
        return False
    with open(path, "rb") as file:
        requires = toml.load(file).get("build-system", {}).get("requires", [])
    for requirement in requires:
        name = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
        if name and re.sub(r"[-_.]+", "-", name.group(1)).lower() == "exceptstar":
            return True
    return False


def _toml_reader() -> "Any":
    """tomllib, or on 3.8-3.10 the tomli that setuptools brings (importable from 71 on, under
    ``setuptools.extern`` before); None without one, and then no stubs rather than a failed build."""
    import importlib

    for name in ("tomllib", "tomli", "setuptools.extern.tomli"):
        try:
            return importlib.import_module(name)
        except ImportError:
            pass
    return None


def _with_stubs(base: "Any") -> "Any":
    class build_py(base):  # type: ignore[misc]
        __doc__ = base.__doc__

        def run(self) -> None:
            super().run()
            if getattr(self, "editable_mode", False):
                return
            for package, module, module_file in self.find_all_modules():
                target = self.get_module_outfile(self.build_lib, package.split("."), module)
                write_stub(module_file, target[:-3] + ".pyi")

    return build_py


def write_stub(source_path: str, stub_path: str) -> None:
    """Write the stub of the module at ``source_path`` to ``stub_path`` when it uses ``except*``.

    A stub of the project's own (beside the source) is left to be copied as it
    is; one that an earlier build wrote for a module that no longer needs it goes.
    """
    if os.path.exists(source_path[:-3] + ".pyi"):
        return
    from exceptstar._compiler.stubs import IMPORT, stub

    with open(source_path, "rb") as file:
        text = stub(file.read(), source_path)
    if text is not None:
        with open(stub_path, "w", encoding="utf-8", newline="") as out:
            out.write(text)
    elif os.path.exists(stub_path):
        with open(stub_path, encoding="utf-8", errors="replace") as old:
            ours = old.read().endswith(IMPORT)
        if ours:
            os.remove(stub_path)
