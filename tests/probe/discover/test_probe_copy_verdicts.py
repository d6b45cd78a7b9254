"""What the copy budget answers for each call of a test (discover/suite/suite_copies.py) are values of small types,
checked by type and identity, never by their words: copy it (None), a repeat or a repeat of a call that is no
case (Skip), or record it without copies and say why (NotCopied, with its kind). Real calls with real tensors."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.probe
torch = pytest.importorskip("torch")


def _call(tensor):
    from sphinx_kexport.probe.discover.recording.recording import Call

    return Call("lib.total", torch.sum, (tensor,), {}, 0, None)


def test_each_verdict_is_a_type_not_a_string():
    from sphinx_kexport.probe.discover.recording.recording import NotCopied, Uncopied
    from sphinx_kexport.probe.discover.suite.suite_copies import AGAIN, REPEAT, CopyBudget, Skip

    budget = CopyBudget(per_operator=4)
    budget.call_limit = 2**10  # 1 KiB: a 4 KiB tensor is too large to keep
    recorded: list = []
    small, large = _call(torch.ones(4)), _call(torch.ones(1024))
    assert budget.verdict("lib.total", ("small",), small, recorded) is None  # copied
    recorded.append(small)
    assert budget.verdict("lib.total", ("small",), small, recorded) is REPEAT
    too_large = budget.verdict("lib.total", ("large",), large, recorded)
    assert isinstance(too_large, NotCopied) and too_large.kind is Uncopied.TOO_LARGE
    assert too_large.reason == ("too large to keep: its tensors hold 4 KiB, over the 1 KiB the recorder copies of "
                                "one call")
    recorded.append(_call(torch.ones(1024)))
    assert budget.verdict("lib.total", ("large",), large, recorded) is AGAIN
    assert isinstance(REPEAT, Skip) and not isinstance(REPEAT, str)


def test_a_reason_is_words_only_its_kind_decides():
    """A call that cannot be a case, whose reason happens to begin with another kind's words, keeps its kind."""
    from sphinx_kexport.probe.discover.recording.recording import NotCopied, Uncopied
    from sphinx_kexport.probe.discover.suite.suite_copies import AGAIN, CopyBudget

    budget = CopyBudget(per_operator=4)
    why = NotCopied(Uncopied.UNSUPPORTED, "too large to keep: a keyword argument named so")
    recorded: list = []
    assert budget.no_case("lib.total", why, recorded) is why and why.kind is not Uncopied.TOO_LARGE
    recorded.append(_call(torch.ones(2)))
    assert budget.no_case("lib.total", why, recorded) is AGAIN
