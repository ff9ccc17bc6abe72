"""Hamlet as a witness replay: the TEI play read into speeches and memory deposits.

``load_play`` reads the Folger/DraCor TEI (``hamlet.tei.xml``): the cast, acts, scenes,
and every speech with who was on stage to hear it (the stage logic lives in
``graphmem.ingestion.stage``). Two deposit streams come out of a play:

- ``consensus_deposits``: one deposit per speech, by its (first) speaker, witnessed by
  everyone else on stage, in the third person (``Hamlet said: "..."``).
- ``witness_deposits``: every one on stage deposits an own account (the speaker
  ``I said: "..."``, each listener ``Hamlet said: "..."``), no witnesses.

Every deposit carries ``truth``, the id of the speech it tells, so a replay can score
which deposits a store merged against which tell the same speech.

Story time: the play has no dates, so ``at`` is synthetic and monotone: scene ``k`` of
the play (0-based, 1.1 is 0, 5.2 is 19) is day ``k`` after ``STORY_EPOCH``, and speech
``i`` of a scene (1-based) is ``i`` minutes into that day.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

from graphmem.errors import InvalidInput
from graphmem.ingestion.stage import (StageState, corpses_in, dead_in, leaving_without_who,
                                      named_in)

TEI = "{http://www.tei-c.org/ns/1.0}"
XML_ID = "{http://www.w3.org/XML/1998/namespace}id"
STORY_EPOCH = datetime(2000, 1, 1, tzinfo=timezone.utc)
LINE_TAGS = {"l", "p", "ab", "lg"}  # elements whose text is spoken
WITNESS_SHARE = 0.5  # a listener must be on stage for this share of a speech
ROMAN = ["", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X"]


@dataclass(frozen=True)
class Character:
    """One member of the cast: agent id (``hamlet``), display name, TEI xml:id."""

    id: str
    name: str
    xml_id: str


@dataclass(frozen=True)
class Speech:
    """One ``<sp>``: who said what, and who was on stage to hear it.

    ``id`` is ``act.scene.index`` with ``index`` counting speeches in the scene from 1;
    ``line`` is the Folger line reference of its first spoken line (``"1.1.1"``).
    ``on_stage`` includes the speakers.
    """

    id: str
    act: int
    scene: int
    index: int
    speakers: tuple[str, ...]
    text: str
    on_stage: frozenset[str]
    line: str = ""

    @property
    def witnesses(self) -> frozenset[str]:
        """Everyone on stage who did not speak it."""
        return self.on_stage - frozenset(self.speakers)


@dataclass(frozen=True)
class Scene:
    """One scene, its place label and its speeches in order.

    ``left_on_stage`` is who the directions leave on stage after its last line; the
    next scene starts empty regardless (in Hamlet every scene ends empty).
    """

    act: int
    number: int
    place: str
    speeches: tuple[Speech, ...]
    left_on_stage: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Play:
    """A parsed play. ``unattributed`` lists ``<sp>`` elements with no ``who`` (skipped)."""

    title: str
    source: Path
    cast: Mapping[str, Character]
    scenes: tuple[Scene, ...]
    unattributed: tuple[str, ...] = field(default=())

    @property
    def speeches(self) -> list[Speech]:
        """Every speech, in play order."""
        return [speech for scene in self.scenes for speech in scene.speeches]

    @property
    def acts(self) -> list[int]:
        """The act numbers, in order."""
        return sorted({scene.act for scene in self.scenes})

    def name_of(self, agent: str) -> str:
        """The display name of an agent id."""
        return self.cast[agent].name


@dataclass(frozen=True)
class Deposit:
    """What one agent remembers of one speech, with the speech id as ground truth."""

    agent: str
    text: str
    witnesses: frozenset[str]
    at: datetime
    place: str
    truth: str
    act: int
    scene: int


def load_play(path: str | Path) -> Play:
    """Read a TEI play: cast, scenes, speeches and who was on stage for each speech.

    Raises ``InvalidInput`` naming the file and element when the file is missing, is
    not XML, or lacks the acts, scenes or references the replay needs.
    """
    path = Path(path)
    root = read_tree(path)
    body = root.find(f"{TEI}text/{TEI}body")
    if body is None:
        raise InvalidInput(f"{path}: no <text><body> element; is this a TEI play?")
    cast = read_cast(root, path)
    scenes: list[Scene] = []
    unattributed: list[str] = []
    for act_div in body.iter(f"{TEI}div"):
        if act_div.get("type") != "act":
            continue
        act = read_number(act_div, path)
        for scene_div in act_div.iter(f"{TEI}div"):
            if scene_div.get("type") == "scene":
                scenes.append(read_scene(scene_div, act, cast, path, unattributed))
    if not scenes:
        raise InvalidInput(f"{path}: no <div type=\"scene\"> inside <div type=\"act\">")
    title = " ".join((root.findtext(f".//{TEI}titleStmt/{TEI}title") or path.stem).split())
    return Play(title, path, cast, tuple(scenes), tuple(unattributed))


def read_tree(path: Path) -> ET.Element:
    """Parse the XML file, turning I/O and syntax errors into ``InvalidInput``."""
    try:
        return ET.parse(path).getroot()
    except FileNotFoundError:
        raise InvalidInput(f"{path}: file not found") from None
    except ET.ParseError as exc:
        raise InvalidInput(f"{path}: not well-formed XML ({exc})") from None


def agent_id(xml_id: str) -> str:
    """The agent id of a TEI person id: ``Hamlet_Ham`` -> ``hamlet``."""
    return re.sub(r"_[A-Za-z]+$", "", xml_id).lower()


def read_cast(root: ET.Element, path: Path) -> dict[str, Character]:
    """The cast from ``particDesc``, named from the cast list, the TEI names or speaker labels.

    A name is chosen, first found: the ``<role>`` of the cast list ("Queen Gertrude"),
    the ``particDesc`` name unless it is an id or a description shared by several groups,
    the most common speaker label of that person ("First Player"), a prettified id.
    """
    persons = [p for p in root.iter() if p.tag in (f"{TEI}person", f"{TEI}personGrp")]
    if not persons:
        raise InvalidInput(f"{path}: no <person> in <particDesc>; the cast is needed")
    tei_names = {p.get(XML_ID, ""): " ".join("".join(p.itertext()).split()) for p in persons}
    shared = {n for n, count in Counter(tei_names.values()).items() if count > 1}
    roles = read_roles(root)
    labels = read_speaker_labels(root)
    cast: dict[str, Character] = {}
    for xml_id, tei_name in tei_names.items():
        if not xml_id:
            raise InvalidInput(f"{path}: a <person> in <particDesc> has no xml:id")
        usable = tei_name if tei_name and "_" not in tei_name and tei_name not in shared else ""
        name = roles.get(xml_id) or usable or labels.get(xml_id) or pretty_id(xml_id)
        cast[agent_id(xml_id)] = Character(agent_id(xml_id), name, xml_id)
    return cast


def read_roles(root: ET.Element) -> dict[str, str]:
    """Role names from the cast list, by xml:id of the person they stand for."""
    roles = {}
    for item in root.iter(f"{TEI}castItem"):
        role = item.find(f"{TEI}role")
        ref = (item.get("sameAs") or "").lstrip("#")
        if role is not None and ref:
            roles[ref] = " ".join("".join(role.itertext()).split())
    return roles


def read_speaker_labels(root: ET.Element) -> dict[str, str]:
    """The most common single-speaker label of each person, title-cased."""
    labels: dict[str, Counter[str]] = {}
    for sp in root.iter(f"{TEI}sp"):
        refs = (sp.get("who") or "").split()
        label = " ".join("".join(sp.findtext(f"{TEI}speaker") or "").split())
        if len(refs) == 1 and label and label != "ALL" and "/" not in label:
            labels.setdefault(refs[0].lstrip("#"), Counter())[label.title()] += 1
    return {ref: counts.most_common(1)[0][0] for ref, counts in labels.items()}


def pretty_id(xml_id: str) -> str:
    """A readable name for an id with no other: ``FOLLOWERS.LAERTES_Ham`` -> "Followers Laertes"."""
    words = [w for w in re.sub(r"_[A-Za-z]+$", "", xml_id).split(".") if not w.isdigit()]
    return " ".join(w.title() if w.isupper() else w for w in words)


def read_number(div: ET.Element, path: Path) -> int:
    """The ``n`` of an act or scene div, as an integer."""
    n = div.get("n", "")
    if not n.isdigit():
        raise InvalidInput(f'{path}: <div type="{div.get("type")}"> has n="{n}", not a number')
    return int(n)


def read_refs(element: ET.Element, cast: dict[str, Character], path: Path) -> list[str]:
    """Agent ids named by a ``who`` attribute; ids missing from the cast are added."""
    agents = []
    for ref in (element.get("who") or "").split():
        if not ref.startswith("#") or len(ref) < 2:
            where = element.get(XML_ID) or element.get("n") or "?"
            raise InvalidInput(f'{path}: <{local(element.tag)} xml:id="{where}"> has who '
                               f'reference "{ref}"; expected "#PersonId"')
        xml_id = ref[1:]
        agent = agent_id(xml_id)
        cast.setdefault(agent, Character(agent, pretty_id(xml_id), xml_id))
        agents.append(agent)
    return agents


def local(tag: str) -> str:
    """An element tag without its namespace."""
    return tag.rsplit("}", 1)[-1]


def read_scene(div: ET.Element, act: int, cast: dict[str, Character], path: Path,
               unattributed: list[str]) -> Scene:
    """The speeches of one scene, walking directions and speeches in document order."""
    number = read_number(div, path)
    state = StageState()
    speeches: list[Speech] = []
    last_speakers: list[str] = []
    for child in div:
        voice = child.tag == f"{TEI}sp" and not (child.get("who") or "").split()
        if voice:  # a noise or voice with no speaker: no speech, its directions still count
            unattributed.append(child.get(XML_ID) or first_line_of(child) or f"{act}.{number}")
        if child.tag != f"{TEI}sp" or voice:
            apply_direction(child, state, cast, path, last_speakers)
            continue
        speech = read_speech(child, act, number, len(speeches) + 1, state, cast, path)
        speeches.append(speech)
        last_speakers = list(speech.speakers)
    return Scene(act, number, f"Act {roman(act)}, Scene {number}", tuple(speeches),
                 state.present)


def roman(n: int) -> str:
    """A small roman numeral (acts run from I to V)."""
    return ROMAN[n] if 0 < n < len(ROMAN) else str(n)


def read_speech(sp: ET.Element, act: int, scene: int, index: int, state: StageState,
                cast: dict[str, Character], path: Path) -> Speech:
    """One speech: its text, and everyone on stage while most of it was spoken.

    A listener witnesses the speech when on stage for at least ``WITNESS_SHARE`` of its
    spoken characters: Rosencrantz and Guildenstern, who leave after "Ay, so, good-bye
    to you", do not witness the "rogue and peasant slave" soliloquy that follows.
    """
    speakers = read_refs(sp, cast, path)
    off_stage = any(d.get("type") == "location" for d in sp.iter(f"{TEI}stage"))
    if not off_stage:
        for speaker in speakers:
            state.join_speaker(speaker)
    heard: Counter[str] = Counter()
    parts: list[str] = []
    for part in spoken_parts(sp):
        if isinstance(part, str):
            parts.append(part)
            heard.update(dict.fromkeys(state.present, len(part.strip())))
        else:
            apply_direction(part, state, cast, path, list(speakers))
    spoken = sum(len(p.strip()) for p in parts)
    listeners = {a for a, n in heard.items() if n >= WITNESS_SHARE * spoken} if spoken \
        else set(state.present)
    return Speech(id=f"{act}.{scene}.{index}", act=act, scene=scene, index=index,
                  speakers=tuple(speakers), text=clean_text("".join(parts)),
                  on_stage=frozenset(listeners | set(speakers)), line=first_line_of(sp))


def clean_text(text: str) -> str:
    """Collapse whitespace and the tokeniser's gaps inside brackets and quotes: "( as" -> "(as"."""
    text = " ".join(text.split())
    return re.sub(r"([“(\[]) ", r"\1", text)


