"""Channel weights fitted from captured rankings, instead of chosen by hand or by grid.

Weighted RRF scores a candidate as ``sum_c w_c / (k + rank_c)``: linear in the features
``x_c = 1 / (k + rank_c)`` (0 where channel c did not rank it). So a linear model over
those features *is* a weight table recall can ship: fitting it is fitting the fusion.
The fit is pairwise logistic (each relevant candidate of a question should outscore each
irrelevant one; the scale of the weights does not change a ranking, the pairwise loss
does not depend on a per-question offset), with weights kept >= 0 and an L2 pull towards
the table fitted on every kind together (a kind with few questions stays near it).

    fit_config(questions, base, within)  -> RecallConfig with fitted weights per kind
                                            (and the pooled table as the fallback)

``questions`` are (CapturedQuestion, turns_of_memory) pairs from ``benchmarks/cv_capture``;
``within`` marks those the fit may see (the training folds); ``cache`` (a dict the caller
keeps) saves building a question's features again for the next fold. Each dataset counts once in
the loss, however many questions it has, as in ``crossval.objective``.

May import graphmem.retrieval and graphmem.evaluation; nothing in the core imports it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import numpy as np

from graphmem.retrieval.classify import QueryKind
from graphmem.retrieval.config import SIMILARITY, RecallConfig
from graphmem.retrieval.fusion import SIMILARITY_DECIMALS

__all__ = ["fit_config", "fit_weights", "question_features"]

#: the loss's focus: one for every question (see `fit_weights`), or one per question
Focus = float | None | Sequence[float | None]
#: features are multiplied by this so that a first rank scores about 1 (fit conditioning)
_SCALE = 60.0
#: irrelevant candidates kept per question: those ranked best by any channel (the ones a
#: relevant memory must beat; the long tail adds pairs, not information)
HARD_NEGATIVES = 40


def question_features(captured, evidence: Sequence[str], turns_of_memory: dict,
                      channels: Sequence[str], k: int, depth: int, *,
                      similarity: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(X, y) of one question: a row per candidate any channel ranked, a column per
    channel (``_SCALE / (k + rank)``, 0 if unranked) and, with ``similarity``, one more:
    the candidate's cosine with the question (its weight is the table's "similarity",
    added to the fused score by `fusion.with_similarity`); y: the candidate stands for an
    evidence turn."""
    ids = list(dict.fromkeys(m for c in channels for m in captured.rankings.get(c, [])[:depth]))
    width = len(channels) + similarity
    if not ids:
        return np.zeros((0, width)), np.zeros(0, bool)
    at = {m: i for i, m in enumerate(ids)}
    x = np.zeros((len(ids), width))
    if similarity:
        x[:, -1] = [round(captured.sims[m], SIMILARITY_DECIMALS) for m in ids]
    for j, channel in enumerate(channels):
        for rank, mid in enumerate(captured.rankings.get(channel, [])[:depth], start=1):
            if x[at[mid], j] == 0:
                x[at[mid], j] = _SCALE / (k + rank)
    wanted = set(evidence)
    y = np.array([bool(wanted & set(turns_of_memory.get(m, ()))) for m in ids])
    return x, y


def fit_weights(examples: Sequence[tuple[np.ndarray, np.ndarray, float]], n: int, *,
                prior: np.ndarray | None = None, l2: float = 0.01, steps: int = 300,
                lr: float = 0.5, focus: Focus = None,
                pinned: np.ndarray | None = None, solver: str = "adam") -> np.ndarray:
    """Non-negative weights minimising a pairwise logistic loss over ``examples``
    ((X, y, weight of the question)) plus ``l2 * |w - prior|^2``; max weight scaled to 1.

    ``solver`` "adam": ``steps`` steps of Adam from the prior, projected onto w >= 0 (the
    fit the shipped tables were first made with). "exact": the minimum itself (L-BFGS-B
    within the bounds, run to convergence), with no step count or rate to choose: the
    loss is convex and the L2 term makes its minimum unique, so a column the minimum
    holds at 0 changes no other weight. On the captures of the twenty-ninth session the
    two give the same tables to the third decimal and the same score on every question;
    the exact fit takes a fraction of the time.

    ``focus`` None: every (relevant, irrelevant) pair of a question counts alike, which
    rewards putting *some* relevant memory first. A number (a temperature): a question's
    loss is the soft maximum, over its relevant memories, of each one's mean pair loss,
    so the worst-placed relevant memory dominates: the loss of a metric that needs *all*
    of a question's evidence (recall_all). Small focus: the worst alone; large: the mean.
    A negative number: the soft *minimum* (the best-placed relevant memory dominates: the
    loss of a metric that needs *any* of it, recall_any). A sequence: one focus per
    example (None among them: that question's pairs alike), so that each question's loss
    follows the metric it is scored by. ``pinned``: columns held at 0.
    """
    if solver not in ("adam", "exact"):
        raise ValueError(f"solver must be 'adam' or 'exact', got {solver!r}")
    pairs = _pairs(examples, x_width=n)
    prior = np.ones(n) if prior is None else prior
    # a channel that ranks nothing in these examples has no evidence for any weight:
    # it is pinned to 0 (left to the prior, it would keep the prior's weight and fire
    # untested wherever it does rank something)
    silent = ~_fires(examples, n)
    if pinned is not None:  # columns the caller holds at 0 in this table
        silent = silent | pinned
    prior = np.where(silent, 0.0, prior)
    if pairs is None or silent.all():
        return prior / max(prior.max(), 1e-12)
    d, pw, group, group_q, per_group, kept = pairs
    tau = _temperatures(focus, kept)
    if solver == "exact":
        w = _minimum(d, pw, group, group_q, per_group, tau, prior, l2, silent)
        return w / max(w.max(), 1e-12)
    w = prior.astype(float).copy()
    m, v = np.zeros(n), np.zeros(n)
    for t in range(1, steps + 1):  # Adam with projection onto w >= 0
        margin = d @ w
        coef = pw * _sigmoid(-margin)
        if tau is not None:
            coef = coef * _soft_pool(margin, group, group_q, per_group, tau)[1][group]
        g = -(d * coef[:, None]).sum(0) + 2 * l2 * (w - prior)
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        w = np.maximum(w - lr * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
                       * 0.1, 0.0)
        w[silent] = 0.0
    return w / max(w.max(), 1e-12)


