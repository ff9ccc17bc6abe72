"""A world of dated, geolocated incidents (the 2022 Russia–Ukraine CSV): cast, map,
carriers, seeded store and script, without a model.

The CSV has no actor column; its actors are named in each event's text. From the text
(the title without its date prefix, or the description when that is longer):

- **actors** (the cast): the institutions an event names, found by the project's entity
  extraction (spaCy, :mod:`graphmem.text`):

  * a demonym (``NORP``: Russian, Ukrainian, Chechen, …) modifying, within three
    words, an institution noun (``forces``, ``army``, ``police``, ``government``, …)
    or a noun of armed action or its means (``strike``, ``shelling``, ``tank``, …)
    names that nation's institution: "Russian military equipment" and "russian
    strike" both name *Russian armed forces*; "Ukrainian police" *Ukrainian police*;
  * an organisation (``ORG``) or person the recogniser finds that is an institution:
    a named unit or body ("30th Mechanized Brigade", "the Armed Forces of Ukraine"), or
    a name modifying an institution noun ("DNR forces", by the dependency parse),
    unless the data's own place or arms columns name it (the small model takes many
    towns for organisations: the columns correct it).

  The vocabularies below are general English words for institutions, armed action and
  documents, not names from the CSV. An actor is in the cast when at least
  ``min_events`` events name it.
- **places**: the province column (``… Oblast`` and its bare form are one place), or
  the country when the province is blank or names fewer than ``min_place_events``
  events (else "elsewhere"). The **map**: each place at the mean of its events' coordinates; distance in
  rounds ``1 + round(3 d / d_max)`` from the great-circle distance ``d``.
- **environments**: one per place. An event that names no actor is the environment's
  memory (the place witnessed it), witnessed by the actors active there that round.
- **carriers**: every event naming a document (report, video, footage, order, statement,
  …) and an actor makes a carrier holding its text, held by its first actor.
- **scenes**: the actors named by events at one place in one round are that scene's
  cast, the "on stage" of the other worlds: witnesses of a seeded event, listeners of a
  held-out one.
- **seeded store**: events before ``seed_until`` (the first months), one deposit each by
  its first actor (or its place), witnessed by the scene's other actors, at its date.
- **script**: every later event that names an actor, said by its first actor to the
  scene's others, in the round its date falls in (the remaining dates spread evenly
  over ``horizon`` rounds).
"""

from __future__ import annotations

import csv
import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

from graphmem.errors import InvalidInput
from graphmem.text.lexicon import default_lexicon
from graphmem.text.nlp import load_pipeline
from graphmem.worlds.model import Entity, WorldMap, WorldState
from graphmem.worlds.script import Beat, Sediment, carrier_deposits

COLUMNS = ("date", "title", "brief description", "lat", "lon", "country", "province")
#: nouns naming an institution: a demonym before one names that nation's institution
ARMED = {"forces", "force", "troops", "army", "military", "soldiers", "soldier", "servicemen",
         "navy", "fleet", "aviation", "airforce", "marines", "paratroopers", "artillery",
         "militia", "separatists", "fighters", "mercenaries", "units", "unit", "brigade",
         "regiment", "battalion", "division", "corps", "guard", "guards", "occupiers",
         "invaders", "saboteurs", "defenders", "sappers", "infantry"}
CIVIL = {"government": "government", "ministry": "government", "authorities": "government",
         "officials": "government", "official": "government", "president": "government",
         "police": "police", "border": "border guard", "railway": "railways",
         "railways": "railways", "emergency": "emergency service", "rescuers": "emergency service",
         "press": "press", "media": "press", "intelligence": "intelligence service",
         "security": "security service"}
#: armed action and its means: "Russian strike" names Russian armed forces
ACTION = {"strike", "strikes", "airstrike", "airstrikes", "shelling", "attack", "attacks",
          "bombing", "bombardment", "missile", "missiles", "rocket", "rockets", "tank", "tanks",
          "equipment", "vehicle", "vehicles", "convoy", "column", "aircraft", "helicopter",
          "helicopters", "jet", "jets", "drone", "drones", "warship", "ship", "armour", "armor",
          "positions", "position", "checkpoint", "offensive", "assault", "invasion", "fire",
          "mlrs", "apc", "ifv", "bmp", "btr", "howitzer", "howitzers", "weapons", "ammunition"}
