"""A snapshot of the release before the row columns, brought to this layout in place.

The view's row columns (`graphmem.view_rows`: forgotten, time, has-siblings) are new in
this release's snapshot layout, and a snapshot that lacks them would otherwise be
ignored: the first process after an upgrade would read the whole store again (23
minutes at a million memories here). A snapshot whose layout differs from this
release's by those columns alone gets them from its own records column instead (about
5 s at a million). Any other difference is not upgraded: the snapshot is ignored, as
before. Imports only graphmem.view_rows and the snapshot's column files.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from graphmem.view_rows import RowColumns
from graphmem.view_snapshot.lazy import read_json_column

#: the view attributes this layout added: the row columns and their row lookup
ADDED = frozenset({"_columns", "_positions"})


def upgradable(saved: dict | None, current: dict) -> bool:
    """Whether a snapshot of layout ``saved`` becomes ``current`` by gaining the row
    columns alone."""
    if not isinstance(saved, dict) or not isinstance(saved.get("view"), list):
        return False
    view = set(saved["view"])
    return not view & ADDED and {**saved, "view": sorted(view | ADDED)} == current


def add_row_columns(directory: Path) -> int:
    """Write the row columns from the records column; returns the rows written. Each
    file lands whole (written aside, then renamed), so a process reading meanwhile, or
    upgrading the same snapshot at the same time, sees the file or none."""
    records = read_json_column(directory, "view.records")
    n = len(records)
    columns = RowColumns(n)
    for row in range(n):
        record = records[row]
        columns.note(row, forgotten=bool(record["forgotten"]), t=record["t"],
                     linked=bool(record["affiliated"]))
    for name, values in columns.arrays(n).items():
        target = directory / f"view.row.{name}.npy"
        aside = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        with open(aside, "wb") as handle:
            np.save(handle, values, allow_pickle=False)
        os.replace(aside, target)
    return n
