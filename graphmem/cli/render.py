"""Plain-text tables for the command line."""

from __future__ import annotations

import json
from typing import Any, Sequence

import click


def _cell(value: Any) -> str:
    if isinstance(value, (dict, list)):
        return json.dumps(value, default=str)
    return "" if value is None else str(value)


def print_table(rows: Sequence[dict[str, Any]], max_width: int = 80) -> None:
    """Print rows as an aligned table with a header; '(no rows)' when empty."""
    if not rows:
        click.echo("(no rows)")
        return
    columns = list(dict.fromkeys(k for row in rows for k in row))
    cells = [[_cell(row.get(c))[:max_width] for c in columns] for row in rows]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(columns)]
    click.echo("  ".join(c.ljust(w) for c, w in zip(columns, widths)).rstrip())
    click.echo("  ".join("-" * w for w in widths))
    for r in cells:
        click.echo("  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip())
    click.echo(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
