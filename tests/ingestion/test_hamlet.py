"""The Hamlet witness replay, read from the real TEI play in ../shared/data/hamlet."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from graphmem.errors import InvalidInput
from graphmem.ingestion.hamlet import (
    STORY_EPOCH,
    Play,
    Speech,
    consensus_deposits,
    load_play,
    witness_deposits,
)
from graphmem.ingestion.stage import StageState


@pytest.fixture(scope="module")
def tei_path(shared_data: Path) -> Path:
    """The play's TEI file."""
    return shared_data / "hamlet" / "hamlet.tei.xml"


@pytest.fixture(scope="module")
def play(tei_path: Path) -> Play:
    """The play, parsed once for this module."""
    return load_play(tei_path)


def speech_starting(play: Play, act: int, scene: int, words: str) -> Speech:
    """The one speech of a scene whose text starts with ``words``."""
    found = [s for s in play.speeches
             if (s.act, s.scene) == (act, scene) and s.text.startswith(words)]
    assert len(found) == 1, f"{len(found)} speeches in {act}.{scene} start with {words!r}"
    return found[0]


def write_variant(tmp_path: Path, tei_path: Path, old: str, new: str) -> Path:
    """A copy of the real play in tmp_path with one exact passage replaced."""
    text = tei_path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"passage to replace occurs {text.count(old)} times"
    variant = tmp_path / "hamlet-variant.tei.xml"
    variant.write_text(text.replace(old, new), encoding="utf-8")
    return variant


def test_play_has_the_documented_acts_scenes_and_speeches(play: Play) -> None:
    assert play.title == "Hamlet"
    assert play.acts == [1, 2, 3, 4, 5]
    assert len(play.scenes) == 20
    assert [s.number for s in play.scenes if s.act == 4] == [1, 2, 3, 4, 5, 6, 7]
    assert len(play.speeches) == 1137
    # the one <sp> with no who: an off-stage noise, "A noise within: 'Let her come in!'"
    assert play.unattributed == ("4.5.176",)


def test_speech_ids_are_unique_and_follow_act_scene_index(play: Play) -> None:
    ids = [s.id for s in play.speeches]
    assert len(set(ids)) == len(ids)
    for speech in play.speeches:
        assert speech.id == f"{speech.act}.{speech.scene}.{speech.index}"


def test_cast_has_readable_names(play: Play) -> None:
    assert play.name_of("hamlet") == "Hamlet"
    assert play.name_of("claudius") == "King Claudius"
    assert play.name_of("gertrude") == "Queen Gertrude"
    assert play.name_of("players.1") == "First Player"
    assert play.name_of("gravediggerscompanion") == "Gravedigger’s companion"
    assert all(speaker in play.cast for s in play.speeches for speaker in s.speakers)
    assert not [c.name for c in play.cast.values() if "_" in c.name]


def test_first_speech_is_barnardo_asking_who_is_there(play: Play) -> None:
    first = play.speeches[0]
    assert first.id == "1.1.1"
    assert first.line == "1.1.1"
    assert first.speakers == ("barnardo",)
    assert first.text == "Who’s there?"
    assert first.on_stage == {"barnardo", "francisco"}
    assert first.witnesses == {"francisco"}


def test_to_be_or_not_to_be_is_overheard_by_king_and_polonius(play: Play) -> None:
    speech = speech_starting(play, 3, 1, "To be or not to be")
    assert speech.speakers == ("hamlet",)
    assert speech.line == "3.1.64"
    # the Queen and Rosencrantz, Guildenstern and the lords have gone; the King and
    # Polonius withdrew to spy, Ophelia waits with her book
    assert speech.on_stage == {"hamlet", "claudius", "polonius", "ophelia"}
    assert "that is the question" in speech.text


def test_every_speaker_is_on_stage_for_their_speech(play: Play) -> None:
    assert all(set(s.speakers) <= s.on_stage for s in play.speeches)
    multi = [s for s in play.speeches if len(s.speakers) > 1]
    assert len(multi) == 9
    assert all(s.speakers[1] not in s.witnesses for s in multi)


