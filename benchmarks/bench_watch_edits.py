"""Benchmark: whether two versions of the code watch lead a rerun to the same decisions on real library edits.

    PYTHONPATH=.:KORNIA python benchmarks/bench_watch_edits.py record --out NEW.json
    PYTHONPATH=OLD_PROBE:KORNIA python benchmarks/bench_watch_edits.py record --out OLD.json
    PYTHONPATH=.:KORNIA python benchmarks/bench_watch_edits.py compare OLD.json NEW.json --checkout KORNIA

``record`` runs a few kornia operators as a worker's steps run them, under the code watch of whichever
``sphinx_kexport`` is first on the path (``OLD_PROBE``: an older probe's files, ``git archive`` of its
commit): the eager call, ``torch.export.export`` and a ``fullgraph=True`` compile (the watch paused, as the
worker pauses it there); each case its own :meth:`CodeWatch.start`. It writes each case's ``{ref: digest}``.

``compare`` says whether the two records name the same refs, then copies the checkout, makes three edits
in the copy, one at a time (``EDITS``: a helper that several cases share, a file no case runs, a comment in a
function that every case runs), and prints which cases each record would measure again
(:class:`CodeCheck`: a ref whose digest moved), and whether the two agree.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

_SHAPE = ("def KORNIA_CHECK_SHAPE(x: torch.Tensor, shape: list[str], msg: Optional[str] = None, "
          "raises: bool = True) -> bool:\n")
_KS = "def _unpack_2d_ks(kernel_size: tuple[int, int] | int) -> tuple[int, int]:\n"
# (file under the library, text to find, its replacement): what each edit changes
EDITS = {
    "a shared helper": ("kornia/filters/kernels.py", _KS, _KS + "    kernel_size = kernel_size\n"),
    "an unrelated file": ("kornia/contrib/face_detection.py", "\nclass FaceDetector(",
                          "\nUNRELATED = 1\n\n\nclass FaceDetector("),
    "a comment": ("kornia/core/check.py", _SHAPE, _SHAPE + "    # a comment\n"),
}


def cases() -> dict[str, tuple[Callable[..., Any], tuple[Any, ...]]]:
    import kornia
    import torch

    x = torch.rand(1, 3, 16, 16)
    return {
        "gaussian_blur2d": (lambda t: kornia.filters.gaussian_blur2d(t, (5, 5), (1.5, 1.5)), (x,)),
        "GaussianBlur2d": (kornia.filters.GaussianBlur2d((3, 3), (1.0, 1.0)), (x,)),
        "box_blur": (lambda t: kornia.filters.box_blur(t, (3, 3)), (x,)),
        "median_blur": (lambda t: kornia.filters.median_blur(t, (3, 3)), (x,)),
        "sobel": (kornia.filters.sobel, (x,)),
        "rgb_to_hsv": (kornia.color.rgb_to_hsv, (x,)),
        "adjust_brightness": (lambda t: kornia.enhance.adjust_brightness(t, 0.1), (x,)),
        "resize": (lambda t: kornia.geometry.transform.resize(t, (8, 8)), (x,)),
        "ColorJiggle": (kornia.augmentation.ColorJiggle(0.1, 0.1, 0.1, 0.1, p=1.0), (x,)),
    }


class _Module:
    def __init__(self, function: Callable[..., Any]):
        import torch

        class Wrapped(torch.nn.Module):
            def forward(self, *args: Any) -> Any:
                return function(*args)

        self.module = Wrapped()


def record(out: Path) -> None:
    import kornia
    import torch

    from sphinx_kexport.probe.base.code_digest import CodePlaces
    from sphinx_kexport.probe.measure.code_watch import CodeWatch

    folder = str(Path(kornia.__file__).resolve().parent)
    watch = CodeWatch(CodePlaces("kornia", folder, str(Path.cwd())), [folder])
    found = {}
    for name, (function, inputs) in cases().items():
        torch._dynamo.reset()
        module = function if isinstance(function, torch.nn.Module) else _Module(function).module
        watch.start()
        try:
            function(*inputs)
            try:
                torch.export.export(module, inputs)
            except Exception as exc:  # a case that does not export still ran what it ran
                print(f"{name}: torch.export: {type(exc).__name__}")
            watch.lines(False)
            try:
                torch.compile(function, fullgraph=True, backend="eager")(*inputs)
            except Exception as exc:
                print(f"{name}: torch.compile: {type(exc).__name__}")
            watch.lines(True)
            found[name] = watch.code()
        finally:
            watch.stop()
    out.write_text(json.dumps(found, indent=1, sort_keys=True))
    print(f"{len(found)} cases, {sum(len(c) for c in found.values())} refs, written to {out}")


def compare(old: Path, new: Path, checkout: Path) -> int:
    from sphinx_kexport.probe.base.code_digest import CodeCheck, CodePlaces

    records = {"old": json.loads(old.read_text()), "new": json.loads(new.read_text())}
    same = True
    for name in sorted(set(records["old"]) | set(records["new"])):
        a, b = records["old"].get(name, {}), records["new"].get(name, {})
        if a != b:
            same = False
            print(f"{name}: only the old watch: {sorted(set(a) - set(b))}; only the new: {sorted(set(b) - set(a))}"
                  + ("; digests differ" if set(a) == set(b) else ""))
    print(f"the same refs and digests for every case: {'yes' if same else 'no'} ({len(records['new'])} cases)")
    agree = True
    for edit, (file, before, after) in EDITS.items():
        with tempfile.TemporaryDirectory(prefix="kexport-edit-") as tmp:
            copy = Path(tmp) / "kornia"
            shutil.copytree(checkout / "kornia", copy)
            text = (copy.parent / file).read_text()
            if before not in text:
                raise SystemExit(f"{file} of {checkout} has no {before!r}: the edit {edit!r} needs another text")
            (copy.parent / file).write_text(text.replace(before, after, 1))
            check = CodeCheck(CodePlaces("kornia", str(copy), tmp))
            decided = {label: sorted(name for name, code in found.items() if check.changed(code))
                       for label, found in records.items()}
        agree = agree and decided["old"] == decided["new"]
        print(f"{edit} ({file}): measured again, old watch {len(decided['old'])} {decided['old']}; "
              f"new watch {len(decided['new'])} {decided['new']}")
    print(f"the same decisions: {'yes' if agree else 'no'}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("record").add_argument("--out", type=Path, required=True)
    comparing = sub.add_parser("compare")
    comparing.add_argument("old", type=Path)
    comparing.add_argument("new", type=Path)
    comparing.add_argument("--checkout", type=Path, required=True, help="the library's checkout (copied)")
    args = parser.parse_args()
    if args.command == "record":
        record(args.out)
        return 0
    return compare(args.old, args.new, args.checkout)


if __name__ == "__main__":
    sys.exit(main())
