"""What a child process takes from the survey that started it: the environment.

Children are forks of one warm fork server (``warm_start``), which a process starts once and keeps. Its
environment is that of the moment it started: a second ``run_survey`` in the same process, after
``os.environ`` changed (a notebook, a test session, a script surveying two libraries), would otherwise import
its case modules and run its cases under the first survey's environment. So each child adopts the environment
its survey captured, before it imports anything of the case's. (multiprocessing itself hands each child the
parent's current directory and ``sys.path``.) :func:`become` is the one way the probe sets its own or a
child's environment to a given one.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Mapping


@dataclass(frozen=True)
class ParentState:
    environ: dict[str, str] = field(default_factory=dict)

    @classmethod
    def capture(cls) -> ParentState:
        """This process's environment, now."""
        return cls(dict(os.environ))

    def adopt(self) -> None:
        """Make this (child) process's environment the captured one. What the child's own start sets
        afterwards (thread counts) goes on top, as in a child of a freshly started server."""
        if self.environ:  # else nothing was captured (settings built by hand): keep the server's
            become(self.environ)


def become(environ: Mapping[str, str]) -> None:
    """Make ``os.environ`` equal to ``environ``, touching only the keys that differ: another thread of the
    process may be starting a process meanwhile, and must not see an emptied environment."""
    for key in set(os.environ) - set(environ):
        del os.environ[key]
    for key, value in environ.items():
        if os.environ.get(key) != value:
            os.environ[key] = value