def first_line_of(sp: ET.Element) -> str:
    """The Folger line reference (``n``) of the first verse or prose line in a speech."""
    return next((el.get("n", "") for el in sp.iter()
                 if el.tag in (f"{TEI}l", f"{TEI}lb") and el.get("n")), "")


def spoken_parts(element: ET.Element, in_line: bool = False) -> Iterator[str | ET.Element]:
    """Spoken text of a speech in order, with its stage directions as elements in between."""
    for child in element:
        tag = local(child.tag)
        if tag == "stage":
            yield child
        elif tag != "speaker":
            inner = in_line or tag in LINE_TAGS
            if inner and child.text:
                yield child.text
            yield from spoken_parts(child, inner)
            if tag in LINE_TAGS:
                yield " "
        if in_line and child.tail:
            yield child.tail


def apply_direction(element: ET.Element, state: StageState, cast: dict[str, Character],
                    path: Path, speakers: list[str]) -> None:
    """Update the stage for one direction (and those nested in it)."""
    names = {agent: c.name for agent, c in cast.items()}
    for direction in element.iter(f"{TEI}stage"):
        kind = direction.get("type")
        text = " ".join("".join(direction.itertext()).split())
        who = read_refs(direction, cast, path)
        if kind in ("entrance", "dumbshow"):
            who = who or named_in(text, names)
            corpses = corpses_in(text, who, names)
            state.enter([a for a in who if a not in corpses])
        elif kind == "exit":
            state.exit(who or leaving_without_who(text, state, names, speakers))
        elif kind == "business":
            state.remove_dead(dead_in(text, who, names))


