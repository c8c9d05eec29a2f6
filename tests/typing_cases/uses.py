"""Realistic uses of exceptstar's public API, for type checkers (tests/test_typing.py).

Never run: mypy --strict and pyright check it for targets 3.8 to 3.13.
``assert_type`` pins the types that matter; each line that must be an error
carries an ignore comment for each checker, which the checker reports as
unused (an error) the day the error goes away.  The code is 3.8 code:
``typing`` generics, no ``except*`` (``catch()`` is the type-checker-clean
route on every target).
"""

import ast
import asyncio
import io
import sys
from types import CodeType
from typing import List, Optional, Tuple, Union

from typing_extensions import assert_type

import exceptstar
import exceptstar.asyncio
import exceptstar.socket
from exceptstar import BaseExceptionGroup, ExceptionGroup, TracebackException, add_note, catch, suppress

# --- the group types: generic on every target ----------------------------------


def connect_all(hosts: List[str]) -> None:
    errors: List[OSError] = []
    for host in hosts:
        try:
            raise ConnectionRefusedError(host)
        except OSError as error:
            add_note(error, f"while connecting to {host}")
            errors.append(error)
    if errors:
        raise ExceptionGroup("could not connect", errors)


def count_refused(group: ExceptionGroup[Exception]) -> int:
    refused, _rest = group.split(ConnectionRefusedError)
    assert_type(refused, Optional[ExceptionGroup[ConnectionRefusedError]])
    return 0 if refused is None else len(refused.exceptions)


def split_and_subgroup() -> None:
    members: List[Union[ValueError, TypeError]] = [ValueError(1), TypeError(2)]
    group = ExceptionGroup("several", members)
    assert_type(group, ExceptionGroup[Union[ValueError, TypeError]])
    assert_type(group.message, str)
    assert_type(group.exceptions, Tuple[Union[ValueError, TypeError, ExceptionGroup[Union[ValueError, TypeError]]], ...])

    matched, rest = group.split(ValueError)
    assert_type(matched, Optional[ExceptionGroup[ValueError]])
    assert_type(rest, Optional[ExceptionGroup[Union[ValueError, TypeError]]])
    assert_type(group.subgroup(TypeError), Optional[ExceptionGroup[TypeError]])
    assert_type(group.subgroup(lambda exc: isinstance(exc, ValueError)),
                Optional[ExceptionGroup[Union[ValueError, TypeError]]])
    assert_type(group.derive([KeyError("k")]), ExceptionGroup[KeyError])

    leaves: List[BaseException] = [KeyboardInterrupt(), ValueError(3)]
    base = BaseExceptionGroup("stop", leaves)
    assert_type(base, BaseExceptionGroup[BaseException])
    interrupts, others = base.split(KeyboardInterrupt)
    assert_type(interrupts, Optional[BaseExceptionGroup[KeyboardInterrupt]])
    assert_type(others, Optional[BaseExceptionGroup[BaseException]])
    # Exception types select an ExceptionGroup, as on 3.11+.
    assert_type(base.subgroup(ValueError), Optional[ExceptionGroup[ValueError]])
    assert_type(base.derive(leaves), BaseExceptionGroup[BaseException])

    # An ExceptionGroup holds Exceptions only.
    ExceptionGroup("no", [KeyboardInterrupt()])  # type: ignore[type-var]  # pyright: ignore[reportArgumentType]
    group.split(42)  # type: ignore[call-overload]  # pyright: ignore[reportCallIssue, reportArgumentType]


def handle_with_except() -> int:
    try:
        connect_all(["db", "cache"])
    except ExceptionGroup as group:
        return count_refused(group)
    return 0


# --- catch(): except* without the syntax ----------------------------------------


def log_refused(group: ExceptionGroup[ConnectionRefusedError]) -> None:
    for error in group.exceptions:
        print(error)


def on_interrupt(group: BaseExceptionGroup[KeyboardInterrupt]) -> None:
    print(len(group.exceptions), "interrupts")


async def retry_later(group: ExceptionGroup[TimeoutError]) -> None:
    await asyncio.sleep(0)


def not_a_group_handler(error: ValueError) -> None:
    print(error)


def with_catch() -> str:
    with catch({
        ConnectionRefusedError: log_refused,
        KeyboardInterrupt: on_interrupt,
        (KeyError, TypeError): lambda group: None,
    }):
        connect_all(["db"])
        return "connected"
    # catch() may swallow what was raised: this line is reachable.
    return "gave up"


