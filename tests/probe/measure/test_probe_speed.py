"""The speed pass (--speed), as a user runs it: what each working path buys over eager.

One real survey of tests/probe/probe_cases/speed_cases.py with --speed (a chain of elementwise operations
that inductor fuses, and a tiny operation whose compiled call costs more than the operation) is shared by the
tests of this module; the assertions read the snapshot the command wrote, then the reruns read it back.
"""

from __future__ import annotations

import json
import os
import re

import pytest

from batch_project import CASES, REPO
from probe_cli import probe_cli


def probe(*args: str, cwd) -> object:
    environ = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "tests" / "probe")]))
    return probe_cli(*args, cwd=cwd, env=environ)


@pytest.fixture(scope="module")
def survey(tmp_path_factory):
    pytest.importorskip("onnxruntime")
    folder = tmp_path_factory.mktemp("speed")
    (folder / "pyproject.toml").write_text(
        "[tool.sphinx-kexport]\n"
        f"cases = [{json.dumps(str(CASES / 'speed_cases.py'))}]\n"
        'out = "support.json"\ndevices = ["cpu"]\nlibrary = "probe_cases"\n', encoding="utf-8")
    done = probe("--jobs", "1", "--no-dynamic", "--speed", cwd=folder)
    out = folder / "support.json"
    return {"run": done, "folder": folder, "out": out,
            "snapshot": json.loads(out.read_text()) if out.exists() else None}


def speed(snapshot: dict, name: str, path: str) -> dict:
    case = {c["name"]: c for c in snapshot["cases"]}[name]
    return case["results"]["cpu"][path]["speed"]


@pytest.mark.probe
def test_a_fused_chain_is_faster_compiled_at_both_sizes(survey):
    from sphinx_kexport.snapshot import load_snapshot

    assert survey["run"].returncode == 0, survey["run"].stderr
    # `library` is set, which would measure hand-written cases while discovery still runs: not with --speed
    assert "measuring begins once every module is built" in survey["run"].stdout
    assert "measured as their modules come in" not in survey["run"].stdout
    load_snapshot(survey["out"])  # the speed records validate against the schema
    record = speed(survey["snapshot"], "fused_chain", "compile")
    assert record["threads"] >= 1 and record["fullgraph"] is True and record["untraced"] is True
    assert len(record["figures"]) == 2, record.get("note")  # the note says why a size was not timed
    own, batch = record["figures"]
    assert (own["size"], own["shapes"]) == ("inputs", "1×8192")
    assert (batch["size"], batch["batch"], batch["shapes"]) == ("batch", 32, "32×8192")
    for figure in (own, batch):
        assert figure["verdict"] == "faster", figure
        assert figure["low"] > 1.0 and figure["ratio"] > 1.5
        assert figure["ratio"] == pytest.approx(figure["eager_s"] / figure["path_s"], rel=1e-2)


@pytest.mark.probe
def test_a_tiny_operation_is_slower_compiled(survey):
    record = speed(survey["snapshot"], "add_one", "compile")
    own = record["figures"][0]
    assert own["size"] == "inputs" and own["verdict"] == "slower", own
    assert own["high"] < 1.0
    # every working path has its record; the exported module and onnxruntime are timed too
    for path in ("export", "onnx"):
        assert speed(survey["snapshot"], "add_one", path)["figures"], path


@pytest.mark.probe
def test_a_case_without_a_tensor_input_is_not_timed_and_says_why(survey):
    from sphinx_kexport.probe.measure.speed import NO_TENSOR_INPUT

    for path in ("compile", "export", "onnx"):
        record = speed(survey["snapshot"], "ramp", path)
        assert (record["figures"], record["note"]) == ([], NO_TENSOR_INPUT), path


@pytest.mark.probe
def test_every_figure_was_timed_without_the_code_watch_tracer(survey):
    # the code watch's line tracer is on while the exporters run; an older worker left it on while it timed eager
    # beside onnxruntime and the exported module (python_heavy's eager read about three times slower there):
    # each record says what the speed pass saw while it timed (test_code_watch proves it can say "traced")
    records = [(entry["name"], path, record["speed"]) for entry in survey["snapshot"]["cases"]
               for path, record in entry["results"]["cpu"].items() if "speed" in record]
    assert {(name, path) for name, path, _ in records} >= {("python_heavy", p) for p in ("compile", "export", "onnx")}
    assert [(name, path) for name, path, speed in records if speed["untraced"] is not True] == []


