"""A namespace into Neo4j: a live server, Cypher statements, or CSV for neo4j-admin.

The embedding (384 floats a memory) is left out unless asked for: Browser shows every
property, and the case-study views do not need it. A server export goes through a
MemoryGraph opened on the server, so it lands in graphmem's own schema (constraints,
indexes) and graphmem can open it afterwards (recall needs ``with_embeddings``).

CSV layout, one file per label and per relationship type, for
``neo4j-admin database import full --nodes=Agent=nodes_Agent.csv ...``: node ids live
in one id space per label (``id:ID(Agent)``), arrays are ``;``-separated, and values
that are neither scalar nor a list of scalars are written as JSON text.
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from graphmem.worlds.snapshot import dump_rows, restore_rows

#: relationship type -> (start label, end label), as the data model has them
ENDS = {"OWNS": ("Agent", "Memory"), "AFFILIATED": ("Memory", "Memory"),
        "CONTRADICTS": ("Memory", "Memory"), "NEXT": ("Memory", "Memory"),
        "DERIVED_FROM": ("Memory", "Memory"), "MENTIONS": ("Memory", "Entity"),
        "OF": ("StoryArc", "Entity"), "INCLUDES": ("StoryArc", "Memory"),
        "PRODUCED": ("Deposit", "Memory"), "MESSAGED": ("Agent", "Agent"),
        "TRUSTS": ("Agent", "Agent")}


def export_rows(graph, ns: str, *, with_embeddings: bool = False) -> list[dict[str, Any]]:
    """The namespace's nodes and relationships, embeddings left out by default."""
    rows = list(dump_rows(graph, ns))
    if not with_embeddings:
        for row in rows:
            row["props"].pop("embedding", None)
    return rows


def to_server(graph, ns: str, target, *, with_embeddings: bool = False) -> int:
    """Copy ``ns`` into ``target`` (a MemoryGraph, e.g. opened on ``neo4j://``)."""
    return restore_rows(target, ns, export_rows(graph, ns, with_embeddings=with_embeddings),
                        where=f"namespace {ns}")


def literal(value: Any) -> str:
    """A Cypher literal for a JSON value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"`{k}`: {literal(v)}" for k, v in sorted(value.items())) + "}"
    text = str(value).replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n")
    return f"'{text}'"


def cypher_statements(rows: Iterable[dict[str, Any]]) -> Iterable[str]:
    """Statements that recreate the rows (for ``cypher-shell -f``), nodes first."""
    rows = list(rows)
    ns = next((r["props"]["ns"] for r in rows if "node" in r), None)
    for row in rows:
        if "node" in row:
            yield f"CREATE (:{row['node']} {literal(row['props'])});"
    for row in rows:
        if "edge" in row:
            start, end = ENDS[row["edge"]]
            yield (f"MATCH (a:{start} {{ns: {literal(ns)}, id: {literal(row['from_id'])}}}), "
                   f"(b:{end} {{ns: {literal(ns)}, id: {literal(row['to_id'])}}}) "
                   f"CREATE (a)-[:{row['edge']} {literal(row['props'])}]->(b);")


def write_cypher(rows: list[dict[str, Any]], path: Path) -> Path:
    path.write_text("\n".join(cypher_statements(rows)) + "\n", encoding="utf-8")
    return path


def column_type(values: list[Any]) -> str:
    """The neo4j-admin header type of a column."""
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, bool) for v in present):
        return "boolean"
    if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return "long"
    if present and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return "double"
    if present and all(isinstance(v, list) and all(isinstance(x, str) for x in v)
                       for v in present):
        return "string[]"
    return "string"


def cell(value: Any, kind: str) -> str:
    if value is None:
        return ""
    if kind == "string[]":
        return ";".join(value)
    if kind == "boolean":
        return "true" if value else "false"
    return value if isinstance(value, str) else json.dumps(value) if kind == "string" \
        else str(value)


def write_csv(rows: list[dict[str, Any]], directory: Path) -> list[Path]:
    """``nodes_<Label>.csv`` and ``rels_<TYPE>.csv`` for neo4j-admin import."""
    directory.mkdir(parents=True, exist_ok=True)
    nodes: dict[str, list[dict]] = defaultdict(list)
    edges: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        (nodes[row["node"]] if "node" in row else edges[row["edge"]]).append(row)
    paths = []
    for label, items in sorted(nodes.items()):
        keys = sorted({k for r in items for k in r["props"]} - {"id"})
        kinds = {k: column_type([r["props"].get(k) for r in items]) for k in keys}
        header = [f"id:ID({label})"] + [f"{k}:{kinds[k]}" for k in keys] + [":LABEL"]
        body = [[r["props"]["id"]] + [cell(r["props"].get(k), kinds[k]) for k in keys] + [label]
                for r in items]
        paths.append(write_table(directory / f"nodes_{label}.csv", header, body))
    for kind, items in sorted(edges.items()):
        start, end = ENDS[kind]
        keys = sorted({k for r in items for k in r["props"]})
        kinds = {k: column_type([r["props"].get(k) for r in items]) for k in keys}
        header = [f":START_ID({start})"] + [f"{k}:{kinds[k]}" for k in keys] + \
                 [f":END_ID({end})", ":TYPE"]
        body = [[r["from_id"]] + [cell(r["props"].get(k), kinds[k]) for k in keys] +
                [r["to_id"], kind] for r in items]
        paths.append(write_table(directory / f"rels_{kind}.csv", header, body))
    return paths


def write_table(path: Path, header: list[str], body: list[list[str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(header)
        writer.writerows(body)
    return path


def import_command(paths: list[Path]) -> str:
    """The neo4j-admin command that loads the CSV files."""
    parts = ["neo4j-admin database import full neo4j --array-delimiter=';'"]
    for p in paths:
        name = p.stem
        if name.startswith("nodes_"):
            parts.append(f"--nodes={name[6:]}={p.name}")
        else:
            parts.append(f"--relationships={name[5:]}={p.name}")
    return " ".join(parts)
