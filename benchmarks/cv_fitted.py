"""The fitted fusion's variants, each judged by the rule against the shipped procedure.

    run_fitted(units, ks, variants, against) -> results (JSON-ready), markdown tables

Each variant of `FIT_VARIANTS` is a way of fitting the channel weights
(`graphmem.evaluation.fusion_fit`): which channels it may weigh, the loss, whether the
units captured at more distractors ("...-d300" datasets) are fitted on or only scored,
the pull towards the table fitted on every kind. For every held-out fold the variant is
fitted on the other folds and scored on the held-out one (nested); the rule
(`graphmem.evaluation.crossval.verdict`) then judges it against ``against`` (by default
`SHIPPED`, the procedure `graphmem.retrieval.config.DEFAULT_KIND_WEIGHTS` and
`DEFAULT_ROUTE` come from).
The shipped table itself, fitted on earlier captures of most of these units, is scored
beside them for reference (not nested), with the BM25, dense and RRF baselines.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, replace
from typing import Mapping

import numpy as np

from cv_report import BASELINES, Scorer, fit_fusion, metric_name, weight_tables
from cv_attribution import (attribute_each, channels_off, said, told_apart,
                            verdict_row)
from fit_steps import (ascend, best_on, fit_route, one_question, shift_to_deposit,
                       shift_with_gate)
from graphmem.evaluation.crossval import fold_table, verdict
from graphmem.evaluation.knobs import RRF_K_GRID, Setting
from graphmem.retrieval.classify import QueryKind
from graphmem.retrieval.config import HYBRID, SIMILARITY, RecallConfig, weights_for

#: channels added after the first fit: second-hop search (hop, hop_dense), WordNet
#: category members (kinds), dense over whole deposits (deposit), one hit per day (spread)
NEW_CHANNELS = ("hop", "hop_dense", "kinds", "deposit", "spread")


@dataclass(frozen=True)
class FitVariant:
    """One way of fitting the fusion."""

    left_out: tuple[str, ...] = ()  # channels held at weight 0
    focus: float | None = 1.0  # the loss's focus (fusion_fit.fit_weights); None: pairwise
    fit_more: bool = False  # fit on the units at more distractors too, not only score them
    similarity: bool = False  # the candidate's cosine as one more fitted term
    l2: float = 0.01  # pull of each kind's table towards the table fitted on every kind
    metric_focus: bool = False  # ``focus`` only for recall_all questions ...
    any_focus: float | None = None  # ... and this for recall_any ones (< 0: soft minimum)
    rrf_ks: tuple[int, ...] | None = None  # the RRF k grid it chooses from (None: the run's)
    # a route gate (graphmem.retrieval.route) over these features, fitted on the
    # training folds after the weights, its share chosen there from ``route_shares``
    route: tuple[str, ...] = ()
    route_shares: tuple[float, ...] = (0.5, 0.75, 1.0)
    # the gate's labels replayed at each share it may take (a gate fitted per share),
    # not at the full target weights with the share chosen afterwards
    gate_per_share: bool = False
    # per kind, the share of its fitted dense weight moved to deposit (dense over whole
    # deposits), chosen on the training folds from these (0 first: it wins ties); empty:
    # none moved
    deposit_shifts: tuple[float, ...] = ()
    deposit_kinds: tuple[str, ...] = ()  # the kinds whose shift is chosen (empty: every kind)
    shift_after_route: bool = False  # the shift chosen with the route gate already fitted
    # (with ``shift_after_route``) the gate keeps the table it was fitted to route to (the
    # target kind's before the shift, as `RouteGate.weights`): the shift moves the
    # weights of the target kind's own questions, not those of the questions routed there
    route_keeps_table: bool = False
    # each shift's gate fitted on its moved tables and the shift and the gate's share
    # (or no gate) chosen together on the training folds (needs ``route``)
    shift_with_gate: bool = False
    reshare_after_shift: bool = False  # then the gate's share chosen again (or no gate)
    # the mixing of secondary kinds chosen on the training folds from these (the first,
    # the shipped 0.5, wins ties); empty: the shipped 0.5
    secondary_shares: tuple[float, ...] = ()
    # channels fitted only in some kinds' tables: (channel, kinds), held at 0 elsewhere
    kind_only: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # channels held at 0 in some kinds' tables only: (channel, kinds), fitted elsewhere
    # (the fallback's table included)
    kind_held: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # a question in the first person gives profile's weight to the asker's channel
    # (`RecallConfig.asker_profile`); False: profile keeps it for every question
    asker_profile: bool = True
    # then, this many passes of coordinate ascent on the training folds' objective itself:
    # each kind's weight of each fitted channel halved, doubled, set to 0 (or, at 0, set
    # to 0.25), a change kept only if it scores better (the pairwise loss is not the
    # metric: recall_all@10 needs every evidence turn among the first ten)
    ascent: int = 0
    # a step of the ascent kept only if it also lowers no dataset's score on the training
    # folds (the rule's own test, applied inside them)
    ascent_guarded: bool = False
    ascent_kinds: tuple[str, ...] = ()  # the kinds whose tables ascend (empty: every kind)
    # "exact": the loss's minimum (`fusion_fit.fit_weights`); "adam": the loss descended
    # 300 steps from the prior (the shipped procedure until the twenty-ninth session: the
    # same tables to the third decimal, in several times the time)
    solver: str = "exact"
    # every discrete choice after the fit (the route gate and its share, the shift to
    # deposit, the secondary share) takes the first listed (the simplest) of the options
    # within one question of the smallest training dataset of the best
    # (`fit_steps.one_question`); False: the best, the first winning exact ties only
    choice_margin: bool = False


#: the route gate's feature sets: the nearest memory's cosine alone; with how dense and
#: BM25 agree; with how deposit and profile agree too
ROUTE_NEAREST = ("nearest",)
ROUTE_LEXICAL = ("nearest", "nearest_margin", "lexical_nearest", "lexical_in_dense",
                 "dense_in_lexical")
ROUTE_EVERY = (*ROUTE_LEXICAL, "deposit_in_lexical", "deposit_is_dense",
               "profile_is_deposit", "profile_any")

#: the procedure the shipped config comes from: every channel but `expand` (which failed
#: the rule in the seventeenth session and ships at weight 0), the all-evidence loss, the
#: 300-distractor items fitted on, the route gate over the nearest memory's cosine, then
#: the preference kind's dense weight moved to deposit by the share the folds choose, the
#: gate keeping its table (twenty-first session; before it, "shipped without expand").
#: Until the twentieth session this named "shipped + route (nearest)", which fits
#: `expand` too: the scripts judged against it by default (cv_protocol --fitted-only,
#: turn_vectors, cv_dense_once) compared with a procedure that was not shipped
#: Since the twenty-fourth session the graph channel is held at 0 too ("shipped without
#: graph"): once a speaker's short name joined their full one, the fit gave it weight on
#: some folds, and held at 0 it did as well (the rule kept the knob out). The constraints
#: channel (twenty-fifth session) is never weighed of its own in it: it takes profile's
#: weight for a question in the first person (twenty-sixth session); "shipped + constraints"
#: fits it as a channel. Since the twenty-ninth session hop_dense is held at 0 too ("shipped
#: with hop_dense" is the procedure before).
SHIPPED = "shipped without graph"

FIT_VARIANTS: dict[str, FitVariant] = {
    "previous fit (said, all-evidence loss)": FitVariant(NEW_CHANNELS),
    "fitted": FitVariant(("said", *NEW_CHANNELS), None),
    "fitted + said": FitVariant(NEW_CHANNELS, None),
    "shipped + d300 fitted": FitVariant(NEW_CHANNELS, fit_more=True),
    **{f"shipped + {c}": FitVariant(tuple(x for x in NEW_CHANNELS if x != c))
       for c in NEW_CHANNELS},
    "shipped + hop + hop_dense": FitVariant(("kinds", "deposit", "spread")),
    "shipped + hop + deposit": FitVariant(("hop_dense", "kinds", "spread")),
    "shipped + every new channel": FitVariant(),
    "shipped + deposit + d300 fitted": FitVariant(("hop", "hop_dense", "kinds", "spread"),
                                                  fit_more=True),
    "shipped + every new channel + d300 fitted": FitVariant(fit_more=True),
    # the candidates' cosine with the question as one more fitted term of the score
    "shipped + similarity": FitVariant(NEW_CHANNELS, similarity=True),
    "shipped + every new channel + d300 fitted + similarity": FitVariant(
        fit_more=True, similarity=True),
    # each question's loss follows its metric: the all-evidence loss for recall_all
    # (LoCoMo); for recall_any (PrefEval) every relevant memory's pairs alike, or the
    # soft minimum (the best-placed relevant memory counts most)
    "shipped + metric loss": FitVariant(
        fit_more=True, metric_focus=True, any_focus=None),
    "shipped + metric loss (soft min)": FitVariant(
        fit_more=True, metric_focus=True, any_focus=-1.0),
    # each kind's table pulled harder towards the table fitted on every kind: a question
    # the classifier sends to a kind fitted on another benchmark's questions keeps more of
    # the shared weights
    **{f"shipped + l2 {l2:g}": FitVariant(fit_more=True, l2=l2)
       for l2 in (0.003, 0.03, 0.1, 0.3, 1.0)},
    "shipped + metric loss + l2 0.1": FitVariant(
        fit_more=True, metric_focus=True, l2=0.1),
    # the RRF k chosen on the training folds from a grid (the shipped procedure fixes 10)
    "shipped + k from 3/10/30": FitVariant(fit_more=True, rrf_ks=(3, 10, 30)),
    # a question routed to the preference kind's weights by how its channels agree
    # (graphmem.retrieval.route), the gate fitted on the training folds
    "shipped + route (nearest)": FitVariant(fit_more=True, route=ROUTE_NEAREST),
    # the same without the expand channel (graphmem.retrieval.channels.expand): the
    # shipped procedure until the twenty-first session
    "shipped without expand": FitVariant(("expand",), fit_more=True, route=ROUTE_NEAREST),
    "shipped + route (dense/BM25 agreement)": FitVariant(fit_more=True, route=ROUTE_LEXICAL),
    "shipped + route (every agreement)": FitVariant(fit_more=True, route=ROUTE_EVERY),
    # per kind, part of dense's weight moved to deposit (dense over whole deposits: a long
    # answer cut into many atoms counts once), chosen on the training folds
    "shipped + dense to deposit chosen": FitVariant(
        fit_more=True, route=ROUTE_NEAREST, deposit_shifts=(0.0, 0.25, 0.5, 0.75, 1.0)),
    "shipped + dense to deposit chosen (preference kind)": FitVariant(
        fit_more=True, route=ROUTE_NEAREST, deposit_shifts=(0.0, 0.25, 0.5, 0.75, 1.0),
        deposit_kinds=("preference",)),
    "shipped + dense to deposit chosen (preference kind; after the route)": FitVariant(
        fit_more=True, route=ROUTE_NEAREST, deposit_shifts=(0.0, 0.25, 0.5, 0.75, 1.0),
        deposit_kinds=("preference",), shift_after_route=True),
    "shipped + dense to deposit chosen (preference kind; after the route; share again)":
        FitVariant(fit_more=True, route=ROUTE_NEAREST, deposit_shifts=(0.0, 0.25, 0.5, 0.75, 1.0),
                   deposit_kinds=("preference",), shift_after_route=True,
                   reshare_after_shift=True),
    # the shift and the gate chosen together: each shift's gate fitted on its moved tables
    "shipped + dense to deposit and gate chosen together (preference kind)": FitVariant(
        fit_more=True, route=ROUTE_NEAREST, deposit_shifts=(0.0, 0.25, 0.5, 0.75, 1.0),
        deposit_kinds=("preference",), shift_with_gate=True),
    "shipped + dense to deposit and gate chosen together (preference kind; lexical gate)":
        FitVariant(fit_more=True, route=ROUTE_LEXICAL,
                   deposit_shifts=(0.0, 0.25, 0.5, 0.75, 1.0), deposit_kinds=("preference",),
                   shift_with_gate=True),
    "shipped + dense to deposit and gate chosen together (preference kind; every-agreement gate)":
        FitVariant(fit_more=True, route=ROUTE_EVERY,
                   deposit_shifts=(0.0, 0.25, 0.5, 0.75, 1.0), deposit_kinds=("preference",),
                   shift_with_gate=True),
    # the same move on the shipped procedure alone: the variants above leave no channel
    # out, so since the seventeenth session (`expand` built) they fit `expand` too, and
    # judged against SHIPPED they weighed the move and `expand` together
    "shipped without expand + dense to deposit and gate chosen together (preference kind)":
        FitVariant(("expand",), fit_more=True, route=ROUTE_NEAREST,
                   deposit_shifts=(0.0, 0.25, 0.5, 0.75, 1.0), deposit_kinds=("preference",),
                   shift_with_gate=True),
    # the move chosen after the gate, which keeps the preference table it was fitted to
    # route to: the move reaches the preference kind's questions, not the routed ones
    # (the variant above loses an item whose route its refitted gate drops): the shipped
    # procedure until the twenty-fourth session
    "shipped without expand + dense to deposit chosen after the route (preference kind; "
    "routed questions keep the table)": FitVariant(
        ("expand",), fit_more=True, route=ROUTE_NEAREST,
        deposit_shifts=(0.0, 0.25, 0.5, 0.75, 1.0), deposit_kinds=("preference",),
        shift_after_route=True, route_keeps_table=True),
    # the loss by metric (recall_any questions: the soft minimum over their relevant
    # memories, the loss nearest recall_any@5 the fit has) with the shift and the gate
    "shipped + metric loss (soft min) + dense to deposit and gate chosen together "
    "(preference kind)": FitVariant(
        fit_more=True, metric_focus=True, any_focus=-1.0, route=ROUTE_NEAREST,
        deposit_shifts=(0.0, 0.25, 0.5, 0.75, 1.0), deposit_kinds=("preference",),
        shift_with_gate=True),
    # the gate's labels replayed at the share it will route with, a gate per share
    "shipped + route (nearest; gate fitted per share)": FitVariant(
        fit_more=True, route=ROUTE_NEAREST, gate_per_share=True),
    "shipped + dense to deposit and gate chosen together (preference kind; gate per share)":
        FitVariant(fit_more=True, route=ROUTE_NEAREST,
                   deposit_shifts=(0.0, 0.25, 0.5, 0.75, 1.0), deposit_kinds=("preference",),
                   shift_with_gate=True, gate_per_share=True),
    "shipped + dense to deposit chosen (after the route)": FitVariant(
        fit_more=True, route=ROUTE_NEAREST, deposit_shifts=(0.0, 0.25, 0.5, 0.75, 1.0),
        shift_after_route=True),
    "shipped + dense to deposit chosen (at most half)": FitVariant(
        fit_more=True, route=ROUTE_NEAREST, deposit_shifts=(0.0, 0.25, 0.5)),
    # the secondary kinds' share of the weights chosen on the training folds
    "shipped + secondary share chosen": FitVariant(fit_more=True,
                                                   secondary_shares=(0.5, 0.0, 0.25, 1.0)),
}
#: the procedure shipped until the twenty-fourth session with the graph channel held at 0
#: too (it fitted to 0 on every fold until a speaker's short name joined their full one);
#: since the twenty-sixth session a question in the first person gives profile's weight to
#: the constraints channel (`RecallConfig.asker_profile`), which the fit never weighs
FIT_VARIANTS[SHIPPED] = replace(
    FIT_VARIANTS["shipped without expand + dense to deposit chosen after the route "
                 "(preference kind; routed questions keep the table)"],
    left_out=("expand", "graph", "hop_dense"))
#: the shipped procedure before that: profile keeps its weight for every question
FIT_VARIANTS["shipped with profile for every question"] = replace(
    FIT_VARIANTS[SHIPPED], left_out=("expand", "graph", "hop_dense", "constraints"),
    asker_profile=False)
#: the shipped procedure, then coordinate ascent on the metric (twenty-eighth session)
FIT_VARIANTS["shipped + metric ascent"] = replace(FIT_VARIANTS[SHIPPED], ascent=1)
FIT_VARIANTS["shipped + metric ascent (no dataset lowered)"] = replace(
    FIT_VARIANTS[SHIPPED], ascent=1, ascent_guarded=True)
#: the ascent of the multi-hop kind's table alone: its questions have the most evidence
#: turns, where the pairwise loss is furthest from recall_all@10
FIT_VARIANTS["shipped + metric ascent (multi-hop kind)"] = replace(
    FIT_VARIANTS[SHIPPED], ascent=1, ascent_kinds=("multi_hop",))
#: the shipped procedure fitted by 300 Adam steps from the prior, as until the
#: twenty-ninth session (the same score on every question as the exact minimum)
FIT_VARIANTS["shipped (Adam fit)"] = replace(FIT_VARIANTS[SHIPPED], solver="adam")
#: the shipped procedure with every discrete choice after the fit (the gate and its share,
#: the preference kind's shift to deposit) needing more than one question of the smallest
#: training dataset over every simpler option (thirtieth session): a placebo channel that
#: knows nothing gained up to one 300-distractor item through such choices. Removed: it
#: silences the placebo but keeps the route gate out (explicit @300 0.917 -> 0.861)
FIT_VARIANTS["shipped with choices by a margin"] = replace(FIT_VARIANTS[SHIPPED],
                                                         choice_margin=True)
#: the shipped procedure with deposit held at 0 in the multi-hop kind's table (thirtieth
#: session): fitted on the 252-item pool the kind weighed it (0.12), which runs one more
#: index search for every list question; at a million memories its p95 rose past 30 ms.
#: Removed: it lowered LoCoMo's worst conversation by a question (mean +0.0035)
FIT_VARIANTS["shipped without deposit for multi-hop questions"] = replace(
    FIT_VARIANTS[SHIPPED], kind_held=(("deposit", ("multi_hop",)),))
#: the channels whose own part fails when each is switched off in each fold's own tables
#: (`run_fitted(attribute=True)`, twenty-ninth session), removed and the rest refitted
#: (the first, removed, kept by the rule and shipped since: SHIPPED holds hop_dense at 0;
#: this is the procedure before, hop_dense fitted)
FIT_VARIANTS["shipped with hop_dense"] = replace(FIT_VARIANTS[SHIPPED],
                                                 left_out=("expand", "graph"))
FIT_VARIANTS["shipped without the channels that do not earn their weight"] = replace(
    FIT_VARIANTS[SHIPPED], left_out=(*FIT_VARIANTS[SHIPPED].left_out, "words", "speaker",
                                     "said", "hop", "kinds", "spread"))
#: the constraints channel weighed of its own, for every question (twenty-fifth session)
FIT_VARIANTS["shipped + constraints"] = replace(FIT_VARIANTS[SHIPPED], asker_profile=False)
#: the same, the channel weighed only for recommendation questions (the preference kind's
#: table, which the route gate also routes to): held at 0 for list and factual questions
FIT_VARIANTS["shipped + constraints (preference kind)"] = replace(
    FIT_VARIANTS["shipped + constraints"], kind_only=(("constraints", ("preference",)),))


def uncaptured_weighted(scorer: Scorer, config: RecallConfig, held: np.ndarray) -> int:
    """Held-out questions whose weights under ``config`` give a channel their capture
    lacks (captured before it existed) a weight > 0: their replay is not what live
    recall would return, so a variant with any is not measured on them."""
    count = 0
    for i in np.flatnonzero(held):
        captured = scorer.questions[i][1].captured
        weights = weights_for(config, captured.query_class() if config.classify else None)
        count += any(w > 0 and c not in captured.rankings for c, w in weights.items()
                     if c != SIMILARITY)
    return count


def fit_variant(scorer: Scorer, variant: FitVariant, train: np.ndarray, ks) -> RecallConfig:
    """``variant`` fitted on the questions in ``train``."""
    channels = tuple(c for c in HYBRID.channels if c not in variant.left_out)
    # no gate unless the variant fits one: HYBRID ships the fitted gate, and a variant
    # without one that kept it would be judged with the shipped gate in it
    base = Setting(HYBRID.model_copy(update={
        "channels": channels, "route": None,
        "asker_profile": HYBRID.asker_profile if variant.asker_profile else None}))
    # variants that differ only in what follows the weights share their fit
    key = (replace(variant, route=(), route_shares=(), gate_per_share=False,
                   secondary_shares=(), deposit_shifts=(), deposit_kinds=(),
                   shift_after_route=False, reshare_after_shift=False, shift_with_gate=False,
                   route_keeps_table=False, ascent=0, choice_margin=False),
           tuple(ks), train.tobytes())
    if key not in scorer.fits:
        scorer.fits[key] = fit_fusion(
            scorer, base, train, focus=variant.focus, ks=variant.rrf_ks or ks,
            similarity=variant.similarity, l2=variant.l2, metric_focus=variant.metric_focus,
            any_focus=variant.any_focus,
            kind_only={c: {QueryKind(k) for k in kinds} for c, kinds in variant.kind_only},
            held={c: {QueryKind(k) for k in kinds} for c, kinds in variant.kind_held},
            solver=variant.solver)
    config = scorer.fits[key]
    margin = one_question(scorer, train) if variant.choice_margin else 0.0
    if variant.secondary_shares:
        config = best_on(scorer, train, [config.model_copy(update={"secondary_share": share})
                                         for share in variant.secondary_shares], margin=margin)
    if variant.deposit_shifts and variant.shift_with_gate:
        return shift_with_gate(scorer, config, train, variant.deposit_shifts,
                               variant.deposit_kinds, variant.route, variant.route_shares,
                               variant.gate_per_share, margin=margin)
    if variant.deposit_shifts and not variant.shift_after_route:
        config = shift_to_deposit(scorer, config, train, variant.deposit_shifts,
                                  variant.deposit_kinds, margin=margin)
    if variant.route:
        config = fit_route(scorer, config, train, variant.route, variant.route_shares,
                           variant.gate_per_share, margin=margin)
    if variant.route_keeps_table and config.route is not None:
        kept = dict(config.kind_weights[config.route.target])
        config = config.model_copy(update={"route": config.route.model_copy(
            update={"weights": kept})})
    if variant.deposit_shifts and variant.shift_after_route:
        config = shift_to_deposit(scorer, config, train, variant.deposit_shifts,
                                  variant.deposit_kinds, margin=margin)
        if variant.reshare_after_shift and config.route is not None:
            gates = [None, *(config.route.model_copy(update={"share": share})
                             for share in variant.route_shares)]
            config = best_on(scorer, train, [config, *(config.model_copy(update={"route": g})
                                                       for g in gates)], margin=margin)
    for _ in range(variant.ascent):  # not the asker's channel: it takes profile's weight
        config = ascend(scorer, config, train,
                        tuple(c for c in channels if c != config.asker_profile),
                        guarded=variant.ascent_guarded, kinds=variant.ascent_kinds)
    return config


def nested_variant(scorer: Scorer, name: str, variant: FitVariant, ks,
                   switched_off: Mapping[str, tuple[str, ...]] | None = None
                   ) -> tuple[np.ndarray, dict, dict[str, np.ndarray]]:
    """Per question, its score under ``variant`` fitted without its fold; the tables;
    and, for each label of ``switched_off``, its score under the same fold's tables with
    those channels' weights set to 0 (`channels_off`): paired, with no refit between."""
    out = np.zeros(len(scorer.datasets))
    switched_off = switched_off or {}
    off = {label: np.zeros(len(scorer.datasets)) for label in switched_off}
    tables = {}
    fittable = variant.fit_more | ~np.char.endswith(scorer.datasets.astype(str), "-d300")
    for fold in np.unique(scorer.folds):
        config = fit_variant(scorer, variant, fittable & (scorer.folds != fold), ks)
        held = scorer.folds == fold
        out[held] = scorer.setting(Setting(config))[held]
        for label, channels in switched_off.items():
            off[label][held] = scorer.setting(Setting(channels_off(config, channels)))[held]
        tables[str(fold)] = weight_tables(config)
        unmeasured = uncaptured_weighted(scorer, config, held)
        if unmeasured:
            print(f"WARNING {name}, fold {fold}: {unmeasured} held-out questions weight "
                  "a channel their capture lacks", file=sys.stderr)
    every = fit_variant(scorer, variant, fittable, ks)
    tables["all folds"] = weight_tables(every)
    print(f"{name}, fitted on every fold: {weight_tables(every)}", file=sys.stderr)
    return out, tables, off


