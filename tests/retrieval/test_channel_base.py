"""What every channel shares: the rows of a set that lie in another, by binary search."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from graphmem.retrieval.channels.base import among

ROWS = st.lists(st.integers(0, 200), max_size=60)


@given(ROWS, ROWS)
def test_among_keeps_exactly_the_rows_that_are_within_in_their_order(rows, within):
    rows_array = np.array(rows, dtype=np.int64)
    within_array = np.unique(np.array(within, dtype=np.int64))
    kept = among(rows_array, within_array)
    assert kept.tolist() == [r for r in rows if r in set(within)]
    assert kept.dtype == rows_array.dtype
