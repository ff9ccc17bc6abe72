"""The evaluation never dies on one record: an oversized turn is deposited in pieces, an
empty benchmark file is an error, and the baselines index the turns graphmem deposits."""

from __future__ import annotations

from datetime import datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem import InvalidInput
from graphmem.evaluation.ingest import ingest_unit, text_pieces
from graphmem.evaluation.runner import EvalOptions, load_units
from graphmem.evaluation.systems import build_baselines
from graphmem.ingestion.benchmarks.model import Turn, Unit
from graphmem.models import MAX_TEXT_CHARS

words = st.text(st.sampled_from("abcdefgh"), min_size=1, max_size=30)
sentences = st.lists(words, min_size=1, max_size=12).map(lambda w: " ".join(w) + ".")


@given(st.lists(sentences, min_size=1, max_size=30), st.integers(20, 120))
def test_pieces_fit_the_limit_and_keep_every_word_in_order(parts, limit):
    text = " ".join(parts)
    pieces = text_pieces(text, limit)
    assert all(0 < len(p) <= limit for p in pieces)
    assert "".join("".join(pieces).split()) == "".join(text.split())
    if len(text) <= limit:
        assert pieces == [text]


def unit_with(texts: list[str]) -> Unit:
    turns = tuple(Turn(id=f"D1:{i}", speaker=("ana", "ben")[i % 2], text=t,
                       at=datetime(2024, 5, 1, 10, i), session="1")
                  for i, t in enumerate(texts))
    return Unit(id="u1", benchmark="locomo", agents=("ana", "ben"), turns=turns, questions=())


def test_an_oversized_turn_is_deposited_in_pieces(embedded_graph):
    filler = " ".join(f"cargo{j}" for j in range(110))  # few, long sentences: few statements
    long_turn = " ".join(f"The ferry left the harbour on trip {i} with {filler}."
                         for i in range(24))
    assert len(long_turn) > MAX_TEXT_CHARS
    unit = unit_with(["Hello there.", long_turn, "   ", "Goodbye."])
    turn_map, empty = ingest_unit(embedded_graph, unit, "u1")
    assert empty == 1
    assert len(turn_map.memories_of_turn["D1:1"]) >= 2
    baselines = build_baselines(unit, turn_map, None, names=("bm25",))
    assert sorted(baselines[0].baseline._ids) == ["D1:0", "D1:1", "D1:3"]


def test_an_empty_benchmark_file_is_an_error(tmp_path):
    empty = tmp_path / "locomo10.json"
    empty.write_text("[]")
    with pytest.raises(InvalidInput, match="no locomo unit"):
        load_units(EvalOptions(benchmark="locomo", data=str(empty), out=str(tmp_path / "o")))
