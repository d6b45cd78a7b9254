"""No network while a library's code runs on the probe's behalf: a docstring example, a test, a default
instance built for a repro.

An example that fetches pretrained weights or a data set must be skipped at
once, not wait on a network that may hang or be absent: every way out
(a host name lookup, ``socket.connect``, ``urllib``, ``torch.hub``) raises :class:`DownloadBlocked`
while the guard is on.
"""

from __future__ import annotations

import contextlib
import socket
import urllib.request
from typing import Any, Iterator

from .errors import ProbeError


class DownloadBlocked(ProbeError, RuntimeError):
    """Raised when code tries to reach the network while :func:`network_blocked` is on (a docstring example
    or a test that downloads weights, a default instance built for a repro). Also a ``RuntimeError``."""


def _refuse(what: str) -> Any:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        target = next((a for a in args if isinstance(a, (str, tuple))), "")
        raise DownloadBlocked(f"network access blocked during discovery ({what}{f' {target!r}' if target else ''})")

    return refuse


@contextlib.contextmanager
def network_blocked() -> Iterator[None]:
    """Make every download attempt raise :class:`DownloadBlocked` immediately."""
    patches: list[tuple[Any, str, Any]] = [
        # name lookup comes first: a library that bound urlopen at import (kornia's downloader) still
        # resolves the host, and a failed lookup looks transient to it, so it would retry with back-off
        (socket, "getaddrinfo", _refuse("socket.getaddrinfo")),
        (socket.socket, "connect", _refuse("socket.connect")),
        (socket.socket, "connect_ex", _refuse("socket.connect")),
        (socket, "create_connection", _refuse("socket.create_connection")),
        (urllib.request, "urlopen", _refuse("urllib.request.urlopen")),
        (urllib.request, "urlretrieve", _refuse("urllib.request.urlretrieve")),
    ]
    try:
        import torch.hub

        patches += [(torch.hub, "load_state_dict_from_url", _refuse("torch.hub.load_state_dict_from_url")),
                    (torch.hub, "download_url_to_file", _refuse("torch.hub.download_url_to_file"))]
    except ImportError:
        pass
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]
    try:
        for owner, name, replacement in patches:
            setattr(owner, name, replacement)
        yield
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)


def is_download_blocked(exc: BaseException) -> bool:
    """True when ``exc`` or anything in its cause/context chain is a blocked download."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, DownloadBlocked):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False
