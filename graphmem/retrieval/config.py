"""Recall settings as one typed, frozen object, with named presets.

A `RecallConfig` says which ranking channels run (any registered in
``graphmem.retrieval.channels``: "dense", "bm25", "graph", "time", "profile", "speaker"),
how many candidates each returns, how they are weighted for each kind of question,
the RRF constant, and whether affiliated neighbours are ranked into the pool. `weights_for(config, query_class)` turns it into the weights for one query.

    HYBRID            every channel, weights chosen by the query's kind
    HYBRID_RRF        dense + bm25, equal weights, no classifier (the RRF baseline)
    DENSE_ONLY        vector similarity alone
    BM25_ONLY         BM25 alone

The per-kind weights were chosen on two LoCoMo conversations (conv-26, conv-30) and
checked on the other six: BM25 carries most of the ranking, dense similarity half as
much (as much for preferences, which are phrased in other words), time for temporal
questions, and the profile channel (the asker's own statements of taste, ranked among
themselves) for preference questions only, and the speaker channel (what the people
a question names said themselves) for multi-hop questions only. The entity-graph
channel lowered recall there at every weight tried, so it is off by default (weight 0);
turn it on with ``weights``/``kind_weights``. Affiliated neighbours are ranked in at
weight 0.1: once replies carry the turn they answer as context (see
``MemoryGraph.remember``), weight 0.5 cost recall on conv-26/30 (0.692 at 0.1 against
0.666 at 0.5) and on the other six (0.678 against 0.667); with two turns of context it
changes nothing measurable (0.720 with and without, all eight). The current figure of
every channel: ``python benchmarks/locomo_ablation.py --split``. Change settings with
`config.model_copy(update=...)` or `preset("HYBRID", rrf_k=30)`; the objects are
frozen, treat their dicts as read-only.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from graphmem.errors import ConfigError

from graphmem.retrieval.channels import CHANNELS as REGISTERED
from graphmem.retrieval.classify import QueryClass, QueryKind

__all__ = [
    "BM25_ONLY",
    "CHANNELS",
    "DEFAULT_KIND_WEIGHTS",
    "DENSE_ONLY",
    "HYBRID",
    "HYBRID_RRF",
    "PRESETS",
    "Channel",
    "RecallConfig",
    "preset",
    "weights_for",
]

#: a channel's registered name
Channel = str
CHANNELS: tuple[Channel, ...] = tuple(REGISTERED)

#: The speaker channel (what the people a question names said themselves) counts for
#: multi-hop questions only. Weight 1.0 for every kind raised multi-hop recall_all@10 on
#: LoCoMo conv-26/30 from 0.116 to 0.186 but dropped the adversarial category from 0.563
#: to 0.296 (those questions name the wrong person on purpose), and every weight tried
#: for every kind lowered the overall figure. For multi-hop questions alone (lists, "both",
#: comparisons: a person's things are gathered from their own words) weight 1.0 left
#: conv-26/30 overall at 0.735 and raised multi-hop there from 0.163 to 0.186; on the other
#: six, overall 0.711 -> 0.716 and multi-hop 0.169 -> 0.215.
#: Once the classifier also read a plural object ("Which cities has X visited?") as a
#: list question, multi-hop rose to 0.209 on conv-26/30 and 0.238 on the other six, overall
#: unchanged (0.732, 0.716). With the cue, weight 0.5 gave conv-26/30 0.742 overall at the
#: same multi-hop (four adversarial questions more, one open-domain less); 1.0, the weight
#: chosen before the cue, stays: four questions are within noise on 2 conversations. The
#: other six gave 0.714 overall and multi-hop 0.198 at 0.5.
SPEAKER_WEIGHT = 0.0
MULTI_HOP_SPEAKER_WEIGHT = 1.0
DEFAULT_KIND_WEIGHTS: dict[QueryKind, dict[Channel, float]] = {
    QueryKind.TEMPORAL: {"dense": 0.5, "bm25": 1.0, "graph": 0.0, "time": 0.5, "profile": 0.0, "speaker": SPEAKER_WEIGHT},
    QueryKind.IDENTITY: {"dense": 0.5, "bm25": 1.0, "graph": 0.0, "time": 0.0, "profile": 0.0, "speaker": SPEAKER_WEIGHT},
    QueryKind.PREFERENCE: {"dense": 1.0, "bm25": 1.0, "graph": 0.0, "time": 0.0, "profile": 1.0, "speaker": SPEAKER_WEIGHT},
    QueryKind.FACTUAL: {"dense": 0.5, "bm25": 1.0, "graph": 0.0, "time": 0.0, "profile": 0.0, "speaker": SPEAKER_WEIGHT},
    QueryKind.MULTI_HOP: {"dense": 0.5, "bm25": 1.0, "graph": 0.0, "time": 0.0, "profile": 0.0,
                          "speaker": MULTI_HOP_SPEAKER_WEIGHT},
}
_BASE_WEIGHTS: dict[Channel, float] = {"dense": 1.0, "bm25": 1.0, "words": 0.0, "graph": 0.5, "time": 0.0,
                                       "profile": 0.0, "speaker": 0.0}


class RecallConfig(BaseModel):
    """How `recall` ranks: channels, depths, weights per query kind, fusion and expansion.

    Invalid values raise ConfigError naming the field.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    channels: tuple[Channel, ...] = Field(CHANNELS, description="channels that run, in any order")
    weights: dict[Channel, float] = Field(
        default_factory=lambda: dict(_BASE_WEIGHTS),
        description="weights used when the classifier is off or unsure",
    )
    kind_weights: dict[QueryKind, dict[Channel, float]] = Field(
        default_factory=lambda: {kind: dict(w) for kind, w in DEFAULT_KIND_WEIGHTS.items()},
        description="weights per query kind, used when classify is on",
    )
    classify: bool = Field(True, description="choose weights by the query's kind")
    min_confidence: float = Field(0.0, ge=0.0, le=1.0, description="below this, use `weights`")
    secondary_share: float = Field(
        0.5, ge=0.0, description="how much each secondary kind's weights mix into the primary's"
    )
    rrf_k: int = Field(60, gt=0, description="the k of reciprocal rank fusion")
    depth: int = Field(50, gt=0, description="candidates each channel returns")
    channel_depth: dict[Channel, int] = Field(default_factory=dict, description="per-channel depth overrides")
    # off by default: under benchmarks/cv_protocol.py it changed no LoCoMo fold and cost
    # PrefEval explicit recall@5 on held-out topics (0.874 without, 0.852 with; worst fold
    # 0.800 against 0.775): it pulls the sibling atoms of long distractor turns in
    expand_affiliated: bool = Field(False, description="rank AFFILIATED neighbours into the pool")
    affiliated_weight: float = Field(0.1, ge=0.0, description="RRF weight of the affiliated pseudo-channel")
    affiliated_cap: int = Field(3, ge=0, description="at most this many neighbours per hit")

    def __init__(self, **data: object) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise ConfigError(f"invalid RecallConfig: {_describe(exc)}") from exc

    @field_validator("channels")
    @classmethod
    def _channels_unique_and_present(cls, value: tuple[Channel, ...]) -> tuple[Channel, ...]:
        if not value:
            raise ValueError("at least one channel must run")
        if len(set(value)) != len(value):
            raise ValueError(f"channels listed twice: {value}")
        _check_names(value, "channels")
        return value

    @field_validator("weights")
    @classmethod
    def _weights_valid(cls, value: dict[Channel, float]) -> dict[Channel, float]:
        _check_weights(value, "weights")
        return value

    @field_validator("kind_weights")
    @classmethod
    def _kind_weights_valid(cls, value: dict[QueryKind, dict[Channel, float]]) -> dict[QueryKind, dict[Channel, float]]:
        missing = [kind.value for kind in QueryKind if kind not in value]
        if missing:
            raise ValueError(f"no weights for query kinds {missing}")
        for kind, table in value.items():
            _check_weights(table, f"kind_weights[{kind.value}]")
        return value

    @field_validator("channel_depth")
    @classmethod
    def _depths_positive(cls, value: dict[Channel, int]) -> dict[Channel, int]:
        _check_names(value, "channel_depth")
        bad = {c: d for c, d in value.items() if d <= 0}
        if bad:
            raise ValueError(f"channel depths must be > 0, got {bad}")
        return value

    @model_validator(mode="after")
    def _some_channel_counts(self) -> RecallConfig:
        if not any(self.weights.get(c, 0.0) > 0 for c in self.channels):
            raise ValueError(f"every enabled channel {self.channels} has weight 0 in `weights`")
        return self

    def depth_for(self, channel: Channel) -> int:
        """How many candidates the channel should return."""
        return self.channel_depth.get(channel, self.depth)


