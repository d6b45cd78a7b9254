"""What the recorder copies of one test's calls: each new configuration once, within a budget of bytes.

A recorded call is copied as it is made (its arguments, the module it calls), since the test may change them
afterwards; the copies live until the test's calls have become cases. A test that calls an operator the same
way 2,000 times in a loop (e3nn's ``test_square_normalization``) held 2,000 copies, and one that passes a
million rows held a copy of each: the copies, not the test, took its process past 3 GB. So, within one test:

- a call of a configuration (suite_cases.configuration) that an earlier call of the same test made and that
  returned (no exception, no ``unittest.mock`` stand-in ran) is a repeat: it cannot become a case (the first
  one comes first) and is not recorded; nor is a call of an operator of which ``per_operator`` configurations
  already returned in this test;
- a call whose tensors (its arguments, the weights of the module it calls or is bound to) are over
  :data:`CALL_COPY_LIMIT`, or would take the test's copies over :data:`TEST_COPY_LIMIT`, is recorded without
  copying anything and becomes no case: "too large to keep", with its size, in the test's report;
- a call whose arguments cannot be replayed as a case is recorded without copies, and its repeats not at all
  (it is said once).

The suite's filter (``suite._Taker.wants``) asks :class:`CopyBudget` before anything is copied; a call the
test's file has kept the configuration of is recorded without copies too, so that whether it raises is known.

Every verdict depends on the test's own calls only, never on what other tests (of its shard) kept, so every
process, whatever the shards, keeps the same cases. The only approximation: when the first call of a
configuration returns but then cannot be built as a case (its arguments do not bind, it does not run outside
its test), its repeats in the same test are not tried in its place; a later test's may be.
"""

from __future__ import annotations

import enum
from typing import Callable

from ..recording.recording import Call, NotCopied, Uncopied, copy_bytes

CALL_COPY_LIMIT = 32 * 2**20  # bytes of tensors the recorder copies for one call
TEST_COPY_LIMIT = 128 * 2**20  # bytes of tensors it copies for all the calls of one test together
TOO_LARGE = "too large to keep"  # how the reason of a call too large to keep begins (its words in the report)


class Skip(enum.Enum):
    """A call the recorder does not record at all."""

    REPEAT = "repeat"  # a repeat within the test (covered, once the test's calls are cases: repeated)
    AGAIN = "again"  # a repeat of a call that is no case (said once, as that call)


REPEAT, AGAIN = Skip.REPEAT, Skip.AGAIN


def megabytes(size: int) -> str:
    return f"{size / 2**20:.0f} MiB" if size >= 2**20 else f"{size / 2**10:.0f} KiB"


class CopyBudget:
    """One test's calls as the recorder meets them: which to copy, which are repeats, which too large."""

    def __init__(self, per_operator: int):
        self.per_operator = per_operator
        self.call_limit, self.test_limit = CALL_COPY_LIMIT, TEST_COPY_LIMIT  # read when a discovery begins
        # ref -> configuration -> (the index of its first call in the recorder's list, whether that call is worth a
        # case when it returns (call_replay.probed_call), whether it was too large to keep)
        self.met: dict[str, dict[tuple, tuple[int, bool, bool]]] = {}
        self.copied = 0  # bytes of the test's new configurations so far (copied or not: see verdict)
        # the repeats: (the index of the earlier call it repeats, its configuration; None when it is over
        # per_operator): whether it is covered is known once the earlier calls are cases or not
        self.repeated: list[tuple[int, tuple | None]] = []

    def begin(self) -> None:
        self.met, self.copied, self.repeated = {}, 0, []

    def verdict(self, ref: str, key: tuple, call: Call, recorded: list[Call]) -> Skip | NotCopied | None:
        """Whether the call ``call`` (as made, nothing copied) of configuration ``key`` is copied: None (yes),
        :data:`REPEAT`, :data:`AGAIN`, or why it is too large to keep. ``recorded``: the test's calls recorded so
        far (the recorder's list: a call given None or a NotCopied is recorded next, at its end)."""
        from ..recording.call_replay import probed_call

        configurations = self.met.setdefault(ref, {})
        first = configurations.get(key)
        if first is not None and _returned(recorded, first[0]):
            if first[2]:
                return AGAIN
            self.repeated.append((first[0], key))
            return REPEAT
        returned = [index for k, (index, probed, large) in configurations.items()
                    if k != key and probed and not large and _returned(recorded, index)]
        if len(returned) >= self.per_operator:
            self.repeated.append((returned[0], None))
            return REPEAT
        size = copy_bytes(call.callee, call.args, call.kwargs)
        if size > self.call_limit:
            why: NotCopied | None = _too_large(f"its tensors hold {megabytes(size)}, over the "
                                               f"{megabytes(self.call_limit)} the recorder copies of one call")
        elif self.copied + size > self.test_limit:
            why = _too_large(f"its tensors hold {megabytes(size)}, and the test's earlier calls "
                             f"{megabytes(self.copied)}, over the {megabytes(self.test_limit)} the recorder copies "
                             "of one test")
        else:
            # counted whether or not the test's file kept the configuration already in this process: that
            # depends on the shard, and what is kept must not
            self.copied += size
            why = None
        configurations[key] = (len(recorded), probed_call(call), why is not None)
        return why

    def repeats(self, recorded: list[Call]) -> list[tuple[str, tuple | None]]:
        """(the ref of the earlier call, as the test's file writes it by now; the configuration it repeats, None
        for a repeat over ``per_operator``) of each repeat: see :func:`covered`."""
        return [(recorded[index].ref, key) for index, key in self.repeated]

    def no_case(self, ref: str, why: NotCopied, recorded: list[Call]) -> NotCopied | Skip:
        """A call that cannot be a case, whatever its test does (its arguments do not bind, say): ``why``, which
        records it without copying anything, or :data:`AGAIN` for a repeat of one that returned."""
        configurations = self.met.setdefault(ref, {})
        first = configurations.get((why,))
        if first is not None and _returned(recorded, first[0]):
            return AGAIN
        configurations[(why,)] = (len(recorded), False, True)
        return why


def _too_large(what: str) -> NotCopied:
    return NotCopied(Uncopied.TOO_LARGE, f"{TOO_LARGE}: {what}")


def covered(repeats: list[tuple[str, tuple | None]], kept: Callable[[str], dict[tuple, str]],
             per_operator: int) -> list[str]:
    """The refs of the ``repeats`` that are covered, once the test's calls are cases or not (``kept(ref)``: the
    configurations of ``ref`` kept by now): a repeat of a configuration kept, or of an operator with
    ``per_operator`` kept, as if it had been recorded. A repeat of a call that became no case (it returns no
    tensor, say) is not counted: that call is said, once."""
    found = []
    for ref, key in repeats:
        configurations = kept(ref)
        if key in configurations or len(configurations) >= per_operator:
            found.append(ref)
    return found


def _returned(recorded: list[Call], index: int) -> bool:
    """Whether the recorded call at ``index`` returned as itself: no exception, no stand-in ran (one still
    running counts as returned: a repeat inside it is one)."""
    if index >= len(recorded):
        return False
    call = recorded[index]
    return not call.raised and not call.stand_ins
