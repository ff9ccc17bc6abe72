"""PrefEval loader: the real files in ../shared/data/prefeval, and small slices of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphmem.errors import BenchmarkDataError, InvalidInput
from graphmem.ingestion.benchmarks.prefeval import load_prefeval, read_distractor_exchanges


@pytest.fixture(scope="module")
def root(shared_data) -> Path:
    return shared_data / "prefeval"


@pytest.mark.parametrize("form", ["explicit", "implicit-choice", "implicit-persona"])
def test_real_counts(root, form):
    report = load_prefeval(root, form=form, n_distractors=0)
    assert report.skipped == []
    assert len(report.units) == 800
    per_topic = report.questions_per_category()
    assert len(per_topic) == 16
    assert per_topic["education_learning_styles"] == 31
    assert per_topic["entertain_shows"] == 62
    assert all(len(u.questions[0].options) == 4 for u in report.units)


def test_real_distractor_pool(root):
    exchanges = read_distractor_exchanges(root / "filtered_inter_turns.json")
    assert len(exchanges) == 316  # 632 messages in 24 conversations
    assert all((u.speaker, a.speaker) == ("user", "assistant") for u, a in exchanges)


def test_explicit_unit_shape(root):
    unit = load_prefeval(root, topics=["travel_restaurant"], n_distractors=10).units[1]
    (q,) = unit.questions
    assert unit.turns[0].id == "pref:0" and unit.turns[0].speaker == "user"
    assert unit.turns[0].text == q.meta["preference"]
    assert "shellfish" in q.meta["preference"]
    assert len(unit.turns) == 1 + 2 * 10
    assert all(t.id.startswith("inter:") for t in unit.turns[1:])
    assert q.evidence == ("pref:0",) and q.answer is None and q.category == "travel_restaurant"
    assert q.id == "prefeval/explicit/travel_restaurant/1:q"


def test_implicit_forms_reveal_the_preference_in_conversation(root):
    choice = load_prefeval(root, form="implicit-choice", topics=["shop_home"],
                           n_distractors=3).units[0]
    assert [t.speaker for t in choice.turns[:4]] == ["user", "assistant", "user", "assistant"]
    assert choice.questions[0].evidence == ("pref:0", "pref:1", "pref:2", "pref:3")
    raw = json.loads((root / "implicit_preference" / "choice-based" / "shop_home.json")
                     .read_text())[0]["conversation"]
    assert [t.text for t in choice.turns[:4]] == [raw["query"], raw["assistant_options"],
                                                  raw["user_selection"],
                                                  raw["assistant_acknowledgment"]]
    persona = load_prefeval(root, form="implicit-persona", topics=["shop_home"],
                            n_distractors=3).units[0]
    n_pref = len(persona.questions[0].evidence)
    assert n_pref in (4, 6, 8, 10, 12) and len(persona.turns) == n_pref + 6
    assert [t.speaker for t in persona.turns[:n_pref]] == ["user", "assistant"] * (n_pref // 2)
    raw = json.loads((root / "implicit_preference" / "persona-driven" / "shop_home.json")
                     .read_text())[0]["conversation"]
    assert persona.turns[2].text == raw["1"]["user"]
    assert persona.questions[0].meta["persona"]


def test_distractors_are_deterministic_per_seed(root):
    def ids(seed, n=300):
        return [t.id for t in load_prefeval(root, topics=["pet_ownership"], n_distractors=n,
                                            seed=seed).units[0].turns]
    assert ids(0) == ids(0)
    assert ids(0) != ids(1)
    assert len(ids(0)) == 1 + 600
    assert ids(None, n=2) == ["pref:0", "inter:0", "inter:1", "inter:2", "inter:3"]
    with pytest.raises(InvalidInput, match="n_distractors=317 but filtered_inter_turns.json holds only 316"):
        load_prefeval(root, n_distractors=317)


def test_options_mark_the_preference_following_one(root):
    mcq = json.loads((root / "mcq_options" / "lifestyle_dietary.json").read_text())
    for seed in (None, 0, 7):
        units = load_prefeval(root, topics=["lifestyle_dietary"], n_distractors=0,
                              seed=seed).units
        for unit, record in zip(units, mcq):
            q = unit.questions[0]
            assert q.options[q.correct_option] == record["classification_task_options"][0]
            assert sorted(q.options) == sorted(record["classification_task_options"])
        if seed is None:
            assert {u.questions[0].correct_option for u in units} == {0}
        else:
            assert len({u.questions[0].correct_option for u in units}) > 1


def test_mcq_wording_differences_are_counted(root):
    report = load_prefeval(root, n_distractors=0)
    assert report.notes["mcq_preference_worded_differently"] == 23


@pytest.fixture
def small_root(tmp_path, root) -> Path:
    """Three items of one topic, sliced from the real files."""
    for sub in ("explicit_preference", "mcq_options"):
        (tmp_path / sub).mkdir()
        items = json.loads((root / sub / "shop_fashion.json").read_text())[:3]
        (tmp_path / sub / "shop_fashion.json").write_text(json.dumps(items))
    inter = json.loads((root / "filtered_inter_turns.json").read_text())[:2]
    (tmp_path / "filtered_inter_turns.json").write_text(json.dumps(inter))
    return tmp_path


def test_missing_field_names_file_item_and_field(small_root):
    path = small_root / "explicit_preference" / "shop_fashion.json"
    items = json.loads(path.read_text())
    del items[1]["question"]
    path.write_text(json.dumps(items))
    with pytest.raises(BenchmarkDataError, match=r"shop_fashion\.json: item 1: field 'question' "
                       r"is missing"):
        load_prefeval(small_root, n_distractors=2)
    report = load_prefeval(small_root, n_distractors=2, skip_bad=True)
    assert [u.meta["index"] for u in report.units] == [0, 2]
    assert len(report.skipped) == 1


def test_mcq_out_of_step_is_an_error(small_root):
    path = small_root / "mcq_options" / "shop_fashion.json"
    items = json.loads(path.read_text())
    items[0], items[1] = items[1], items[0]
    path.write_text(json.dumps(items))
    with pytest.raises(BenchmarkDataError, match=r"mcq_options/shop_fashion\.json: item 0: "
                       r"field 'question' differs"):
        load_prefeval(small_root, n_distractors=0)
    path.unlink()  # no mcq file: items load without options
    units = load_prefeval(small_root, n_distractors=0).units
    assert len(units) == 3 and units[0].questions[0].options == ()


def test_bad_arguments(small_root):
    with pytest.raises(InvalidInput, match="unknown PrefEval topic"):
        load_prefeval(small_root, topics=["travel_hotel"])
    with pytest.raises(InvalidInput, match="form must be one of"):
        load_prefeval(small_root, form="implicit")
    with pytest.raises(BenchmarkDataError, match="no <topic>.json files"):
        load_prefeval(small_root, form="implicit-choice")