def _loss(w: np.ndarray, d: np.ndarray, pw: np.ndarray, group: np.ndarray,
          group_q: np.ndarray, per_group: np.ndarray, tau: np.ndarray | None,
          prior: np.ndarray, l2: float) -> tuple[float, np.ndarray]:
    """The loss `fit_weights` descends, and its gradient (the one Adam follows).

    Without ``tau``: the weighted sum of the pairs' logistic losses. With it, each
    question's relevant memories' mean pair losses L are pooled as ``tau * log(sum
    exp(L / tau))`` (a soft maximum; a soft minimum for tau < 0; their mean for tau inf),
    weighted by the question's share of the pairs' weight."""
    margin = d @ w
    reg = w - prior
    if tau is None:
        value = float(pw @ np.logaddexp(0.0, -margin))
        coef = pw * _sigmoid(-margin)
    else:
        pooled, worst = _soft_pool(margin, group, group_q, per_group, tau)
        value = float(np.bincount(group_q[group], pw, minlength=len(per_group)) @ pooled)
        coef = pw * _sigmoid(-margin) * worst[group]
    return value + l2 * float(reg @ reg), -(d * coef[:, None]).sum(0) + 2 * l2 * reg


def _minimum(d, pw, group, group_q, per_group, tau, prior, l2, silent) -> np.ndarray:
    """The minimum of `_loss` over w >= 0 with the ``silent`` columns at 0."""
    from scipy.optimize import minimize

    start = np.where(silent, 0.0, prior).astype(float)
    bounds = [(0.0, 0.0) if s else (0.0, None) for s in silent]
    found = minimize(_loss, start, args=(d, pw, group, group_q, per_group, tau, prior, l2),
                     jac=True, method="L-BFGS-B", bounds=bounds,
                     options={"maxiter": 5000, "ftol": 1e-15, "gtol": 1e-10})
    return np.maximum(found.x, 0.0)


def _fires(examples, n: int) -> np.ndarray:
    """Per column: does any example's candidate have a non-zero feature there."""
    out = np.zeros(n, bool)
    for x, _, _ in examples:
        if len(x):
            out |= (x != 0).any(axis=0)
    return out


def _temperatures(focus: Focus, kept: np.ndarray) -> np.ndarray | None:
    """Per kept question, the temperature of its soft maximum (inf: its pairs alike);
    None when every question's pairs count alike."""
    if focus is None:
        return None
    if isinstance(focus, (int, float)):
        return np.full(len(kept), float(focus))
    per_example = np.array([np.inf if f is None else float(f) for f in focus])
    return None if np.isinf(per_example).all() else per_example[kept]


def _pairs(examples, x_width: int):
    """Every question's (relevant - hard irrelevant) feature differences, with each
    pair's weight (a question's weight shared by its pairs), its relevant memory's group
    number, each group's question, the number of relevant memories per question and the
    index of each question among ``examples`` (those without a pair are left out)."""
    diffs, pair_w, groups, group_q = [], [], [], []
    n_pos: list[int] = []
    kept: list[int] = []
    n_groups = 0
    for index, (x, y, weight) in enumerate(examples):
        pos, neg = x[y], x[~y]
        if len(pos) == 0 or len(neg) == 0:
            continue
        kept.append(index)
        neg = neg[np.argsort(-neg.max(axis=1), kind="stable")[:HARD_NEGATIVES]]
        d = (pos[:, None, :] - neg[None, :, :]).reshape(-1, x_width)
        diffs.append(d)
        pair_w.append(np.full(len(d), weight / len(d)))
        groups.append(n_groups + np.repeat(np.arange(len(pos)), len(neg)))
        group_q.append(np.full(len(pos), len(n_pos)))
        n_pos.append(len(pos))
        n_groups += len(pos)
    if not diffs:
        return None
    pw = np.concatenate(pair_w)
    return (np.concatenate(diffs), pw / pw.sum(), np.concatenate(groups),
            np.concatenate(group_q), np.array(n_pos, float), np.array(kept, int))


