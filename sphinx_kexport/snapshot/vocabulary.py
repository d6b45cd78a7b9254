"""The words of the contract: paths, devices, statuses, dynamic statuses and stages, one record each.

Each record *is* its word (a ``str``: ``OK == "ok"``, it is a dict key and a
JSON string) and carries what every display needs to say it: the progress
bar's short word, the page's label, meaning, CSS class and one-letter code,
and whether it counts as supported, failing or neither. The page model, the
writers, the templates, the progress and (through data the page emits) the
browser script all derive from these records, so a new status cannot be
missing from one of them; ``tests/snapshot/test_vocabulary_and_schema.py``
checks that, and ``tests/test_vocabulary_spelled_once.py`` that no path,
device, status or stage word is spelled anywhere else (a use of the same
spelling with another meaning, the onnx package's name say, is listed there
with its count). The JSON schema's enums are checked against the tuples.
"""

from __future__ import annotations

from typing import Any

SCHEMA_VERSION = 2
READABLE_VERSIONS = (1, 2)  # format 1 is upgraded on reading (snapshot/upgrade.py)

SUPPORTED_KIND = "supported"
FAILING_KIND = "failing"
NEITHER_KIND = "neither"


class Word(str):
    """A word of the snapshot with its display facts as attributes.

    It pickles, copies and compares as its plain word, so records sent between
    processes or read back from JSON are interchangeable with it.
    """

    def __new__(cls, word: str, **facts: Any) -> "Word":
        self = super().__new__(cls, word)
        self.__dict__.update(facts)
        return self

    def __reduce__(self) -> tuple[type, tuple[str]]:
        return str, (str(self),)

    def __copy__(self) -> "Word":
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> "Word":
        return self


class Path(Word):
    label: str  # "torch.compile"


class Device(Word):
    label: str  # "CUDA"


class Status(Word):
    """A path's result. ``kind``: supported, failing or neither; ``counted``: whether it counts as probed."""

    short: str  # the progress bar's word
    label: str  # the cell's text
    meaning: str  # the legend's sentence
    css: str  # the CSS class suffix (``kx-st-<css>``)
    code: str  # the page's one-letter code (``tr[data-s]``, ``<kx-C>``)
    kind: str
    counted: bool

    @property
    def supported(self) -> bool:
        return self.kind == SUPPORTED_KIND

    @property
    def failing(self) -> bool:
        return self.kind == FAILING_KIND


class DynamicStatus(Word):
    """The dynamic-batch pass's answer inside a supported result. ``answers``: whether it says something about
    another batch size (a timed-out pass or a case without a batch dimension does not)."""

    suffix: str  # after the cell in the plain progress lines ("/dyn"), "" for none
    legend: str  # the legend's mark ("any batch"), "" for none
    meaning: str
    code: str  # the page's one-letter mark code (``tr[data-y]``, ``<kx-yC>``); "-" for no mark
    answers: bool


class Stage(Word):
    """Where a path stopped."""

    meaning: str


# -- paths and devices

ONNX = Path("onnx", label="ONNX")
EXPORT = Path("export", label="torch.export")
COMPILE = Path("compile", label="torch.compile")
PATHS = (ONNX, EXPORT, COMPILE)

CPU = Device("cpu", label="CPU")
CUDA = Device("cuda", label="CUDA")
DEVICES = (CPU, CUDA)

# -- statuses

OK = Status("ok", short="ok", label="yes", css="ok", code="o", kind=SUPPORTED_KIND, counted=True,
            meaning="captured, ran, and the result matches eager execution")
OK_BREAKS = Status("ok-breaks", short="breaks", label="yes, graph breaks", css="ok-breaks", code="b",
                   kind=SUPPORTED_KIND, counted=True,
                   meaning="torch.compile(fn, fullgraph=True) fails, but the default torch.compile runs and "
                           "matches eager, falling back to Python at one or more graph breaks (the count is "
                           "shown; \"no graph compiled\": it runs the whole function eagerly)")
OK_UNVERIFIED = Status("ok-unverified", short="random", label="yes (random)", css="ok-random", code="r",
                       kind=SUPPORTED_KIND, counted=True,
                       meaning="captured and ran; a random operator that this path cannot draw as eager does "
                               "(ONNX, torch.export), so only the output count, rank, dtypes and finiteness are "
                               "checked, not its sizes or values; torch.compile draws as eager does (inductor's "
                               "fallback_random) and is compared in full")
MISMATCH = Status("mismatch", short="mismatch", label="mismatch", css="mismatch", code="m", kind=FAILING_KIND,
                  counted=True, meaning="captured and ran, but the result differs from eager execution")
FAIL = Status("fail", short="fail", label="no", css="fail", code="f", kind=FAILING_KIND, counted=True,
              meaning="capture, conversion or the run failed; the Details column says why and where")
# timeout: the path (or its dynamic-batch pass) ran past the time limit, so the probe does not know; neither
# supported nor failing, and measured again by a run with a larger limit (the record keeps ``time_limit``).
TIMEOUT = Status("timeout", short="timeout", label="timed out", css="timeout", code="t", kind=NEITHER_KIND,
                 counted=False,
                 meaning="ran past the probe's time limit, so it is not known: neither supported nor failing, and "
                         "not counted; the Details column says which step and the limit (a run with a larger "
                         "limit measures it again)")
