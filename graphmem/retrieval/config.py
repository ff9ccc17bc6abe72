"""Recall settings as one typed, frozen object, with named presets.

A `RecallConfig` says which ranking channels run (any registered in
``graphmem.retrieval.channels``: "dense", "bm25", "graph", "time", "profile", "speaker"),
how many candidates each returns, how they are weighted for each kind of question,
the RRF constant, and whether affiliated neighbours are ranked into the pool. `weights_for(config, query_class)` turns it into the weights for one query.

    HYBRID            every channel, weights chosen by the query's kind
    HYBRID_RRF        dense + bm25, equal weights, no classifier (the RRF baseline)
    DENSE_ONLY        vector similarity alone
    BM25_ONLY         BM25 alone

The per-kind weights, the RRF k and the route gate (`route`: a question whose channels
say no memory answers it takes part of the preference weights the gate was fitted with,
see `retrieval.route`) are fitted under cross-validation (see `DEFAULT_KIND_WEIGHTS`,
`DEFAULT_ROUTE`). A question in the first person gives the profile channel's weight to
`asker_profile` (the same statements with the rules the asker keeps; `ASKER_PROFILE`).
The entity-graph channel is held at 0 in that fit, so it is off by
default; turn it on with ``weights``/``kind_weights``. Affiliated neighbours are ranked in at
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
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from graphmem.errors import ConfigError

from graphmem.retrieval.channels import CHANNELS as REGISTERED
from graphmem.retrieval.classify import QueryClass, QueryKind
from graphmem.retrieval.route import RouteGate, routed

__all__ = [
    "ASKER_PROFILE",
    "BM25_ONLY",
    "CHANNELS",
    "DEFAULT_KIND_WEIGHTS",
    "DEFAULT_ROUTE",
    "DENSE_ONLY",
    "HYBRID",
    "HYBRID_RRF",
    "PRESETS",
    "PROFILE",
    "Channel",
    "RecallConfig",
    "SIMILARITY",
    "may_route",
    "route_target",
    "preset",
    "weights_for",
    "weights_for_gate",
    "weights_to_run",
]

#: a channel's registered name
Channel = str
CHANNELS: tuple[Channel, ...] = tuple(REGISTERED)
#: not a channel but a term of the fused score: a weight table may give it a weight, and
#: every candidate some channel ranked then scores ``weight * cosine / SIMILARITY_SCALE``
#: more (its similarity to the question, beside its ranks; see `fusion.with_similarity`)
SIMILARITY = "similarity"
#: The channel of the asker's own statements of a preference, and the channel that reads
#: the same statements with the rules the asker keeps ("I only use wired peripherals",
#: "I am not comfortable with heights"): for a question in the first person, recall gives
#: profile's weight to the wider one (twenty-sixth session). LoCoMo asks about named
#: people, never in the first person, and keeps the narrower net; a request for advice
#: about the asker reads everything the asker said they like, avoid or keep to. The fit
#: (`graphmem.evaluation.fusion_fit`) never weighs the wider channel itself: the weight it
#: takes is the profile weight fitted with the narrower net. Nested (the route gate and
#: the deposit share chosen with the move), it raised PrefEval at 300 distractors,
#: explicit recall@5 0.833 -> 0.889 and implicit-persona 0.861 -> 0.917, lowered no
#: worst fold and changed no LoCoMo question; with each fold's tables held as fitted
#: without it, explicit @300 rose to 0.917 (worst topic group 0.778 -> 0.889). On PrefEval
#: items no fit saw it brought explicit to dense's level: 1.000 at 10 distractors (from
#: 0.964 and 0.986 on two sets) and 0.969 at 300 (from 0.938) (docs/evaluation-protocols.md).
PROFILE = "profile"
ASKER_PROFILE = "constraints"

#: The weights are fitted, not chosen by hand: `graphmem.evaluation.fusion_fit` fits each
#: kind's channel weights (pairwise logistic over the RRF terms of captured rankings,
#: non-negative, shrunk towards the table fitted on every kind; the loss of each question
#: is a soft maximum over its relevant memories, so that the worst-placed piece of
#: evidence counts most) on the questions of `benchmarks/cv_protocol.py` (8 LoCoMo
#: conversations; PrefEval explicit, implicit-choice and implicit-persona at 10
#: distractors, and 36 items per form at 300); then the route gate below is fitted, and
#: then the share of the preference kind's dense weight moved to `deposit` (dense over
#: whole deposits: a long answer cut into many atoms counts once) is chosen (0.5), the
#: gate keeping the preference table it was fitted with for the questions it routes.
#: The entity-graph channel is held at 0 in the fit (twenty-fourth session): it fitted
#: to 0 until a speaker's short name joined their full one ("Mel", Melanie), then took
#: weight on some folds, and held at 0 the procedure did as well. So is `hop_dense`
#: (twenty-ninth session): switched off in each fold's own tables it cost PrefEval items,
#: and refitted without it the procedure lost nothing (and passed the same check on 48
#: PrefEval items never captured before). These are the tables fitted on all of those
#: questions, rounded. Fitted without the fold it is scored on (nested), the procedure
#: gave LoCoMo recall_all@10 0.741 (worst conversation 0.681; BM25 0.573), PrefEval
#: explicit recall@5 0.989 (worst topic group 0.955; dense 1.000), implicit forms 1.000;
#: at 300 distractors, with profile's weight moved for questions in the first person
#: (`ASKER_PROFILE`), explicit 0.917 (dense 0.750), implicit-choice 0.972 (dense 0.972),
#: implicit-persona 0.889 (dense 0.722) (docs/evaluation-protocols.md, twenty-ninth
#: session). The move changes no table: the fit never weighs the channel it moves the
#: weight to.
#: Multi-hop stays low (0.19): no fusion of these channels puts all of a list
#: question's evidence in the first 10, nor would dense over whole turns (simulated:
#: benchmarks/turn_vectors.py). The entity-graph channel, "hop_dense", "words" and "kinds"
#: are off; the others earned small weights. "expand" (the question's words and their nearest words of the namespace's vocabulary) is off too: fitted with
#: the others it raised LoCoMo but lost a PrefEval item, so it failed the rule. So is
#: "constraints" (the asker's statements of a preference or a rule they keep) as a
#: channel weighed of its own: it raised PrefEval explicit at 300 distractors but lost a
#: LoCoMo question in the worst conversation, fitted freely or for the preference kind only
#: (twenty-fifth session); it runs in profile's place for questions in the first person
#: (`ASKER_PROFILE`).
DEFAULT_KIND_WEIGHTS: dict[QueryKind, dict[Channel, float]] = {
    QueryKind.TEMPORAL: {"dense": 0.0, "bm25": 0.77, "words": 0.0, "graph": 0.0, "time": 1.0, "profile": 0.0, "speaker": 0.91, "said": 0.09, "hop": 0.0, "hop_dense": 0.0, "kinds": 0.0, "deposit": 0.0, "spread": 0.0},
    QueryKind.IDENTITY: {"dense": 0.54, "bm25": 0.8, "words": 0.0, "graph": 0.0, "time": 1.0, "profile": 0.52, "speaker": 0.0, "said": 0.0, "hop": 0.15, "hop_dense": 0.0, "kinds": 0.0, "deposit": 0.43, "spread": 0.0},
    QueryKind.PREFERENCE: {"dense": 0.3, "bm25": 0.28, "words": 0.0, "graph": 0.0, "time": 1.0, "profile": 0.39, "speaker": 0.0, "said": 0.0, "hop": 0.02, "hop_dense": 0.0, "kinds": 0.0, "deposit": 0.39, "spread": 0.0},
    QueryKind.FACTUAL: {"dense": 0.54, "bm25": 0.82, "words": 0.0, "graph": 0.0, "time": 1.0, "profile": 0.19, "speaker": 0.0, "said": 0.0, "hop": 0.0, "hop_dense": 0.0, "kinds": 0.0, "deposit": 0.12, "spread": 0.0},
    QueryKind.MULTI_HOP: {"dense": 0.61, "bm25": 0.53, "words": 0.0, "graph": 0.0, "time": 1.0, "profile": 0.34, "speaker": 0.0, "said": 0.0, "hop": 0.06, "hop_dense": 0.0, "kinds": 0.0, "deposit": 0.0, "spread": 0.0},
}
_BASE_WEIGHTS: dict[Channel, float] = {"dense": 0.67, "bm25": 0.43, "words": 0.0, "graph": 0.0, "time": 1.0, "profile": 0.45, "speaker": 0.0, "said": 0.06, "hop": 0.04, "hop_dense": 0.0, "kinds": 0.0, "deposit": 0.12, "spread": 0.0}
# a registered channel the shipped fit did not weigh is off (weight 0) until it earns one
for _table in (*DEFAULT_KIND_WEIGHTS.values(), _BASE_WEIGHTS):
    for _channel in CHANNELS:
        _table.setdefault(_channel, 0.0)
#: fitted with the weights (grid 1, 3, 10, 30, 60; 10 in 10 of the 12 held-out folds)
RRF_K = 10
#: The route gate fitted with these tables on the same questions (`retrieval.route`,
#: `graphmem.evaluation.route_fit`; its share chosen from 0.5, 0.75, 1): a question
#: whose nearest memory is far from it (cosine below about 0.26 with the default
#: embedder) takes half of the preference table it was fitted with (its `weights`: the
#: preference kind's before the move to deposit), whatever its cue words say.
#: The cosine's scale belongs to the embedder: with another model, refit or set None.
DEFAULT_ROUTE = RouteGate(features=("nearest",), mean=(0.605,), scale=(0.122,), coef=(-0.844,),
                          intercept=-2.381, share=0.5,
                          weights={"dense": 0.6, "bm25": 0.28, "words": 0.0, "graph": 0.0, "time": 1.0, "profile": 0.39, "speaker": 0.0, "said": 0.0, "hop": 0.02, "hop_dense": 0.0, "kinds": 0.0, "deposit": 0.09, "spread": 0.0})


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
    rrf_k: int = Field(RRF_K, gt=0, description="the k of reciprocal rank fusion")
    route: RouteGate | None = Field(
        DEFAULT_ROUTE, description="a fitted gate that routes a question to another kind's weights "
                          "by how its channels agree (retrieval.route); None: no routing")
    asker_profile: Channel | None = Field(
        ASKER_PROFILE, description="for a question in the first person (classifier on), the "
        "profile channel's weight goes to this channel; None: it stays with profile")
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

    @field_validator("asker_profile")
    @classmethod
    def _asker_profile_known(cls, value: Channel | None) -> Channel | None:
        if value is not None:
            _check_names([value], "asker_profile")
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
        if self.route is not None and self.route.weights is not None:
            _check_weights(self.route.weights, "route.weights")
        return self

    def depth_for(self, channel: Channel) -> int:
        """How many candidates the channel should return."""
        return self.channel_depth.get(channel, self.depth)


def weights_for(config: RecallConfig, query_class: QueryClass | None = None,
                features: Mapping[str, float] | None = None) -> dict[Channel, float]:
    """Channel weights for one query: every enabled channel, in `config.channels` order.

    With the classifier on and a class at or above `min_confidence`, the primary kind's
    weights are averaged with the secondary kinds' weights (each counted
    `secondary_share` times); otherwise `config.weights`. With a route gate
    (`config.route`) and the question's route ``features`` (`route.route_features`), a
    question the gate fires on takes its share of the gate's target (`route_target`; see
    `may_route`). A question in the first person (`QueryClass.about_asker`) then gives
    profile's weight to `config.asker_profile`, if that channel runs. The similarity
    term (`SIMILARITY`) is in the result only when its weight is above 0. A channel may come out at 0: the pipeline need not run it. If
    every enabled channel comes out at 0 for a kind, `config.weights` is used instead so
    that a query is never left with no ranking.
    """
    table = dict(config.weights)
    if config.classify and query_class is not None and query_class.confidence >= config.min_confidence:
        mixed = _mix_kind_weights(config, query_class)
        if any(mixed.get(c, 0.0) > 0 for c in config.channels):
            table = mixed
    gate = config.route
    if gate is not None and features is not None and may_route(config, query_class) and gate.fires(features):
        table = routed(table, route_target(config), gate.share)
    weights = {channel: table.get(channel, 0.0) for channel in config.channels}
    asker = config.asker_profile
    if (asker in weights and PROFILE in weights and query_class is not None
            and query_class.about_asker):
        weights[asker] += weights[PROFILE]
        weights[PROFILE] = 0.0
    if table.get(SIMILARITY, 0.0) > 0:  # a term of the score, not a channel: only if used
        weights[SIMILARITY] = table[SIMILARITY]
    return weights


def may_route(config: RecallConfig, query_class: QueryClass | None) -> bool:
    """True if the route gate is asked about this question: a gate is set, the
    classifier is on, and the question is not already of the gate's target kind."""
    gate = config.route
    return (gate is not None and config.classify and query_class is not None
            and query_class.kind != gate.target)


