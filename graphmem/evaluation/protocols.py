"""What each benchmark's protocol asks of the harness: cut-offs, levels, groups, asker.

    LoCoMo       turn-level recall_all / recall_any / NDCG at 1, 5, 10, 20 per category
                 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial.
                 Category 5 questions are abstention questions (the right reply is that the
                 conversation does not say), but they carry evidence ids; their evidence
                 recall is scored like every other category's.
    LongMemEval  session-level recall_all and NDCG at 5, 10; turn-level at 5, 10, 50; per
                 question_type; abstention questions (``_abs``) are left out of retrieval
                 metrics (they have no evidence), as upstream does, but answered with an LLM.
    PersonaMem   no evidence annotation: multiple-choice accuracy choosing by the retrieved
                 memory, per question_type, labelled a retrieval-only proxy.
    PrefEval     preference recall at 1, 5, 10, 20 (the preference turns retrieved when
                 the question is asked), per topic and per distractor count; multiple-choice
                 accuracy choosing by the retrieved memory.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphmem.ingestion.benchmarks.model import Question, Unit

__all__ = ["PROTOCOLS", "Protocol", "protocol_for"]


@dataclass(frozen=True)
class Protocol:
    """One benchmark's evaluation settings."""

    name: str
    turn_ks: tuple[int, ...]
    session_ks: tuple[int, ...] = ()
    metrics: tuple[str, ...] = ("recall_all", "recall_any", "ndcg_any")
    session_metrics: tuple[str, ...] = ("recall_all", "ndcg_any")
    group_label: str = "category"
    category_names: tuple[tuple[str, str], ...] = ()
    choice_label: str = ""
    #: questions whose evidence is not scored (e.g. LongMemEval abstention)
    skip_abstention_evidence: bool = False
    note: str = ""

    @property
    def scores_evidence(self) -> bool:
        """Whether this benchmark annotates evidence turns."""
        return bool(self.turn_ks)

    def scores_question(self, question: Question) -> bool:
        """Whether the question's evidence recall counts."""
        if not question.evidence:
            return False
        return not (self.skip_abstention_evidence and question.abstention)

    def asker(self, unit: Unit, question: Question) -> str:
        """The agent who asks: the question's asker, else the unit's first agent."""
        return question.asker or unit.agents[0]


PROTOCOLS: dict[str, Protocol] = {
    "locomo": Protocol(
        name="locomo", turn_ks=(1, 5, 10, 20),
        category_names=(("1", "multi-hop"), ("2", "temporal"), ("3", "open-domain"),
                        ("4", "single-hop"), ("5", "adversarial")),
        note="Category 5 (adversarial) questions are abstention questions; their evidence "
             "recall is scored like every other category's."),
    "longmemeval": Protocol(
        name="longmemeval", turn_ks=(5, 10, 50), session_ks=(5, 10),
        metrics=("recall_all", "recall_any", "ndcg_any"), group_label="question_type",
        skip_abstention_evidence=True,
        note="Abstention questions (_abs) are left out of retrieval metrics; session level "
             "ranks sessions by their best-ranked turn."),
    "personamem": Protocol(
        name="personamem", turn_ks=(), group_label="question_type",
        choice_label="retrieval-only proxy: the option closest to the retrieved memories",
        note="No evidence annotation: multiple-choice accuracy choosing by the retrieved "
             "memories (mean cosine to the top 5), a retrieval-only proxy."),
    "prefeval": Protocol(
        name="prefeval", turn_ks=(1, 5, 10, 20), metrics=("recall_all", "recall_any"),
        group_label="topic",
        choice_label="the option closest to the retrieved memories",
        note="Preference recall: the preference turn(s) among the retrieved when the question "
             "is asked. choice_accuracy: the option with the highest mean cosine similarity "
             "to the top 5 retrieved texts."),
}


def protocol_for(benchmark: str, ks: tuple[int, ...] | None = None) -> Protocol:
    """The protocol of ``benchmark``, with its turn cut-offs replaced by ``ks`` if given."""
    base = PROTOCOLS[benchmark]
    if ks and base.turn_ks:
        from dataclasses import replace

        return replace(base, turn_ks=tuple(sorted(set(ks))))
    return base
