"""Sedimentation of the Chinese novels from their text (a few chapters, to stay quick)."""

from __future__ import annotations

import pytest

from graphmem import MemoryGraph
from graphmem.errors import InvalidInput
from graphmem.worlds.novel import named_in, sediment_novel, speaker_before
from graphmem.worlds.policy import ScriptPolicy
from graphmem.worlds.run import RunSpec, run_world

pytest.importorskip("jieba", reason="jieba (the worlds extra) is not installed")


@pytest.fixture(scope="module")
def red_chamber(shared_data):
    return sediment_novel(shared_data / "chinese_novels" / "hongloumeng.chapters_001-040.jsonl",
                          chapters=8, seed_chapters=6, min_speeches=3, horizon=6)


def test_speakers_and_witnesses_come_from_the_text():
    cast = {"宝玉": "宝玉", "黛玉": "黛玉", "湘云": "史湘云"}
    text = "黛玉听了，便向宝玉道：“你又来了。”湘云笑着说：“好。”"
    assert speaker_before(text, text.index("道"), cast) == "宝玉"
    assert named_in(text, cast) == ["黛玉", "宝玉", "史湘云"]


def test_novel_world_has_cast_places_seed_and_script(red_chamber):
    world = red_chamber.world
    people = {e.id for e in world.entities.values() if e.kind == "character"}
    assert "宝玉" in people and len(world.map.places) >= 2
    carriers = {e.id for e in world.entities.values() if e.kind == "carrier"}
    told = [d for d in red_chamber.seed if d["agent"] not in carriers]
    assert {d["agent"] for d in red_chamber.seed} - {d["agent"] for d in told} == carriers
    assert all(d["agent"] in people and set(d["witnesses"]) <= people for d in told)
    assert sum(bool(d["witnesses"]) for d in told) > len(told) / 2
    assert red_chamber.script and {b.speaker for b in red_chamber.script} <= people
    assert max(b.round for b in red_chamber.script) == 5
    with pytest.raises(InvalidInput):
        sediment_novel("/nonexistent.jsonl")


def test_a_novel_runs_through_the_kernel(red_chamber, tmp_path, embedder):
    red_chamber.seed = red_chamber.seed[:8]
    with MemoryGraph.open(data_dir=tmp_path / "data", embedder=embedder) as g:
        report = run_world(g, red_chamber, ScriptPolicy(red_chamber.script, recall=False),
                           RunSpec("hongloumeng", "consensus", 2, tmp_path / "run"))
    assert report["messages"] > 0 and report["final"]["entries_written"] > 0