def weights_to_run(config: RecallConfig, query_class: QueryClass | None) -> dict[Channel, float]:
    """Weights whose positive entries are every channel recall may run for this question
    before its route is known (what the question must be parsed for): its kind's, the
    gate's target kind's and the channels the gate reads (at weight 1). Without a
    route: `weights_for`."""
    weights = weights_for_gate(config, query_class)
    if not may_route(config, query_class):
        return weights
    target = route_target(config)
    return {c: max(w, target.get(c, 0.0)) for c, w in weights.items()}


def route_target(config: RecallConfig) -> Mapping[str, float]:
    """The table a question the gate routes moves towards: the gate's own
    (`RouteGate.weights`) if it has one, else its target kind's."""
    gate = config.route
    assert gate is not None
    return gate.weights if gate.weights is not None else config.kind_weights[gate.target]


def weights_for_gate(config: RecallConfig, query_class: QueryClass | None) -> dict[Channel, float]:
    """The question's weights before its route is known, with the channels the gate
    reads at weight 1 if it is asked (what recall runs first). Without a route:
    `weights_for`."""
    weights = weights_for(config, query_class)
    if not may_route(config, query_class):
        return weights
    assert config.route is not None
    reads = set(config.route.channels)
    return {c: max(w, 1.0) if c in reads else w for c, w in weights.items()}


def _mix_kind_weights(config: RecallConfig, query_class: QueryClass) -> dict[Channel, float]:
    parts = [(1.0, config.kind_weights[query_class.kind])]
    parts += [(config.secondary_share, config.kind_weights[kind]) for kind in sorted(query_class.secondary)]
    total = sum(share for share, _ in parts)
    return {
        channel: sum(share * table.get(channel, 0.0) for share, table in parts) / total
        for channel in (*CHANNELS, SIMILARITY)
    }


def _check_names(names: object, where: str) -> None:
    known = set(CHANNELS) | ({SIMILARITY} if where.startswith(("weights", "kind_weights")) else set())
    unknown = sorted(set(names) - known)  # type: ignore[call-overload]
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
