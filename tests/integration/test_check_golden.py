"""`kafkatui check --json` on the bench's 100,000-partition cluster is unchanged, field by field.

The fixtures were written by the code before issue 17's speed work (see check_golden.py for the two
cluster states and what is masked); any difference is reported by JSON path.
"""

from __future__ import annotations

import pytest

from tests.integration.check_golden import STATES, check_doc, differences, load, masked


@pytest.mark.parametrize("state", STATES)
def test_check_json_matches_the_golden_document(state: str) -> None:
    expected = load(state)
    code, doc = check_doc(state)
    actual = masked(doc)
    actual["exit_code_of_process"] = code
    diffs = differences(expected, actual)
    assert not diffs, f"{len(diffs)}+ differences from {state} golden document:\n" + "\n".join(diffs)
    assert code == expected["summary"]["exit_code"]
