"""``exceptstar.socket.create_connection``: 3.11's ``all_errors`` on every version.

With ``all_errors=True``, a connection that fails on every address raises
``ExceptionGroup("create_connection failed", [...])`` holding the error of each
attempt, in the order they were made, instead of only the last one.  On 3.11+
this is ``socket.create_connection`` itself; before, the same steps as CPython
3.13's ``Lib/socket.py`` raise exceptstar's ``ExceptionGroup``.
"""

import socket
import sys

__all__ = ["create_connection"]

if sys.version_info >= (3, 11):
    from socket import create_connection
else:
    from exceptstar import ExceptionGroup

    TYPE_CHECKING = False
    if TYPE_CHECKING:  # pragma: no cover
        from typing import Any, List, Optional, Tuple

    def create_connection(
        address: "Tuple[Optional[str], Any]",
        timeout: "Optional[float]" = socket._GLOBAL_DEFAULT_TIMEOUT,  # type: ignore[attr-defined]
        source_address: "Optional[Tuple[Any, ...]]" = None,
        *,
        all_errors: bool = False,
    ) -> socket.socket:
        """Connect to *address* and return the socket object.

        Convenience function.  Connect to *address* (a 2-tuple ``(host,
        port)``) and return the socket object.  Passing the optional
        *timeout* parameter will set the timeout on the socket instance
        before attempting to connect.  If no *timeout* is supplied, the
        global default timeout setting returned by :func:`getdefaulttimeout`
        is used.  If *source_address* is set it must be a tuple of (host, port)
        for the socket to bind as a source address before making the connection.
        A host of '' or port 0 tells the OS to use the default. When a connection
        cannot be created, raises the last error if *all_errors* is False,
        and an ExceptionGroup of all errors if *all_errors* is True.
        """
        if not all_errors:
            return socket.create_connection(address, timeout, source_address)
        host, port = address
        exceptions: List[OSError] = []
        for af, socktype, proto, _canonname, sa in socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM):
            sock = None
            try:
                sock = socket.socket(af, socktype, proto)
                if timeout is not socket._GLOBAL_DEFAULT_TIMEOUT:  # type: ignore[attr-defined]
                    sock.settimeout(timeout)
                if source_address:
                    sock.bind(source_address)
                sock.connect(sa)
                # The errors hold frames that hold the list: break the cycle.
                exceptions.clear()
                return sock
            except OSError as exc:
                exceptions.append(exc)
                if sock is not None:
                    sock.close()
        if exceptions:
            try:
                raise ExceptionGroup("create_connection failed", exceptions)
            finally:
                exceptions.clear()
        raise OSError("getaddrinfo returns an empty list")
