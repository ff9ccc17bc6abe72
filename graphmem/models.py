"""Data shapes of the public API (pydantic models; persistence lives in the store layer)."""

from __future__ import annotations

import unicodedata
from datetime import datetime, timezone
from typing import Annotated, Any, Literal, get_args

from pydantic import (BaseModel, BeforeValidator, ConfigDict, Field, ValidationError,
                      field_validator, model_validator)

from graphmem.errors import InvalidInput

#: Longest deposit accepted, in characters. Hamlet's longest speech is under 5,000;
#: a deposit longer than this is a document to split before depositing, not a memory.
MAX_TEXT_CHARS = 20_000
MAX_WITNESSES = 1_000
Via = Literal["witnessed", "told", "seeded", "inferred"]
AgentKind = Literal["character", "human", "ai", "service", "process", "environment", "carrier"]
AGENT_KINDS: tuple[str, ...] = get_args(AgentKind)
DEFAULT_NS = "default"
#: Longest agent, namespace or memory id accepted.
MAX_ID_CHARS = 200


def check_identifier(value: object, field: str) -> str:
    """``value`` as an identifier (agent, witness, namespace, memory id), or InvalidInput
    naming ``field``: a str, not empty, not padded with whitespace, without control
    characters, at most MAX_ID_CHARS long, and valid Unicode (no lone surrogates).

    Ids are stored under uniqueness constraints; FalkorDB 4.16 crashes (signal 11) on a
    constrained value with leading or trailing whitespace, so such ids never reach it.
    """
    if not isinstance(value, str):
        raise InvalidInput(f"{field} must be a str, got {type(value).__name__} {value!r}")
    if not value:
        raise InvalidInput(f"{field} is empty; give the id of an agent, memory or namespace")
    if value != value.strip():
        raise InvalidInput(f"{field} {value!r} starts or ends with whitespace; strip it")
    if len(value) > MAX_ID_CHARS:
        raise InvalidInput(f"{field} has {len(value)} characters, more than {MAX_ID_CHARS}")
    bad = next((c for c in value if unicodedata.category(c) in ("Cc", "Cs")), None)
    if bad is not None:
        what = "a lone surrogate (not valid Unicode)" if unicodedata.category(bad) == "Cs" \
            else f"the control character {bad!r}"
        raise InvalidInput(f"{field} {value!r} contains {what}; ids are printable text")
    return value


def check_identifiers(value: object, field: str) -> tuple[str, ...]:
    """A list of identifiers (``witnesses``); one str is refused, not split into letters."""
    if isinstance(value, str):
        raise InvalidInput(f"{field} must be a list of agent ids, not one str; "
                           f"write {field}=[{value!r}]")
    if not isinstance(value, (list, tuple, set, frozenset)):
        raise InvalidInput(f"{field} must be a list of agent ids, got {type(value).__name__}")
    return tuple(check_identifier(v, f"{field}[{i}]") for i, v in enumerate(value))


def _identifier(field: str) -> Any:
    return BeforeValidator(lambda v: check_identifier(v, field))


AgentId = Annotated[str, _identifier("agent")]
NamespaceId = Annotated[str, _identifier("ns")]


def to_epoch_ms(when: datetime) -> int:
    """Epoch milliseconds of ``when`` (naive times are taken as UTC)."""
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return int(when.timestamp() * 1000)


def from_epoch_ms(ms: int | None) -> datetime | None:
    return None if ms is None else datetime.fromtimestamp(ms / 1000, tz=timezone.utc)


