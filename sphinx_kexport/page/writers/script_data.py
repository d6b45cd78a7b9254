"""What the browser script knows of the vocabulary: the ``data-*`` attributes of ``div.kexport``.

``static/kexport.js`` keeps no table of statuses. It reads these attributes once
at start and filters and counts the rows' codes (``tr[data-s]``, ``tr[data-y]``)
by them, and the filters that name a status (``?kx-f=fail``, ``timeout``,
``static``) by the words given here, which the controls template spells its
filter values with. All of it comes from the records of ``snapshot/vocabulary.py``,
so a status the vocabulary gains or recodes reaches the script with the page.
"""

from __future__ import annotations

from ...snapshot.repro import RANDOM_SUFFIX
from ...snapshot.vocabulary import (COMPILE, DYNAMIC_ANSWERS, DYNAMIC_OK, DYNAMIC_STATIC, FAIL, FAILING_KIND,
                                    NOT_APPLICABLE, OK, OK_BREAKS, ONNX, SPEED_FASTER, SPEED_SLOWER, SPEED_VERDICTS,
                                    STAGE_COMPARE, SUPPORTED_KIND, TIMEOUT, page_codes)

# The commonest status: its cell is the plain word (``<td>yes</td>``), every other status a ``<kx-C>``
# pill, and a row whose every cell has it carries no ``data-s`` (the script reads it as all of them).
PLAIN = OK

# The words that name a status in a filter value and a count key: the template's option values
# (``fail``, ``fail-onnx``, ...) and the script's comparisons, the same words as the URLs people bookmarked.
FILTER_WORDS = {
    "fail_word": FAIL,  # "any failure or mismatch" (the failing statuses), and per path "fail-<path>"
    "timeout_word": TIMEOUT,  # "ran past the time limit"
    "static_word": DYNAMIC_STATIC,  # "works only at the traced batch size", and its count (``kexport-count--static``)
}


# ``tr[data-e]``: each cell's speed verdict as one character (f faster, s slower, u unclear; NO_SPEED: no
# figure), ``tr[data-x]``: each cell's ratio eager/path ("-": none), space-separated; both only on rows with a
# figure. The filters "faster than eager" and "slower than eager" name a verdict by its word ("faster-compile").
SPEED_CODE = {verdict: str(verdict)[0] for verdict in SPEED_VERDICTS}
NO_SPEED = "-"
SPEED_WORDS = {"faster_word": SPEED_FASTER, "slower_word": SPEED_SLOWER}


def speed_script_data() -> dict[str, str]:
    """The speed filters' codes and words: on the page's container only where a cell has a speed figure, so
    a page without speed keeps its bytes."""
    data = {"speed-faster": SPEED_CODE[SPEED_FASTER], "speed-slower": SPEED_CODE[SPEED_SLOWER],
            **{name.replace("_", "-"): str(word) for name, word in SPEED_WORDS.items()}}
    return {f"data-{name}": value for name, value in data.items()}


def script_data() -> dict[str, str]:
    """``{"data-supported": "obr", ...}``: the attributes ``div.kexport`` carries for the script."""
    codes = page_codes()
    data = {
        "supported": codes[SUPPORTED_KIND],  # status codes: supported (counted, and a pass)
        "failing": codes[FAILING_KIND],  # ... failing (the failure filters, the "Reproduce" snippets)
        "plain": PLAIN.code,  # ... what a row without data-s has in every cell
        "na": NOT_APPLICABLE.code,  # ... not probed: neither counted nor in the way of a pass
        "timed-out": TIMEOUT.code,  # ... not known: not counted, and not a pass
        "breaks": OK_BREAKS.code,  # ... the graph-break filter and count
        "breaks-path": str(COMPILE),  # the path whose cells the graph-break filter reads
        "onnx-path": str(ONNX),  # the path of the count of operators that export to ONNX
        "batch-checked": "".join(s.code for s in DYNAMIC_ANSWERS),  # dynamic-batch marks: those that answer
        "batch-any": DYNAMIC_OK.code,  # ... holds at any batch size
        "batch-static": DYNAMIC_STATIC.code,  # ... only at the traced batch size
        **{name.replace("_", "-"): str(word) for name, word in FILTER_WORDS.items()},
        # the "Reproduce" templates' comparison (snapshot.repro.repro_templates), and a random operator's
        "repro-compare": str(STAGE_COMPARE), "repro-random": RANDOM_SUFFIX,
    }
    return {f"data-{name}": value for name, value in data.items()}
