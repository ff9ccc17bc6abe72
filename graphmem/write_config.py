"""Write settings as one typed, frozen object, the write path's twin of ``RecallConfig``.

    candidates        nearest memories each new statement is judged against
    wordings_judged   how many of a memory's wordings (the latest) the judge reads
    threshold         cosine similarity from which guarded statements merge (default judge)
    contradiction_floor  below it a failed guard means "different", not "contradiction"
    episode_gap_ms    a deposit at the same place within this much world time of the
                      depositor's previous one continues that episode, and they are linked
    annotate          extract entities and times on write (MENTIONS, StoryArc)
    supersession      find the claims a new statement replaces with graphmem.supersession
                      (state vs event from the parse, earlier claims of the same anchor);
                      off: the judge's contradictions decide, as before
    salience          tag each new memory's salience (graphmem.salience; slows its decay,
                      does not change recall)
    max_attempts      plans applied before giving up when other writers keep moving
                      the namespace (then ``WriteConflict``)
    backoff_ms        the random pause after the n-th failed attempt is at most n times this
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graphmem.errors import ConfigError
from graphmem.judge import DEFAULT_CONTRADICTION_FLOOR, DEFAULT_THRESHOLD


class WriteConfig(BaseModel):
    """How ``remember`` judges, links and retries. Invalid values raise ConfigError."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    candidates: int = Field(5, gt=0)
    wordings_judged: int = Field(4, gt=0)
    threshold: float = Field(DEFAULT_THRESHOLD, gt=0.0, le=1.0)
    contradiction_floor: float = Field(DEFAULT_CONTRADICTION_FLOOR, ge=0.0, le=1.0)
    episode_gap_ms: int = Field(60 * 60 * 1000, ge=0)
    annotate: bool = True
    salience: bool = True
    supersession: bool = True
    max_attempts: int = Field(60, gt=0)
    backoff_ms: float = Field(2.0, ge=0.0)

    def __init__(self, **data: object) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            fields = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}"
                               for e in exc.errors())
            raise ConfigError(f"invalid WriteConfig: {fields}") from exc


DEFAULT_WRITE = WriteConfig()
