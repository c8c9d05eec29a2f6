"""``create_connection(..., all_errors=True)`` on the running loop, for loops without it.

3.12 added ``all_errors`` to ``loop.create_connection`` (and so to
``asyncio.open_connection``): when every address fails, it raises
``ExceptionGroup("create_connection failed", [...])`` with the error of every
attempt instead of one combined ``OSError``.  This module follows CPython
3.13's ``BaseEventLoop.create_connection`` and ``_connect_sock`` for that case,
built only on the loop's public methods (``getaddrinfo``, ``sock_connect``,
``create_connection(sock=...)``), so that it works on any loop, uvloop
included: the errors are the loop's own.  Without ``all_errors`` the loop's
own ``create_connection`` is called.
"""

import asyncio
import collections
import functools
import itertools
import socket

from exceptstar import ExceptionGroup

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

    _AddrInfo = Tuple[int, int, int, str, Any]
    _Factory = Callable[[], asyncio.BaseProtocol]

_DEFAULT_LIMIT = 2**16  # asyncio.streams' buffer limit


def _interleave_addrinfos(addrinfos: "Sequence[_AddrInfo]", first_address_family_count: int = 1) -> "List[_AddrInfo]":
    """Interleave addresses by family: the order happy eyeballs tries them in."""
    by_family: collections.OrderedDict[int, List[_AddrInfo]] = collections.OrderedDict()
    for addr in addrinfos:
        by_family.setdefault(addr[0], []).append(addr)
    lists = list(by_family.values())
    reordered: List[_AddrInfo] = []
    if first_address_family_count > 1:
        reordered.extend(lists[0][: first_address_family_count - 1])
        del lists[0][: first_address_family_count - 1]
    reordered.extend(a for a in itertools.chain.from_iterable(itertools.zip_longest(*lists)) if a is not None)
    return reordered


async def _connect_sock(
    loop: asyncio.AbstractEventLoop,
    exceptions: "List[List[OSError]]",
    addr_info: "_AddrInfo",
    local_addr_infos: "Optional[Sequence[_AddrInfo]]" = None,
) -> socket.socket:
    """Create, bind and connect one socket; its errors go to a list of their own."""
    my_exceptions: List[OSError] = []
    exceptions.append(my_exceptions)
    family, type_, proto, _, address = addr_info
    sock = None
    try:
        sock = socket.socket(family=family, type=type_, proto=proto)
        sock.setblocking(False)
        if local_addr_infos is not None:
            for lfamily, _, _, _, laddr in local_addr_infos:
                # Skip local addresses of another family.
                if lfamily != family:
                    continue
                try:
                    sock.bind(laddr)
                    break
                except OSError as exc:
                    msg = f"error while attempting to bind on address {laddr!r}: {str(exc).lower()}"
                    my_exceptions.append(OSError(exc.errno, msg))
            else:  # every bind failed
                if my_exceptions:
                    raise my_exceptions.pop()
                raise OSError(f"no matching local address with {family=} found")
        await loop.sock_connect(sock, address)
        return sock
    except OSError as exc:
        my_exceptions.append(exc)
        if sock is not None:
            sock.close()
        raise
    except BaseException:
        if sock is not None:
            sock.close()
        raise
    finally:
        # The lists hold the exceptions, whose frames hold the lists.
        del exceptions, my_exceptions


async def create_connection(
    protocol_factory: "_Factory",
    host: "Optional[str]" = None,
    port: "Optional[Any]" = None,
    *,
    all_errors: bool = False,
    **kwds: "Any",
) -> "Tuple[asyncio.BaseTransport, asyncio.BaseProtocol]":
    """``loop.create_connection(protocol_factory, host, port, ..., all_errors=...)`` on the running loop."""
    loop = asyncio.get_running_loop()
    if not all_errors or kwds.get("sock") is not None or (host is None and port is None):
        # Nothing to collect: the loop's own method, with its own checks.
        return await loop.create_connection(protocol_factory, host, port, **kwds)  # type: ignore[arg-type]

    ssl = kwds.get("ssl")
    server_hostname = kwds.get("server_hostname")
    family = kwds.get("family", 0)
    proto = kwds.get("proto", 0)
    flags = kwds.get("flags", 0)
    local_addr = kwds.get("local_addr")
    happy_eyeballs_delay = kwds.get("happy_eyeballs_delay")
    interleave = kwds.get("interleave")
    # 3.13's checks, in its order, before anything is resolved or connected.
    if server_hostname is not None and not ssl:
        raise ValueError("server_hostname is only meaningful with ssl")
    if server_hostname is None and ssl:
        if not host:
            raise ValueError("You must set server_hostname when using ssl without a host")
        server_hostname = host
    if kwds.get("ssl_handshake_timeout") is not None and not ssl:
        raise ValueError("ssl_handshake_timeout is only meaningful with ssl")
    if kwds.get("ssl_shutdown_timeout") is not None and not ssl:
        raise ValueError("ssl_shutdown_timeout is only meaningful with ssl")
    if happy_eyeballs_delay is not None and interleave is None:
        # With happy eyeballs, interleave address families by default.
        interleave = 1

    infos: Sequence[_AddrInfo] = await loop.getaddrinfo(
        host, port, family=family, type=socket.SOCK_STREAM, proto=proto, flags=flags)
    if not infos:
        raise OSError("getaddrinfo() returned empty list")
    laddr_infos = None
    if local_addr is not None:
        laddr_infos = await loop.getaddrinfo(*local_addr, family=family, type=socket.SOCK_STREAM,
                                             proto=proto, flags=flags)
        if not laddr_infos:
            raise OSError("getaddrinfo() returned empty list")
    if interleave:
        infos = _interleave_addrinfos(infos, interleave)

    exceptions: List[List[OSError]] = []
    sock = None
    if happy_eyeballs_delay is None:
        for addrinfo in infos:
            try:
                sock = await _connect_sock(loop, exceptions, addrinfo, laddr_infos)
                break
            except OSError:
                continue
    else:
        from asyncio import staggered

        sock, _, _ = await staggered.staggered_race(
            (functools.partial(_connect_sock, loop, exceptions, addrinfo, laddr_infos) for addrinfo in infos),
            happy_eyeballs_delay, loop=loop)

    if sock is None:
        flat = [exc for sub in exceptions for exc in sub]
        try:
            raise ExceptionGroup("create_connection failed", flat)
        finally:
            del flat, exceptions

    # The connected socket goes to the loop, which makes the transport (and
    # the TLS handshake) as it does for its own connections.
    tls = ("ssl", "ssl_handshake_timeout", "ssl_shutdown_timeout")
    passed: Dict[str, Any] = {name: kwds[name] for name in tls if name in kwds}
    if ssl:
        passed["server_hostname"] = server_hostname
    return await loop.create_connection(protocol_factory, sock=sock, **passed)


async def open_connection(
    host: "Optional[str]" = None, port: "Optional[Any]" = None, *, limit: int = _DEFAULT_LIMIT, **kwds: "Any"
) -> "Tuple[asyncio.StreamReader, asyncio.StreamWriter]":
    """``asyncio.open_connection`` that accepts ``all_errors``."""
    if not kwds.get("all_errors"):
        kwds.pop("all_errors", None)
        return await asyncio.open_connection(host, port, limit=limit, **kwds)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=limit, loop=loop)
    protocol = asyncio.StreamReaderProtocol(reader, loop=loop)
    transport, _ = await create_connection(lambda: protocol, host, port, **kwds)
    writer = asyncio.StreamWriter(transport, protocol, reader, loop)  # type: ignore[arg-type]
    return reader, writer
