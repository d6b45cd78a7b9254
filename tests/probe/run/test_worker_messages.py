"""What a worker tells the parent is typed (run/messages.py) and a step is a (path, dynamic) pair (cases/step.py):
both cross the pipe as they are, a message the parent does not know is the probe's error naming it, and a
worker lost in a dynamic-batch pass costs that pass only. The workers here are stand-ins forked from the test
(no torch, no case module): each test is about the protocol, not about measuring."""

from __future__ import annotations

import multiprocessing
import os
import signal

import pytest

from sphinx_kexport.probe.cases.step import EAGER_STEP, Step
from sphinx_kexport.probe.measure.locate import NO_LIBRARY
from sphinx_kexport.probe.run import pool, worker_slot
from sphinx_kexport.probe.run.losses import lose_step
from sphinx_kexport.probe.run.outcomes import Outcomes
from sphinx_kexport.probe.run.messages import (CaseDone, CouldNotStart, Environment, NotBuilt, PathResult, Ready,
                                               StepBegan)
from sphinx_kexport.probe.run.settings import WorkerSettings
from sphinx_kexport.probe.run.task import Task
from sphinx_kexport.probe.run.workdir import WorkDir
from sphinx_kexport.snapshot.result_records import result, with_breaks
from sphinx_kexport.snapshot.vocabulary import (COMPILE, DYNAMIC_FAIL, DYNAMIC_TIMEOUT, EXPORT, FAIL, OK, ONNX,
                                                PATHS, STAGE_PROCESS, TIMEOUT)

FORK = "fork" in multiprocessing.get_all_start_methods()
needs_fork = pytest.mark.skipif(not FORK, reason="the stand-in workers are forked from the test")


def _task(paths=PATHS) -> Task:
    return Task("a_case", "cases_module", "a_case", "cpu", "fingerprint", list(paths))


def test_every_message_and_a_dynamic_step_cross_the_pipe_as_they_are():
    messages = [Ready(123), CouldNotStart("ImportError: no torch"), Environment("cpu", {"torch": "2.13.0"}),
                StepBegan("a_case", "cpu", EAGER_STEP), StepBegan("a_case", "cpu", Step(ONNX, dynamic=True)),
                PathResult("a_case", "cpu", ONNX, result(OK)), NotBuilt("a_case", "cpu", "gone"),
                CaseDone("a_case", "cpu", 2048, 1024, False, 512)]
    here, there = multiprocessing.Pipe()
    for message in messages:
        here.send(message)
        assert there.recv() == message
    here.send(StepBegan("a_case", "cpu", Step(EXPORT, dynamic=True)))
    step = there.recv().step
    assert (step.path, step.dynamic, step.name) == (EXPORT, True, "export:dynamic")
    assert (Step(EXPORT).name, EAGER_STEP.name) == ("export", "eager")  # how the log and --stats name steps


def test_a_death_in_a_dynamic_pass_costs_the_pass_only():
    task = _task()
    task.results[ONNX] = result(OK)
    detail = lose_step(task, Step(ONNX, dynamic=True), "the worker process crashed", "", NO_LIBRARY)
    assert detail == "the worker process crashed during the dynamic-batch pass of the ONNX export"
    # a death says nothing of which fix class it is: unclassified, as a record
    assert task.results[ONNX] == dict(result(OK), dynamic={"status": DYNAMIC_FAIL, "detail": detail, "where": "",
                                                           "cause": {"id": "unclassified"}})
    assert task.paths == [EXPORT, COMPILE]  # measured next in a fresh worker


def test_a_timeout_in_a_speed_pass_costs_the_speed_and_the_dynamic_pass_after_it_says_it_never_ran():
    from sphinx_kexport.snapshot.vocabulary import DYNAMIC_NOT_APPLICABLE, OK_BREAKS

    for dynamic in (True, False):
        task = _task()
        task.results[COMPILE] = result(OK_BREAKS)
        detail = lose_step(task, Step(COMPILE, speed=True), "ran past the time limit of 900 s", "", NO_LIBRARY,
                           timed_out_after=900.0, dynamic=dynamic)
        assert detail == "ran past the time limit of 900 s during the speed pass of torch.compile"
        record = task.results[COMPILE]
        assert record["status"] == OK_BREAKS and record["speed"]["figures"] == [] and record["speed"]["note"] == detail
        if dynamic:  # a supported cell whose dynamic-batch pass never ran says so, and claims nothing of the batch
            assert record["dynamic"] == {"status": DYNAMIC_NOT_APPLICABLE, "where": "",
                                         "detail": f"not probed: {detail}, before the dynamic-batch pass"}
        else:
            assert "dynamic" not in record


