"""The incidents world (Russia–Ukraine CSV) sedimented from a slice of its rows: actors
from the events' text, places and distances from the columns, and a short run."""

from __future__ import annotations

import csv

import pytest

from graphmem import MemoryGraph
from graphmem.errors import InvalidInput
from graphmem.worlds.incidents import one_edit, place_names, sediment_incidents
from graphmem.worlds.policy import ScriptPolicy
from graphmem.worlds.run import RunSpec, run_world

ROWS = 1200  # January and February 2022 and the first days of March


@pytest.fixture(scope="module")
def csv_path(shared_data):
    path = shared_data / "russia_ukraine" / "events_2022.csv"
    if not path.is_file():
        pytest.skip(f"{path} is not here")
    return path


@pytest.fixture(scope="module")
def incidents(csv_path):
    return sediment_incidents(csv_path, seed_until="2022-02-24", horizon=4, min_events=2,
                              limit=ROWS)


@pytest.mark.slow  # spaCy parses 1,200 events: ~15 s, more on a loaded machine
def test_actors_come_from_the_event_text_not_the_place_columns(incidents, csv_path):
    world = incidents.world
    actors = {e.id for e in world.entities.values() if e.kind == "character"}
    assert "Russian armed forces" in actors and "Ukrainian armed forces" in actors
    with csv_path.open(encoding="utf-8", newline="") as f:
        places = place_names(list(csv.DictReader(f))[:ROWS])
    assert not {a.lower() for a in actors} & places  # towns the model calls ORG are dropped
    assert all(len(a.split()) > 1 or a.isupper() for a in actors)  # institutions, not words


@pytest.mark.slow  # spaCy parses 1,200 events: ~15 s, more on a loaded machine
def test_places_map_witnesses_carriers_and_script(incidents):
    world = incidents.world
    actors = {e.id for e in world.entities.values() if e.kind == "character"}
    places = set(world.map.places)
    assert len(places) >= 5 and {"Kyiv", "Kharkiv"} <= places
    distances = {d for row in world.map.distances.values() for d in row.values()}
    assert distances <= {1, 2, 3, 4} and len(distances) > 1  # from coordinates, graded
    told = [d for d in incidents.seed if "witnesses" in d]
    assert {d["agent"] for d in told} <= actors | places  # an actor, or the place saw it
    assert all(set(d["witnesses"]) <= actors for d in told)
    assert any(d["witnesses"] for d in told if d["agent"] in actors)
    carriers = [e for e in world.entities.values() if e.kind == "carrier"]
    assert carriers and all(c.holder in actors and c.text for c in carriers)
    beats = incidents.script
    assert beats and {b.speaker for b in beats} <= actors
    assert {b.round for b in beats} <= set(range(4)) and any(b.listeners for b in beats)


def test_bad_input_is_a_clear_error(tmp_path, csv_path):
    with pytest.raises(InvalidInput, match="not found"):
        sediment_incidents(tmp_path / "none.csv")
    bad = tmp_path / "bad.csv"
    bad.write_text("date,title\n2022-01-01,x\n")
    with pytest.raises(InvalidInput, match="missing column"):
        sediment_incidents(bad)
    with pytest.raises(InvalidInput, match="to seed and to play"):
        sediment_incidents(csv_path, seed_until="2021-01-01", limit=50)


def test_one_edit_merges_spelling_variants_only():
    assert one_edit("ukranian", "ukrainian") and one_edit("ukrainian", "ukranian")
    assert not one_edit("russian", "belarusian") and not one_edit("russian", "russian")


@pytest.mark.slow  # spaCy parses 1,200 events: ~15 s, more on a loaded machine
def test_incidents_world_runs_through_the_kernel(incidents, tmp_path, embedder):
    incidents.seed = incidents.seed[:8]
    with MemoryGraph.open(data_dir=tmp_path / "data", embedder=embedder) as g:
        report = run_world(g, incidents, ScriptPolicy(incidents.script, recall=False),
                           RunSpec("russia_ukraine", "consensus", 1, tmp_path / "run"))
    assert report["messages"] > 0 and report["final"]["entries_written"] > 0