def story_time(scene_ordinal: int, index: int) -> datetime:
    """Synthetic, monotone story time: day ``scene_ordinal``, minute ``index``."""
    return STORY_EPOCH + timedelta(days=scene_ordinal, minutes=index)


def join_names(names: list[str]) -> str:
    """``["A", "B", "C"]`` -> ``"A, B and C"``."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def consensus_deposits(play: Play) -> Iterator[Deposit]:
    """One deposit per speech, by its first speaker, witnessed by all others on stage."""
    for ordinal, scene in enumerate(play.scenes):
        for speech in scene.speeches:
            said = join_names([play.name_of(a) for a in speech.speakers])
            yield Deposit(
                agent=speech.speakers[0], text=f'{said} said: "{speech.text}"',
                witnesses=speech.on_stage - {speech.speakers[0]},
                at=story_time(ordinal, speech.index), place=scene.place,
                truth=speech.id, act=speech.act, scene=speech.scene)


def witness_deposits(play: Play) -> Iterator[Deposit]:
    """Each one on stage deposits an own account of each speech, with no witnesses.

    A speaker says ``I said: "..."`` (``Horatio and I said`` when others spoke with it);
    a listener says ``Hamlet said: "..."``. Speakers come first, then listeners by id.
    """
    for ordinal, scene in enumerate(play.scenes):
        for speech in scene.speeches:
            at = story_time(ordinal, speech.index)
            for agent in list(speech.speakers) + sorted(speech.witnesses):
                yield Deposit(
                    agent=agent, text=f'{account_subject(play, speech, agent)} said: '
                                      f'"{speech.text}"',
                    witnesses=frozenset(), at=at, place=scene.place, truth=speech.id,
                    act=speech.act, scene=speech.scene)


def account_subject(play: Play, speech: Speech, agent: str) -> str:
    """Who said it, as ``agent`` tells it: "I", "Horatio and I", or the speakers' names."""
    if agent not in speech.speakers:
        return join_names([play.name_of(a) for a in speech.speakers])
    others = [play.name_of(a) for a in speech.speakers if a != agent]
    return join_names(others + ["I"])
