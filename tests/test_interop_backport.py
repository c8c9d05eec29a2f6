"""One hierarchy with the ``exceptiongroup`` backport, whatever the import order.

Each order runs in a process of its own; what it observes must equal what the
same program observes on native 3.11+ (where the backport's names are the
built-in classes).  Before 3.11 that holds because exceptstar rebinds the
backport's names to its classes (``_backport``).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from support.interop import environment, plain, reference_python

pytest.importorskip("exceptiongroup")

ORDERS = {
    "exceptstar first": "import exceptstar\nimport exceptiongroup\n",
    "backport first": "import exceptiongroup\nimport exceptstar\n",
    "pytest first": "import pytest\nimport exceptstar\nimport exceptiongroup\n",
    "anyio and Trio first": "import anyio, trio\nimport exceptstar\nimport exceptiongroup\n",
    "backport, then a module binding its names, then exceptstar": (
        "import exceptiongroup\nfrom exceptiongroup import BaseExceptionGroup as Held\nimport exceptstar\n"),
}

OBSERVE = """
import json
from exceptstar import catch, suppress

BEG, EG = exceptstar.BaseExceptionGroup, exceptstar.ExceptionGroup
out = []
group = EG("x", [ValueError(1), KeyError(2)])
matched, rest = group.split(ValueError)


def naked_wrapper():
    seen = []
    with catch({ValueError: seen.append}):
        raise ValueError(3)
    return seen[0]


made = [group, matched, rest, group.subgroup(KeyError), group.derive([TypeError()]), naked_wrapper(),
        BEG("b", [KeyboardInterrupt()])]
for obj in made:
    try:
        raise obj
    except exceptiongroup.ExceptionGroup:
        caught = "ExceptionGroup"
    except exceptiongroup.BaseExceptionGroup:
        caught = "BaseExceptionGroup"
    out.append([type(obj).__name__, isinstance(obj, exceptiongroup.BaseExceptionGroup), caught])

theirs = exceptiongroup.ExceptionGroup("theirs", [ValueError(4)])
out.append(["backport's group is ours", isinstance(theirs, BEG), type(theirs) is EG])

hit = []
with exceptiongroup.catch({ValueError: hit.append, TypeError: lambda group: None}):
    raise EG("c", [ValueError(5), exceptiongroup.ExceptionGroup("in", [ValueError(6), TypeError(7)])])
out.append(["backport catch()", repr(hit)])

with suppress(ValueError):
    raise exceptiongroup.ExceptionGroup("s", [ValueError(8)])
out.append(["our suppress() on the backport's group", "suppressed"])

text = "".join(exceptiongroup.format_exception(EG("f", [ValueError("member")])))
out.append(["backport's formatter shows members", "ValueError: member" in text])
if "trio" in globals():
    async def fail():
        raise KeyError("k")

    async def main():
        async with trio.open_nursery() as nursery:
            nursery.start_soon(fail)

    try:
        trio.run(main)
    except BaseException as nursery_group:
        out.append(["a Trio nursery's group", isinstance(nursery_group, BEG), type(nursery_group).__name__])
if "Held" in globals():
    out.append(["a name bound before exceptstar", Held is BEG])
print(json.dumps(out))
"""


def observe(exe: str, order: str) -> list[object]:
    proc = subprocess.run([exe, "-c", ORDERS[order] + OBSERVE], capture_output=True, text=True,
                          env=environment(), timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def reference() -> str:
    exe = reference_python("exceptiongroup", "pytest", "anyio", "trio")
    if exe is None:
        pytest.skip("no 3.11+ environment with the backport to compare with")
    return exe


@pytest.mark.parametrize("order", sorted(ORDERS))
def test_every_import_order_gives_one_hierarchy(order: str, reference: str) -> None:
    if "Trio" in order:
        pytest.importorskip("trio")
        pytest.importorskip("anyio")
    ours = observe(sys.executable, order)
    assert ours == observe(reference, order)
    # The program is not vacuous: every group is the backport's and is caught as one.
    assert all(row[1] is True for row in ours[:7])
    assert [row[2] for row in ours[:7]] == ["ExceptionGroup"] * 6 + ["BaseExceptionGroup"]


@pytest.mark.needs_processes
def test_backport_not_installed() -> None:
    # The backport cannot be imported: exceptstar works alone and leaves one watcher, no import.
    proc = plain("import sys; sys.modules['exceptiongroup'] = None\n"
                 "import exceptstar\n"
                 "eg = exceptstar.ExceptionGroup('x', [ValueError(1), KeyError(2)])\n"
                 "print(repr(eg.split(ValueError)[0]), 'exceptiongroup._exceptions' in sys.modules)\n"
                 "try:\n    import exceptiongroup\nexcept ImportError:\n    print('no backport')\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:2] == ["ExceptionGroup('x', [ValueError(1)]) False", "no backport"]


@pytest.mark.skipif(sys.version_info >= (3, 11), reason="the backport's names are the built-ins there")
def test_exceptstar_does_not_import_the_backport() -> None:
    proc = plain("import sys, exceptstar; print(sorted(m for m in sys.modules if 'exceptiongroup' in m))")
    assert proc.stdout.strip() == "[]", proc.stderr


@pytest.mark.skipif(sys.version_info >= (3, 11), reason="adoption happens on 3.8-3.10 only")
def test_opt_out_keeps_two_hierarchies_and_our_tools_still_handle_theirs() -> None:
    code = ORDERS["exceptstar first"] + (
        "theirs = exceptiongroup.ExceptionGroup('t', [ValueError(1), KeyError(2)])\n"
        "print(exceptiongroup.ExceptionGroup is exceptstar.ExceptionGroup)\n"
        "with exceptstar.suppress(ValueError, KeyError):\n    raise theirs\n"
        "print('handled', exceptstar.format_exception_only(theirs, show_group=True)[1:])\n")
    proc = plain(code, EXCEPTSTAR_NO_BACKPORT="1")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["False", "handled ['   ValueError: 1\\n', '   KeyError: 2\\n']"]


@pytest.mark.skipif(sys.version_info >= (3, 11), reason="adoption happens on 3.8-3.10 only")
def test_groups_the_backport_made_before_adoption_stay_groups() -> None:
    # Made with the backport's own class before exceptstar was imported: not
    # ours, but still matched by catch() (and except*), split by their own split.
    code = ("import exceptiongroup\n"
            "early = exceptiongroup.ExceptionGroup('early', [KeyError('k'), ValueError('v')])\n"
            "import exceptstar\n"
            "seen = []\n"
            "with exceptstar.catch({KeyError: seen.append, ValueError: lambda g: None}):\n    raise early\n"
            "print(isinstance(early, exceptstar.BaseExceptionGroup), repr(seen[0]), type(seen[0]).__module__)\n")
    proc = plain(code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False ExceptionGroup('early', [KeyError('k')]) exceptiongroup"
