"""Reading and writing snapshot files.

``read_snapshot`` is the one way in: JSON, then Kornia's format converted,
then the validator. ``dump_snapshot`` is the one way out: validated, with a
deterministic text, replaced atomically so a reader never sees half a file.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from .errors import FIX_HINT, SnapshotError, schema_version_error
from .kornia_format import from_kornia, is_kornia_format
from .legacy_causes import fill as fill_legacy_causes
from .records import Snapshot, build
from .validation import validate
from .upgrade import upgrade_format_1
from .vocabulary import READABLE_VERSIONS

NATIVE_FORMAT = "sphinx-kexport/1"
KORNIA_FORMAT = "kornia"


def read_json(path: str | os.PathLike, source: str | None = None) -> Any:
    source = source or str(path)
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        raise SnapshotError(f"{source}: no such file. Check the path given to the directive "
                            "(relative to the document, or to the source directory when it starts with /).") from None
    except json.JSONDecodeError as exc:
        raise SnapshotError(f"{source}: not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}. "
                            f"{FIX_HINT}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SnapshotError(f"{source}: cannot be read ({exc}).") from None


def normalise(data: Any, source: str = "<snapshot>") -> tuple[dict[str, Any], str]:
    """Validate any readable format and return (format-2 dict, format name). A red record an older probe wrote
    without a cause gets the one its words match (legacy_causes, the one place that reads them)."""
    if is_kornia_format(data):
        data = from_kornia(data, source)
        validate(data, source)
        return fill_legacy_causes(data), KORNIA_FORMAT
    if isinstance(data, dict) and "schema" in data and data["schema"] not in READABLE_VERSIONS:
        raise schema_version_error(source, data["schema"])
    if isinstance(data, dict) and data.get("schema") == 1:
        data = upgrade_format_1(data)
    validate(data, source)
    return fill_legacy_causes(data), NATIVE_FORMAT


def read_snapshot(path: str | os.PathLike, source: str | None = None) -> tuple[dict[str, Any], str]:
    """Read and validate a snapshot file of either format: (format-1 dict, format name)."""
    source = source or str(path)
    return normalise(read_json(path, source), source)


def load_snapshot(path: str | os.PathLike, source: str | None = None) -> Snapshot:
    """Read, validate and convert a snapshot file; raise SnapshotError for people."""
    source = source or str(path)
    data, _ = read_snapshot(path, source)
    return build(data, source)


def dumps(data: dict[str, Any]) -> str:
    """The deterministic text of a snapshot: sorted keys, indent 2, trailing newline."""
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_atomic(path: str | os.PathLike, text: str) -> None:
    """Replace ``path`` with ``text`` so a reader never sees half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        # mkstemp creates the file 0600; give it the mode a plain open() would.
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def dump_snapshot(data: dict[str, Any], path: str | os.PathLike) -> None:
    """Validate and write a format-2 snapshot atomically and deterministically. A red record without a cause
    (one an older probe measured, reused from its work folder) gets the one its words match (legacy_causes)."""
    fill_legacy_causes(data)
    validate(data, str(path))
    write_atomic(path, dumps(data))