def test_every_scene_ends_with_an_empty_stage(play: Play) -> None:
    assert [s.left_on_stage for s in play.scenes] == [frozenset()] * 20


def test_nobody_carries_over_from_one_scene_to_the_next(play: Play) -> None:
    # 1.1 ends with Barnardo, Horatio and Marcellus on the battlements; 1.2 opens at court
    assert play.scenes[1].speeches[0].on_stage == {
        "claudius", "gertrude", "polonius", "laertes", "hamlet", "voltemand", "cornelius"}


def test_a_voice_from_below_is_present_only_while_it_speaks(play: Play) -> None:
    scene = [s for s in play.speeches if (s.act, s.scene) == (1, 5)]
    swears = [s for s in scene if s.speakers == ("ghost",) and s.text.startswith("Swear")]
    assert len(swears) == 4
    assert all(s.on_stage == {"ghost", "hamlet", "horatio", "marcellus"} for s in swears)
    after_exit = scene[scene.index(swears[0]) - 1:]
    assert [s for s in after_exit if "ghost" in s.on_stage] == swears


def test_the_dead_witness_nothing(play: Play) -> None:
    fortinbras = speech_starting(play, 5, 2, "Where is this sight?")
    assert fortinbras.on_stage & {"hamlet", "claudius", "gertrude", "laertes"} == set()
    assert "horatio" in fortinbras.on_stage
    after_arras = speech_starting(play, 3, 4, "O me, what hast thou done?")
    assert "polonius" not in after_arras.on_stage
    funeral = next(s for s in play.speeches if s.id == "5.1.85")  # "What ceremony else?"
    assert {"laertes", "claudius", "gertrude", "doctor"} <= funeral.on_stage
    assert "ophelia" not in funeral.on_stage  # her corpse is carried on


def test_a_member_who_entered_by_name_outstays_the_group(play: Play) -> None:
    # "As Polonius and Players exit, Hamlet speaks to the First Player"
    reply = speech_starting(play, 2, 2, "We’ll ha ’t tomorrow night")
    assert "players.1" in reply.on_stage
    assert reply.on_stage.isdisjoint({"players", "polonius"})


def test_listeners_who_leave_early_do_not_witness_the_soliloquy(play: Play) -> None:
    rogue = speech_starting(play, 2, 2, "Ay, so, good-bye to you. Now I am alone.")
    assert rogue.on_stage == {"hamlet"}


def test_stage_directions_are_not_part_of_the_spoken_text(play: Play) -> None:
    laertes = speech_starting(play, 4, 5, "I thank you. Keep the door.")
    assert "Followers exit" not in laertes.text
    assert not [s.id for s in play.speeches if "exits" in s.text or "  " in s.text]
    assert speech_starting(play, 2, 2, "“The moblèd queen”?")


def test_consensus_deposits_one_per_speech_in_the_third_person(play: Play) -> None:
    deposits = list(consensus_deposits(play))
    assert len(deposits) == len(play.speeches)
    first = deposits[0]
    assert first.agent == "barnardo"
    assert first.text == 'Barnardo said: "Who’s there?"'
    assert first.witnesses == {"francisco"}
    assert (first.truth, first.act, first.scene, first.place) == ("1.1.1", 1, 1, "Act I, Scene 1")
    assert first.at == STORY_EPOCH.replace(minute=1)
    for deposit, speech in zip(deposits, play.speeches):
        assert deposit.truth == speech.id
        assert deposit.agent == speech.speakers[0]
        assert deposit.witnesses == speech.on_stage - {deposit.agent}
    chorus = next(d for d in deposits if d.text.startswith("Horatio, Marcellus and Barnardo said"))
    assert {"marcellus", "barnardo"} <= chorus.witnesses


