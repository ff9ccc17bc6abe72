"""Hamlet sedimented from the TEI: cast, places and map, carriers, seeded store, script.

Without a model, from what the TEI encodes (read by :mod:`graphmem.ingestion.hamlet`):

- **cast**: every person of ``particDesc`` is a character. Those with no part in the
  held-out acts stay in the world, absent (unscheduled), keeping their memories: the
  dead of the seeded acts (Polonius) and those the play drops.
- **places**: the TEI names no locations, so each scene is a place. The **map** puts
  scenes whose casts overlap near each other: distance ``1 + round(3 (1 - J))`` with
  ``J`` the Jaccard overlap of the two scenes' casts (1 to 4).
- **environments**: one per place; each owns a memory of who was there.
- **carriers**: every stage direction naming a letter or paper makes one, holding the
  text of the speech it belongs to (the letter read out), held by the last person the
  direction names, at its scene; it owns a memory of that text.
- **seeded store**: the seeded acts (I–III by default), one deposit per speech by its
  speaker, witnessed by everyone else on stage.
- **script**: the held-out acts (IV–V) as beats the deterministic policy follows. Each
  scene gets rounds in proportion to its speeches (at least one), out of ``horizon``.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from graphmem.errors import InvalidInput
from graphmem.ingestion.hamlet import (
    TEI,
    Play,
    clean_text,
    consensus_deposits,
    load_play,
    read_tree,
    spoken_parts,
)
from graphmem.worlds.model import Entity, WorldMap, WorldState
from graphmem.worlds.script import Beat, Sediment, allot, carrier_deposits, distances

CARRIER_WORDS = re.compile(r"\b(letters?|paper)\b", re.IGNORECASE)
HORIZON = 40


def scene_place(act: int, scene: int) -> str:
    return f"act{act}.scene{scene}"


def sediment_hamlet(path: str | Path, *, seed_acts: tuple[int, ...] = (1, 2, 3),
                    horizon: int = HORIZON) -> Sediment:
    """Read ``hamlet.tei.xml`` into a world whose history is ``seed_acts``."""
    if horizon < 1:
        raise InvalidInput(f"horizon must be at least one round, got {horizon}")
    play = load_play(path)
    held = [s for s in play.scenes if s.act not in seed_acts]
    if not held or len(held) == len(play.scenes):
        raise InvalidInput(f"seed acts {seed_acts} leave nothing to seed or nothing to play "
                           f"(the play has acts {play.acts})")
    places = [scene_place(s.act, s.number) for s in play.scenes]
    casts = {scene_place(s.act, s.number): {a for sp in s.speeches for a in sp.on_stage}
             for s in play.scenes}
    script = schedule(play, held, horizon)
    entities = cast_entities(play, script)
    entities.update({p: Entity(p, f"Act {p[3]} Scene {p.split('scene')[1]}", "environment",
                               place=p) for p in places})
    entities.update(carriers(Path(path), play))
    world = WorldState(name="hamlet", round=0, entities=entities,
                       map=WorldMap(places, distances(casts)),
                       meta={"source": str(path), "seed_acts": list(seed_acts),
                             "horizon": horizon, "start": "2000-02-01T00:00:00+00:00",
                             "round_minutes": 60})
    seed = seed_deposits(play, seed_acts, casts) + carrier_deposits(entities)
    return Sediment(world, seed, script)


def schedule(play: Play, held, horizon: int) -> list[Beat]:
    """The held-out speeches as beats: each scene gets rounds in proportion to its
    speeches (largest remainder, at least one each), spread evenly within them."""
    sizes = [max(len(s.speeches), 1) for s in held]
    shares = allot(sizes, max(horizon, len(held)))
    beats, start = [], 0
    for scene, rounds in zip(held, shares):
        n = len(scene.speeches)
        for i, sp in enumerate(scene.speeches):
            listeners = tuple(sorted(sp.on_stage - {sp.speakers[0]}))
            beats.append(Beat(round=start + i * rounds // max(n, 1), speech=sp.id,
                              speaker=sp.speakers[0], listeners=listeners, text=sp.text,
                              place=scene_place(scene.act, scene.number)))
        start += rounds
    return beats


def cast_entities(play: Play, script: list[Beat]) -> dict[str, Entity]:
    """Characters, placed where their first beat is; those without one are absent."""
    first: dict[str, str] = {}
    for beat in script:
        for agent in (beat.speaker, *beat.listeners):
            first.setdefault(agent, beat.place)
    return {c.id: Entity(c.id, c.name, "character", place=first.get(c.id),
                         present=c.id in first) for c in play.cast.values()}


def seed_deposits(play: Play, seed_acts: tuple[int, ...],
                  casts: dict[str, set[str]]) -> list[dict[str, Any]]:
    """Speeches of the seeded acts by their speakers, witnessed by all on stage; and one
    memory per seeded place, owned by its environment: who was there."""
    deposits = [{"agent": d.agent, "text": d.text, "witnesses": sorted(d.witnesses),
                 "at": d.at, "place": scene_place(d.act, d.scene)}
                for d in consensus_deposits(play) if d.act in seed_acts]
    for scene in play.scenes:
        place = scene_place(scene.act, scene.number)
        if scene.act in seed_acts and casts[place]:
            names = sorted(play.name_of(a) for a in casts[place])
            deposits.append({"agent": place, "place": place,
                             "text": f"{scene.place}: present were {', '.join(names)}."})
    return deposits


def carriers(path: Path, play: Play) -> dict[str, Entity]:
    """One carrier per direction naming a letter or paper, holding its speech's text."""
    root = read_tree(path)
    found: dict[str, Entity] = {}
    for act_div in root.iter(f"{TEI}div"):
        if act_div.get("type") != "act":
            continue
        act = int(act_div.get("n", "0") or 0)
        for scene_div in act_div.iter(f"{TEI}div"):
            if scene_div.get("type") == "scene":
                found.update(scene_carriers(scene_div, act, int(scene_div.get("n", "0")), play))
    return found


def scene_carriers(div: ET.Element, act: int, scene: int, play: Play) -> dict[str, Entity]:
    found: dict[str, Entity] = {}
    speeches = [sp for sp in div if sp.tag == f"{TEI}sp" and sp.get("who")]
    for i, sp in enumerate(speeches):
        text = clean_text("".join(p for p in spoken_parts(sp) if isinstance(p, str)))
        for stage in sp.iter(f"{TEI}stage"):
            words = " ".join("".join(stage.itertext()).split())
            named = CARRIER_WORDS.search(words)
            if not named:
                continue
            who = [r.lstrip("#") for r in (stage.get("who") or sp.get("who") or "").split()]
            holder = re.sub(r"_[A-Za-z]+$", "", who[-1]).lower() if who else None
            cid = f"carrier.{act}.{scene}.{i + 1}"
            found[cid] = Entity(cid, f"{named.group(1).lower()} "
                                     f"(Act {act}, Scene {scene})", "carrier",
                                place=scene_place(act, scene), text=text,
                                holder=holder if holder in play.cast else None)
    return found
