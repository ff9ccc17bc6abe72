"""Supersession: a later statement of the same thing's state replaces an earlier one.

Owns the state-or-event reading of a statement (``claims``, its noun phrases in
``participants``), the rule that decides when
one claim replaces another (``compare``) and the detector the write path asks for the
earlier memories a new statement replaces (``detector``). No LLM is needed: the reading
comes from the dependency parse and WordNet's verb classes.

May import graphmem.text (parser, WordNet table) and graphmem.view (the namespace's
memories); the write path (graphmem.consensus) imports it, nothing of it imports the
write path.
"""

from graphmem.supersession.claims import Claim, Participant, read_claim
from graphmem.supersession.compare import same_attribute, supersedes

__all__ = ["Claim", "Participant", "read_claim", "same_attribute", "supersedes"]