def _soft_pool(margin: np.ndarray, group: np.ndarray, group_q: np.ndarray,
               per_question: np.ndarray, tau: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per question, its relevant memories' mean pair losses L pooled as ``tau * log(sum
    exp(L / tau))`` (their mean where tau is inf); and per relevant memory, its share of
    its question's loss under that soft maximum (softmax of L / ``tau``: negative for a
    soft minimum, inf for equal shares), times the question's count of relevant memories
    (so that equal losses give every pair weight 1, as without focus)."""
    counts = np.bincount(group)
    loss = np.bincount(group, np.logaddexp(0.0, -margin)) / counts
    z = loss / tau[group_q]
    top = np.full(len(per_question), -np.inf)
    np.maximum.at(top, group_q, z)
    e = np.exp(z - top[group_q])
    total = np.bincount(group_q, e)
    share = e / total[group_q]
    pooled = np.bincount(group_q, loss, minlength=len(per_question)) / per_question
    soft = np.isfinite(tau)
    pooled[soft] = tau[soft] * (top[soft] + np.log(total[soft]))
    return pooled, share * per_question[group_q]


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return np.exp(-np.logaddexp(0.0, -z))


def fit_config(questions, base: RecallConfig, within: np.ndarray, *, cues=None,
               l2: float = 0.01, cache: dict | None = None,
               focus: float | None = None, similarity: bool = False,
               focus_of: Callable[[Any], float | None] | None = None,
               kind_only: Mapping[str, Collection[QueryKind]] | None = None,
               held: Mapping[str, Collection[QueryKind]] | None = None,
               solver: str = "adam") -> RecallConfig:
    """``base`` with every kind's channel weights (and the fallback) fitted on the
    questions in ``within``; channels that ship off (not in ``base.channels``) stay off.
    ``similarity``: the candidates' cosine is fitted as one more term ("similarity").
    ``focus_of``: each question's focus (see `fit_weights`), instead of ``focus`` for all.
    ``kind_only``: channel -> the kinds whose tables may weigh it (held at 0 in the
    others and in the table fitted on every kind, which the fallback uses). ``held``:
    channel -> the kinds whose tables hold it at 0 (every other table fits it: a channel
    too slow for one kind's questions). ``solver``: as `fit_weights`'s."""
    # the asker's channel takes profile's weight (`RecallConfig.asker_profile`), never
    # one of its own: the fit weighs profile with the narrower net
    channels = [c for c in base.channels if c != base.asker_profile]
    columns = channels + [SIMILARITY] if similarity else channels
    datasets = [q.dataset for q, _ in questions]
    per_dataset = {d: sum(1 for i, dd in enumerate(datasets) if dd == d and within[i])
                   for d in set(datasets)}
    by_kind: dict[QueryKind, list] = {kind: [] for kind in QueryKind}
    pooled = []
    for i, (q, turns_of_memory) in enumerate(questions):
        if not within[i]:
            continue
        key = (id(q), base.rrf_k, base.depth, tuple(columns))
        if cache is None or key not in cache:
            x, y = question_features(q.captured, q.evidence, turns_of_memory, channels,
                                     base.rrf_k, base.depth, similarity=similarity)
            if cache is None:
                cache = {}
            cache[key] = (x, y)
        x, y = cache[key]
        example = (x, y, 1.0 / per_dataset[q.dataset])
        kind = q.captured.query_class(cues).kind
        one = focus if focus_of is None else focus_of(q)
        pooled.append((example, one))
        by_kind[kind].append((example, one))

    only, zeroed = kind_only or {}, held or {}

    def pinned(kind: QueryKind | None) -> np.ndarray:
        return np.array([(c in only and kind not in only[c]) or kind in zeroed.get(c, ())
                         for c in columns])

    def fit(examples, kind=None, prior=None):
        return fit_weights([e for e, _ in examples], len(columns), prior=prior, l2=l2,
                           focus=focus if focus_of is None else [f for _, f in examples],
                           pinned=pinned(kind), solver=solver)

    shared = fit(pooled)
    kind_weights = {kind: _table(columns, fit(examples, kind, prior=shared) if examples
                                 else shared)
                    for kind, examples in by_kind.items()}
    return base.model_copy(update={"weights": _table(columns, shared),
                                   "kind_weights": kind_weights})


def _table(channels: Sequence[str], w: np.ndarray) -> dict[str, float]:
    return {c: round(float(x), 3) for c, x in zip(channels, w)}
