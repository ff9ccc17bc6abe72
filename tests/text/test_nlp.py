"""The shared spaCy pipeline: each recent text is parsed once per process."""

from __future__ import annotations

from graphmem.text import nlp


def test_a_text_is_parsed_once_and_the_doc_shared():
    first = nlp.parse_many(["Ophelia gave the letters back to Hamlet.", ""])
    again = nlp.parse_many(["Ophelia gave the letters back to Hamlet."])
    assert again[0] is first[0]
    assert [ent.text for ent in again[0].ents] == [ent.text for ent in first[0].ents]
    assert len(first[1]) == 0  # an empty text is a valid, empty Doc


def test_long_texts_are_not_kept():
    long_text = "word " * (nlp.DOC_CACHE_MAX_CHARS // 5 + 1)
    first, second = nlp.parse_many([long_text]), nlp.parse_many([long_text])
    assert first[0] is not second[0]
    assert first[0].text == second[0].text
