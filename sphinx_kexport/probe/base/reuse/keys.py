"""The "measure again?" keys as records, and the reasons a rerun gives as records with their words.

Each :class:`ReuseKey` says what it decides on, what it covers, what changes it, what happens then and which
module holds it; :data:`KEYS` is every one of them, and the documentation's table of keys
(``example_docs/explanation/reuse.rst``) is drawn from it when the docs are built. A case measured again gets a
:class:`Reason`: an id from :data:`REASONS` and its fields; ``--dry-run`` prints :func:`words` of it.

Standard library only, and nothing of the probe: the docs build imports this module, and never torch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

RESULT = "a case's results on a device"
EXAMPLE = "a docstring example's cases"
TEST_FILE = "a test file's cases"


@dataclass(frozen=True)
class ReuseKey:
    id: str
    decides: str  # what is reused while the key holds (RESULT, EXAMPLE, TEST_FILE)
    covers: str
    changed_by: str
    on_change: str
    held_in: str  # the module(s) that compute it, from sphinx_kexport/


KEYS: tuple[ReuseKey, ...] = (
    ReuseKey("probe-code", RESULT,
             "the probe's measuring code: every module of probe/measure/ and the probe and snapshot modules they "
             "import, their code without comments or layout (a 16-digit digest, stamped as measured[device].probe "
             "and in the fingerprint)",
             "any edit to those modules but to a comment or the layout: a sphinx-kexport upgrade, as a rule",
             "every result is measured again; a record without the stamp (an older probe's) too",
             "probe/base/reuse/own_code.py"),
    ReuseKey("definition", RESULT,
             "the case's fingerprint: its definition (target, inputs' shapes, dtypes and values, containers, "
             "keyword arguments, check, atol, rtol, skip, method, code, batch dimensions), the device, the opset, "
             "the library's version, the tool versions, whether the dynamic-batch pass ran",
             "editing the case or its inputs; a run with the dynamic-batch pass over results measured without it",
             "that case is measured again",
             "probe/cases/fingerprint.py, probe/base/reuse/decide.py"),
    ReuseKey("environment", RESULT,
             "the device's environment header: torch (its exact build), onnx, onnxruntime, onnxscript, python, "
             "the opset, and the library's version",
             "a new torch or tool, another opset, another version of the library",
             "every result on that device is measured again",
             "probe/base/reuse/decide.py, probe/survey/reuse.py"),
    ReuseKey("code-ran", RESULT,
             "each function of the library and of the project that measuring the case ran, and the top-level "
             "names those functions read, as syntax digests",
             "an edit to such a function or name other than comments, docstrings and formatting; its removal",
             "the cases that ran it are measured again",
             "probe/base/code_digest.py, probe/measure/code_watch.py"),
    ReuseKey("build-code", RESULT,
             "what building a hand-written case ran (its constructor, the helpers that make its inputs), in the "
             "same code set as what measuring it ran",
             "an edit to that code",
             "that case is measured again",
             "probe/measure/build_watch.py"),
    ReuseKey("time-limit", RESULT,
             "the time limit a path of the record ran past",
             "a run with a larger time limit (--timeout)",
             "the results that timed out under the smaller limit are measured again",
             "snapshot/result_records.py"),
    ReuseKey("speed-figures", RESULT,
             "whether the record holds the speed pass's figures, timed as this probe times them",
             "a --speed run (or a snapshot that holds figures) over a record without them",
             "that case is measured again, timed too",
             "snapshot/result_records.py"),
    ReuseKey("fullgraph-rule", RESULT,
             "whether the record's torch.compile status follows fullgraph=True",
             "a record of an older probe, which judged it by the default compile",
             "that case is measured again",
             "snapshot/result_records.py"),
    ReuseKey("discovery-cache", EXAMPLE + ", " + TEST_FILE,
             "the package and the discovery's arguments, the versions of Python, torch, numpy, the library and "
             "its direct requirements, the discovery code (discover/docstrings.py or discover/suite.py and what "
             "it imports, their code without comments or layout), the cache file's layout",
             "any of those",
             "every example (or every test) of the package runs again",
             "probe/discover/cache.py"),
    ReuseKey("library-source", EXAMPLE,
             "every .py file of the library's top-level package, their bytes (kept in the cache file)",
             "any edit to the library",
             "the examples whose text or code changed run again, the others are loaded",
             "probe/discover/cache.py"),
    ReuseKey("example", EXAMPLE,
             "each docstring example's text (its statements and expected outputs) and the library code it ran",
             "an edit to the example, or to code it ran",
             "that example runs again",
             "probe/discover/docstrings.py"),
    ReuseKey("suite-config", TEST_FILE,
             "the pytest configuration files at and above the tests (in the discovery cache's key)",
             "an edit to one of them",
             "every test file runs again",
             "probe/discover/suite.py"),
    ReuseKey("test-file", TEST_FILE,
             "each test file's syntax digest, its conftests' and the code its tests ran; the code no one test "
             "file ran (a session fixture) and the other .py files under the tests",
             "an edit to the file, a conftest above it or code its tests ran; a new test file; an edit to shared "
             "code or a helper file",
             "that test file runs again; for shared code or a helper, every test file",
             "probe/discover/suite_records.py"),
)


@dataclass(frozen=True)
class Reason:
    """Why a case is measured again: an id of :data:`REASONS` and its fields (plain data)."""

    id: str
    fields: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ReasonKind:
    id: str
    keys: tuple[str, ...]  # the ReuseKeys that give it (none: there is no earlier result to reuse)
    words: str  # str.format template over the reason's fields (lists shown by :func:`shown`)


REASONS: dict[str, ReasonKind] = {kind.id: kind for kind in (
    ReasonKind("new-case", (), "new case"),
    ReasonKind("no-snapshot", (), "there is no snapshot yet"),
    ReasonKind("no-device", (), "the snapshot has no {device} results"),
    ReasonKind("fresh", (), "--fresh"),
    ReasonKind("probe-unnamed", ("probe-code",),
               "its record does not name the probe code that measured it (an older probe measured it)"),
    ReasonKind("probe-code", ("probe-code",),
               "measured by other probe code (the probe's measuring modules changed: {before} -> {now})"),
    ReasonKind("library-version", ("environment",), "the library's version changed ({before} -> {now})"),
    ReasonKind("environment", ("environment",), "new environment ({changes})"),
    ReasonKind("definition", ("definition",), "its definition changed (inputs, arguments, target or checks)"),
    ReasonKind("code-unlisted", ("code-ran",), "its record does not list the code it ran (an older probe measured it)"),
    ReasonKind("code-changed", ("code-ran", "build-code"), "code it ran changed: {refs}"),
    ReasonKind("time-limit", ("time-limit",),
               "a path ran past a smaller time limit than this run's {limit:g} s, or the case was not built in time"),
    ReasonKind("speed-missing", ("speed-figures",), "its record has no speed figures (measured without --speed)"),
    ReasonKind("speed-traced", ("speed-figures",),
               "its speed figures were timed with the code watch's tracer on (an older probe: eager beside "
               "onnxruntime and the exported module read too slow)"),
    ReasonKind("speed-constants", ("speed-figures",),
               "its speed figures timed a case with no tensor input (an older probe: a captured program may "
               "return constants computed at capture)"),
    ReasonKind("before-fullgraph", ("fullgraph-rule",),
               "its torch.compile record predates the fullgraph=True rule (an older probe judged it by the "
               "default compile)"),
)}

SHOWN = 3  # refs a reason names before "and N more"


def shown(value: Any) -> Any:
    """A field as the words show it: a list of refs as its first few and a count, a list of (name, before,
    now) as "name before -> now"; anything else as it is."""
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, (list, tuple)) for v in value):
        return ", ".join(f"{name} {before} -> {now}" for name, before, now in value)
    if isinstance(value, (list, tuple)):
        more = f" and {len(value) - SHOWN} more" if len(value) > SHOWN else ""
        return ", ".join(map(str, value[:SHOWN])) + more
    return "none" if value is None or value == "" else value


def words(reason: Reason) -> str:
    """What ``--dry-run`` prints for ``reason``."""
    return REASONS[reason.id].words.format(**{name: shown(value) for name, value in reason.fields.items()})


def reasons_of(key: str) -> list[ReasonKind]:
    """The reasons ``key`` gives when it changed."""
    return [kind for kind in REASONS.values() if key in kind.keys]
