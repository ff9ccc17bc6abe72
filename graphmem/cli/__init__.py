"""The ``graphmem`` command line: the group is in ``app``, its commands in sibling modules
(importing them registers them)."""

from __future__ import annotations

from graphmem.cli import (eval_commands, graph_commands, lifecycle_commands, mcp_commands,
                          memory_commands, replay_commands, service_commands, store_commands,
                          trust_commands, ui_commands, world_commands)
from graphmem.cli.app import cli, open_graph

__all__ = ["cli", "eval_commands", "graph_commands", "lifecycle_commands", "main",
           "mcp_commands", "memory_commands", "open_graph", "replay_commands",
           "service_commands", "store_commands", "trust_commands", "ui_commands",
           "world_commands"]


def main() -> None:
    """Console entry point."""
    cli(prog_name="graphmem")
