"""The registry of named Cypher queries, read once from the ``cypher/`` files.

A query ``who_knew/owners_of`` lives in ``cypher/who_knew/owners_of.cypher``; where a
backend's dialect differs, ``owners_of.falkordb.cypher`` or ``owners_of.neo4j.cypher``
sits beside it and wins for that backend. Query text never contains user input: values
travel as parameters, and the only text substitution is a label from ``LABELS``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

BACKENDS = ("falkordb", "neo4j")
#: Node labels of the data model; every one has uniqueness on (ns, id).
LABELS = ("Agent", "Memory", "Entity", "StoryArc", "Deposit", "OpLog", "Namespace")
_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


@dataclass(frozen=True)
class QueryFile:
    """One query text as read from disk."""

    name: str
    backend: str | None  # None: valid for every backend
    path: Path
    text: str

    @property
    def parameters(self) -> list[str]:
        """Names of the $parameters the query uses, in order of first use."""
        return list(dict.fromkeys(_PARAM.findall(_strip_comments(self.text))))


def _strip_comments(text: str) -> str:
    # Comments in query files are whole lines starting with //, by convention.
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))


def cypher_root() -> Path:
    """The directory holding the .cypher files."""
    return Path(str(resources.files("graphmem.cypher")))


def query_files(root: Path | None = None) -> list[QueryFile]:
    """Every query file under ``root`` (default: the installed cypher/ directory)."""
    root = root or cypher_root()
    files = []
    for path in sorted(root.rglob("*.cypher")):
        stem = path.relative_to(root).with_suffix("").as_posix()
        backend = None
        head, _, last = stem.rpartition(".")
        if head and last in BACKENDS:
            stem, backend = head, last
        files.append(QueryFile(stem, backend, path, path.read_text(encoding="utf-8").strip()))
    return files


class Queries:
    """Named queries for one backend: ``queries["memory/create"]``."""

    def __init__(self, backend: str, root: Path | None = None) -> None:
        if backend not in BACKENDS:
            raise ValueError(f"unknown backend {backend!r}; expected one of {BACKENDS}")
        self.backend = backend
        chosen: dict[str, QueryFile] = {}
        for qf in query_files(root):
            if qf.backend is None:
                chosen.setdefault(qf.name, qf)
            elif qf.backend == backend:
                chosen[qf.name] = qf
        self._files = chosen

    def __getitem__(self, name: str) -> str:
        try:
            return self._files[name].text
        except KeyError:
            raise KeyError(f"no query named {name!r} in {cypher_root()}") from None

    def __contains__(self, name: object) -> bool:
        return name in self._files

    def names(self) -> list[str]:
        return sorted(self._files)

    def labelled(self, name: str, label: str) -> str:
        """A query whose text names a label, filled from the fixed set ``LABELS``."""
        if label not in LABELS:
            raise ValueError(f"label {label!r} is not one of {LABELS}")
        return self[name].replace("{label}", label)


def queries_for(backend: str) -> Queries:
    """The registry of a backend, read from the query files (each store and handle keeps
    its own)."""
    return Queries(backend)