DEMONYM_ENDS = ("an", "ian", "ese", "ish", "i", "en", "ic")
#: words that end a demonym's noun phrase ("Russian and Ukrainian ...")
demonyms_stop = {"and", "or", "by", "of", "in", "at", "near", "from", "to", "on"}
UNIT_TAIL = re.compile(r"\b(brigade|regiment|battalion|division|corps|army|guard|forces|"
                       r"service|ministry|fleet|militia|police)$", re.IGNORECASE)
#: documents: an event naming one is an information carrier
DOCUMENT = re.compile(r"\b(reports?|reported|video|videos|footage|imagery|images?|photos?|"
                      r"statement|orders?|ordered|decree|announce(?:d|ment)|press|telegram|"
                      r"claims?|claimed|confirmed|published)\b", re.IGNORECASE)
DATE_PREFIX = re.compile(r"^\d{2}/\d{2}/\d{4}\s*")
OBLAST = re.compile(r"\s*\b(oblast|region|krai|raion)\b\.?\s*$", re.IGNORECASE)
WINDOW = 3
MAX_TEXT = 600


@dataclass(frozen=True)
class Incident:
    """One row of the CSV, as the world reads it."""

    id: str
    day: date
    text: str
    place: str
    lat: float | None
    lon: float | None
    actors: tuple[str, ...] = ()


def load_rows(path: str | Path) -> tuple[list[dict[str, str]], int]:
    """The CSV's rows with a readable date, and how many rows had none."""
    path = Path(path)
    if not path.is_file():
        raise InvalidInput(f"{path}: file not found")
    with path.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        missing_cols = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
        if missing_cols:
            raise InvalidInput(f"{path}: not an incidents CSV; missing column(s) "
                               f"{', '.join(missing_cols)}")
        rows = list(reader)
    dated = [r for r in rows if parse_day(r["date"])]
    return dated, len(rows) - len(dated)


def parse_day(value: str) -> date | None:
    try:
        return date.fromisoformat(value.strip())
    except ValueError:
        return None


def event_text(row: dict[str, str]) -> str:
    title = DATE_PREFIX.sub("", row["title"] or "").strip()
    brief = (row["brief description"] or "").strip()
    return (brief if len(brief) > len(title) else title)[:MAX_TEXT]


def place_key(row: dict[str, str]) -> tuple[str, str]:
    """(province, country), normalised: "Kharkiv Oblast" and "Kharkiv" are one place."""
    province = OBLAST.sub("", (row.get("province") or "").strip()).strip()
    country = (row.get("country") or "").strip().title()
    return province.title(), country


def as_float(value: str) -> float | None:
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def place_names(rows: list[dict[str, str]]) -> set[str]:
    """Every place the columns name (lower case), words and whole values."""
    names: set[str] = set()
    for r in rows:
        for col in ("country", "province", "district", "town/city"):
            value = OBLAST.sub("", (r.get(col) or "").strip()).lower()
            if value:
                names.add(value)
    return names


def arms_words(rows: list[dict[str, str]]) -> set[str]:
    return {w.lower() for r in rows for w in re.findall(r"[\w-]+", r.get("arms/munition") or "")}


def demonyms_of(docs, places: set[str]) -> dict[str, str]:
    """Single-word nationality adjectives the recogniser finds anywhere in the data
    (``NORP``: Russian, Ukrainian, Chechen), lower case, each mapped to its spelling:
    not a common word (WordNet knows "civilian" as one), not a place of the columns, and
    a variant one edit from a more frequent demonym ("ukranian") is that demonym."""
    lexicon = default_lexicon()
    counts = Counter(e.text.lower() for doc in docs for e in doc.ents
                     if e.label_ == "NORP" and e.text.isalpha()
                     and e.text.lower().endswith(DEMONYM_ENDS))
    kept = [w for w, _ in counts.most_common() if w not in places
            and (lexicon.is_name(w) or not lexicon.known(w))]
    canonical: dict[str, str] = {}
    for w in kept:
        canonical[w] = next((c for c in canonical.values() if one_edit(w, c)), w)
    return canonical