def test_a_death_in_a_path_costs_that_path_and_one_before_any_path_the_whole_case():
    task = _task()
    detail = lose_step(task, Step(EXPORT), "ran past the time limit of 5 s", "", NO_LIBRARY, timed_out_after=5.0)
    assert task.results == {EXPORT: {"status": TIMEOUT, "detail": detail, "stage": STAGE_PROCESS, "where": "",
                                     "time_limit": 5.0}}
    assert detail == "ran past the time limit of 5 s during torch.export" and task.paths == [ONNX, COMPILE]

    task = _task()
    task.results[ONNX] = result(OK)
    detail = lose_step(task, EAGER_STEP, "the worker process crashed", "", NO_LIBRARY)
    assert detail == "the worker process crashed during the eager reference" and task.paths == []
    lost = result(FAIL, detail, STAGE_PROCESS, "", cause={"id": "unclassified"})
    assert task.results == {ONNX: result(OK), EXPORT: lost, COMPILE: with_breaks(COMPILE, lost)}

    task = _task()
    assert lose_step(task, None, "the worker process vanished", "", NO_LIBRARY).endswith("during start-up")
    assert set(task.results) == set(PATHS)


def test_the_timeout_of_a_dynamic_pass_keeps_its_limit():
    task = _task([EXPORT])
    task.results[EXPORT] = result(OK)
    lose_step(task, Step(EXPORT, dynamic=True), "ran past the time limit of 5 s", "", NO_LIBRARY,
              timed_out_after=5.0)
    assert task.results[EXPORT]["dynamic"] == {
        "status": DYNAMIC_TIMEOUT, "where": "", "time_limit": 5.0,
        "detail": "ran past the time limit of 5 s during the dynamic-batch pass of torch.export"}


# -- through a runner, with stand-in workers


def _old_protocol_worker(conn, settings) -> None:
    conn.send(("ready", os.getpid()))  # a tuple, as workers spoke before the messages were typed
    conn.recv()


def _crashes_in_the_onnx_dynamic_pass(conn, settings) -> None:
    conn.send(Ready(os.getpid()))
    while (assignment := conn.recv()) is not None:
        name, device = assignment.name, assignment.device
        conn.send(StepBegan(name, device, EAGER_STEP))
        for path in assignment.paths:
            conn.send(StepBegan(name, device, Step(path)))
            conn.send(PathResult(name, device, path, with_breaks(path, result(OK))))
            if path == ONNX:
                conn.send(StepBegan(name, device, Step(path, dynamic=True)))
                os.kill(os.getpid(), signal.SIGKILL)
        conn.send(CaseDone(name, device, 1, 1, False, 0))


def _runner(tmp_path, monkeypatch, stand_in, **callbacks) -> pool.Runner:
    monkeypatch.setattr(pool, "worker_context", lambda threads, cuda=False: multiprocessing.get_context("fork"))
    monkeypatch.setattr(worker_slot, "serve", stand_in)
    settings = WorkerSettings(sys_path=[], sources=[], library="", opset=18, dynamic=True, threads=1)
    outcomes = Outcomes(WorkDir(tmp_path / "work"), NO_LIBRARY, **callbacks)
    return pool.Runner(settings=settings, jobs=1, timeout=60.0, outcomes=outcomes)


@needs_fork
def test_a_message_of_an_unknown_type_is_the_probes_error_naming_it(tmp_path, monkeypatch):
    runner = _runner(tmp_path, monkeypatch, _old_protocol_worker)
    with pytest.raises(pool.ToolError, match=r"worker 1 sent a message of an unknown type, tuple: \('ready'"):
        runner.run([_task()])
    runner.close(kill=True)


@needs_fork
def test_a_worker_killed_in_a_dynamic_pass_loses_that_pass_and_a_fresh_one_measures_the_rest(tmp_path, monkeypatch):
    finished, notes = [], []
    runner = _runner(tmp_path, monkeypatch, _crashes_in_the_onnx_dynamic_pass, on_finish=finished.append,
                     on_note=notes.append)
    runner.run([_task()])
    runner.close()
    [task] = finished
    dynamic = task.results[ONNX].pop("dynamic")
    assert dynamic["status"] == DYNAMIC_FAIL and "SIGKILL" in dynamic["detail"]
    assert dynamic["detail"].endswith("during the dynamic-batch pass of the ONNX export")
    assert task.results == {path: with_breaks(path, result(OK)) for path in PATHS}  # the static results stay
    assert notes == [f"a_case [cpu]: {dynamic['detail']}"]
    assert runner.stats.step_seconds.keys() >= {"build", "eager", "onnx", "onnx:dynamic", "export", "compile"}
