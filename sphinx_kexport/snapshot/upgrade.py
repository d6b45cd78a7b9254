"""Format 1 -> format 2, so that every reader sees one format and no reader reads wording.

Format 2 says as fields what format 1 said in words: each case's ``origin``
(format 1: a note starting "from the docstring example of") and the stage
``no-tensor`` for a case that ran but returned nothing to capture (format 1:
stage ``eager`` with a detail that did not start "does not run eagerly").
This module is the one place those words are read.
"""

from __future__ import annotations

import copy
from typing import Any

from .vocabulary import ORIGIN_DOCSTRING, ORIGIN_HAND, SCHEMA_VERSION, STAGE_EAGER, STAGE_NO_TENSOR

FORMAT_1_DOCSTRING_NOTE = "from the docstring example of"  # how the probe's format 1 began a discovered note
FORMAT_1_EAGER_FAILURE = "does not run eagerly"  # how it began the detail of a real eager failure


def upgrade_format_1(data: dict[str, Any]) -> dict[str, Any]:
    """A format-2 copy of a format-1 snapshot (anything malformed is left for the validator to name)."""
    data = copy.deepcopy(data)
    data["schema"] = SCHEMA_VERSION
    for case in data.get("cases") or []:
        if not isinstance(case, dict):
            continue
        note = case.get("note")
        case.setdefault("origin", ORIGIN_DOCSTRING if isinstance(note, str) and note.startswith(FORMAT_1_DOCSTRING_NOTE)
                        else ORIGIN_HAND)
        for paths in (case.get("results") or {}).values():
            for result in (paths.values() if isinstance(paths, dict) else ()):
                if isinstance(result, dict) and result.get("stage") == STAGE_EAGER and not str(
                        result.get("detail", "")).startswith(FORMAT_1_EAGER_FAILURE):
                    result["stage"] = STAGE_NO_TENSOR
    return data
