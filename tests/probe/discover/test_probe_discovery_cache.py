"""The discovery cache: a rerun loads the docstring cases instead of running the examples, and loads them equal.

Each test runs the real discovery in fresh processes (as the probe's parent
and workers do) with its own cache directory, and compares what a fresh
discovery gives with what the cache gives: names, refs, notes, code, checks,
baked arguments, the input tensors' bytes, the skip records and the
fingerprints. Example runs are counted by wrapping ``run_example``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from probe_cli import probe_cli

pytestmark = pytest.mark.probe
torch = pytest.importorskip("torch")

REPO = Path(__file__).resolve().parents[3]
TESTS = REPO / "tests" / "probe"

COUNT_RUNS = '''
import hashlib, json, re, sys
import sphinx_kexport.probe.discover.docstrings.docstrings as D
from sphinx_kexport.probe.cases.fingerprint import case_definition
from sphinx_kexport.probe.base.reuse.decide import fingerprint

ran = []  # the examples that ran
original = D.run_example
def counting(test, *args, **kwargs):
    ran.append(test.name)
    return original(test, *args, **kwargs)
D.run_example = counting
'''

DUMP = COUNT_RUNS + '''
from sphinx_kexport.probe.cases.fingerprint import case_definition
from sphinx_kexport.probe.base.reuse.decide import fingerprint

package, limit = sys.argv[1], float(sys.argv[2])
torch = __import__("torch")
torch.manual_seed(123)
found = D.discover(package, time_limit=limit)
after = torch.rand(4).tolist()  # the global random state the code after the call sees

def text(value):  # an object's address differs in every process, cached or not
    return re.sub(r" at 0x[0-9a-fA-F]+", "", value)

def raw(t):
    t = t.detach().contiguous()
    return [str(t.dtype), list(t.shape), list(t.stride()),
            hashlib.sha256(t.view(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b"").hexdigest()]

cases = [{"name": c.name, "ref": c.ref, "package": c.package, "section": c.section, "note": text(c.note),
          "code": c.code, "check": c.check, "kwargs": text(repr(sorted(c.kwargs.items()))), "target": type(c.target).__qualname__,
          "inputs": [raw(t) for t in c.inputs], "fingerprint": fingerprint(case_definition(c), "cpu", 18, "1.0", {"torch": "x"})}
         for c in found.cases]
objects = [[r.ref, r.skip, r.detail, r.dropped, [c.name for c in r.cases]] for r in found.objects]
print(json.dumps({"cases": cases, "objects": objects, "ran": ran, "cache": found.cache, "after": after}))
'''


def discover_in_process(package: str, cache: str, *paths: Path, limit: float = 5.0) -> dict:
    env = dict(os.environ, KEXPORT_DISCOVERY_CACHE=cache,
               PYTHONPATH=os.pathsep.join([str(REPO), str(TESTS), *map(str, paths)]))
    done = subprocess.run([sys.executable, "-c", DUMP, package, str(limit)], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def same_result(first: dict, second: dict) -> None:
    assert first["cases"] == second["cases"]
    assert first["objects"] == second["objects"]
    assert first["after"] == second["after"]


def test_doclib_loads_from_the_cache_equal_to_a_fresh_discovery_without_running_an_example(tmp_path):
    cache = tmp_path / "cache"
    stored = discover_in_process("probe_cases.doclib", str(cache), limit=2)  # a fresh discovery, stored
    loaded = discover_in_process("probe_cases.doclib", str(cache), limit=2)
    assert len(stored["ran"]) == 12
    assert stored["cache"].startswith(f"ran the examples and stored them in the discovery cache {cache}")
    assert loaded["cache"].startswith(f"loaded from the discovery cache {cache}")
    assert loaded["ran"] == []  # not one example ran: the `slow` one alone takes the 2 s limit
    same_result(stored, loaded)
    names = {c["name"] for c in loaded["cases"]}
    assert names == {"Scaler[doc]", "blur_then_scale[doc]", "jitter[doc]", "mix[doc]", "scale[doc]", "shift[doc]",
                     "scale[doc 2]", "checked[doc]"}
    skips = {ref.rsplit(".", 1)[1]: skip for ref, skip, *_ in loaded["objects"] if skip}
    assert skips == {"broken": "raised", "fetch_weights": "download", "make_ramp": "no tensor call",
                     "slow": "time limit", "refuse": "raised", "misaligned": "unparsable"}
    # the records `discover` prints come from the cache too: the download is not tried again
    assert [p.name for p in cache.iterdir()] == [Path(loaded["cache"].split(" ")[5]).name]


def test_a_kornia_subpackage_loads_equal_to_a_fresh_discovery(tmp_path):
    pytest.importorskip("kornia")
    cache = tmp_path / "cache"
    stored = discover_in_process("kornia.morphology", str(cache), limit=60)  # a fresh discovery, stored
    loaded = discover_in_process("kornia.morphology", str(cache), limit=60)
    assert len(stored["cases"]) >= 8 and len(stored["ran"]) >= 8
    assert loaded["ran"] == [] and loaded["cache"].startswith("loaded from")
    same_result(stored, loaded)


LIBRARY = '''
import torch


def apply(x, fn):
    """Apply ``fn``.

    >>> apply(torch.ones(2), fn=lambda t: t * 2)
    tensor([2., 2.])
    """
    return fn(x)


def blend(alpha, a):
    """A tensor that is not the leading parameter.

    >>> blend(0.5, torch.ones(2))
    tensor([0.5000, 0.5000])
    """
    return alpha * a


class Gate(torch.nn.Module):
    """A module called with its tensor after a Python value (a keyword adapter module).

    >>> gate = Gate()
    >>> gate(2.0, torch.ones(1, 3))
    tensor([[1.7616, 1.7616, 1.7616]])
    """

    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.rand(3))

    def forward(self, gain, x):
        return torch.sigmoid(self.weight * 0 + gain) * x * 2


class Opts:
    """Options whose pickling forgets their level: pickled, they come back as another case."""

    def __init__(self, level=1):
        self.level = level

    def __repr__(self):
        return f"Opts(level={self.level})"

    def __deepcopy__(self, memo):  # copied whole (the recorder copies arguments) ...
        return Opts(self.level)

    def __reduce__(self):  # ... but pickled without its level
        return Opts, ()


def tune(x, opts):
    """A baked argument that does not come back equal from pickle.

    >>> tune(torch.ones(2), Opts(3))
    tensor([3., 3.])
    """
    return x * opts.level


def metric(x, y):
    """A metric function.

    >>> metric(torch.ones(2), torch.zeros(2))
    tensor(2.)
    """
    return (x - y).abs().sum()


class MetricLoss(torch.nn.Module):
    """Binds the library's function when built, as piq's losses do: while the example ran, that name was
    the recorder's stand-in, which must still pickle (as the function it stands for).

    >>> loss = MetricLoss()
    >>> loss(torch.ones(2), torch.zeros(2))
    tensor(2.)
    """

    def __init__(self):
        super().__init__()
        self.metric = metric

    def forward(self, x, y):
        return self.metric(x, y)


def twice(x):
    """Two calls, named after the ones before.

    >>> y = apply(torch.ones(3), fn=abs)
    >>> twice(y).shape
    torch.Size([3])
    """
    return 2 * x
'''


def write_library(root: Path, name: str, text: str) -> Path:
    (root / name).mkdir(parents=True, exist_ok=True)
    (root / name / "__init__.py").write_text(textwrap.dedent(text))
    return root


def test_examples_whose_cases_do_not_pickle_run_again_alone_with_the_same_names(tmp_path):
    lib = write_library(tmp_path / "lib", "cachelib_kx", LIBRARY)
    cache = tmp_path / "cache"
    stored = discover_in_process("cachelib_kx", str(cache), lib)  # a fresh discovery, stored
    loaded = discover_in_process("cachelib_kx", str(cache), lib)
    assert "2 example(s) will run again: their cases do not pickle" in stored["cache"]
    # the lambda baked into apply's call does not pickle; tune's Opts(3) comes back as Opts(1)
    assert loaded["ran"] == ["cachelib_kx.apply", "cachelib_kx.tune"]
    assert "ran again the 2 example(s) whose cases do not pickle" in loaded["cache"]
    same_result(stored, loaded)
    cases = {c["name"]: c for c in loaded["cases"]}
    assert set(cases) == {"apply[doc]", "apply[doc 2]", "blend[doc]", "Gate[doc]", "tune[doc]", "twice[doc]",
                          "metric[doc]", "MetricLoss[doc]"}
    assert "opts=Opts(level=3) baked" in cases["tune[doc]"]["note"]
    assert cases["apply[doc 2]"]["note"].startswith("from the docstring example of `cachelib_kx.twice`")
    assert cases["Gate[doc]"]["target"] == "_keyword_module_class.<locals>.KeywordModuleCall"  # pickled and back
    assert cases["blend[doc]"]["target"] == "KeywordCall"


def test_an_edit_to_the_library_runs_again_only_the_examples_that_ran_what_changed(tmp_path):
    lib = write_library(tmp_path / "lib", "editlib_kx", LIBRARY)
    cache = tmp_path / "cache"
    first = discover_in_process("editlib_kx", str(cache), lib)
    always = ["editlib_kx.apply", "editlib_kx.tune"]  # their cases do not pickle: they run on every load
    (lib / "editlib_kx" / "helpers.py").write_text("# a new file in the library\n")
    new_file = discover_in_process("editlib_kx", str(cache), lib)
    assert new_file["cache"].startswith("the library's code changed: ran again the 2 example(s)")
    assert new_file["ran"] == always
    same_result(first, new_file)
    init = lib / "editlib_kx" / "__init__.py"
    init.write_text(init.read_text().replace('    """Two calls, named after the ones before.',
                                             '    # a comment\n    """Two calls, named after those before.'))
    assert discover_in_process("editlib_kx", str(cache), lib)["ran"] == always  # a comment and a docstring
    init.write_text(init.read_text().replace("    return 2 * x", "    return x + x"))
    edited = discover_in_process("editlib_kx", str(cache), lib)
    # twice's example runs twice(); apply's example never does, nor any other example
    assert sorted(edited["ran"]) == sorted(always + ["editlib_kx.twice"])
    same_result(first, edited)
    fresh = discover_in_process("editlib_kx", str(tmp_path / "fresh-cache"), lib)
    same_result(fresh, edited)  # what a discovery from nothing finds
    assert len(list(cache.glob("editlib_kx-*.pickle"))) == 1  # one file per package and arguments
    other_limit = discover_in_process("editlib_kx", str(cache), lib, limit=7.0)
    assert other_limit["cache"].startswith("ran the examples")  # the arguments are part of the key
    assert len(list(cache.glob("editlib_kx-*.pickle"))) == 2


