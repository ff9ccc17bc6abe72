"""Data shapes of the public API (pydantic models; persistence lives in the store layer)."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from graphmem.errors import InvalidInput

#: Longest deposit accepted, in characters. Hamlet's longest speech is under 5,000;
#: a deposit longer than this is a document to split before depositing, not a memory.
MAX_TEXT_CHARS = 20_000
MAX_WITNESSES = 1_000
Via = Literal["witnessed", "told", "seeded", "inferred"]
AgentKind = Literal["character", "human", "ai", "service", "process", "environment", "carrier"]
AGENT_KINDS: tuple[str, ...] = get_args(AgentKind)
DEFAULT_NS = "default"


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

    agent: str = Field(min_length=1, max_length=200)
    text: str
    witnesses: tuple[str, ...] = ()
    told_by: str | None = None
    at: datetime | None = None
    place: str | None = None
    domain: str | None = None
    ns: str = Field(default=DEFAULT_NS, min_length=1, max_length=200)
    via: Via | None = None
    #: what the deposit answers or follows (the previous turn of a conversation): indexed
    #: for search with the deposit's statements, never remembered as one
    context: str | None = Field(default=None, max_length=MAX_TEXT_CHARS)

    @field_validator("text")
    @classmethod
    def _text_fits(cls, text: str) -> str:
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
    from pydantic import ValidationError

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
    conflicts: list[str] = Field(default_factory=list)
    t: datetime | None = None
    variants: list[str] = Field(default_factory=list)
    explain: dict[str, Any] | None = None