NOT_APPLICABLE = Status("n/a", short="n/a", label="n/a", css="na", code="n", kind=NEITHER_KIND, counted=False,
                        meaning="not applicable: not a tensor graph, not runnable with the probed inputs, or not "
                                "probed on that device")
STATUSES = (OK, OK_BREAKS, OK_UNVERIFIED, MISMATCH, FAIL, TIMEOUT, NOT_APPLICABLE)
STATUS: dict[str, Status] = {s: s for s in STATUSES}
SUPPORTED = frozenset(s for s in STATUSES if s.supported)
FAILING = frozenset(s for s in STATUSES if s.failing)
# Left out of the supported / probed counts: nothing to capture (n/a), or not known (timeout).
UNCOUNTED = frozenset(s for s in STATUSES if not s.counted)

# -- the dynamic-batch pass (``dynamic.status`` inside a supported path's result): does the capture hold at
# another batch size?

DYNAMIC_OK = DynamicStatus("ok", suffix="/dyn", legend="any batch", code="o", answers=True,
                           meaning="holds at any batch size: captured with the batch dimension dynamic, run at "
                                   "another batch size and compared with eager there")
DYNAMIC_STATIC = DynamicStatus("static", suffix="/static", legend="batch N only", code="s", answers=True,
                               meaning="works only at the traced batch size N: the capture specialises the batch")
DYNAMIC_FAIL = DynamicStatus("fail", suffix="/dyn-fail", legend="dynamic fails", code="f", answers=True,
                             meaning="supported at the traced batch size, but the capture with a dynamic batch "
                                     "fails (the Details column says why), so whether it holds at another batch "
                                     "size is unknown")
DYNAMIC_TIMEOUT = DynamicStatus("timeout", suffix="", legend="", code="-", answers=False,
                                meaning="the dynamic-batch pass ran past the time limit")
DYNAMIC_NOT_APPLICABLE = DynamicStatus("n/a", suffix="", legend="", code="-", answers=False,
                                       meaning="the case has no batch dimension")
DYNAMIC_STATUSES = (DYNAMIC_OK, DYNAMIC_STATIC, DYNAMIC_FAIL, DYNAMIC_TIMEOUT, DYNAMIC_NOT_APPLICABLE)
DYNAMIC_STATUS: dict[str, DynamicStatus] = {s: s for s in DYNAMIC_STATUSES}
DYNAMIC_ANSWERS = tuple(s for s in DYNAMIC_STATUSES if s.answers)

# -- the speed pass (``speed`` inside a supported result, with --speed): what a working path buys over eager.
# A figure's verdict: the ratio eager/path and its spread lie wholly above 1, wholly below, or across it.


class SpeedVerdict(Word):
    """How a speed figure reads: ``mark`` is the cell's words around the ratio ("{ratio}× faster")."""

    mark: str


SPEED_FASTER = SpeedVerdict("faster", mark="{ratio}× faster")
SPEED_SLOWER = SpeedVerdict("slower", mark="{ratio}× — slower than eager")
SPEED_UNCLEAR = SpeedVerdict("unclear", mark="no clear difference")
SPEED_VERDICTS = (SPEED_FASTER, SPEED_SLOWER, SPEED_UNCLEAR)
SPEED_VERDICT: dict[str, SpeedVerdict] = {v: v for v in SPEED_VERDICTS}
SPEED_NOT_TIMED = "not timed"  # a working cell whose speed record has no figure, only its note on why
# Which inputs a figure was timed at: the case's own, its batch grown to SPEED_BATCH, or the inputs its
# ``bench=`` gives for timing.
SPEED_AT_INPUTS = "inputs"
SPEED_AT_BATCH = "batch"
SPEED_AT_BENCH = "bench"
SPEED_SIZES = (SPEED_AT_INPUTS, SPEED_AT_BATCH, SPEED_AT_BENCH)
SPEED_BATCH = 32
SPEED_METHOD = ("torch.utils.benchmark Timer.blocked_autorange, median; after warm-up; eager and the path "
                "timed in alternating blocks; CUDA synchronised")


# -- the eager output of a case measured in two snapshots (``measured[device].eager``: a digest of its seeded
# eager outputs, with the torch and the machine that computed it), as the fix report compares it: the same
# digest, another digest, or no comparison (a digest missing, another torch or machine kind)
EAGER_IDENTICAL = "identical"
EAGER_CHANGED = "changed"
EAGER_NOT_COMPARABLE = "not comparable"
EAGER_VERDICTS = (EAGER_IDENTICAL, EAGER_CHANGED, EAGER_NOT_COMPARABLE)

# -- stages: where a path stopped

STAGE_NONE = Stage("", meaning="the path did not stop")
STAGE_EAGER = Stage("eager", meaning="the case raised when run eagerly (a problem with the case or the "
                                     "environment, not with the path)")
