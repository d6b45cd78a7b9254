"""Whether one run of a cell's snippet reproduced the cell: ended as the cell says, for the cell's own reason.

Read from what the run left: its exit status, whether it ran past its time limit, and its traceback. The
snippet's own lines tell where it stopped: building the call (``fn`` and ``inputs``), the eager run, the path,
or the comparison with eager. A fail cell reproduces when the path raises for the same reason the probe
recorded: the same worded cause (the probe's table of known causes, read off the whole traceback as the
probe reads the exception chain; an operator's namespace spelling aside), the same root exception line (also
when the recorded reason quotes it after its own words), or a failure raised while the recorded library line
ran (the cell's ``where``, its deepest library frame), however worded (a guard on a data-dependent bool or int
at that line, say). A mismatch cell reproduces when the comparison fails; a timeout cell when the snippet is
still running at the time limit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...snapshot.repro_checks import COULD_NOT_RUN, ENDED_OTHERWISE, REPRODUCED, VERDICTS  # noqa: F401 (re-exported)
from ...snapshot import repro_landmarks as landmarks  # what snapshot/repro.py writes, read when matched
from ...snapshot.vocabulary import FAIL, MISMATCH, STAGE_EAGER, TIMEOUT
from ..measure.explain import clean_line, known_cause


@dataclass(frozen=True)
class Ran:
    """What one run of a snippet left."""

    returncode: int | None  # None: still running at the time limit (then killed)
    stdout: str
    stderr: str
    seconds: float
    time_limit: float


@dataclass(frozen=True)
class Verdict:
    verdict: str  # one of VERDICTS
    what: str  # how it ended, in words


def _landmarks(snippet: str) -> tuple[int, int]:
    """(the eager run's line, the comparison's first line), 1-based."""
    lines = snippet.splitlines()
    eager = next((n for n, line in enumerate(lines, 1) if line.strip() == landmarks.EAGER_LINE), len(lines) + 1)
    compare = next((n for n, line in enumerate(lines, 1)
                    if n > eager and line.strip().startswith(landmarks.COMPARE_START)), len(lines) + 1)
    return eager, compare


def _last_traceback(stderr: str) -> str:
    start = stderr.rfind("Traceback (most recent call last):")
    return stderr[start:] if start >= 0 else stderr


def stopped_at(stderr: str, script: str) -> int | None:
    """The snippet's top-level line the final exception came through (None: not raised from the snippet).

    Its top level only: the snippet's ``forward`` runs inside every path, and dynamo quotes it as user code."""
    frames = re.findall(r'File "([^"]+)", line (\d+), in <module>', _last_traceback(stderr))
    mine = [int(line) for name, line in frames if name == script or name.endswith("/" + script)]
    return mine[-1] if mine else None


_EXCEPTION_LINE = re.compile(r"^([A-Za-z_][\w.]*)(?::\s?(.*))?$")


def exception_lines(stderr: str) -> list[tuple[str, str]]:
    """(short type name, message's first line) of every exception the traceback shows, innermost cause first
    (Python prints a chain from its root), the final exception last."""
    found = []
    for block in stderr.split("Traceback (most recent call last):")[1:]:
        for line in block.splitlines()[1:]:
            if not line or line[0].isspace():
                continue
            match = _EXCEPTION_LINE.match(line)
            if match:
                found.append((match.group(1).rsplit(".", 1)[-1], (match.group(2) or "").strip()))
            break
    return found


def _root_reason(stderr: str) -> str:
    """The probe's fallback wording (its root cause's first line, named by type) for the traceback."""
    for name, message in exception_lines(stderr):
        line = clean_line(message)
        if line:
            return clean_line(f"{name}: {line}" if name not in line else line)
    chain = exception_lines(stderr)
    return chain[-1][0] if chain else ""


def reason(stderr: str) -> str:
    """How a failed run ended, worded as the probe words a failure."""
    return known_cause(stderr) or _root_reason(stderr) or clean_line(stderr.strip().splitlines()[-1] if
                                                                      stderr.strip() else "")


_OPERATOR_PREFIX = re.compile(r"\b(?:aten|torch|prims)\.(?:_+)?")


