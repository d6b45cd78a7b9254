"""What a worker is doing for a case while it measures it: one step, named the same on both sides of the pipe.

A step is the eager reference run, one path, or that path's dynamic-batch pass: a (path, dynamic) pair, so
that the parent tells a lost pass from a lost path by a field, not by the spelling of a name. It lives here,
in the lowest stage, because the measurement (which reports each step) and the worker pool (which records
what a dead or hung worker was doing) both use it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...snapshot.vocabulary import STAGE_EAGER

DYNAMIC_SUFFIX = ":dynamic"  # how the worker's log and --stats name a dynamic-batch pass: "onnx:dynamic"


@dataclass(frozen=True)
class Step:
    path: str  # a path word, or the eager stage for the eager reference run (before any path)
    dynamic: bool = False  # the path's dynamic-batch pass, after its static result was reported

    @property
    def name(self) -> str:
        """As the worker's log and --stats name it: ``eager``, ``onnx``, ``onnx:dynamic``."""
        return f"{self.path}{DYNAMIC_SUFFIX}" if self.dynamic else self.path


EAGER_STEP = Step(STAGE_EAGER)