STAGE_NO_TENSOR = Stage("no-tensor", meaning="not probed: the case ran but returned no tensor (a Python object, or "
                                             "a number the path does not capture), so there is nothing to compare")
STAGE_CAPTURE = Stage("capture", meaning="capturing the graph (dynamo, torch.export)")
STAGE_TRANSLATE = Stage("translate", meaning="translating the captured graph to ONNX")
STAGE_CHECK = Stage("check", meaning="onnx.checker on the exported model")
STAGE_LOAD = Stage("load", meaning="loading the model into onnxruntime")
STAGE_RUN = Stage("run", meaning="running the captured graph, exported program or compiled function")
STAGE_COMPARE = Stage("compare", meaning="comparing its outputs with eager execution")
STAGE_PROCESS = Stage("process", meaning="the worker process died or ran past the time limit")
STAGE_SKIP = Stage("skip", meaning="the case module skipped it")
STAGES = (STAGE_NONE, STAGE_EAGER, STAGE_NO_TENSOR, STAGE_CAPTURE, STAGE_TRANSLATE, STAGE_CHECK, STAGE_LOAD,
          STAGE_RUN, STAGE_COMPARE, STAGE_PROCESS, STAGE_SKIP)
STAGE: dict[str, Stage] = {s: s for s in STAGES}

# The field of a case's ``measured`` stamp that holds the digest of its eager outputs (digest, torch, machine), and
# the gate's rule (``probe diff --allow eager``) that a moved digest breaks: named after the stage it digests.
EAGER_DIGEST = str(STAGE_EAGER)

# The labels by word (the page's column headers).
PATH_LABELS: dict[str, str] = {p: p.label for p in PATHS}
DEVICE_LABELS: dict[str, str] = {d: d.label for d in DEVICES}


def status(word: str) -> Status:
    """The record of a status word; a clear error for a word the contract does not have."""
    try:
        return STATUS[word]
    except KeyError:
        raise ValueError(f"unknown status {word!r}; expected one of {', '.join(STATUSES)}") from None


def dynamic_status(word: str) -> DynamicStatus:
    try:
        return DYNAMIC_STATUS[word]
    except KeyError:
        raise ValueError(f"unknown dynamic status {word!r}; expected one of {', '.join(DYNAMIC_STATUSES)}") from None


def speed_verdict(word: str) -> SpeedVerdict:
    try:
        return SPEED_VERDICT[word]
    except KeyError:
        raise ValueError(f"unknown speed verdict {word!r}; expected one of {', '.join(SPEED_VERDICTS)}") from None


def speed_mark(verdict: str, ratio: float) -> str:
    """A speed figure in words: "3.1× faster", "0.45× — slower than eager", "no clear difference"."""
    return speed_verdict(verdict).mark.format(ratio=speed_ratio(ratio))


def speed_ratio(ratio: float) -> str:
    """A ratio as the marks print it, without the sign: "3.1", "0.45", "12"."""
    return f"{ratio:.0f}" if ratio >= 10 else f"{ratio:.2g}"


def speed_size(size: str, batch: int | None = None) -> str:
    """Which inputs a figure was timed at, in words: "the case's inputs", "batch 32", "the bench= inputs"."""
    if size == SPEED_AT_BATCH:
        return f"batch {batch or SPEED_BATCH}"
    return "the bench= inputs" if size == SPEED_AT_BENCH else "the case's inputs"


def page_codes() -> dict[str, str]:
    """What the browser script needs of the statuses, as the page emits it (``div.kexport[data-supported]``,
    ``[data-failing]``: page/writers/script_data.py): the codes of the supported and the failing statuses, in order."""
    return {SUPPORTED_KIND: "".join(s.code for s in STATUSES if s.supported),
            FAILING_KIND: "".join(s.code for s in STATUSES if s.failing)}


# Where a case came from (the case's ``origin``, format 2): written by hand in a case module, recorded
# from a docstring example of the library, or recorded from a test of the library's own test suite.
ORIGIN_HAND = "hand-written"
ORIGIN_DOCSTRING = "docstring"
ORIGIN_TEST = "test"
ORIGINS = (ORIGIN_HAND, ORIGIN_DOCSTRING, ORIGIN_TEST)
# Why an object of the library whose docstring has an example yields no case (the snapshot's
# ``objects_without_cases``, format 2), and how people read each reason.
NO_CASE_WORDS = {
    "no tensor call": "no tensor call",
    "raised": "the example raised",
    "download": "it tried to download",
    "time limit": "it ran past the time limit",
    "import failed": "the module does not import",
    "bad __all__": "the module's __all__ lists something other than names",
    "unparsable": "doctest cannot parse its docstring",
    "not described": "the probe cannot describe its case",
}
NO_CASE_KINDS = tuple(NO_CASE_WORDS)
# a case whose inputs the probe cannot describe (hash, write as source): left out, named, discovery goes on
NOT_DESCRIBED = "not described"
# What the probe measures with unless told otherwise; the page and the repro snippets fall back to them.
DEFAULT_OPSET = 18
DEFAULT_ATOL = 2e-4
DEFAULT_RTOL = 1e-3