def weights_for(config: RecallConfig, query_class: QueryClass | None = None) -> dict[Channel, float]:
    """Channel weights for one query: every enabled channel, in `config.channels` order.

    With the classifier on and a class at or above `min_confidence`, the primary kind's
    weights are averaged with the secondary kinds' weights (each counted
    `secondary_share` times); otherwise `config.weights`. A channel may come out at 0:
    the pipeline need not run it. If every enabled channel comes out at 0 for a kind,
    `config.weights` is used instead so that a query is never left with no ranking.
    """
    table = dict(config.weights)
    if config.classify and query_class is not None and query_class.confidence >= config.min_confidence:
        mixed = _mix_kind_weights(config, query_class)
        if any(mixed.get(c, 0.0) > 0 for c in config.channels):
            table = mixed
    return {channel: table.get(channel, 0.0) for channel in config.channels}


def _mix_kind_weights(config: RecallConfig, query_class: QueryClass) -> dict[Channel, float]:
    parts = [(1.0, config.kind_weights[query_class.kind])]
    parts += [(config.secondary_share, config.kind_weights[kind]) for kind in sorted(query_class.secondary)]
    total = sum(share for share, _ in parts)
    return {
        channel: sum(share * table.get(channel, 0.0) for share, table in parts) / total
        for channel in CHANNELS
    }


