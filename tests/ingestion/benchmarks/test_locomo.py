"""LoCoMo loader: real conversations from ../shared/data/locomo, both file layouts."""

from __future__ import annotations

import copy
import json
from datetime import datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem.errors import BenchmarkDataError
from graphmem.ingestion.benchmarks.locomo import load_locomo, normalise_evidence


@pytest.fixture(scope="module")
def locomo_dir(shared_data):
    return shared_data / "locomo"


@pytest.fixture(scope="module")
def real(locomo_dir):
    return load_locomo(locomo_dir, skip_bad=True)


def test_real_counts(real):
    assert [u.id for u in real.units] == ["conv-26", "conv-30", "conv-41", "conv-42", "conv-43",
                                          "conv-47", "conv-48", "conv-50"]
    assert real.n_turns == 4698
    assert real.questions_per_category() == {"1": 215, "2": 264, "3": 72, "4": 706, "5": 371}
    # the README's 1,632 QA: 1,628 kept + 4 with an empty evidence list
    assert real.n_questions + len(real.skipped) == 1632
    assert len(real.skipped) == 4
    assert all(u.agents and len(u.agents) == 2 for u in real.units)


def test_real_questions_without_evidence_are_reported(real):
    where = sorted(msg.split(": field")[0].split("/")[-1] for msg in real.skipped)
    assert where == ["conv-26.json: conversation conv-26 qa[30]",
                     "conv-26.json: conversation conv-26 qa[46]",
                     "conv-50.json: conversation conv-50 qa[39]",
                     "conv-50.json: conversation conv-50 qa[42]"]
    assert all("'evidence' is empty" in msg for msg in real.skipped)


def test_strict_load_names_file_record_and_field(locomo_dir):
    with pytest.raises(BenchmarkDataError) as err:
        load_locomo(locomo_dir)
    message = str(err.value)
    assert "conv-26.json" in message and "qa[30]" in message and "'evidence'" in message
    assert "skip_bad=True" in message


def test_real_evidence_repairs(real):
    questions = {q.id: q for u in real.units for q in u.questions}
    assert questions["conv-26:q37"].evidence == ("D8:6", "D9:17")  # "D8:6; D9:17"
    assert "D11:26" in questions["conv-43:q18"].evidence              # "D:11:26"
    assert questions["conv-50:q69"].evidence == ("D30:5",)           # "D30:05"
    assert questions["conv-42:q88"].evidence == ("D1:18", "D1:20")   # "D" dropped
    assert "D10:19" not in questions["conv-42:q58"].evidence         # no such turn
    assert questions["conv-42:q58"].meta["raw_evidence"][-1] == "D10:19"
    assert real.notes == {"evidence_ids_rewritten": 3, "evidence_ids_unparseable_dropped": 1,
                          "evidence_ids_unknown_dropped": 2}


def test_every_evidence_id_names_a_turn_of_its_conversation(real):
    for unit in real.units:
        ids = unit.turn_ids()
        sessions = {t.session for t in unit.turns}
        for q in unit.questions:
            assert q.evidence and set(q.evidence) <= ids
            assert set(q.evidence_sessions) <= sessions


def test_real_turns_times_and_images(real):
    conv = real.units[0]
    first, photo = conv.turns[0], next(t for t in conv.turns if t.id == "D1:5")
    assert (first.id, first.speaker, first.session) == ("D1:1", "Caroline", "session_1")
    assert first.at == datetime(2023, 5, 8, 13, 56)  # "1:56 pm on 8 May, 2023"
    assert photo.text.endswith("[shares a photo: a photo of a dog walking past a wall with a "
                               "painting of a woman]")
    assert photo.meta["img_url"] == ["https://i.redd.it/l7hozpetnhlb1.jpg"]
    times = [t.at for t in conv.turns]
    assert times == sorted(times)


def test_real_adversarial_questions(real):
    q = next(q for q in real.units[0].questions if q.category == "5")
    assert q.text == "What did Caroline realize after her charity race?"
    assert q.answer == "self-care is important" and q.abstention
    assert all(q.abstention == (q.category == "5") for u in real.units for q in u.questions)
    numeric = [q for u in real.units for q in u.questions if q.id == "conv-26:q1"]
    assert numeric[0].answer == "2022"  # stored as the number 2022


def _slice_conversation(conv: dict, sessions: int) -> dict:
    """The first `sessions` sessions of a per-conversation file and the QA they answer."""
    keep = {f"D{n}" for n in range(1, sessions + 1)}
    conversation = {"speaker_a": conv["speaker_a"], "speaker_b": conv["speaker_b"]}
    for n in range(1, sessions + 1):
        conversation[f"session_{n}_date_time"] = conv[f"session_{n}_date_time"]
        conversation[f"session_{n}"] = conv[f"session_{n}"]
    qa = [q for q in conv["qa"]
          if q["evidence"] and all(e.split(":")[0] in keep for e in q["evidence"])]
    return {"conversation": conversation, "qa": qa}


