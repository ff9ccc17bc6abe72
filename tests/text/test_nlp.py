"""The spaCy pipeline: weights loaded once, each Parser keeps its own recent parses."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from graphmem.text import nlp


def test_a_text_is_parsed_once_and_the_doc_shared():
    parser = nlp.Parser()
    first = parser.parse_many(["Ophelia gave the letters back to Hamlet.", ""])
    again = parser.parse_many(["Ophelia gave the letters back to Hamlet."])
    assert again[0] is first[0]
    assert [ent.text for ent in again[0].ents] == [ent.text for ent in first[0].ents]
    assert len(first[1]) == 0  # an empty text is a valid, empty Doc


def test_parsers_do_not_share_their_caches():
    text = "Horatio waited on the platform."
    assert nlp.Parser().parse(text) is not nlp.Parser().parse(text)


def test_long_texts_are_not_kept():
    parser = nlp.Parser()
    long_text = "word " * (nlp.DOC_CACHE_MAX_CHARS // 5 + 1)
    first, second = parser.parse_many([long_text]), parser.parse_many([long_text])
    assert first[0] is not second[0]
    assert first[0].text == second[0].text


def test_the_cache_stays_within_its_size():
    parser = nlp.Parser(cache_size=3)
    parser.parse_many([f"Sentence number {i}." for i in range(10)])
    assert len(parser._docs) == 3


def test_one_parser_serves_threads_alike():
    parser = nlp.Parser(cache_size=50)
    texts = [f"Marcellus saw the ghost {i} times." for i in range(40)]
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda t: parser.parse(t).text, texts * 3))
    assert results == texts * 3
