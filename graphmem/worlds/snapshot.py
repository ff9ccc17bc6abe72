"""A namespace as a file: dump every node and relationship, restore them exactly.

A world checkpoint stores the world state and this dump side by side, so a resumed run
continues from the same memory it would have had. The dump is JSON lines, one node or
relationship a line, embeddings included (a restore must rank as the original did).
Relationship types restore through one named query each (``worlds/load_edges/TYPE``),
so the set of types is the data model's, fixed.
"""

from __future__ import annotations

import json
import uuid
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from graphmem.errors import InvalidInput
from graphmem.queries import queries_for

BATCH = 500


#: what a namespace's node holds of one store's life, not of the memory: its epoch tells
#: every process's view which namespace it was built from (graphmem.views)
_NOT_DUMPED = {"Namespace": ("epoch",)}


def dump_rows(graph, ns: str) -> Iterator[dict[str, Any]]:
    """Nodes (``{"node": label, "props": ...}``) then relationships of ``ns``."""
    for row in graph.query("worlds/dump_nodes", {"ns": ns}):
        label = row["labels"][0]
        props = {k: v for k, v in plain(row["props"]).items()
                 if k not in _NOT_DUMPED.get(label, ())}
        yield {"node": label, "props": props}
    edges = [{"edge": row["type"], "from_id": row["from_id"], "to_id": row["to_id"],
              "props": plain(row["props"])}
             for row in graph.query("worlds/dump_edges", {"ns": ns})]
    # two edges of one type between the same nodes (NEXT on two arcs) differ only in
    # their properties: order by them too, so that a dump is the same every time
    edges.sort(key=lambda e: (e["from_id"], e["edge"], e["to_id"],
                              json.dumps(e["props"], sort_keys=True, default=str)))
    yield from edges


def plain(props: dict[str, Any]) -> dict[str, Any]:
    """Properties as JSON values (vectors come back as lists of floats)."""
    return {k: [float(x) for x in v] if k == "embedding" and v is not None else v
            for k, v in props.items()}


def dump_namespace(graph, ns: str, path: Path) -> int:
    """Write ``ns`` to ``path``; returns the number of lines."""
    n = 0
    with path.open("w", encoding="utf-8") as out:
        for row in dump_rows(graph, ns):
            out.write(json.dumps(row, sort_keys=True) + "\n")
            n += 1
    return n


def restore_namespace(graph, ns: str, path: Path) -> int:
    """Replace ``ns`` with the dump at ``path``; returns the number of lines restored."""
    if not path.is_file():
        raise InvalidInput(f"{path}: no namespace dump there")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return restore_rows(graph, ns, rows, where=str(path))


def restore_rows(graph, ns: str, rows: list[dict[str, Any]], *, where: str = "dump") -> int:
    """Replace ``ns`` in ``graph`` with dumped rows (as ``dump_rows`` gives them).

    The restored namespace gets a new epoch: its version goes back to the dump's, and a
    view another process built of the namespace before (same name, later version) would
    otherwise be taken as ahead of it, and keep what the restore removed. Its timelines
    are then linked in this release's order (`relink_timelines`): a dump of this release
    is left exactly as it was, one of an older release gets the NEXT edges it would have
    had."""
    nodes: dict[str, list[dict]] = defaultdict(list)
    edges: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        if row.get("node") == "Namespace":  # also a dump made before epochs were left out
            nodes["Namespace"].append({**row["props"], "epoch": uuid.uuid4().hex})
        elif "node" in row:
            nodes[row["node"]].append(row["props"])
        else:
            edges[row["edge"]].append({k: row[k] for k in ("from_id", "to_id", "props")})
    queries = queries_for(graph.backend)
    unknown = sorted(t for t in edges if f"worlds/load_edges/{t}" not in queries)
    if unknown:
        raise InvalidInput(f"{where}: relationship types {unknown} are not in the data model")
    graph.drop_namespace(ns)
    restored = 0
    for label, items in sorted(nodes.items()):
        query = queries.labelled("worlds/load_nodes", label)
        for lo in range(0, len(items), BATCH):
            graph.cypher(query, {"rows": items[lo:lo + BATCH]}, write=True)
        restored += len(items)
    for kind, items in sorted(edges.items()):
        for lo in range(0, len(items), BATCH):
            graph.query(f"worlds/load_edges/{kind}", {"ns": ns, "rows": items[lo:lo + BATCH]},
                        write=True)
        restored += len(items)
    if edges.get("NEXT"):
        # a dump of an older release links its timelines in that release's order; the
        # view orders them by `view.arc_key`, so new memories would be spliced amiss
        graph.relink_timelines(ns=ns)
    return restored
