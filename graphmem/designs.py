"""The memory designs the papers compare, behind one remember/recall interface.

A design is a setting of the write path, so one workload runs on each unchanged:

- ``consensus``: equivalent atoms merge (owner sets union), atoms of a deposit and
  consecutive records of an episode are linked (``AFFILIATED``) — graphmem's design.
- ``nomerge``: the ablation — links kept, merging disabled.
- ``private``: one record per witness, no merge, no links (the Generative-Agents design):
  every party present gets its own copy, owned by it alone.
- ``shared-acl``: one shared record per deposit whose access list is the parties
  present, no merge, no links (the Collaborative-Memory design).
"""

from __future__ import annotations

from dataclasses import dataclass

from graphmem.errors import ConfigError


@dataclass(frozen=True)
class Design:
    name: str
    merge: bool
    link: bool
    private_copies: bool


CONSENSUS = Design("consensus", merge=True, link=True, private_copies=False)
NOMERGE = Design("nomerge", merge=False, link=True, private_copies=False)
PRIVATE = Design("private", merge=False, link=False, private_copies=True)
SHARED_ACL = Design("shared-acl", merge=False, link=False, private_copies=False)
DESIGNS = {d.name: d for d in (CONSENSUS, NOMERGE, PRIVATE, SHARED_ACL)}


def design_named(name: str) -> Design:
    """The design called ``name``; a clear error lists the choices."""
    try:
        return DESIGNS[name]
    except KeyError:
        raise ConfigError(f"unknown design {name!r}; choose one of {', '.join(DESIGNS)}") from None