def _plain(text: str) -> str:
    """A reason without its cut-off mark ("…") and without the spelling of its operator's namespace: the probe
    words ``aten._sample_dirichlet`` as ``torch.sample_dirichlet`` only when torch was imported where it
    explained the failure."""
    text = text.rstrip("…").strip()
    return _OPERATOR_PREFIX.sub("", text.replace(".default", "")).replace(".", "_")


def _same_words(ours: str, recorded: str) -> bool:
    """Whether two worded reasons say the same thing: equal, or one a cut-off ("…") start of the other."""
    ours, recorded = _plain(ours), _plain(recorded)
    if not ours or not recorded:
        return False
    shorter = min(len(ours), len(recorded))
    return ours[:shorter] == recorded[:shorter] and shorter >= min(40, max(len(ours), len(recorded)))


def _quoted(line: str, recorded: str) -> bool:
    """Whether the recorded reason quotes the exception line after its own words ("onnxruntime cannot run the
    exported graph: RuntimeError: …"): at least 30 characters of it, so that a bare type name does not count."""
    line, recorded = _plain(line), _plain(recorded)
    return len(line) >= 30 and line in recorded


def _raised_at(stderr: str, where: str) -> bool:
    """Whether the traceback passes through the library line ``where`` ("kornia/x.py:12")."""
    path, _, line = where.rpartition(":")
    return bool(path and line) and re.search(rf'{re.escape(path)}", line {re.escape(line)}\b', stderr) is not None


def same_failure(stderr: str, recorded: dict) -> bool:
    """Whether a failed run failed for the cell's own reason."""
    detail = recorded.get("detail", "")
    cause = known_cause(stderr)
    if cause and (cause in detail or _same_words(cause, detail)):
        return True
    for name, message in exception_lines(stderr):
        line = clean_line(f"{name}: {message}" if name not in message else message)
        if _same_words(line, detail) or _quoted(line, detail):
            return True
    where = recorded.get("where", "")
    return bool(where and _raised_at(stderr, where))  # the recorded library line raised it, worded otherwise


def judge(recorded: dict, snippet: str, script: str, ran: Ran) -> Verdict:
    """Reproduced, ended otherwise or could not run, with how it ended."""
    status = recorded.get("status")
    if ran.returncode is None:
        still = f"still running after {ran.time_limit:g} s"
        return Verdict(REPRODUCED, still) if status == TIMEOUT else Verdict(ENDED_OTHERWISE, still)
    if ran.returncode == 0:
        last = (ran.stdout.strip().splitlines() or ["no output"])[-1]
        return Verdict(ENDED_OTHERWISE, f"ran to the end ({clean_line(last)})")
    if landmarks.CANNOT_REBUILD in ran.stderr:  # the snippet's own stop: the call it holds cannot be rebuilt
        return Verdict(COULD_NOT_RUN, clean_line(ran.stderr[ran.stderr.rfind(landmarks.CANNOT_REBUILD):], 300))
    eager, compare = _landmarks(snippet)
    line = stopped_at(ran.stderr, script)
    said = reason(ran.stderr)
    if line is None:
        return Verdict(COULD_NOT_RUN, f"the interpreter stopped outside the snippet (exit {ran.returncode}): {said}")
    if line < eager:
        return Verdict(COULD_NOT_RUN, f"building the call raised: {said}")
    if line == eager and recorded.get("stage") != STAGE_EAGER:
        return Verdict(COULD_NOT_RUN, f"the eager run raised (the probe's did not): {said}")
    if status == MISMATCH:
        if line >= compare:
            return Verdict(REPRODUCED, f"differs from eager: {said}")
        return Verdict(ENDED_OTHERWISE, f"raised before the comparison: {said}")
    if status == FAIL and line < compare and same_failure(ran.stderr, recorded):
        detail, where = recorded.get("detail", ""), recorded.get("where", "")
        alike = said in detail or _same_words(said, detail)
        return Verdict(REPRODUCED, said if alike or not where else f"{said} (raised at the recorded line {where})")
    if line >= compare:
        return Verdict(ENDED_OTHERWISE, f"differs from eager: {said}")
    return Verdict(ENDED_OTHERWISE, f"raised {said}")
