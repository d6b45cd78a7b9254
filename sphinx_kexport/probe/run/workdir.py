"""The per-run work directory: one JSON record per case and device, written as each case ends.

It lives next to the output (``.kexport-work/<output name>/``, git-ignored)
and is the resume journal: a killed run leaves its finished records behind,
and the same command picks them up. Every file is replaced atomically, so a
kill never leaves half a record.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

from ...snapshot import write_atomic

WORK_DIR = ".kexport-work"


def work_dir_for(out: Path) -> Path:
    return out.parent / WORK_DIR / out.name


def _slug(name: str) -> str:
    readable = re.sub(r"[^\w.-]+", "_", name).strip("_")[:80] or "case"
    return f"{readable}-{hashlib.sha1(name.encode()).hexdigest()[:10]}"


class WorkDir:
    def __init__(self, path: Path):
        self.path = path

    def record_path(self, name: str, device: str) -> Path:
        return self.path / "records" / device / f"{_slug(name)}.json"

    def env_path(self, device: str) -> Path:
        return self.path / f"env-{device}.json"

    def log_path(self, slot: int) -> Path:
        return self.path / "logs" / f"worker-{slot}.log"

    def _read(self, path: Path) -> Any:
        try:
            with path.open(encoding="utf-8") as fh:
                return json.load(fh)
        except (OSError, json.JSONDecodeError):
            return None  # absent or unreadable: the case simply runs again

    def finished(self, name: str, device: str, fingerprint: str) -> dict[str, Any] | None:
        """The record's results when it exists and was measured for this exact fingerprint."""
        record = self.finished_record(name, device, fingerprint)
        return record.get("results") if record else None

    def finished_record(self, name: str, device: str, fingerprint: str) -> dict[str, Any] | None:
        """The whole record (results, measured_at, ...) when it was measured for this exact fingerprint."""
        record = self._read(self.record_path(name, device))
        if isinstance(record, dict) and record.get("fingerprint") == fingerprint and record.get("name") == name \
                and isinstance(record.get("results"), dict):
            return record
        return None

    def save(self, name: str, device: str, fingerprint: str, results: dict[str, Any], **extra: Any) -> None:
        record = {"name": name, "device": device, "fingerprint": fingerprint, "results": results, **extra}
        write_atomic(self.record_path(name, device), json.dumps(record, indent=1, sort_keys=True) + "\n")

    def environment(self, device: str) -> dict[str, Any] | None:
        env = self._read(self.env_path(device))
        return env if isinstance(env, dict) else None

    def save_environment(self, device: str, env: dict[str, Any]) -> None:
        write_atomic(self.env_path(device), json.dumps(env, indent=1, sort_keys=True) + "\n")

    def remove(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
        parent = self.path.parent
        if parent.name == WORK_DIR and parent.is_dir() and not any(parent.iterdir()):
            parent.rmdir()
