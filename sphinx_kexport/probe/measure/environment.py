"""What the snapshot header says about the machine and the surveyed library.

``device_environment`` runs in the probing (worker) process, so the header
describes the interpreter that measured, not the one that merged.
``library_info`` names the surveyed library's version and, when it is a git
checkout, its revision.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import platform
import re
import subprocess
from typing import Any

from ...snapshot.timestamps import utc_now
from ...snapshot.vocabulary import CUDA


_VERSION_LINE = re.compile(r"""^__version__\s*(?::\s*str\s*)?=\s*['"]([^'"]+)['"]""", re.M)


def _version(dist: str) -> str:
    """The installed distribution's version; for a package that is no distribution (a checkout on the path),
    the ``__version__ = "..."`` its ``__init__.py`` spells, read without importing it: the probe's parent
    imports neither torch nor the library."""
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        pass
    return _spelled_version(dist, "")


def _spelled_version(module: str, file: str) -> str:
    """The ``__version__ = "..."`` that ``file`` beside ``module``'s ``__init__.py`` spells (the ``__init__.py``
    itself when ``file`` is ""), read without importing anything; "" when there is none."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.origin or not os.path.isfile(spec.origin):
        return ""
    path = os.path.join(os.path.dirname(spec.origin), file) if file else spec.origin
    try:
        with open(path, encoding="utf-8", errors="replace") as source:
            found = _VERSION_LINE.search(source.read())
    except OSError:
        return ""
    return found.group(1) if found else ""


def torch_version() -> str:
    """torch's own ``torch.__version__`` (``2.9.1+cu128``), read from ``torch/version.py`` without importing
    torch. The default builds' distribution metadata says ``2.9.1``, while the snapshot's header, written by a
    process that imported torch, says ``2.9.1+cu128``: the parent compares the two to decide what it may
    reuse, and before this read the metadata, so no result measured under a default build was ever reused."""
    return _spelled_version("torch", "version.py") or _version("torch")


def tool_versions() -> dict[str, str]:
    """Versions that decide what a probe measures, as the header of a snapshot spells them (cheap: no torch
    import)."""
    return {"torch": torch_version()} | {name: _version(name) for name in ("onnx", "onnxruntime", "onnxscript")} | {
        "python": platform.python_version()}


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _nvidia_driver() -> str | None:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20, check=True).stdout.strip()
        return out.splitlines()[0].strip() if out else None
    except (OSError, subprocess.SubprocessError):
        return None


def device_name(device: str) -> str:
    """What kind of machine computes on ``device``: the CPU's model, or the GPU's name (the header's
    ``device_name``; an eager digest names it too: measure/eager_digest.py)."""
    if device == CUDA:
        import torch

        return str(torch.cuda.get_device_name(0))
    return cpu_model()


def device_environment(device: str, opset: int) -> dict[str, Any]:
    """The header entry for ``device``, read in the process that probes it."""
    import onnx
    import onnxruntime
    import onnxscript
    import torch

    from .onnx_runtime import onnx_provider

    env: dict[str, Any] = {
        "torch": str(torch.__version__), "onnx": str(onnx.__version__), "onnxruntime": onnxruntime.__version__,
        "onnxscript": onnxscript.__version__, "python": platform.python_version(),
        "platform": platform.platform(), "device_name": device_name(device), "cuda": None, "driver": None,
        "onnxruntime_provider": onnx_provider(device, onnxruntime), "opset": int(opset), "probed_at": utc_now(),
    }
    if device == CUDA:
        env["cuda"] = torch.version.cuda
        env["driver"] = _nvidia_driver()
    return env


def cuda_available() -> bool:
    import torch

    return bool(torch.cuda.is_available())


def _git(directory: str, *args: str) -> str:
    return subprocess.run(["git", "-C", directory, *args], capture_output=True, text=True, timeout=30,
                          check=True).stdout.strip()


def library_info(name: str, directory: str) -> dict[str, str]:
    """``{"name", "version", "revision"}``; revision = git commit (+"-dirty") of a checkout, else the version."""
    version = ""
    if name:
        try:
            version = _version(name)
        except Exception:  # not installed as a distribution and no __version__: leave it empty
            version = ""
    revision = version
    if directory and os.path.isdir(directory):
        try:
            # only a package tracked by the checkout counts: a venv inside a repo is not the library's checkout
            _git(directory, "ls-files", "--error-unmatch", os.path.join(directory, "__init__.py"))
            revision = _git(directory, "rev-parse", "--short", "HEAD")
            if _git(directory, "status", "--porcelain", "--", directory):
                revision += "-dirty"
        except (OSError, subprocess.SubprocessError):
            pass
    return {"name": name, "version": version, "revision": revision}