def test_the_key_covers_the_discovery_code_and_the_versions(monkeypatch, tmp_path):
    from sphinx_kexport.probe.discover import cache as discovery_cache

    names = {p.name for p in discovery_cache.discovery_code_files()}  # what docstrings.py imports, transitively
    assert {"docstrings.py", "docstring_run.py", "docstring_cases.py", "recording.py", "call_replay.py", "randomness.py",
            "repro_source.py", "registry.py", "cache.py", "sandbox.py", "network.py", "errors.py",
            "output_leaves.py", "batch_dim.py"} <= names
    assert "call_source.py" not in names  # the repro snippet is written when the snapshot is, not cached
    assert "compare_outputs.py" not in names  # how captured outputs are compared with eager is not discovery's
    tests_names = {p.name for p in discovery_cache.discovery_code_files("suite/suite.py")}
    assert {"suite_cases.py", "literals.py", "slicer.py", "sandbox.py"} <= tests_names and "call_source.py" not in tests_names
    key = discovery_cache.cache_key("probe_cases.doclib", [], ["x"], 2.0)
    assert key["exclude"] == ["x"] and key["time_limit"] == 2.0 and key["versions"]["torch"] == torch.__version__
    assert key["versions"]["python"] == sys.version and key["library_source"]  # in the file, for docstrings
    assert discovery_cache.cache_key("no_such_library_kx", [], [], 2.0) is None  # nothing to hash: not cached
    monkeypatch.setenv("KEXPORT_DISCOVERY_CACHE", "OFF")
    assert discovery_cache.cache_dir() is None
    monkeypatch.setenv("KEXPORT_DISCOVERY_CACHE", str(tmp_path / "here"))
    assert discovery_cache.cache_dir() == tmp_path / "here"
    monkeypatch.delenv("KEXPORT_DISCOVERY_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert discovery_cache.cache_dir() == tmp_path / "xdg" / "sphinx-kexport" / "discovery"


def run_cli(args: list[str], cwd: Path, cache: Path, *paths: Path) -> subprocess.CompletedProcess:
    """The probe command; a survey runs in this process (probe_cli.py), ``discover`` (which runs the examples
    itself) in a fresh interpreter."""
    env = dict(os.environ, KEXPORT_DISCOVERY_CACHE=str(cache),
               PYTHONPATH=os.pathsep.join([str(REPO), str(TESTS), *map(str, paths)]))
    if args[0] != "discover":
        return probe_cli(*args, cwd=cwd, env=env)
    return subprocess.run([sys.executable, "-m", "sphinx_kexport.probe", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def test_discover_says_whether_it_used_the_cache_and_fresh_runs_the_examples(tmp_path):
    cache = tmp_path / "cache"
    args = ["discover", "probe_cases.doclib", "--no-cases", "--time-limit", "2"]
    first, second, fresh = (run_cli(a, tmp_path, cache) for a in (args, args, args + ["--fresh"]))
    for done in (first, second, fresh):
        assert done.returncode == 0, done.stderr
    assert "ran the examples and stored them in the discovery cache" in first.stdout
    assert "loaded from the discovery cache" in second.stdout
    assert "ran the examples and stored them in the discovery cache" in fresh.stdout
    listing = first.stdout.split("\n\n")[0]  # every object with its cases or why none (the totals follow)
    assert listing.count("\n") >= 15 and listing == second.stdout.split("\n\n")[0]
    assert "probe_cases.doclib.slow: no case: it ran past the time limit" in second.stdout


COUNTED = '''
def double(x):
    """Double.

    >>> import os
    >>> _ = open(os.environ["KX_RUNS"], "a").write("ran ")
    >>> double(torch.ones(2))
    tensor([2., 2.])
    """
    return 2 * x
'''


def test_the_probe_reuses_the_cache_in_its_children_and_workers_and_rediscover_refreshes_it(tmp_path):
    pytest.importorskip("onnxruntime")
    lib = write_library(tmp_path / "lib", "countlib_kx", "import torch\n" + COUNTED)
    (tmp_path / "count_cases.py").write_text("from sphinx_kexport.probe import cases_from_docstrings\n"
                                             "CASES = cases_from_docstrings('countlib_kx')\n")
    runs = tmp_path / "runs.txt"
    os.environ["KX_RUNS"] = str(runs)
    try:
        base = ["--cases", "count_cases.py", "--library", "countlib_kx", "--out", "support.json", "--jobs", "1",
                "--no-dynamic"]
        counts, measured = [], []
        for extra in ([], [], ["--fresh"], ["--rediscover"]):
            done = run_cli(base + extra + ["--stats", "stats.json"], tmp_path, tmp_path / "cache", lib, tmp_path)
            assert done.returncode == 0, done.stdout + done.stderr
            counts.append(runs.read_text().count("ran") if runs.exists() else 0)
            measured.append(json.loads((tmp_path / "stats.json").read_text())["measured"])
    finally:
        del os.environ["KX_RUNS"]
    # --fresh measures every case again (the snapshot's results are not reused); --rediscover finds the same case
    assert measured == [1, 0, 1, 0]
    # the first run's inventory child ran the example and its worker loaded the case alone from the cache;
    # the rerun ran nothing; --fresh measured again from the cache, running nothing;
    # --rediscover ran it again (in the inventory child only)
    assert counts == [1, 1, 1, 2]
    snapshot = json.loads((tmp_path / "support.json").read_text())
    assert [c["name"] for c in snapshot["cases"]] == ["double[doc]"]


TWO_MODELS = '''
import os
import torch


class Traced(torch.nn.Module):
    """Says in a file each time it is unpickled."""

    def __setstate__(self, state):
        with open(os.environ["KX_UNPICKLED"], "a") as log:
            log.write(type(self).__name__ + "\\n")
        super().__setstate__(state)


class Big(Traced):
    """A model.

    >>> big = Big()
    >>> small = Small()
    >>> y = small(torch.ones(2, 3))
    >>> z = big(y)
    """

    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(3))

    def forward(self, x):
        return x * self.weight


class Small(Traced):
    """A preprocessor (its example is Big's)."""

    def forward(self, x):
        return x + 1
'''

LOAD_ONE = '''
import sys
from sphinx_kexport.probe.discover.docstrings.docstrings import discover, discovered_case
found = discover("twomodels_kx")
case = next(c for c in found.cases if c.name == sys.argv[1])
open(__import__("os").environ["KX_UNPICKLED"], "w").close()  # discovery's own round-trip check unpickled both
built = discovered_case(case.discovery, case.name)
print(built.name, type(built.target).__name__)
'''


def test_a_worker_unpickles_only_the_case_it_measures_not_the_others_of_its_example(tmp_path):
    """SigLip2Model's example makes a preprocessor case beside the 1.5 GB model's: the worker measuring the
    preprocessor must not load the model (it did, and peaked at 5.4 GB)."""
    lib = write_library(tmp_path / "lib", "twomodels_kx", TWO_MODELS)
    log = tmp_path / "unpickled.txt"
    env = dict(os.environ, KEXPORT_DISCOVERY_CACHE=str(tmp_path / "cache"), KX_UNPICKLED=str(log),
               PYTHONPATH=os.pathsep.join([str(REPO), str(lib)]))
    names = {}
    for wanted in ("Small[doc]", "Big[doc]"):
        done = subprocess.run([sys.executable, "-c", LOAD_ONE, wanted], env=env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        names[wanted] = (done.stdout.split(), log.read_text().split())
    assert names["Small[doc]"] == (["Small[doc]", "Small"], ["Small"])
    assert names["Big[doc]"] == (["Big[doc]", "Big"], ["Big"])


def test_storing_and_loading_hold_no_copy_of_the_tensors_bytes(tmp_path):
    # kornia.models' entry is 2 GB of pickles: held in memory until the file was written, they raised the
    # discovering child's peak from 5.7 to 7.0 GB; then each storage still passed through a bytes object on
    # the way in and out, and unpickling kept them all until it ended (SigLip2Model's worker: 3.0 GB to load
    # 1.5 GB of weights). tracemalloc sees Python's bytes objects, not torch's storages.
    import tracemalloc

    from sphinx_kexport.probe import case
    from sphinx_kexport.probe.discover.cache import DiscoveryCache, cache_key
    from sphinx_kexport.probe.discover.docstrings.docstrings import ObjectReport

    size = 32 << 20  # bytes of each case's input
    reports = [ObjectReport(f"lib.op{i}", cases=[case(f"op{i}[doc]", torch.neg, [torch.full((size // 4,), float(i))],
                                                      package="lib")]) for i in range(6)]
    shared = torch.arange(size // 4, dtype=torch.float32)
    reports.append(ObjectReport("lib.tied", cases=[case("tied[doc]", torch.add, [shared, shared[: size // 8]],
                                                        package="lib")]))
    store = DiscoveryCache(tmp_path, dict(cache_key("probe_cases.doclib", [], [], 2.0), package="lib"))
    tracemalloc.start()
    try:
        again = store.save(reports, [], 1.0, lambda spec: spec.name)
        _, stored_peak = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        stored = store.load()
        loaded = store.load_report(stored, stored.entries[4])
        _, loaded_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert again == 0 and 7 * size < store.path.stat().st_size < 8 * size  # the shared storage is written once
    assert stored_peak < size // 4, f"{stored_peak / size:.2f} inputs' worth of bytes held while storing 7"
    assert loaded_peak < size // 4, f"{loaded_peak / size:.2f} inputs' worth of bytes held while loading one"
    assert torch.equal(loaded.cases[0].inputs[0], reports[4].cases[0].inputs[0])
    tied = store.load_report(stored, stored.entries[6]).cases[0].inputs
    assert torch.equal(tied[0], shared) and torch.equal(tied[1], shared[: size // 8])
    assert tied[1].untyped_storage().data_ptr() == tied[0].untyped_storage().data_ptr()  # still one storage
    tied[0][0] = -1.0
    assert tied[1][0].item() == -1.0 and shared[0].item() == 0.0  # shared with each other, not with the original


def test_a_tensor_two_cases_of_one_example_share_is_stored_once_and_loaded_once(tmp_path):
    """SigLip2Model's example makes the model's case and its ``get_image_features``'s on the same weights: the
    cache held them once per case, and the inventory's child, which loads every case of the example, held
    kornia.models' weights twice (5.05 GB from the cache, 2.7 GB when the examples ran)."""
    from sphinx_kexport.probe import case
    from sphinx_kexport.probe.discover.cache import DiscoveryCache, cache_key
    from sphinx_kexport.probe.discover.docstrings.docstrings import ObjectReport

    size = 16 << 20
    weights = torch.arange(size // 4, dtype=torch.float32)
    report = ObjectReport("lib.model", cases=[
        case("model[doc]", torch.add, [torch.ones(4), weights[:4]], package="lib"),
        case("model.features[doc]", torch.mul, [weights], package="lib")])
    store = DiscoveryCache(tmp_path, dict(cache_key("probe_cases.doclib", [], [], 2.0), package="lib"))
    assert store.save([report], [], 1.0, lambda spec: spec.name) == 0
    assert size < store.path.stat().st_size < 2 * size  # the weights once
    stored = store.load()
    both = store.load_report(stored, stored.entries[0]).cases
    assert both[0].inputs[1].untyped_storage().data_ptr() == both[1].inputs[0].untyped_storage().data_ptr()
    assert torch.equal(both[1].inputs[0], weights) and torch.equal(both[0].inputs[1], weights[:4])
    alone = store.load_report(stored, stored.entries[0], only="model.features[doc]").cases  # a worker's load
    assert len(alone) == 1 and torch.equal(alone[0].inputs[0], weights)


AFTER_OTHER_WORK = '''
import json, sys
sys.argv[1:] = ["probe_cases.tuplelib", "5"]
from probe_cases.tuplelib import Grid
Grid(2, 1.0).peaks()  # what ran before in this process: a rerun of the example would see another input
exec(compile(open(__import__("os").environ["KEXPORT_DUMP"]).read(), "dump", "exec"))
'''


def test_a_tuple_subclass_built_from_other_arguments_is_stored_and_a_rerun_loads_the_same_input(tmp_path):
    """e3nn's SphericalTensor(lmax, p_val, p_arg) is a tuple that pickle rebuilds by calling its class with its
    items, which its constructor refuses: with_peaks_at's example ran again at every load, in a process that had
    run other things, and its input (from lstsq) came out other in its last bits: signal_xyz[doc 3] was measured
    again at reruns with nothing changed. Stored as its items and attributes, it loads as it was made."""
    cache = tmp_path / "cache"
    stored = discover_in_process("probe_cases.tuplelib", str(cache))
    dump = tmp_path / "dump.py"
    dump.write_text(DUMP)
    env = dict(os.environ, KEXPORT_DISCOVERY_CACHE=str(cache), KEXPORT_DUMP=str(dump),
               PYTHONPATH=os.pathsep.join([str(REPO), str(TESTS)]))
    done = subprocess.run([sys.executable, "-c", AFTER_OTHER_WORK], env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert [c["name"] for c in stored["cases"]] == ["Grid.peaks[doc]", "Grid.apply[doc]"]
    assert loaded["cache"].startswith("loaded from the discovery cache") and "ran again" not in loaded["cache"]
    assert loaded["ran"] == []  # the example did not run again
    same_result(stored, loaded)  # the same input bytes and fingerprints


WEIGHTS = '''
import torch


class Net(torch.nn.Module):
    """A model built with random weights (2 MiB).

    >>> net = Net(256)
    >>> y = net(torch.ones(2, 256))
    """

    def __init__(self, width):
        super().__init__()
        self.fc = torch.nn.Linear(width, 2048)

    def forward(self, x):
        return self.fc(x)


class Tuned(Net):
    """A model whose weights change after it is built.

    >>> tuned = Tuned(256)
    >>> _ = tuned.fc.weight.data.mul_(2)
    >>> y = tuned(torch.ones(2, 256))
    """


def scale(x):
    """A 2 MiB input.

    >>> y = scale(torch.full((512, 1024), 0.5))
    """
    return x * 2


def shift(x):
    """The same input, built by another example.

    >>> y = shift(torch.full((512, 1024), 0.5))
    """
    return x + 1


def add(a, b):
    """Two inputs with the same bytes, two tensors all the same.

    >>> y = add(torch.zeros(512, 1024), torch.zeros(512, 1024))
    """
    return a + b
'''

WEIGHTS_DUMP = COUNT_RUNS + '''
from sphinx_kexport.probe.discover.cache import DiscoveryCache

found = D.discover(sys.argv[1])

def raw(t):
    return hashlib.sha256(t.detach().contiguous().view(-1).view(__import__("torch").uint8).numpy().tobytes()).hexdigest()

cases = {c.name: {"inputs": [raw(t) for t in c.inputs],
                  "weights": {k: raw(v) for k, v in c.target.state_dict().items()} if hasattr(c.target, "state_dict") else {},
                  "storages": len({t.untyped_storage().data_ptr() for t in c.inputs})} for c in found.cases}
store = DiscoveryCache.open(sys.argv[1], [], [], D.DEFAULT_TIME_LIMIT, per_example=True)
print(json.dumps({"cases": cases, "ran": ran, "cache": found.cache, "storages": getattr(store.load(), "storages", None)}))
'''


def weights_discovery(cache: Path, lib: Path) -> dict:
    env = dict(os.environ, KEXPORT_DISCOVERY_CACHE=str(cache), PYTHONPATH=os.pathsep.join([str(REPO), str(lib)]))
    done = subprocess.run([sys.executable, "-c", WEIGHTS_DUMP, "weightlib_kx"], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_random_weights_are_built_again_and_a_shared_tensor_is_stored_once(tmp_path):
    """kornia.models' file was 2.4 GB, all but 20 MB of it the random weights of models its examples built
    (SigLip2Model's 1.5 GB); a rerun needs only how they were built. Equal bytes are stored once whatever
    example made them, and still come back as the tensors they were (two inputs stay two storages)."""
    lib = write_library(tmp_path / "lib", "weightlib_kx", WEIGHTS)
    cache = tmp_path / "cache"
    stored = weights_discovery(cache, lib)
    loaded = weights_discovery(cache, lib)
    assert len(stored["ran"]) == 5 and loaded["ran"] == []
    assert loaded["cases"] == stored["cases"]  # the same inputs and weights, bit for bit
    assert set(stored["cases"]) == {"Net[doc]", "Tuned[doc]", "scale[doc]", "shift[doc]", "add[doc]"}
    assert loaded["cases"]["add[doc]"]["storages"] == 2
    # Net's weight: built again from its class, its width and the random state; Tuned's changed after it was
    # built: its bytes; the 0.5s of scale and shift once; add's two zeros once
    assert stored["storages"] == loaded["storages"] == {
        "rebuilt": 1, "rebuilt_bytes": 2 << 20, "recipes": 1, "bytes": 3, "bytes_bytes": 3 * (2 << 20)}
    assert "and 2.1 MB of weights built again when loaded" in loaded["cache"]


def test_a_cache_file_of_an_older_format_or_damaged_is_made_again_saying_why(tmp_path):
    lib = write_library(tmp_path / "lib", "weightlib_kx", WEIGHTS)
    cache = tmp_path / "cache"
    first = weights_discovery(cache, lib)
    [current] = cache.glob("weightlib_kx-*.pickle")
    older = current.with_name(current.name.rsplit("-", 1)[0] + "-0123456789abcdef0123.pickle")
    older.write_bytes(b"KXDISC04" + current.read_bytes()[8:])  # what the probe before this format wrote
    current.unlink()
    again = weights_discovery(cache, lib)
    assert len(again["ran"]) == 5 and again["cases"] == first["cases"]
    assert again["cache"].endswith(f"; {older.name} is not used: another format of the cache (04, this probe "
                                   "writes 05); it is made again")
    assert [p.name for p in cache.glob("*.pickle")] == [current.name]  # the older one replaced
    current.write_bytes(current.read_bytes()[:40])  # damaged: its header cut short
    damaged = weights_discovery(cache, lib)
    assert len(damaged["ran"]) == 5 and damaged["cases"] == first["cases"]
    assert f"; {current.name} could not be read (" in damaged["cache"]
