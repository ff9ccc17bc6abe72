"""Loaders for the four memory benchmarks, all returning one shape (`model`).

    load_locomo(path, *, skip_bad)                                   LoCoMo
    load_longmemeval(path, *, skip_bad)                              LongMemEval _s/_m/_oracle
    load_personamem(questions, contexts=None, *, skip_bad)           PersonaMem
    load_prefeval(root, *, form, topics, n_distractors, seed, skip_bad)  PrefEval

`load_benchmark(name, path, **options)` picks the loader by name for the CLI.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from graphmem.errors import InvalidInput
from graphmem.ingestion.benchmarks.locomo import load_locomo
from graphmem.ingestion.benchmarks.longmemeval import load_longmemeval
from graphmem.ingestion.benchmarks.model import LoadReport, Question, Turn, Unit
from graphmem.ingestion.benchmarks.personamem import load_personamem
from graphmem.ingestion.benchmarks.prefeval import load_prefeval

LOADERS: dict[str, Callable[..., LoadReport]] = {
    "locomo": load_locomo,
    "longmemeval": load_longmemeval,
    "personamem": load_personamem,
    "prefeval": load_prefeval,
}

__all__ = ["LOADERS", "LoadReport", "Question", "Turn", "Unit", "load_benchmark", "load_locomo",
           "load_longmemeval", "load_personamem", "load_prefeval"]


def load_benchmark(name: str, path: str | Path, **options: Any) -> LoadReport:
    """Load benchmark `name` from `path` with that loader's keyword options."""
    try:
        loader = LOADERS[name]
    except KeyError:
        raise InvalidInput(f"unknown benchmark {name!r}; choose one of "
                           f"{', '.join(sorted(LOADERS))}") from None
    return loader(path, **options)
