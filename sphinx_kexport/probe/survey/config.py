"""The probe's settings: the ``[tool.sphinx-kexport]`` table of the nearest pyproject.toml, then flags.

Paths in the table are relative to the pyproject.toml that holds it; paths
given as flags are relative to the current directory.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomllib

from ...snapshot.vocabulary import CPU, DEFAULT_OPSET, DEVICES
from ..base.errors import ProbeError
from ..run.worker_slot import DEFAULT_BUILD_TIMEOUT

TABLE = "tool.sphinx-kexport"
KNOWN_KEYS = {"cases", "out", "devices", "library", "jobs", "timeout", "build_timeout", "opset", "dynamic",
              "speed"}
DEFAULT_TIMEOUT = 300.0
MAX_DEFAULT_JOBS = 8


class ConfigError(ProbeError):
    """A setting that cannot be used; the message names the file, the key and the fix."""


@dataclass
class Shard:
    index: int  # 1-based
    count: int

    def selects(self, position: int) -> bool:
        """Round-robin over registration order: balanced and stable for a given inventory."""
        return position % self.count == self.index - 1

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


@dataclass
class ProbeConfig:
    """Everything a survey needs: its settings, one field per :ref:`flag <probe-command>`.

    ``ProbeConfig(cases=[...], out=Path(...))`` is enough to call :func:`run_survey` directly;
    :func:`build_config` makes one from the ``[tool.sphinx-kexport]`` table of pyproject.toml and the
    command's flags, as the command does. ``watch_code=False`` (no flag) records no code for the cases, so the
    next run measures them again: it is there to measure what watching costs
    (``benchmarks/bench_code_watch.py``)."""

    cases: list[str]  #: case modules, .py files or directories (relative to ``root``): ``--cases``, ``cases``
    out: Path  #: the snapshot to write: ``--out``, ``out``
    root: Path = field(default_factory=Path.cwd)  #: directory of the pyproject.toml (or the current directory)
    #: ``cpu`` and/or ``cuda``: ``--device``, ``devices``
    devices: list[str] = field(default_factory=lambda: [str(CPU)])
    #: import name of the surveyed library: ``--library``, ``library``; set, it also lets the probe watch what
    #: building each hand-written case runs in the library (without it: in the project's folders only)
    library: str = ""
    jobs: int = 1  #: worker processes (and child processes building the inventory): ``--jobs``, ``jobs``
    timeout: float = DEFAULT_TIMEOUT  #: seconds each step of a case may take: ``--timeout``, ``timeout``
    #: seconds building one case in a worker may take (not a step: no status): ``--build-timeout``
    build_timeout: float = DEFAULT_BUILD_TIMEOUT
    opset: int = DEFAULT_OPSET  #: the ONNX opset: ``--opset``, ``opset``
    only: list[str] = field(default_factory=list)  #: probe only the cases these patterns select: ``--only``
    shard: Shard | None = None  #: probe one slice of the cases and write a part for ``merge``: ``--shard K/N``
    keep_work: bool = False  #: keep the work directory of per-case records: ``--keep-work``
    fresh: bool = False  #: measure every selected case again (the discovery cache stays): ``--fresh``
    #: run the docstring examples again, replacing their discovery cache entries: ``--rediscover``
    rediscover: bool = False
    stats: Path | None = None  #: where to write the run statistics as JSON: ``--stats``
    pyproject: Path | None = None  #: the pyproject.toml the settings came from: ``--config``
    #: the project's snapshot, when ``out`` is a shard part: a cache for the shard
    base_out: Path | None = None
    #: the dynamic-batch pass; ``--no-dynamic`` or ``dynamic = false`` skip it
    dynamic: bool = True
    #: the speed pass (measure/speed.py): every supported path timed against eager: ``--speed``, ``speed``
    speed: bool = False
    #: seconds after the survey began at which measuring stops and the snapshot is written with what is done
    #: (``--stop-after``; None: no limit)
    stop_after: float | None = None
    #: say what a run would measure and why, then stop: nothing measured, nothing written (``--dry-run``)
    dry_run: bool = False
    #: record the code each case runs (what reuse is keyed on); off only to measure what watching costs
    #: (benchmarks/bench_code_watch.py): records without it are measured again by the next run
    watch_code: bool = True


def find_pyproject(start: Path) -> Path | None:
    for directory in [start, *start.parents]:
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def read_table(pyproject: Path) -> dict[str, Any]:
    try:
        with pyproject.open("rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{pyproject}: not valid TOML: {exc}") from None
    table = data.get("tool", {}).get("sphinx-kexport", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{pyproject}: [{TABLE}] must be a table")
    unknown = sorted(set(table) - KNOWN_KEYS)
    if unknown:
        raise ConfigError(f"{pyproject}: [{TABLE}] has unknown key(s) {', '.join(unknown)}; known keys are "
                          f"{', '.join(sorted(KNOWN_KEYS))}")
    return table


def _expect(value: Any, kind: type | tuple, where: str, wanted: str) -> Any:
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise ConfigError(f"{where}: expected {wanted}, found {value!r}")
    return value


_DURATION_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600}


_DURATION_PART = r"(\d+(?:\.\d*)?)\s*([smh]?)"


def parse_duration(text: str) -> float:
    """``--stop-after``: seconds, or numbers with s, m or h, alone or added up ("90", "25m", "1.5h", "2h05m")."""
    parts = re.findall(_DURATION_PART, text)
    # the whole text is parts with a unit (the last may go without: seconds), each unit once, largest first
    units = [unit or "s" for _, unit in parts]
    well_formed = (parts and re.fullmatch(rf"\s*(?:{_DURATION_PART}\s*)+", text)
                   and all(unit for _, unit in parts[:-1]) and units == sorted(set(units), key="hms".index))
    seconds = sum(float(number) * _DURATION_UNITS[unit] for number, unit in parts) if well_formed else 0
    if seconds <= 0:
        raise ConfigError(f"--stop-after {text!r}: expected a positive duration such as 600, 25m, 1.5h or 2h05m")
    return seconds


def parse_shard(text: str) -> Shard:
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if not match or not 1 <= int(match.group(1)) <= int(match.group(2)):
        raise ConfigError(f"--shard {text!r}: expected K/N with 1 <= K <= N, e.g. --shard 2/4")
    return Shard(int(match.group(1)), int(match.group(2)))


def default_jobs() -> int:
    return max(1, min(MAX_DEFAULT_JOBS, os.cpu_count() or 1))


def build_config(args: Any, cwd: Path) -> ProbeConfig:
    """Combine the ``[tool.sphinx-kexport]`` table of pyproject.toml with the command's flags (flags win), as
    the command does.

    Paths in the table are relative to the pyproject.toml that holds it; paths given as flags are relative to
    ``cwd``.

    :param args: the command's parsed flags (an ``argparse.Namespace``); ``args.config`` names the
        pyproject.toml, else the nearest one from ``cwd`` up is read
    :param cwd: the directory the command runs in
    :returns: a :class:`ProbeConfig`
    :raises ConfigError: a setting that cannot be used, or no case modules or no output file set
    """
    pyproject = Path(args.config).resolve() if args.config else find_pyproject(cwd)
    if args.config and not pyproject.is_file():
        raise ConfigError(f"--config {args.config}: no such file")
    table = read_table(pyproject) if pyproject else {}
    root = pyproject.parent if pyproject else cwd
    where = f"{pyproject} [{TABLE}]" if pyproject else "(no pyproject.toml)"

    if args.cases:
        cases = [str((cwd / c)) if (cwd / c).exists() else c for c in args.cases]
    else:
        cases = table.get("cases", [])
        if isinstance(cases, str):
            cases = [cases]
        _expect(cases, list, f"{where} key cases", "a list of module names, files or directories")
        for item in cases:
            _expect(item, str, f"{where} key cases", "strings (module names, files or directories)")
    if not cases:
        raise ConfigError("no case modules: add `cases = [\"my_pkg/probe_cases\"]` to the [tool.sphinx-kexport] "
                          "table of pyproject.toml, or pass --cases MODULE_OR_FILE")

    if args.out:
        out = (cwd / args.out).resolve()
    elif "out" in table:
        out = (root / _expect(table["out"], str, f"{where} key out", "a path string")).resolve()
    else:
        raise ConfigError("no output file: set `out = \"docs/_data/export_support.json\"` in the "
                          "[tool.sphinx-kexport] table of pyproject.toml, or pass --out PATH")

    devices = args.device or table.get("devices", [str(CPU)])
    if isinstance(devices, str):
        devices = [devices]
    _expect(devices, list, f"{where} key devices", "a list such as [\"cpu\", \"cuda\"]")
    for device in devices:
        if device not in DEVICES:
            raise ConfigError(f"{where if not args.device else '--device'}: unknown device {device!r}; "
                              "choose cpu or cuda")
    devices = [d for d in DEVICES if d in devices]  # canonical order, no repeats

    library = args.library if args.library is not None else table.get("library", "")
    _expect(library, str, f"{where} key library", "the import name of the surveyed library, e.g. \"kornia\"")

    jobs = args.jobs if args.jobs is not None else table.get("jobs", default_jobs())
    _expect(jobs, int, f"{where} key jobs", "a positive integer")
    timeout = args.timeout if args.timeout is not None else table.get("timeout", DEFAULT_TIMEOUT)
    _expect(timeout, (int, float), f"{where} key timeout", "seconds, a positive number")
    opset = args.opset if args.opset is not None else table.get("opset", DEFAULT_OPSET)
    _expect(opset, int, f"{where} key opset", "an ONNX opset number such as 18")
    dynamic = False if getattr(args, "no_dynamic", False) else table.get("dynamic", True)
    _expect(dynamic, bool, f"{where} key dynamic", "true or false (false skips the dynamic-batch pass)")
    speed = True if getattr(args, "speed", False) else table.get("speed", False)
    _expect(speed, bool, f"{where} key speed", "true or false (true times every working path against eager)")
    if jobs < 1:
        raise ConfigError(f"jobs must be at least 1, found {jobs}")
    if timeout <= 0:
        raise ConfigError(f"timeout must be a positive number of seconds, found {timeout}")
    build_timeout = getattr(args, "build_timeout", None)
    if build_timeout is None:
        build_timeout = table.get("build_timeout", DEFAULT_BUILD_TIMEOUT)
        _expect(build_timeout, (int, float), f"{where} key build_timeout", "seconds, a positive number")
    if build_timeout <= 0:
        raise ConfigError(f"build_timeout (--build-timeout) must be a positive number of seconds, found "
                          f"{build_timeout:g}")

    shard = parse_shard(args.shard) if args.shard else None
    base_out = out
    if shard and not args.out:
        # a shard never overwrites the project's snapshot: it writes a part next to it
        out = out.with_name(f"{out.stem}.shard-{shard.index}-of-{shard.count}{out.suffix}")
    return ProbeConfig(root=root, cases=list(cases), out=out, devices=devices, library=library, jobs=jobs,
                       timeout=float(timeout), build_timeout=float(build_timeout), opset=opset,
                       only=list(args.only or []), shard=shard,
                       keep_work=args.keep_work, fresh=args.fresh, rediscover=args.rediscover,
                       stats=(cwd / args.stats).resolve() if args.stats else None, pyproject=pyproject,
                       base_out=base_out, dynamic=dynamic, speed=speed, dry_run=bool(getattr(args, "dry_run", False)),
                       stop_after=parse_duration(args.stop_after) if getattr(args, "stop_after", None) else None)