def test_story_time_is_strictly_increasing(play: Play) -> None:
    times = [d.at for d in consensus_deposits(play)]
    assert all(a < b for a, b in zip(times, times[1:]))
    assert times[-1].date() == STORY_EPOCH.date().replace(day=20)  # 20th scene, day 19


def test_witness_deposits_one_per_person_on_stage(play: Play) -> None:
    deposits = list(witness_deposits(play))
    assert len(deposits) == sum(len(s.on_stage) for s in play.speeches) == 4541
    by_truth: dict[str, list[str]] = {}
    for d in deposits:
        assert d.witnesses == frozenset()
        by_truth.setdefault(d.truth, []).append(d.agent)
    assert all(sorted(by_truth[s.id]) == sorted(s.on_stage) for s in play.speeches)
    first = [d for d in deposits if d.truth == "1.1.1"]
    assert [(d.agent, d.text) for d in first] == [
        ("barnardo", 'I said: "Who’s there?"'), ("francisco", 'Barnardo said: "Who’s there?"')]
    subjects = Counter(d.text.split(" said:")[0] for d in deposits)
    assert subjects["Horatio, Barnardo and I"] == 4  # Marcellus on the four "ALL" choruses


def test_missing_file_names_the_path(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="nowhere.tei.xml: file not found"):
        load_play(tmp_path / "nowhere.tei.xml")


def test_truncated_file_is_reported_as_not_xml(tmp_path: Path, tei_path: Path) -> None:
    cut = tmp_path / "cut.tei.xml"
    cut.write_bytes(tei_path.read_bytes()[:50_000])
    with pytest.raises(InvalidInput, match="cut.tei.xml: not well-formed XML"):
        load_play(cut)


def test_bad_who_reference_names_file_and_element(tmp_path: Path, tei_path: Path) -> None:
    variant = write_variant(tmp_path, tei_path, 'who="#Barnardo_Ham #Francisco_Ham"',
                            'who="Barnardo_Ham #Francisco_Ham"')
    with pytest.raises(InvalidInput, match=r'hamlet-variant.tei.xml: <stage xml:id="stg-0000">'):
        load_play(variant)


def test_scene_without_number_names_file_and_element(tmp_path: Path, tei_path: Path) -> None:
    variant = write_variant(tmp_path, tei_path, '<div type="scene" n="6">',
                            '<div type="scene" n="six">')
    with pytest.raises(InvalidInput, match='hamlet-variant.tei.xml: <div type="scene"> has n="six"'):
        load_play(variant)


def test_exits_without_who_are_read_from_their_words(tmp_path: Path, tei_path: Path) -> None:
    text = tei_path.read_text(encoding="utf-8")
    for before, after in [
        ('type="exit" who="#Francisco_Ham">Francisco exits.', 'type="exit">Exit.'),
        ('type="exit" who="#Barnardo_Ham #Horatio_Ham #Marcellus_Ham">All but Hamlet',
         'type="exit">All but Hamlet'),
        ('type="exit" who="#Barnardo_Ham #Horatio_Ham #Marcellus_Ham">They exit.',
         'type="exit">They exit.'),
    ]:
        assert text.count(before) == 1
        text = text.replace(before, after)
    variant = tmp_path / "no-who.tei.xml"
    variant.write_text(text, encoding="utf-8")
    changed = load_play(variant)
    assert changed.scenes[0].left_on_stage == changed.scenes[1].left_on_stage == frozenset()
    assert speech_starting(changed, 1, 1, "Holla, Barnardo.").on_stage == {
        "barnardo", "horatio", "marcellus"}  # the bare "Exit." took Francisco, who spoke last


def test_stage_state_keeps_a_group_when_some_of_it_leaves() -> None:
    stage = StageState()
    stage.enter(["claudius", "attendants"])
    stage.join_speaker("attendants.1")
    stage.exit(["attendants.0"])  # "exit with some Attendants"
    assert stage.present == {"claudius", "attendants", "attendants.1"}
    stage.exit(["attendants"])
    assert stage.present == {"claudius"}
