"""The topic screen's partition table at 80 columns: no column cuts a word it shows on every row."""

from __future__ import annotations

import pytest

from kafkatui.present import ids
from kafkatui.tui.screens.topic import PARTITION_COLUMNS
from kafkatui.tui.widgets.columns import fit_str, layout_widths


@pytest.mark.parametrize("width", [76, 78, 80])
def test_an_empty_elr_reads_none_not_a_cut_word_at_80_columns(width: int) -> None:
    """The walk at 80x24 on Kafka 4.4 (ELR read for every partition): the ELR column read "no…" on every row."""
    widths = dict(zip((c.key for c in PARTITION_COLUMNS), layout_widths(PARTITION_COLUMNS, width), strict=True))
    assert fit_str(ids(()), widths["elr"], False).strip() == "none"
    assert widths["lag"] >= 8 and widths["headroom"] >= 8  # the columns that give way keep their floors
