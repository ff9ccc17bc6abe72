"""A classical Chinese novel sedimented from its text: cast, places, carriers, seed, script.

Without a model, with a segmenter made for Chinese (jieba, the ``worlds`` extra) and the
names the text itself establishes:

- **cast**: words jieba tags as person names (``nr``, two or three characters, a
  trailing speech verb such as 曰/道/笑 cut off, tagged ``MIN_TAGGED`` times) that the
  text makes speakers, at least ``min_speeches`` times, of a quotation:
  ``<name>…道：“…”``; a name one character longer than another is that name and the
  next word, and is dropped. Surnamed names are also
  found by their given name (宝玉 for 贾宝玉) when that is unambiguous in the cast.
- **passages**: paragraphs. A passage's witnesses are the cast members it names.
- **places**: one per chapter, named by the place word the chapter names most (tagged
  ``ns`` and ending like a place or building name: 州, 府, 城, 院, ...), else the chapter; the map puts chapters sharing their people near (as for Hamlet).
- **carriers**: every passage naming a letter, edict or proclamation (书信, 诏, 檄, …)
  with a quotation makes one, holding the quotation, held by the passage's first name;
  it owns a memory of that text.
- **seeded store**: the first ``seed_chapters`` chapters, one deposit per passage by its
  first named character, witnessed by the others it names.
- **script**: every quotation of the later chapters with a known speaker, said to the
  others the passage names; chapters get rounds in proportion to their quotations.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

from graphmem.errors import InvalidInput, missing
from graphmem.worlds.model import Entity, WorldMap, WorldState
from graphmem.worlds.script import Beat, Sediment, allot, carrier_deposits, distances

SPEECH = re.compile(r"(?:曰|道|说|问|笑道|叹道|答道)[:：]?“([^”]{2,})”")
VERB_TAIL = re.compile(r"(?:笑道|问道|曰|道|说|笑|问|叹)$")
CARRIER = re.compile(r"(书信|密书|回书|诏书|诏|檄文|檄|表文|帖子|信)")
#: last characters of Chinese place and building names (州 province, 府 mansion, ...)
PLACE_TAIL = set("州府城山院庙寺江河关都阳园房门宫殿亭楼庄村县郡寨营湖洲口")
MIN_TAGGED = 10
LOOKBACK = 12
MAX_PASSAGE = 1500


def load_chapters(path: str | Path, limit: int | None = None) -> list[dict[str, Any]]:
    """The chapters of a JSON-lines novel (``chapter``, ``title``, ``text``)."""
    path = Path(path)
    if not path.is_file():
        raise InvalidInput(f"{path}: file not found")
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            row = json.loads(line)
            rows.append({"chapter": int(row["chapter"]), "title": str(row.get("title", "")),
                         "text": str(row["text"])})
        except (ValueError, KeyError, TypeError) as exc:
            raise InvalidInput(f"{path}:{n}: not a chapter record ({exc})") from None
    return rows[:limit] if limit else rows


def passages(text: str) -> list[str]:
    return [p.strip() for p in re.split(r"\n+", text) if p.strip()]


def tagged_words(text: str) -> list[tuple[str, str]]:
    try:
        import jieba
        import jieba.posseg as pseg
    except ImportError:
        raise missing("jieba", "worlds") from None
    jieba.setLogLevel(60)
    return [(w.word, w.flag) for w in pseg.cut(text)]


def find_cast(chapters: list[dict], min_speeches: int) -> tuple[dict[str, str], Counter]:
    """Names the text makes speakers, and the places it names (``ns`` counts)."""
    candidates: Counter[str] = Counter()
    places: Counter[str] = Counter()
    for ch in chapters:
        for word, flag in tagged_words(ch["text"]):
            if flag == "nr":
                name = VERB_TAIL.sub("", word)
                if 2 <= len(name) <= 3:
                    candidates[name] += 1
            elif flag == "ns" and len(word) >= 2 and word[-1] in PLACE_TAIL:
                places[word] += 1
    spoke: Counter[str] = Counter()
    for ch in chapters:
        for p in passages(ch["text"]):
            for m in SPEECH.finditer(p):
                who = speaker_before(p, m.start(), candidates)
                if who:
                    spoke[who] += 1
    names = {n for n, k in spoke.items() if k >= min_speeches and candidates[n] >= MIN_TAGGED}
    # a name with one more character ("宝钗因", "操大喜") is the name and the next word
    names = {n for n in names if not any(n != m and n.startswith(m) for m in names)}
    cast = {n: n for n in names}
    aliases = {}
    for name in cast:
        given = name[1:]
        if len(given) == 2 and sum(1 for other in cast if other[1:] == given) == 1 \
                and given not in cast:
            aliases[given] = name
    return {**cast, **aliases}, places


def speaker_before(text: str, at: int, names) -> str | None:
    """The name nearest before a speech verb, within ``LOOKBACK`` characters."""
    window = text[max(0, at - LOOKBACK):at]
    best, where = None, -1
    for name in names:
        i = window.rfind(name)
        if i > where or (i == where and best and len(name) > len(best)):
            best, where = name, i
    return best if where >= 0 else None


def named_in(text: str, cast: dict[str, str]) -> list[str]:
    """Cast members a passage names, in order of first mention."""
    hits = sorted((text.find(alias), canonical) for alias, canonical in cast.items()
                  if alias in text)
    return list(dict.fromkeys(c for _, c in hits))


def sediment_novel(path: str | Path, *, seed_chapters: int = 30, horizon: int = 80,
                   chapters: int | None = None, min_speeches: int = 5,
                   name: str | None = None) -> Sediment:
    """Read a novel into a world whose history is its first ``seed_chapters`` chapters."""
    rows = load_chapters(path, chapters)
    if not 0 < seed_chapters < len(rows):
        raise InvalidInput(f"seed_chapters={seed_chapters} must leave chapters to seed and to "
                           f"play (the file has {len(rows)})")
    cast, place_counts = find_cast(rows, min_speeches)
    if not cast:
        raise InvalidInput(f"{path}: no speakers found; is this a Chinese novel?")
    people = sorted(set(cast.values()))
    place_of = {r["chapter"]: chapter_place(r, place_counts) for r in rows}
    seed: list[dict[str, Any]] = []
    script_parts: list[list[Beat]] = []
    casts: dict[str, set[str]] = {}
    carriers: dict[str, Entity] = {}
    for r in rows:
        place = place_of[r["chapter"]]
        beats = []
        for i, p in enumerate(passages(r["text"])):
            present = named_in(p, cast)
            casts.setdefault(place, set()).update(present)
            if r["chapter"] <= seed_chapters:
                if present:
                    seed.append({"agent": present[0], "text": p[:MAX_PASSAGE], "place": place,
                                 "witnesses": present[1:]})
                carriers.update(passage_carriers(p, r["chapter"], i, place, present))
            else:
                beats.extend(passage_beats(p, r["chapter"], i, place, present, cast))
        if r["chapter"] > seed_chapters:
            script_parts.append(beats)
    script = spread(script_parts, horizon)
    first: dict[str, str] = {}
    for b in script:
        for who in (b.speaker, *b.listeners):
            first.setdefault(who, b.place)
    entities = {c: Entity(c, c, "character", place=first.get(c), present=c in first)
                for c in people}
    entities.update({p: Entity(p, p, "environment", place=p) for p in sorted(set(place_of.values()))})
    entities.update(carriers)
    world = WorldState(name=name or Path(path).stem.split(".")[0], round=0, entities=entities,
                       map=WorldMap(sorted(set(place_of.values())), distances(casts)),
                       meta={"source": str(path), "seed_chapters": seed_chapters,
                             "horizon": horizon, "start": "2000-03-01T00:00:00+00:00",
                             "round_minutes": 60 * 24})
    return Sediment(world, seed + carrier_deposits(carriers), script)


def chapter_place(row: dict, place_counts: Counter) -> str:
    """The place word a chapter names most (among those the book names 3+ times)."""
    named = Counter({p: row["text"].count(p) for p in place_counts if place_counts[p] >= 3})
    best = [p for p, k in named.most_common(1) if k > 0]
    return best[0] if best else f"第{row['chapter']}回"


def passage_beats(p: str, chapter: int, index: int, place: str, present: list[str],
                  cast: dict[str, str]) -> list[Beat]:
    beats = []
    for k, m in enumerate(SPEECH.finditer(p)):
        alias = speaker_before(p, m.start(), cast)
        if alias is None:
            continue
        speaker = cast[alias]
        beats.append(Beat(round=0, speech=f"{chapter}.{index}.{k}", speaker=speaker,
                          listeners=tuple(sorted(set(present) - {speaker})),
                          text=m.group(1)[:MAX_PASSAGE], place=place))
    return beats


def spread(parts: list[list[Beat]], horizon: int) -> list[Beat]:
    """Chapters get rounds in proportion to their beats; beats spread within them."""
    parts = [b for b in parts if b]
    if not parts:
        return []
    shares = allot([len(b) for b in parts], max(horizon, len(parts)))
    out: list[Beat] = []
    start = 0
    for beats, rounds in zip(parts, shares):
        out.extend(Beat(start + i * rounds // len(beats), b.speech, b.speaker, b.listeners,
                        b.text, b.place) for i, b in enumerate(beats))
        start += rounds
    return out


def passage_carriers(p: str, chapter: int, index: int, place: str,
                     present: list[str]) -> dict[str, Entity]:
    found = CARRIER.search(p)
    quote = SPEECH.search(p) or re.search(r"“([^”]{4,})”", p)
    if not found or not quote:
        return {}
    cid = f"carrier.{chapter}.{index}"
    return {cid: Entity(cid, f"{found.group(1)}（第{chapter}回）", "carrier", place=place,
                        text=quote.group(1), holder=present[0] if present else None)}