def added_channels(variant: FitVariant, against: FitVariant) -> tuple[str, ...]:
    """The channels ``variant`` may weigh that ``against`` holds at 0."""
    return tuple(c for c in against.left_out if c not in variant.left_out)


def run_fitted(units, ks=RRF_K_GRID, variants=None, against: str = SHIPPED,
               tolerate_mismatch: bool = False, attribute: bool = False) -> dict:
    """Each variant (all of `FIT_VARIANTS` if ``variants`` is None) fitted without the
    fold it is scored on, judged by the rule against ``against``, with the shipped table
    and the baselines in the same run. Stops if the replay differs from live recall on
    any question, unless ``tolerate_mismatch``.

    A variant that weighs channels ``against`` holds at 0 is also scored with its own
    tables and those channels at 0: what the channels give, told from what the refit
    their column allows gives. ``attribute``: each channel ``against`` may weigh,
    switched off in each fold's own tables and judged by the rule (the tables whole
    against the tables without it)."""
    from cv_tables import category_table, dataset_table

    started = time.perf_counter()
    scorer = Scorer(units)
    mismatches = scorer.check_replay(tolerate_mismatch)
    names = [against, *[n for n in (variants or FIT_VARIANTS) if n != against]]
    unknown = [n for n in names if n not in FIT_VARIANTS]
    if unknown:
        raise SystemExit(f"unknown variants {unknown}; known: {list(FIT_VARIANTS)}")
    systems, tables, verdicts = {}, {}, {}
    # a variant's added channels, and its scores with its own tables and those at 0
    switched_off: dict[str, tuple[tuple[str, ...], np.ndarray]] = {}
    each_off: dict[str, np.ndarray] = {}  # ``against``'s own tables, one channel off
    for name in names:
        if name == against:
            off_sets = {c: (c,) for c in HYBRID.channels
                        if c not in FIT_VARIANTS[against].left_out} if attribute else {}
        else:
            added = added_channels(FIT_VARIANTS[name], FIT_VARIANTS[against])
            off_sets = {"added": added} if added else {}
        systems[f"graphmem {name} (nested)"], tables[name], off = nested_variant(
            scorer, name, FIT_VARIANTS[name], ks, off_sets)
        if name == against:
            each_off = off
        elif off:
            switched_off[name] = (added, off["added"])
            systems[f"graphmem {name} (nested; {', '.join(added)} at 0)"] = off["added"]
        summary = fold_table(systems[f"graphmem {name} (nested)"], scorer.datasets,
                             scorer.folds).summary()
        print(f"{name}: done in {time.perf_counter() - started:.0f} s; mean / worst fold: "
              + ", ".join(f"{d} {m:.3f} / {w:.3f}" for d, (m, w) in summary.items()),
              file=sys.stderr, flush=True)
    reference = fold_table(systems[f"graphmem {against} (nested)"], scorer.datasets,
                           scorer.folds)
    for name in names[1:]:
        result = verdict(fold_table(systems[f"graphmem {name} (nested)"], scorer.datasets,
                                    scorer.folds), reference)
        verdicts[name] = verdict_row(result)
        print(f"- {name} against {against}: {said(result)}")
        if name in switched_off:  # what the channels give, apart from the refit they allow
            added, off_scores = switched_off[name]
            verdicts[name].update(told_apart(systems[f"graphmem {name} (nested)"],
                                             off_scores, reference, scorer, added, against))
    attribution = attribute_each(reference, each_off, scorer, against) if each_off else {}
    systems["graphmem shipped table (fitted before, not nested)"] = scorer.setting(
        Setting(HYBRID))
    systems.update({name: scorer.baseline(name) for name in BASELINES})
    out_tables: dict = {}
    for dataset in sorted(np.unique(scorer.datasets)):
        text, figures = dataset_table(scorer, systems, str(dataset), metric_name(str(dataset)))
        print("\n" + text)
        out_tables[str(dataset)] = figures
    if (scorer.datasets == "locomo").any():
        text, figures = category_table(scorer, systems)
        print("\n" + text)
        out_tables["locomo_categories"] = figures
    return {"replay_mismatches": mismatches, "questions": len(scorer.questions),
            "against": against, "verdicts": verdicts, "attribution": attribution,
            "fitted_tables_per_fold": tables,
            "scores": {"questions": [[q.dataset, q.fold, q.unit, i] for i, (_, q)
                                     in enumerate(scorer.questions)],
                       **{n: s.tolist() for n, s in systems.items()}},
            **out_tables}
