"""The agents a question names: a name that is also a common noun names the agent only
where it stands for someone, not where it modifies another noun ("user experience")."""

from __future__ import annotations

import pytest

from graphmem.retrieval.classify import QueryKind, classify_query
from graphmem.retrieval.config import HYBRID
from graphmem.retrieval.query import named_agents
from graphmem.retrieval.route import RouteGate
from graphmem.text.nlp import Parser

NS = "named"
#: LongMemEval-style agents, whose ids are common nouns, and one named person
NAMES = {"user": "user", "assistant": "assistant", "caroline": "Caroline"}
SPEAKER_ONLY = HYBRID.model_copy(update={
    "classify": False, "weights": {"speaker": 1.0},
    "kind_weights": {k: {"speaker": 1.0} for k in HYBRID.kind_weights}})


@pytest.mark.parametrize("question, named", [
    ("How was the user experience of the new app?", []),
    ("User experience: what broke first?", []),
    ("Which assistant tools did we buy?", []),
    ("When did Caroline go to the user group?", ["caroline"]),
    ("What did the user say about lunch?", ["user"]),
    ("what did user recommend for dinner?", ["user"]),
    ("What did the assistant recommend?", ["assistant"]),
    ("what did caroline say about the user interface?", ["caroline"]),
    ("Did Caroline and the user agree?", ["user", "caroline"]),
])
def test_a_noun_modifying_another_names_no_agent(question, named):
    assert named_agents(question, NAMES) == named


class CountingParser(Parser):
    """The full pipeline, counting the questions it parses."""

    def __init__(self) -> None:
        super().__init__(full=True, cache_size=0)
        self.parsed: list[str] = []

    def parse(self, text: str):
        self.parsed.append(text)
        return super().parse(text)


#: ids made for programs, one of them shaped like a common noun
BOTS = {"agent-03": "agent-03", "bot_2": "bot_2", "user": "user"}


@pytest.mark.parametrize("question, named, parses", [
    ("what did agent-03 say about the launch?", ["agent-03"], 0),
    ("Which of bot_2's notes mention Lisbon?", ["bot_2"], 0),
    ("what did agent-3 say?", [], 0),  # another id: not named, nothing to parse
    ("did agent-03 tell the user?", ["agent-03", "user"], 1),  # "user" is a noun too
    ("How was the user experience for agent-03?", ["agent-03"], 1),
])
def test_an_id_with_a_digit_or_underscore_is_named_without_a_parse(question, named, parses):
    parser = CountingParser()
    assert named_agents(question, BOTS, parser=parser) == named
    assert len(parser.parsed) == parses


@pytest.fixture(scope="module")
def graph(tmp_path_factory):
    from graphmem import MemoryGraph

    graph = MemoryGraph.open(data_dir=tmp_path_factory.mktemp("named") / "data")
    for agent in ("user", "ana"):
        graph.register_agent(agent, kind="human", name=agent, ns=NS)
    graph.remember("user", "I had lunch with my sister at the noodle bar on Sunday.",
                   witnesses=["ana"], at="2024-03-03", ns=NS)
    graph.remember("ana", "The new app's onboarding felt slow and confusing.",
                   at="2024-03-04", ns=NS)
    yield graph
    graph.close()


def _speaker_hits(graph, question):
    return [h.text for h in graph.recall("ana", question, k=5, ns=NS, config=SPEAKER_ONLY)]


def test_recall_reads_no_speaker_from_a_compound(graph):
    # "user" modifies "experience": the question is not about what the agent user said
    assert _speaker_hits(graph, "How was the user experience of the new app?") == []


def test_recall_reads_the_speaker_the_question_names(graph):
    hits = _speaker_hits(graph, "What did the user say about lunch?")
    assert len(hits) == 1 and "noodle bar" in hits[0]



def test_the_names_are_read_only_when_a_channel_reads_the_subjects(graph, monkeypatch):
    """A gate that never fires, towards a table that weighs the speaker channel: the
    channel may run, so recall is ready for it, but it does not, and the names (and the
    parse a lower-case name needs) are never read."""
    reads: list[str] = []
    real = graph._writer.agent_names
    monkeypatch.setattr(graph._writer, "agent_names",
                        lambda ns, agents: reads.append(ns) or real(ns, agents))
    dense = {"dense": 1.0}
    never = RouteGate(features=("nearest",), mean=(0.0,), scale=(1.0,), coef=(0.0,),
                      intercept=-50.0, share=1.0)
    config = HYBRID.model_copy(update={
        "weights": dense, "route": never,
        "kind_weights": {k: ({"dense": 1.0, "speaker": 1.0} if k == QueryKind.PREFERENCE
                             else dense) for k in HYBRID.kind_weights}})
    question = "What did the user say about lunch?"
    assert classify_query(question).kind != QueryKind.PREFERENCE
    assert graph.recall("ana", question, k=5, ns=NS, config=config)
    assert reads == []
    assert len(_speaker_hits(graph, question)) == 1  # the speaker channel reads them
    assert reads == [NS]