def one_edit(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` differ by one inserted, deleted or replaced letter."""
    if abs(len(a) - len(b)) > 1 or a == b or min(len(a), len(b)) < 5:
        return False
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    return a[i + 1:] == b[i + 1:] or a[i + 1:] == b[i:] or a[i:] == b[i + 1:]


def find_actors(texts: list[str], places: set[str], arms: set[str]) -> list[tuple[str, ...]]:
    """The actors each text names, in order of mention (see the module docstring)."""
    docs = list(load_pipeline(parser=True).pipe(texts, batch_size=256))
    demonyms = demonyms_of(docs, places)
    out = []
    for doc in docs:
        found = [(tok.idx, name) for tok in doc if tok.lower_ in demonyms
                 for name in [demonym_actor(tok, doc, demonyms[tok.lower_])] if name]
        found += [(ent.start_char, name) for ent in doc.ents if ent.label_ in ("ORG", "PERSON")
                  and not any(t.lower_ in demonyms for t in ent)  # "Russian Forces": above
                  for name in [named_actor(ent, places, arms)] if name]
        out.append(tuple(dict.fromkeys(n for _, n in sorted(found))))
    return out


def demonym_actor(tok, doc, canonical: str) -> str | None:
    """"Russian forces", "russian strike" -> "Russian armed forces"; None if no
    institution or armed-action noun follows within ``WINDOW`` words."""
    demonym = canonical[:1].upper() + canonical[1:]
    for nxt in doc[tok.i + 1: tok.i + 1 + WINDOW]:
        word = nxt.lower_
        if word in ARMED or word in ACTION:
            return f"{demonym} armed forces"
        if word in CIVIL:
            return f"{demonym} {CIVIL[word]}"
        if nxt.is_punct or nxt.lower_ in demonyms_stop:
            break
    return None


def named_actor(ent, places: set[str], arms: set[str]) -> str | None:
    """An organisation or person the recogniser found that is an institution: a named
    unit or body ("30th Mechanized Brigade", "the Armed Forces of Ukraine"), or a name
    modifying an institution noun ("DNR forces"). Names the columns give as places or
    arms are not actors (the small model takes many towns for organisations)."""
    name = re.sub(r"^(the|a|an)\s+", "", ent.text.strip(), flags=re.IGNORECASE).strip(" '\"“”")
    key = name.lower()
    words = set(re.findall(r"[\w-]+", key))
    if len(name) < 2 or key in places or OBLAST.sub("", key) in places or words & arms:
        return None
    if UNIT_TAIL.search(name) or words & ARMED:
        return name
    head = ent.root.head
    if ent.root.dep_ in ("compound", "amod", "poss", "nmod") and head.lower_ in ARMED | set(CIVIL):
        return name
    return None


def sediment_incidents(path: str | Path, *, seed_until: str = "2022-03-01", horizon: int = 40,
                       min_events: int = 5, min_place_events: int = 20,
                       limit: int | None = None, name: str = "russia_ukraine") -> Sediment:
    """Read an incidents CSV into a world whose history is the events before ``seed_until``."""
    rows, undated = load_rows(path)
    rows = sorted(rows, key=lambda r: (r["date"], r.get("entry", "")))[:limit]
    cut = parse_day(seed_until)
    if cut is None:
        raise InvalidInput(f"seed_until={seed_until!r} is not a date (YYYY-MM-DD)")
    if horizon < 1:
        raise InvalidInput(f"horizon must be at least one round, got {horizon}")
    days = [day for r in rows if (day := parse_day(r["date"]))]  # load_rows kept dated rows
    if not any(d < cut for d in days) or not any(d >= cut for d in days):
        raise InvalidInput(f"seed_until={seed_until} must leave events to seed and to play "
                           f"({path} runs {min(days, default=None)} to {max(days, default=None)})")
    places = place_of_rows(rows, min_place_events)
    texts = [event_text(r) for r in rows]
    named = find_actors(texts, place_names(rows), arms_words(rows))
    counts = Counter(a for names in named for a in names)
    cast = {a for a, k in counts.items() if k >= min_events}
    incidents = [Incident(r.get("entry") or str(i), d, t, places[i], as_float(r["lat"]),
                          as_float(r["lon"]), tuple(a for a in names if a in cast))
                 for i, (r, d, t, names) in enumerate(zip(rows, days, texts, named))]
    return build_world(incidents, cut, horizon, name, str(path), undated)


def place_of_rows(rows: list[dict[str, str]], min_place_events: int) -> list[str]:
    """Each row's place: its province, else its country, else "elsewhere", whichever
    first names at least ``min_place_events`` rows (typos and one-off values fall through)."""
    keys = [place_key(r) for r in rows]
    provinces = Counter(p for p, _ in keys if p)
    countries = Counter(c for _, c in keys)
    return [p if p and provinces[p] >= min_place_events
            else c if c and countries[c] >= min_place_events else "elsewhere" for p, c in keys]


def rounds_of(days: list[date], rounds: int) -> dict[date, int]:
    """The distinct dates spread evenly over ``rounds`` rounds, in order (a few
    stray late dates do not stretch the calendar and leave rounds empty)."""
    distinct = sorted(set(days))
    return {d: i * rounds // len(distinct) for i, d in enumerate(distinct)}


def build_world(incidents: list[Incident], cut: date, horizon: int, name: str, source: str,
                undated: int) -> Sediment:
    seeded = [e for e in incidents if e.day < cut]
    held = [e for e in incidents if e.day >= cut]
    held_days = sorted({e.day for e in held})
    seed_days = sorted({e.day for e in seeded})
    play = rounds_of(held_days, horizon)
    past = rounds_of(seed_days, max(1, round(horizon * len(seed_days) / len(held_days))))

    def scene(e: Incident) -> tuple[str, int]:  # seeded rounds count down from -1
        return (e.place, play[e.day]) if e.day >= cut else (e.place, -1 - past[e.day])

    casts: dict[tuple[str, int], set[str]] = defaultdict(set)
    for e in incidents:
        casts[scene(e)].update(e.actors)
    seed = []
    for e in seeded:
        present = sorted(casts[scene(e)])
        agent = e.actors[0] if e.actors else e.place
        seed.append({"agent": agent, "text": e.text, "place": e.place, "at": noon(e.day),
                     "witnesses": [a for a in present if a != agent]})
    script = [Beat(round=scene(e)[1], speech=e.id, speaker=e.actors[0],
                   listeners=tuple(a for a in sorted(casts[scene(e)]) if a != e.actors[0]),
                   text=e.text, place=e.place) for e in held if e.actors]
    entities = actor_entities(incidents, script)
    place_list = sorted({e.place for e in incidents})
    entities.update({p: Entity(p, p, "environment", place=p) for p in place_list})
    entities.update(carriers(incidents))
    world = WorldState(name=name, round=0, entities=entities,
                       map=WorldMap(place_list, place_distances(incidents)),
                       meta={"source": source, "seed_until": cut.isoformat(),
                             "horizon": horizon,
                             "start": f"{held_days[0].isoformat()}T00:00:00+00:00",
                             "round_minutes": round(len(held_days) * 1440 / horizon),
                             "undated_rows": undated})
    return Sediment(world, seed + carrier_deposits(entities), script)


def noon(day: date) -> datetime:
    """An event's time: its day (the CSV has no hour), so that two incidents alike in
    words but on different days stay two memories."""
    return datetime(day.year, day.month, day.day, 12, tzinfo=UTC)


def actor_entities(incidents: list[Incident], script: list[Beat]) -> dict[str, Entity]:
    """Every actor; those the held-out events never name stay, absent."""
    first: dict[str, str] = {}
    for beat in script:
        for agent in (beat.speaker, *beat.listeners):
            first.setdefault(agent, beat.place)
    actors = sorted({a for e in incidents for a in e.actors})
    return {a: Entity(a, a, "character", place=first.get(a), present=a in first)
            for a in actors}


def carriers(incidents: list[Incident]) -> dict[str, Entity]:
    return {f"carrier.{e.id}": Entity(f"carrier.{e.id}", f"report {e.id} ({e.day.isoformat()})",
                                      "carrier", place=e.place, text=e.text, holder=e.actors[0])
            for e in incidents if e.actors and DOCUMENT.search(e.text)}


def place_distances(incidents: list[Incident]) -> dict[str, dict[str, int]]:
    """Rounds between places: ``1 + round(3 d / d_max)``, ``d`` great-circle km between
    the mean coordinates of their events (a place without any is the farthest)."""
    points: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for e in incidents:
        if e.lat is not None and e.lon is not None and abs(e.lat) <= 90 and abs(e.lon) <= 180:
            points[e.place].append((e.lat, e.lon))
    centre = {p: (sum(x for x, _ in v) / len(v), sum(y for _, y in v) / len(v))
              for p, v in points.items()}
    places = sorted({e.place for e in incidents})
    km = {(a, b): haversine(centre[a], centre[b]) for a in places for b in places
          if a != b and a in centre and b in centre}
    far = max(km.values(), default=1.0) or 1.0
    return {a: {b: 1 + round(3 * km[(a, b)] / far) if (a, b) in km else 4
                for b in places if b != a} for a in places}


def haversine(a: tuple[float, float], b: tuple[float, float]) -> float:
    lat1, lon1, lat2, lon2 = map(math.radians, (*a, *b))
    h = math.sin((lat2 - lat1) / 2) ** 2 + \
        math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * 6371.0 * math.asin(math.sqrt(h))
