"""The `/regex/` filter without IGNORECASE where that cannot change what it finds (kafkatui.textfilter)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from kafkatui.textfilter import case_blind

# pieces of patterns a user types, upper and lower case, classes, escapes naming letters by code
PIECES = st.sampled_from(
    [
        "a",
        "A",
        "u",
        "U",
        "nder",
        "NDER",
        "topic",
        "Topic",
        "-",
        ".",
        ".*",
        "\\d+",
        "\\w",
        "\\S",
        "[a-z]",
        "[A-Z]",
        "[^a-z]",
        "[0-z]",
        "[^A]",
        "\\x41",
        "\\x61",
        "\\u0055",
        "\\101",
        "(?:h|H)",
        "(a|b)",
        "\\1",
        "(?i:X)",
        "(?-i:x)",
        "x?",
        "y+",
        "^",
        "$",
        "|",
        "(?=e)",
        "(?!E)",
    ]
)
TEXTS = st.lists(
    st.text(alphabet="abcdehinortuxyz-0123456789 AHU", min_size=0, max_size=24).map(str.lower), max_size=30
)


@settings(max_examples=400, deadline=None)
@given(st.lists(PIECES, min_size=1, max_size=5).map("".join), TEXTS)
def test_lowercased_ascii_texts_match_the_same_without_ignorecase(pattern: str, texts: list[str]) -> None:
    try:
        rx = re.compile(pattern, re.IGNORECASE)
    except re.error:
        return
    fast = case_blind(rx)
    assert [bool(fast.search(t)) for t in texts] == [bool(rx.search(t)) for t in texts]


def test_only_patterns_that_name_no_uppercase_letter_drop_ignorecase() -> None:
    assert not case_blind(re.compile("healthy|under", re.IGNORECASE)).flags & re.IGNORECASE
    assert not case_blind(re.compile(r"topic-\d+ [a-z]+", re.IGNORECASE)).flags & re.IGNORECASE
    for kept in ("Under", "[A-Z]x", r"\x55nder", "[^A]", "ünder"):
        assert case_blind(re.compile(kept, re.IGNORECASE)).flags & re.IGNORECASE, kept