def _check_names(names: object, where: str) -> None:
    unknown = sorted(set(names) - set(CHANNELS))  # type: ignore[call-overload]
    if unknown:
        raise ValueError(f"{where}: unknown channel(s) {unknown}; registered: {list(CHANNELS)}")


def _check_weights(table: dict[Channel, float], where: str) -> None:
    _check_names(table, where)
    bad = {c: w for c, w in table.items() if not math.isfinite(w) or w < 0}
    if bad:
        raise ValueError(f"{where}: weights must be finite and >= 0, got {bad}")


def _describe(exc: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or 'config'}: {err['msg']}" for err in exc.errors()
    )


HYBRID = RecallConfig()
HYBRID_RRF = RecallConfig(
    channels=("dense", "bm25"), weights={"dense": 1.0, "bm25": 1.0}, classify=False, expand_affiliated=False
)
DENSE_ONLY = RecallConfig(channels=("dense",), weights={"dense": 1.0}, classify=False, expand_affiliated=False)
BM25_ONLY = RecallConfig(channels=("bm25",), weights={"bm25": 1.0}, classify=False, expand_affiliated=False)

PRESETS: dict[str, RecallConfig] = {
    "HYBRID": HYBRID,
    "HYBRID_RRF": HYBRID_RRF,
    "DENSE_ONLY": DENSE_ONLY,
    "BM25_ONLY": BM25_ONLY,
}


def preset(name: str, **overrides: object) -> RecallConfig:
    """A named preset (case-insensitive), optionally with some fields changed."""
    base = PRESETS.get(name.upper())
    if base is None:
        raise ConfigError(f"unknown recall preset {name!r}; choose one of {sorted(PRESETS)}")
    if not overrides:
        return base
    return RecallConfig(**{**base.model_dump(), **overrides})
