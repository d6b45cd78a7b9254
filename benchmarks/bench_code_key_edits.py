"""What the code key re-probes on a library's real commits: syntax digests against text digests, and a file's
whole top level against the names its functions read.

    python benchmarks/bench_code_key_edits.py SNAPSHOT LIBRARY_CHECKOUT [--commits N] [--library kornia]

For each of the last N commits of the checkout that touched the library's ``.py`` files, the files it changed
are read before and after it, and each function and file top level the snapshot's ``code`` table names is
digested three ways: as the probe does (the syntax tree: comments, docstrings and formatting ignored), as the
text of the function, and as the whole file's text. A case is re-probed under a scheme when a ref of its code
set changed under it. The first two schemes count a file's whole top level for each file a case ran a function
of; "names read" (the probe's rule since 6 December 2026) counts only the top-level names those functions read
and what binds them, and the statements that bind no name (``FileDigests.globals_of``). The table gives, per commit,
the cases each scheme would measure again, and the totals:
how many fewer the syntax digests re-probe. (The commits are older than the snapshot: a ref counts by its name,
and a function the commit adds or removes counts as changed.)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sphinx_kexport.probe.base.code_digest import file_digests  # noqa: E402
from sphinx_kexport.snapshot.code_table import unpack  # noqa: E402


def git(checkout: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(checkout), *args], capture_output=True, text=True, check=False).stdout


def text_digests(source: str) -> tuple[str, dict[str, str]]:
    """(the file's text digest, each outermost function's text digest) by the same spans the probe uses."""
    lines = source.splitlines()
    found = file_digests(source)
    functions: dict[str, str] = {}
    for first, last, name in found.spans:
        functions[name] = hashlib.sha256("\n".join(lines[first - 1:last]).encode()).hexdigest()
    return hashlib.sha256(source.encode()).hexdigest(), functions


def changed_refs(checkout: Path, commit: str, library: str) -> tuple[dict[str, set[str]], dict[str, tuple]]:
    """(scheme -> the refs (file, file::function) the commit changed under it, file -> its syntax digests before
    and after)."""
    files = [f for f in git(checkout, "diff", "--name-only", f"{commit}^", commit).split()
             if f.startswith(f"{library}/") and f.endswith(".py")]
    out: dict[str, set[str]] = {"syntax": set(), "function text": set(), "file text": set()}
    pairs: dict[str, tuple] = {}
    for file in files:
        before = git(checkout, "show", f"{commit}^:{file}")
        after = git(checkout, "show", f"{commit}:{file}")
        a, b = file_digests(before), file_digests(after)
        pairs[file] = (a, b)
        (ta, fa), (tb, fb) = text_digests(before), text_digests(after)
        names = set(a.functions) | set(b.functions)
        if a.top != b.top:
            out["syntax"].add(file)
        out["syntax"] |= {f"{file}::{n}" for n in names if a.functions.get(n) != b.functions.get(n)}
        # text: a function's own lines, the top level as the file's text outside every function
        if ta != tb:
            out["file text"].add(file)
            top_a = [line for i, line in enumerate(before.splitlines(), 1)
                     if not any(s <= i <= e for s, e, _ in a.spans)]
            top_b = [line for i, line in enumerate(after.splitlines(), 1)
                     if not any(s <= i <= e for s, e, _ in b.spans)]
            if top_a != top_b:
                out["function text"].add(file)
        out["function text"] |= {f"{file}::{n}" for n in names if fa.get(n) != fb.get(n)}
    return out, pairs


def reprobed_by_names(code: set[str], pairs: dict[str, tuple]) -> bool:
    """Whether a case whose code set is ``code`` is measured again under the probe's rule: a function it ran
    changed, or what those functions read from their file's top level did."""
    for file, (a, b) in pairs.items():
        functions = {ref.split("::", 1)[1] for ref in code if ref.startswith(file + "::")}
        functions = {f for f in functions if not f.startswith(("global ", "<"))}
        if not functions:
            continue
        if any(a.functions.get(f) != b.functions.get(f) for f in functions) or \
                a.globals_of(functions) != b.globals_of(functions):
            return True
    return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("snapshot", type=Path)
    parser.add_argument("checkout", type=Path)
    parser.add_argument("--commits", type=int, default=30)
    parser.add_argument("--library", default="kornia")
    args = parser.parse_args()
    snapshot = json.loads(args.snapshot.read_text())
    table = unpack(snapshot.get("code"))
    sets = {c["name"]: set(table[s["code"]]) for c in snapshot["cases"]
            for s in c.get("measured", {}).values() if s.get("code") in table}
    if not sets:
        raise SystemExit(f"{args.snapshot} has no code table: survey with this probe first")
    commits = git(args.checkout, "log", f"-{args.commits}", "--format=%h %s", "--", args.library).splitlines()
    schemes = ("names read", "syntax", "function text", "file text")
    totals = dict.fromkeys(schemes, 0)
    print(f"{len(sets)} cases with code sets; the last {len(commits)} commits touching {args.library}/\n")
    print(f"{'commit':<11}{'names':>7}{'syntax':>8}{'fn text':>9}{'file':>7}  subject")
    for line in commits:
        commit, subject = line.split(" ", 1)
        changed, pairs = changed_refs(args.checkout, commit, args.library)
        counts = {"names read": sum(1 for code in sets.values() if reprobed_by_names(code, pairs))}
        totals["names read"] += counts["names read"]
        for scheme in schemes[1:]:
            refs = changed[scheme]
            files = {r.split("::")[0] for r in refs}
            if scheme == "file text":  # every case that ran anything of a changed file
                counts[scheme] = sum(1 for code in sets.values() if any(r.split("::")[0] in files for r in code))
            else:
                # a changed top level (a ref without ``::``) re-probes every case that ran a function of its file
                tops = {r for r in refs if "::" not in r}
                counts[scheme] = sum(1 for code in sets.values()
                                     if code & refs or {r.split("::")[0] for r in code} & tops)
            totals[scheme] += counts[scheme]
        print(f"{commit:<11}{counts['names read']:>7}{counts['syntax']:>8}{counts['function text']:>9}"
              f"{counts['file text']:>7}  {subject[:70]}")
    print(f"\ntotal re-probed: names read {totals['names read']}, syntax {totals['syntax']}, "
          f"function text {totals['function text']}, file text {totals['file text']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
