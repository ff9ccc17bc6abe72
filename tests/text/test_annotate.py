"""What the write path reads from atoms, and how questions name known entities."""

from __future__ import annotations

from datetime import datetime

from graphmem.atomise import atomise
from graphmem.text.annotate import annotate_atoms, query_entities, without_spans
from graphmem.text.entity_resolution import EntityResolver
from tests import locomo_raw


def test_atoms_get_resolved_entities_and_their_time():
    resolver = EntityResolver("t")
    meanings = annotate_atoms(["Melanie went to a pottery class with Caroline last Saturday.",
                               "Mel painted a sunrise in Paris."],
                              speaker="Melanie", reference=datetime(2023, 5, 25),
                              resolver=resolver, known_people=["Melanie", "Caroline"])
    assert {m.id for m in meanings[0].mentions} == {"person:melanie", "person:caroline"}
    assert meanings[0].span.start == datetime(2023, 5, 20)
    assert "person:melanie" in {m.id for m in meanings[1].mentions}  # Mel is Melanie
    assert meanings[1].span is None


def test_a_short_name_said_first_joins_the_known_person_it_shortens():
    # Caroline greets "Mel" before anyone has said "Melanie": one entity all the same
    resolver = EntityResolver("t")
    first = annotate_atoms(["Hey Mel!", "Caroline went to a support group."], speaker="Caroline",
                           reference=None, resolver=resolver, known_people=["Caroline", "Melanie"])
    later = annotate_atoms(["Melanie painted a lake."], speaker="Melanie", reference=None,
                           resolver=resolver, known_people=["Caroline", "Melanie"])
    assert [m.id for m in first[0].mentions] == ["person:melanie"]
    assert [m.id for m in later[0].mentions] == ["person:melanie"]
    assert [m.id for m in first[1].mentions] == ["person:caroline"]
    # a short form of two known people, or of none, stays its own entity
    both = annotate_atoms(["Hey Mel!"], speaker="Caroline", reference=None,
                          resolver=EntityResolver("u"), known_people=["Melanie", "Melvin"])
    assert [m.id for m in both[0].mentions] == ["person:mel"]


def test_a_real_conversation_has_one_entity_per_speaker(shared_data):
    """conv-26 greets "Mel" sessions before anyone says "Melanie"; annotated turn by turn,
    as the write path does, every short name of a speaker joins that speaker."""
    speakers, sessions = locomo_raw.conversation(shared_data, "conv-26")
    resolver = EntityResolver("conv-26")
    ids: list[str] = []
    for turns in sessions:
        for turn in turns[:40]:
            meanings = annotate_atoms(atomise(turn["text"], speaker=turn["speaker"]),
                                      speaker=turn["speaker"], reference=None,
                                      resolver=resolver, known_people=speakers)
            ids += [m.id for meaning in meanings for m in meaning.mentions]
    people = {entity.id for entity in resolver.entities() if entity.type == "person"}
    assert {"person:caroline", "person:melanie"} <= people
    assert "person:mel" not in people
    assert resolver.find("Mel", type="person") == "person:melanie"
    assert ids.count("person:melanie") > 50


def test_questions_name_known_entities_without_creating_any():
    resolver = EntityResolver("t")
    for name, kind in (("Melanie", "person"), ("New York City", "place")):
        resolver.resolve(name, kind)
    before = len(resolver.entities())
    question = "What did Mel do in New York City last May?"
    found = query_entities(question, resolver)
    assert [m.id for m in found] == ["person:melanie", "place:new-york-city"]
    assert [question[m.start:m.end] for m in found] == ["Mel", "New York City"]
    assert query_entities("Who is Zebulon?", resolver) == []
    assert len(resolver.entities()) == before
    assert without_spans(question, [(m.start, m.end) for m in found]) == "What did do in last May?"