def test_single_file_locomo10_layout_reads_the_same_dialogs(tmp_path, locomo_dir, real):
    conv = json.loads((locomo_dir / "conv-26.json").read_text())
    part = _slice_conversation(conv, sessions=2)
    sample = {"sample_id": "conv-26", **part,
              "event_summary": {}, "observation": {}, "session_summary": {}}
    (tmp_path / "locomo10.json").write_text(json.dumps([sample]))
    (tmp_path / "conv-26.json").write_text(json.dumps({**part["conversation"], "qa": part["qa"]}))

    single = load_locomo(tmp_path / "locomo10.json")
    per_conv = load_locomo(tmp_path / "conv-26.json")
    assert len(single.units) == 1 and single.units[0].id == "conv-26"
    assert single.units[0].turns == per_conv.units[0].turns
    assert single.units[0].questions == per_conv.units[0].questions
    full = real.units[0]
    assert single.units[0].turns == full.turns[:len(single.units[0].turns)]
    assert {t.session for t in single.units[0].turns} == {"session_1", "session_2"}
    assert len(single.units[0].questions) == len(part["qa"]) > 5


def test_missing_field_in_turn_and_question(tmp_path, locomo_dir):
    conv = json.loads((locomo_dir / "conv-30.json").read_text())
    part = _slice_conversation(conv, sessions=1)
    del part["qa"][1]["question"]
    sample = {"sample_id": "conv-30", **part}
    path = tmp_path / "locomo10.json"
    path.write_text(json.dumps([sample]))
    with pytest.raises(BenchmarkDataError, match=r"locomo10\.json: sample 0 \(conv-30\) qa\[1\]: "
                       r"field 'question' is missing"):
        load_locomo(path)
    skipped = load_locomo(path, skip_bad=True)
    assert len(skipped.units[0].questions) == len(part["qa"]) - 1
    assert len(skipped.skipped) == 1 and "qa[1]" in skipped.skipped[0]

    broken = copy.deepcopy(sample)
    del broken["conversation"]["session_1"][2]["speaker"]
    path.write_text(json.dumps([broken, sample]))
    with pytest.raises(BenchmarkDataError, match=r"sample 0 \(conv-30\) session_1\[2\]: "
                       r"field 'speaker' is missing"):
        load_locomo(path)
    report = load_locomo(path, skip_bad=True)
    assert len(report.units) == 1 and len(report.skipped) == 2


def test_bad_values_get_clear_errors(tmp_path, locomo_dir):
    conv = json.loads((locomo_dir / "conv-30.json").read_text())
    part = _slice_conversation(conv, sessions=1)
    path = tmp_path / "conv-30.json"
    bad_date = {**part["conversation"], "session_1_date_time": "yesterday", "qa": part["qa"]}
    path.write_text(json.dumps(bad_date))
    with pytest.raises(BenchmarkDataError, match="session_1_date_time' is not a LoCoMo time"):
        load_locomo(path)
    part["qa"][0]["category"] = 7
    path.write_text(json.dumps({**part["conversation"], "qa": part["qa"]}))
    with pytest.raises(BenchmarkDataError, match=r"qa\[0\]: field 'category' is '7'"):
        load_locomo(path)


def test_unreadable_paths(tmp_path):
    with pytest.raises(BenchmarkDataError, match="no conv-\\*.json files"):
        load_locomo(tmp_path)
    (tmp_path / "conv-1.json").write_text("{not json")
    with pytest.raises(BenchmarkDataError, match="conv-1.json: not valid JSON"):
        load_locomo(tmp_path)


def test_normalise_evidence_variants():
    assert normalise_evidence(["D8:6; D9:17"]) == (["D8:6", "D9:17"], 1, [])
    assert normalise_evidence(["D:11:26", "D30:05", " D2:3 "]) == (["D11:26", "D30:5", "D2:3"],
                                                                   3, [])
    assert normalise_evidence(["D1:18", "D", "D1:18"]) == (["D1:18"], 0, ["D"])
    assert normalise_evidence("D4:1") == (["D4:1"], 0, [])


@given(st.lists(st.tuples(st.integers(1, 40), st.integers(1, 60)), max_size=8),
       st.sampled_from(["; ", ",", " ", ";"]))
def test_normalise_evidence_keeps_canonical_ids(pairs, sep):
    ids = list(dict.fromkeys(f"D{s}:{t}" for s, t in pairs))
    assert normalise_evidence(ids) == (ids, 0, [])
    joined = normalise_evidence([sep.join(ids)])[0] if ids else []
    assert joined == ids