class Deposit(BaseModel):
    """What one agent remembers, as handed to ``remember``."""

    model_config = ConfigDict(frozen=True)

    agent: AgentId
    text: str
    witnesses: Annotated[tuple[str, ...],
                         BeforeValidator(lambda v: check_identifiers(v, "witnesses"))] = ()
    told_by: Annotated[str | None,
                       BeforeValidator(lambda v: v if v is None
                                       else check_identifier(v, "told_by"))] = None
    at: datetime | None = None
    place: str | None = None
    domain: str | None = None
    ns: NamespaceId = DEFAULT_NS
    via: Via | None = None
    #: episodic (what happened, the default) or procedural (how to do something, a tool's
    #: result); semantic facts come from consolidation, not deposits
    kind: Literal["episodic", "procedural"] = "episodic"
    #: what the deposit answers or follows (the previous turn of a conversation): indexed
    #: for search with the deposit's statements, never remembered as one
    context: str | None = Field(default=None, max_length=MAX_TEXT_CHARS)

    @field_validator("text", mode="before")
    @classmethod
    def _text_fits(cls, text: object) -> str:
        if not isinstance(text, str):
            raise ValueError(f"text must be a str, got {type(text).__name__}")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("text is not valid Unicode (it holds a lone surrogate)") from None
        stripped = text.strip()
        if not stripped:
            raise ValueError("text is empty; deposit a statement with some content")
        if len(stripped) > MAX_TEXT_CHARS:
            raise ValueError(
                f"text has {len(stripped):,} characters, more than the limit of "
                f"{MAX_TEXT_CHARS:,}; split the document into several deposits")
        return stripped

    @model_validator(mode="after")
    def _parties_are_distinct(self) -> "Deposit":
        seen = set()
        for w in self.witnesses:
            if not w:
                raise ValueError("a witness id is empty")
            if w == self.agent:
                raise ValueError(f"witness {w!r} is the depositor; list only the others present")
            if w in seen:
                raise ValueError(f"witness {w!r} is listed twice")
            seen.add(w)
        if len(self.witnesses) > MAX_WITNESSES:
            raise ValueError(f"{len(self.witnesses)} witnesses, more than {MAX_WITNESSES}")
        if self.told_by is not None and self.told_by == self.agent:
            raise ValueError("told_by names the depositor; an agent does not tell itself")
        return self

    @property
    def depositor_via(self) -> str:
        """How the depositor came to know it."""
        return self.via or ("told" if self.told_by else "witnessed")


def validate_deposit(**fields: Any) -> Deposit:
    """Build a Deposit, turning pydantic's error into one InvalidInput message."""
    try:
        return Deposit(**fields)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'deposit'}: {e['msg'].removeprefix('Value error, ')}"
            for e in exc.errors())
        raise InvalidInput(f"invalid deposit: {problems}") from None


class AtomOutcome(BaseModel):
    """What happened to one statement of a deposit."""

    text: str
    memory_id: str
    action: Literal["created", "merged"]
    similarity: float | None = None
    contradicts: list[str] = Field(default_factory=list)
    reason: str = ""


class RememberResult(BaseModel):
    """The outcome of ``remember``: one entry per atom, in deposit order."""

    deposit_id: str
    ns: str
    atoms: list[AtomOutcome]
    attempts: int = 1

    @property
    def memory_ids(self) -> list[str]:
        return [a.memory_id for a in self.atoms]


class Hit(BaseModel):
    """One recalled memory with its authorship: the retrieval bundle."""

    memory_id: str
    text: str
    score: float
    channels: dict[str, int] = Field(default_factory=dict)
    found_by: str = ""
    owners: list[str] = Field(default_factory=list)
    asserted_by: list[str] = Field(default_factory=list)
    conflicts: list[str] = Field(default_factory=list)  # those the asker owns
    #: how many memories in conflict with this one the asker does not own (not named)
    conflicts_unseen: int = 0
    #: current, superseded (a later claim replaced it) or disputed (a claim of the same
    #: time contradicts it); see graphmem.retrieval.validity
    status: Literal["current", "superseded", "disputed"] = "current"
    valid_until: datetime | None = None
    superseded_by: str | None = None
    #: Intelligent Decay: S = αR + βE + γU and its terms, E for the asker's task
    utility: dict[str, float] = Field(default_factory=dict)
    t: datetime | None = None
    variants: list[str] = Field(default_factory=list)
    # -- authorship (RFC-0011 §8; graphmem.trust.bundle) --
    #: in [0, 1]: the deposit's trust-weighted confidence, reinforced and contested since
    confidence: float | None = None
    #: the memory's trust domain, and the highest trust among its asserters in it
    trust_domain: str | None = None
    trust_score: float | None = None
    #: every asserting agent's trust in that domain
    trust_scores: dict[str, float] = Field(default_factory=dict)
    #: asserted only by agents in quarantine (its confidence is capped)
    quarantined: bool = False
    #: "asserted", or "unverified" when every agent that asserted it was revoked
    epistemic: str = "asserted"
    explain: dict[str, Any] | None = None