@pytest.mark.probe
def test_a_plain_rerun_reuses_the_speed_and_a_record_without_it_is_measured_again(survey):
    folder, out = survey["folder"], survey["out"]
    again = probe("--jobs", "1", "--no-dynamic", cwd=folder)
    assert again.returncode == 0, again.stderr
    kept = json.loads(out.read_text())
    assert speed(kept, "add_one", "compile") == speed(survey["snapshot"], "add_one", "compile")
    # a record measured without --speed is measured again by a run with it (what --dry-run says)
    # and one whose figures an older probe timed with the code watch's tracer on (no "untraced"), or timed with no
    # tensor input
    for entry in kept["cases"]:
        for record in entry["results"]["cpu"].values():
            if entry["name"] == "add_one":
                record.pop("speed", None)
            elif entry["name"] == "python_heavy" and "speed" in record:
                record["speed"].pop("untraced")
            elif entry["name"] == "ramp":  # as an older probe timed it: a figure of a constant graph
                record["speed"] = speed(survey["snapshot"], "add_one", "compile") | {"untraced": True}
                record["speed"]["figures"] = [dict(f, shapes="") for f in record["speed"]["figures"]]
    out.write_text(json.dumps(kept))
    planned = probe("--jobs", "1", "--no-dynamic", "--speed", "--dry-run", cwd=folder)
    assert planned.returncode == 0, planned.stderr
    assert "add_one [cpu]: its record has no speed figures" in planned.stdout
    assert "python_heavy [cpu]: its speed figures were timed with the code watch's tracer on" in planned.stdout
    assert "ramp [cpu]: its speed figures timed a case with no tensor input" in planned.stdout
    assert "fused_chain [cpu]" not in planned.stdout


PKG_HERE = "probe_cases.speed"


def _speed_pass_of(fn, memory_kb=None, budget=5.0):
    import torch

    from sphinx_kexport.probe import case
    from sphinx_kexport.probe.measure.case_run import CaseRun
    from sphinx_kexport.probe.measure.speed import SpeedPass

    return SpeedPass(CaseRun(case(fn.__name__, fn, [torch.rand(1, 8)], package=PKG_HERE), "cpu"), opset=18,
                     budget=budget, memory_kb=memory_kb)


def test_one_call_stalled_by_a_busy_machine_does_not_skip_the_larger_size():
    # CI once read one eager call of fused_chain at batch 32 far slower than it is (the other worker compiling),
    # estimated the timing over budget and left the batch figure out: one stalled call no longer decides
    import time

    from sphinx_kexport.snapshot.vocabulary import SPEED_BATCH

    at_batch = []

    def stalls_once(x):
        if x.shape[0] == SPEED_BATCH:
            at_batch.append(1)
            if len(at_batch) == 3:  # the eager check, the settling call, then the first call the estimate reads
                time.sleep(2.0)
        return x * 2

    speed_pass = _speed_pass_of(stalls_once)
    assert speed_pass.larger() is not None, speed_pass._larger_why
    assert len(at_batch) == 4  # the stalled reading was checked against one more call


def test_an_operator_slow_at_the_larger_size_is_left_out_and_the_record_says_why():
    import time

    from sphinx_kexport.snapshot.vocabulary import SPEED_BATCH

    def slow_at_batch(x):
        if x.shape[0] == SPEED_BATCH:
            time.sleep(0.3)  # every call: 3 paths x (3 warm-up calls + 5 blocks of two calls) is far over 5 s
        return x * 2

    speed_pass = _speed_pass_of(slow_at_batch)
    assert speed_pass.larger() is None
    # 0.3 s asleep, a little more on a busy machine (0.31 s once, in the whole suite beside a probe run)
    assert re.match(rf"batch {SPEED_BATCH} not timed: one eager call takes 0\.3\d? s there", speed_pass._larger_why), \
        speed_pass._larger_why
    assert "over the 5 s budget" in speed_pass._larger_why