async def with_async_catch() -> None:
    async with catch({TimeoutError: retry_later}):
        await asyncio.sleep(0)


def wrong_catch_uses() -> None:
    # A handler is called with a group, never with the bare exception.
    catch({ValueError: not_a_group_handler})  # type: ignore[dict-item]  # pyright: ignore[reportArgumentType]
    # Keys are exception classes.
    catch({"ValueError": log_refused})  # type: ignore[dict-item]  # pyright: ignore[reportArgumentType]


# --- suppress() -------------------------------------------------------------------


def first_line(path: str) -> str:
    with suppress(FileNotFoundError, IsADirectoryError), open(path) as file:
        return file.readline()
    # suppress() swallows: reachable.
    return ""


def wrong_suppress() -> None:
    suppress("FileNotFoundError")  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]


# --- the traceback API: both call forms ------------------------------------------


def report(error: BaseException) -> str:
    out = io.StringIO()
    exceptstar.print_exception(error)
    exceptstar.print_exception(error, limit=5, file=out, chain=False)
    exceptstar.print_exception(type(error), error, error.__traceback__, limit=5, file=out)
    assert_type(exceptstar.format_exception(error), List[str])
    assert_type(exceptstar.format_exception(type(error), error, error.__traceback__, limit=2), List[str])
    assert_type(exceptstar.format_exception_only(error), List[str])
    assert_type(exceptstar.format_exception_only(type(error), error), List[str])
    assert_type(exceptstar.format_exc(), str)
    exceptstar.print_exc(limit=1, file=out)

    te = TracebackException.from_exception(error, max_group_width=5, max_group_depth=3)
    assert_type(te, TracebackException)
    assert_type(te.exceptions, Optional[List[TracebackException]])
    out.write("".join(te.format(chain=True)))

    # The exception alone takes no value and traceback.
    exceptstar.format_exception(error, error, None)  # type: ignore[call-overload]  # pyright: ignore[reportArgumentType]
    return out.getvalue()


if sys.version_info >= (3, 11):
    def report_members(error: BaseException) -> List[str]:
        # show_group exists on 3.11 and 3.12 too (the standard library's has it from 3.13).
        return exceptstar.format_exception_only(error, show_group=True)


# --- compile, install, uninstall -----------------------------------------------------


def run_cell(source: str) -> None:
    code = exceptstar.compile(source, "<cell>", "exec")
    assert_type(code, CodeType)
    exec(code, {})
    tree = exceptstar.compile(source, "<cell>", "exec", ast.PyCF_ONLY_AST)
    assert_type(tree, ast.AST)
    exceptstar.compile(source, "<cell>")  # type: ignore[call-overload]  # pyright: ignore[reportCallIssue]


def enable() -> None:
    exceptstar.install()
    exceptstar.install("mylib", "otherlib")
    exceptstar.uninstall()
    exceptstar.install(42)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]


def names_are_checked() -> None:
    print(exceptstar.no_such_name)  # type: ignore[attr-defined]  # pyright: ignore[reportAttributeAccessIssue, reportUnknownArgumentType, reportUnknownMemberType]


# --- asyncio and socket: what raises groups -----------------------------------------


async def gather_lengths(names: List[str]) -> List[int]:
    async def length(name: str) -> int:
        await asyncio.sleep(0)
        return len(name)

    async with exceptstar.asyncio.timeout(5.0) as deadline:
        assert_type(deadline, exceptstar.asyncio.Timeout)
        async with exceptstar.asyncio.TaskGroup() as group:
            tasks = [group.create_task(length(name)) for name in names]
    assert_type(tasks, "List[asyncio.Task[int]]")
    return [task.result() for task in tasks]


async def first_reply(host: str, port: int) -> bytes:
    reader, writer = await exceptstar.asyncio.open_connection(host, port, all_errors=True)
    assert_type(reader, asyncio.StreamReader)
    writer.close()
    return await reader.read(100)


def blocking_connect(host: str) -> None:
    sock = exceptstar.socket.create_connection((host, 80), timeout=1.0, all_errors=True)
    sock.close()
    exceptstar.socket.create_connection(host)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]


def ipython_hooks(shell: object) -> None:
    exceptstar.load_ipython_extension(shell)
    exceptstar.unload_ipython_extension(shell)


def coverage_hook(registry: object, options: object) -> None:
    # What coverage calls for plugins = ["exceptstar"].
    assert_type(exceptstar.coverage_init(registry, options), None)
