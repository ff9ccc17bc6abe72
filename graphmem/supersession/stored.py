"""Claims kept with their memories (``m.claims``): a process that never read a memory
finds what it claims without parsing it.

The write path parses each statement it stores; this keeps that reading beside the
memory, one claim per wording, as JSON. Without it, a process opening a large store
parsed the memories a new statement might replace (hundreds of parses for a statement
about a crowded anchor: most of a remember's time in a new process).

A stored claim is used only if it was read the way this release reads: the JSON carries
`READING`, a digest of the modules that read claims and of the parser's model, so a
release that reads differently parses again instead of trusting an old reading.

Owns the format, and `RECLAIM`: the upgrade that says when `graphmem reclaim` is due.
Imports graphmem.supersession.claims and .participants, and graphmem.store.upgrades.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Mapping

from pydantic_core import from_json

from graphmem.supersession import claims as _claims_module
from graphmem.supersession import participants as _participants_module
from graphmem.supersession.claims import Claim
from graphmem.supersession.participants import Participant
from graphmem.store.upgrades import Upgrade
from graphmem.text.nlp import MODEL


def _reading() -> str:
    digest = hashlib.sha256(MODEL.encode())
    for module in (_claims_module, _participants_module):
        digest.update(Path(str(module.__file__)).read_bytes())
    return digest.hexdigest()[:16]


#: how claims are read in this release (see the module docstring)
READING = _reading()

#: `graphmem reclaim` is due where a memory keeps no claims of this reading (an older
#: release's store, memories loaded in bulk without them): opening a store, `status`
#: and `check` say so until it has run. A bulk load (`bulk/load_memories`) forgets that
#: it ran, so the next opening looks again.
RECLAIM = Upgrade("reclaim", "upgrade/has_unread_claims", "graphmem reclaim",
                  "memories keep no claims read the way this release reads them (an "
                  "older release wrote them, or they were loaded in bulk), so every new "
                  "statement parses the older ones it may replace, in every process",
                  version=READING)


#: a claim as plain values: (kind, predicate, verb class, classes, participants as
#: (key, type, role, replaced), negated, changes, why). It is what is kept with a memory
#: (as JSON) and what a detector keeps in memory: tuples of strings and booleans, which
#: the garbage collector stops walking (Claim and Participant objects it walks at every
#: full collection, and a writer keeps up to 200,000 claims)
Packed = tuple


def pack(claim: Claim) -> Packed:
    return (claim.kind, claim.predicate, claim.verb_class, tuple(sorted(claim.classes)),
            tuple((p.key, p.type, p.role, p.replaced) for p in claim.participants),
            claim.negated, claim.changes, claim.why)


def unpack(packed: Packed) -> Claim:
    kind, predicate, verb_class, classes, people, negated, changes, why = packed
    return Claim(kind, predicate, verb_class, frozenset(classes),
                 tuple(Participant(k, t, r, bool(rep)) for k, t, r, rep in people),
                 bool(negated), bool(changes), why)


def encode(claims: Mapping[str, Claim]) -> str:
    """The JSON kept with a memory: each wording's claim."""
    return encode_packed({text: pack(c) for text, c in claims.items()})


def encode_packed(claims: Mapping[str, Packed]) -> str:
    return json.dumps({"reading": READING, "claims": claims}, separators=(",", ":"))


def decode(stored: str | None) -> dict[str, Claim]:
    """The claims kept with a memory, by wording; empty when it has none, they were read
    another way (another release), or they cannot be read."""
    return {text: unpack(packed) for text, packed in decode_packed(stored).items()}


def decode_packed(stored: str | None) -> dict[str, Packed]:
    """`decode`, each claim packed."""
    if not stored:
        return {}
    try:
        # pydantic's parser (a dependency already): a third of json.loads's time, and a
        # statement reads the claims of up to 64 older memories
        data = from_json(stored)
        if data.get("reading") != READING:
            return {}
        return {text: (kind, predicate, verb_class, tuple(classes),
                       tuple((k, t, r, bool(rep)) for k, t, r, rep in people),
                       bool(negated), bool(changes), why)
                for text, (kind, predicate, verb_class, classes, people, negated, changes,
                           why) in data["claims"].items()}
    except (ValueError, TypeError, KeyError, AttributeError):
        return {}  # not ours, or damaged: the memory is parsed instead