def _holds_16_mb_per_sample(calls_at_batch):
    import torch

    from sphinx_kexport.snapshot.vocabulary import SPEED_BATCH

    def holds_memory(x):
        if x.shape[0] == SPEED_BATCH:
            calls_at_batch.append(1)
        scratch = torch.ones(x.shape[0], 4_000_000)  # 16 MB per sample, held until the call returns
        return x * scratch.sum(1, keepdim=True)

    return holds_memory


def test_a_larger_size_foreseen_past_the_memory_allowed_is_left_out_before_it_runs():
    # DeFMO's docstring case (2x6x240x320) was killed by the out-of-memory killer at batch 32: past the
    # machine's memory nothing can be caught, so the size is foreseen from a call at the case's own inputs
    from sphinx_kexport.snapshot.vocabulary import SPEED_BATCH

    calls_at_batch = []
    speed_pass = _speed_pass_of(_holds_16_mb_per_sample(calls_at_batch), memory_kb=100_000)
    assert speed_pass.larger() is None
    assert calls_at_batch == []  # nothing ran at batch 32
    why = speed_pass._larger_why
    assert why.startswith(f"batch {SPEED_BATCH} not timed: one eager call holds "), why
    assert "at 32 times their size, more than the 98 MB the speed pass may use" in why
    held_mb = float(why.split("holds ")[1].split(" MB")[0])
    assert 14 <= held_mb <= 40, why  # the 16 MB scratch, read from the process's peak


def test_a_larger_size_within_the_memory_allowed_is_timed():
    calls_at_batch = []
    speed_pass = _speed_pass_of(_holds_16_mb_per_sample(calls_at_batch), memory_kb=4_000_000, budget=600.0)
    assert speed_pass.larger() is not None, speed_pass._larger_why
    assert calls_at_batch  # 512 MB at batch 32 is within 3.8 GB: it ran there


def test_a_block_peak_does_not_hide_the_case_peak_counted_before_it():
    import torch

    from sphinx_kexport.probe.base.memory import block_peak, peak_rss_kb, reset_peak

    reset_peak()
    big = torch.ones(100_000_000)  # 400 MB, then given back
    del big
    case_peak = peak_rss_kb()
    with block_peak() as block:  # 40 MB: above glibc's largest mmap threshold, so fresh pages, not heap reuse
        small = torch.ones(10_000_000)
        del small
    assert 30_000 <= block.kb < 200_000  # the block's own 40 MB, not the 400 MB before it
    assert peak_rss_kb() >= case_peak  # the case still reports the peak it reached before the block


def test_an_allocation_past_the_cap_fails_and_is_told_and_the_cap_ends_with_its_block():
    import torch

    from sphinx_kexport.probe.base.memory import address_space_cap, out_of_memory

    with address_space_cap(200_000):  # 195 MB more than mapped now
        with pytest.raises(RuntimeError) as refused:
            torch.empty(500_000_000)  # 2 GB (never touched: no memory is used where it is allowed)
    assert out_of_memory(refused.value), refused.value
    assert torch.empty(500_000_000).numel() == 500_000_000  # allowed again after the block


def test_a_larger_size_that_needs_more_memory_than_foreseen_is_told_not_killed():
    # foreseen from eager at the case's inputs, batch 32 looks small; what it really asks for (onnxruntime's
    # arena did so for DeFMO) meets the cap, so the worker is not killed and the note says why
    import torch

    from sphinx_kexport.snapshot.vocabulary import SPEED_BATCH

    def asks_much_at_batch(x):
        if x.shape[0] == SPEED_BATCH:
            torch.empty(500_000_000)  # 2 GB asked for at once
        return x * 2

    speed_pass = _speed_pass_of(asks_much_at_batch, memory_kb=200_000)
    assert speed_pass.larger() is None
    assert speed_pass._larger_why == (f"batch {SPEED_BATCH} not timed: it needs more memory there than the "
                                      "195 MB the speed pass may use")
    assert torch.empty(500_000_000).numel()  # the cap ended with the pass's step
