"""Check graphmem's Neo4j-dialect queries with Neo4j's own Cypher front end, offline.

Neo4j cannot run where graphmem is developed, so its queries are checked by the npm
package ``@neo4j-cypher/language-support`` (pinned in ``tools/cypher-lint``): the Neo4j
parser and semantic analysis compiled to JavaScript. It reports syntax errors, undefined
variables, type errors, undeclared parameters, and calls to functions or procedures a
plain Neo4j 5 server does not have. One ``node`` process checks every query.

This is a development tool: it needs the repository checkout (``tools/cypher-lint``
with its ``node_modules``, installed by ``scripts/setup``) and Node.js.

    python -m graphmem.devtools.cypher_lint        # lint every query, exit 1 on errors
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from graphmem.errors import MissingDependency
from graphmem.queries import LABELS, QueryFile, query_files

TOOL_DIR = Path(__file__).resolve().parents[2] / "tools" / "cypher-lint"
PACKAGE = "@neo4j-cypher/language-support"


class LintToolMissing(MissingDependency):
    """Node.js or the linter's node_modules are not installed."""


@dataclass(frozen=True)
class LintQuery:
    """One query text to check, with the parameters it may use."""

    name: str
    text: str
    params: tuple[str, ...]


@dataclass(frozen=True)
class Diagnostic:
    """One finding of the linter; ``line`` and ``column`` are 1-based."""

    name: str
    severity: str  # "error", "warning", "info" or "hint"
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"{self.name}:{self.line}:{self.column}: {self.severity}: {self.message}"


def neo4j_queries(files: Iterable[QueryFile] | None = None) -> list[LintQuery]:
    """Every query Neo4j runs: the shared ones and the ``.neo4j`` variants.

    A query that names ``{label}`` is checked once per label of ``LABELS``, as
    ``Queries.labelled`` would fill it.
    """
    out: list[LintQuery] = []
    for qf in query_files() if files is None else files:
        if qf.backend not in (None, "neo4j"):
            continue
        if "{label}" in qf.text:
            out.extend(LintQuery(f"{qf.name}[{label}]", qf.text.replace("{label}", label),
                                 tuple(qf.parameters)) for label in LABELS)
        else:
            out.append(LintQuery(qf.name, qf.text, tuple(qf.parameters)))
    return out


def find_lint_script(tool_dir: Path = TOOL_DIR) -> tuple[str, Path]:
    """The node executable and the lint script; raise LintToolMissing if absent."""
    node = shutil.which("node")
    if node is None:
        raise LintToolMissing("the Cypher lint needs Node.js (node) on PATH; install Node 20 or newer")
    if not (tool_dir / "node_modules" / PACKAGE / "package.json").is_file():
        raise LintToolMissing(
            f"{PACKAGE} is not installed in {tool_dir}; run scripts/setup "
            f"(or: cd {tool_dir} && npm ci)")
    return node, tool_dir / "lint.mjs"


def lint_queries(queries: Sequence[LintQuery], tool_dir: Path = TOOL_DIR,
                 timeout_s: float = 300) -> list[Diagnostic]:
    """Run every query through the linter in one node process; return all findings."""
    node, script = find_lint_script(tool_dir)
    payload = json.dumps([{"name": q.name, "text": q.text, "params": list(q.params)}
                          for q in queries])
    proc = subprocess.run([node, str(script)], input=payload, capture_output=True,
                          text=True, cwd=tool_dir, timeout=timeout_s, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{script} failed (exit {proc.returncode}): {proc.stderr.strip()}")
    return [Diagnostic(**d) for d in json.loads(proc.stdout)]


def errors_only(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """The findings of error severity."""
    return [d for d in diagnostics if d.severity == "error"]


def main(argv: Sequence[str] | None = None) -> int:
    """Lint every Neo4j query; print findings; exit 1 if any is an error."""
    del argv  # no options yet
    found = lint_queries(neo4j_queries())
    for diagnostic in found:
        print(diagnostic)
    return 1 if errors_only(found) else 0


if __name__ == "__main__":
    sys.exit(main())
