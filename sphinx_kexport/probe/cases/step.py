"""What a worker is doing for a case while it measures it: one step, named the same on both sides of the pipe.

A step is the eager reference run, one path, or that path's dynamic-batch or speed pass: a path and a flag, so
that the parent tells a lost pass from a lost path by a field, not by the spelling of a name. It lives here,
in the lowest stage, because the measurement (which reports each step) and the worker pool (which records
what a dead or hung worker was doing) both use it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...snapshot.vocabulary import STAGE_EAGER

DYNAMIC_SUFFIX = ":dynamic"  # how the worker's log and --stats name a dynamic-batch pass: "onnx:dynamic"
SPEED_SUFFIX = ":speed"  # and a path's speed pass (--speed): "onnx:speed"


@dataclass(frozen=True)
class Step:
    path: str  # a path word, or the eager stage for the eager reference run (before any path)
    dynamic: bool = False  # the path's dynamic-batch pass, after its static result was reported
    speed: bool = False  # the path's speed pass (--speed), likewise

    @property
    def name(self) -> str:
        """As the worker's log and --stats name it: ``eager``, ``onnx``, ``onnx:dynamic``, ``onnx:speed``."""
        return self.path + (DYNAMIC_SUFFIX if self.dynamic else SPEED_SUFFIX if self.speed else "")

    @property
    def after_result(self) -> bool:
        """A pass that runs after its path's result was reported: losing it costs that pass only."""
        return self.dynamic or self.speed


EAGER_STEP = Step(STAGE_EAGER)
