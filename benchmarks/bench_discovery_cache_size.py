"""Benchmark: the discovery cache's size per file, this checkout against an earlier commit, and what loading costs.

    PYTHONPATH=KORNIA KORNIA_SOURCE=KORNIA python benchmarks/bench_discovery_cache_size.py --base b1259b5 \\
        --package kornia.models [--package kornia.feature ...] [--keep DIR]

(KORNIA: a kornia checkout, first on the path so that it is the one discovered.) For each checkout (the base
is written out with ``git archive`` into a folder of its own), each package is discovered once into an empty
discovery cache of that checkout's own (``discover PACKAGE --no-cases``, a fresh interpreter under
``/usr/bin/time``), then loaded from it in another fresh interpreter, which prints every case's fingerprint
(its weights and baked values included) and the digests of its inputs. The table gives each cache file's
size, what its blobs hold (this checkout's: storages as bytes, weights built again from a module's
recipe), the wall seconds and peak memory of the discovery and of the load, and whether the two checkouts'
loads give the same cases bit for bit.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

LOAD = '''
import hashlib, json, sys, time
began = time.monotonic()
import torch
from sphinx_kexport.probe.discover.docstrings.docstrings import discover
from sphinx_kexport.probe.cases.fingerprint import case_definition
from sphinx_kexport.probe.base.reuse.decide import fingerprint
found = discover(sys.argv[1])
seconds = time.monotonic() - began
def digest(t):
    t = t.detach().contiguous()
    return hashlib.sha256(t.view(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b"").hexdigest()
cases = {c.name: [fingerprint(case_definition(c), "cpu", 18, "1.0", {"torch": "x"}),
                  [digest(t) for t in c.inputs if isinstance(t, torch.Tensor)]] for c in found.cases}
print(json.dumps({"seconds": seconds, "ran": found.examples_run, "cases": cases, "note": found.cache}))
'''


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[str, float, float]:
    """(stdout, wall seconds, peak resident MB) of one fresh interpreter."""
    began = time.monotonic()
    child = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = child.stdout.read() if child.stdout is not None else ""
    _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command[:5])} failed in {cwd} (exit {os.waitstatus_to_exitcode(status)})")
    return out, time.monotonic() - began, usage.ru_maxrss / 1024


def measure(checkout: Path, package: str, cache: Path) -> dict:
    env = dict(os.environ, KEXPORT_DISCOVERY_CACHE=str(cache),
               PYTHONPATH=os.pathsep.join(filter(None, (os.environ.get("PYTHONPATH", ""), str(checkout)))))
    _, discover_s, discover_mb = timed([sys.executable, "-m", "sphinx_kexport.probe", "discover", package,
                                        "--no-cases"], checkout, env)
    out, load_s, load_mb = timed([sys.executable, "-c", LOAD, package], checkout, env)
    loaded = json.loads(out.strip().splitlines()[-1])
    files = {path.name: path.stat().st_size for path in cache.glob(f"{package}-*.pickle")}
    summary = subprocess.run([sys.executable, "-c", "import pickle, sys\nwith open(sys.argv[1], 'rb') as f:\n"
                              " f.read(8); n = int.from_bytes(f.read(8), 'little')\n"
                              " print(getattr(pickle.loads(f.read(n)), 'storages', {}))", *map(str, cache.glob(
                                  f"{package}-*.pickle"))], cwd=checkout, env=env, capture_output=True, text=True)
    return {"files": files, "storages": summary.stdout.strip(), "discover": (discover_s, discover_mb),
            "load": (load_s, load_mb, loaded["seconds"], loaded["ran"]), "cases": loaded["cases"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the earlier commit to compare with")
    parser.add_argument("--package", action="append", required=True)
    parser.add_argument("--keep", type=Path, help="keep the caches in this folder")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="kexport-cache-size-")) if args.keep is None else args.keep
    base = scratch / "base-checkout"
    if not base.exists():
        base.mkdir(parents=True)
        archive = subprocess.run(["git", "archive", args.base], cwd=REPO, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)
    print("| package | checkout | file | MB | blobs | discover s / MB | load s / MB (discover() s, examples run) |")
    print("|---|---|---|---|---|---|---|")
    for package in args.package:
        results = {}
        for label, checkout in (("base", base), ("head", REPO)):
            results[label] = result = measure(checkout, package, scratch / f"cache-{label}")
            for name, size in result["files"].items():
                print(f"| {package} | {label} | {name} | {size / 1e6:.1f} | {result['storages'] or '-'} | "
                      f"{result['discover'][0]:.1f} / {result['discover'][1]:.0f} | {result['load'][0]:.1f} / "
                      f"{result['load'][1]:.0f} ({result['load'][2]:.1f}, {result['load'][3]}) |")
        same = results["base"]["cases"] == results["head"]["cases"]
        print(f"{package}: {len(results['head']['cases'])} cases; the two loads give the same cases bit for bit: "
              f"{same}")


if __name__ == "__main__":
    main()
