"""PrefEval (amazon-science/PrefEval ``benchmark_dataset/``): does the assistant follow a
preference the user stated many turns ago?

Files read under `root`:

* ``explicit_preference/<topic>.json``: list of ``{preference, question, explanation}``;
* ``implicit_preference/choice-based/<topic>.json``: the same plus ``conversation``
  ``{query, assistant_options, user_selection, assistant_acknowledgment}`` (the user
  picks one of the assistant's options and so reveals the preference), ``options``,
  ``aligned_op``, ``implicit_query``;
* ``implicit_preference/persona-driven/<topic>.json``: the same keys plus ``persona`` and
  ``conversation`` ``{"0": {user, assistant}, "1": ...}`` where one user message lets
  the preference slip;
* ``mcq_options/<topic>.json``: ``classification_task_options``, four answers to
  ``question``. Upstream's ``shuffle_options`` documents that the FIRST option is the
  preference-following one; it shuffles them before asking. Records are joined to the
  other files by position, as upstream does (``mcq_data[task_id]``);
* ``filtered_inter_turns.json``: chat conversations ``{conversation_id, conversation:
  [{role, content}], ...}`` used as distractors.

One `Unit` per preference item: the preference turn(s) (explicit: the user states it;
implicit: the whole revealing conversation), then `n_distractors` distractor exchanges,
then the question. An exchange is one user and one assistant message, which is what
upstream's ``--inter_turns`` counts (``extract_multi_turn_conversation`` takes
``2 * inter_turns`` messages); there are 316 in the release. With ``seed=None`` the
distractors are upstream's exactly (the first n exchanges of the concatenated
conversations); with an integer seed they are n consecutive exchanges from a
seed-chosen start, wrapping around. Options are shuffled deterministically per seed and
item (upstream order when ``seed=None``); `correct_option` points at the aligned one.
Evidence is the ids of the preference turns; `answer` is None (upstream judges the free
answer with an LLM against ``explanation``, kept in meta).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from graphmem.errors import InvalidInput
from graphmem.ingestion.benchmarks._common import (
    bad_file,
    bad_record,
    collect_records,
    read_json,
    require,
)
from graphmem.ingestion.benchmarks.model import LoadReport, Question, Turn, Unit

BENCHMARK = "prefeval"
FORM_DIRS = {
    "explicit": "explicit_preference",
    "implicit-choice": "implicit_preference/choice-based",
    "implicit-persona": "implicit_preference/persona-driven",
}
CHOICE_TURNS = (("query", "user"), ("assistant_options", "assistant"),
                ("user_selection", "user"), ("assistant_acknowledgment", "assistant"))
FILE_HINT = "expected PrefEval's benchmark_dataset/ folder (amazon-science/PrefEval)"


def load_prefeval(root: str | Path, *, form: str = "explicit",
                  topics: list[str] | tuple[str, ...] | None = None, n_distractors: int = 10,
                  seed: int | None = 0, skip_bad: bool = False) -> LoadReport:
    """Load PrefEval preference items of one form, with distractor exchanges in between.

    `form` is ``"explicit"``, ``"implicit-choice"`` or ``"implicit-persona"``; `topics`
    limits the topics (file stems, e.g. ``"travel_restaurant"``); `n_distractors` counts
    user+assistant exchanges (upstream's inter turns, e.g. 10 or 300).
    """
    root = Path(root)
    if form not in FORM_DIRS:
        raise InvalidInput(f"form must be one of {', '.join(FORM_DIRS)}, got {form!r}")
    if n_distractors < 0:
        raise InvalidInput(f"n_distractors must be >= 0, got {n_distractors}")
    form_dir = root / FORM_DIRS[form]
    chosen = _choose_topics(form_dir, topics)
    exchanges = read_distractor_exchanges(root / "filtered_inter_turns.json")
    distractors = select_distractors(exchanges, n_distractors, seed)
    report = LoadReport(units=[])
    for topic in chosen:
        report.units.extend(_load_topic(root, form, topic, distractors, seed, report,
                                        skip_bad=skip_bad))
    return report


def select_distractors(exchanges: list[tuple[Turn, Turn]], n: int,
                       seed: int | None) -> tuple[Turn, ...]:
    """`n` consecutive exchanges as turns: upstream's first n for ``seed=None``, else from a
    seed-chosen start, wrapping around."""
    if n > len(exchanges):
        raise InvalidInput(f"n_distractors={n} but filtered_inter_turns.json holds only "
                           f"{len(exchanges)} user/assistant exchanges")
    start = 0 if seed is None or not exchanges else random.Random(seed).randrange(len(exchanges))
    picked = [exchanges[(start + k) % len(exchanges)] for k in range(n)]
    return tuple(turn for pair in picked for turn in pair)


def _load_topic(root: Path, form: str, topic: str, distractors: tuple[Turn, ...],
                seed: int | None, report: LoadReport, *, skip_bad: bool) -> list[Unit]:
    path = root / FORM_DIRS[form] / f"{topic}.json"
    items = read_json(path, FILE_HINT)
    if not isinstance(items, list):
        raise bad_file(path, "top level is not a list of items", FILE_HINT)
    mcq_path = root / "mcq_options" / f"{topic}.json"
    mcq = (_read_mcq(mcq_path), mcq_path)
    return collect_records(
        list(enumerate(items)),
        lambda item: _parse_item(item[1], item[0], form, topic, path, mcq, distractors, seed,
                                 report),
        skip_bad=skip_bad, skipped=report.skipped)


def read_distractor_exchanges(path: Path) -> list[tuple[Turn, Turn]]:
    """All user/assistant exchanges of ``filtered_inter_turns.json``, in file order."""
    data = read_json(path, FILE_HINT)
    if not isinstance(data, list):
        raise bad_file(path, "top level is not a list of conversations", FILE_HINT)
    messages: list[Turn] = []
    for c, conversation in enumerate(data):
        where = f"conversation {c}"
        conv_id = str(require(conversation, "conversation_id", (str, int), path, where))
        where = f"conversation {c} ({conv_id})"
        for m, message in enumerate(require(conversation, "conversation", list, path, where)):
            role = require(message, "role", str, path, f"{where} message {m}")
            text = require(message, "content", str, path, f"{where} message {m}", allow_empty=True)
            messages.append(Turn(id=f"inter:{len(messages)}", speaker=role, text=text, at=None,
                                 session=f"inter:{conv_id}"))
    pairs = []
    for k in range(0, len(messages) - 1, 2):
        user, assistant = messages[k], messages[k + 1]
        if (user.speaker, assistant.speaker) != ("user", "assistant"):
            raise bad_file(path, f"messages {k} and {k + 1} ({user.session}) are "
                           f"{user.speaker}/{assistant.speaker}, not a user/assistant exchange",
                           "distractor conversations must alternate user and assistant")
        pairs.append((user, assistant))
    return pairs


def _choose_topics(form_dir: Path, topics: list[str] | tuple[str, ...] | None) -> list[str]:
    available = sorted(p.stem for p in form_dir.glob("*.json")) if form_dir.is_dir() else []
    if not available:
        raise bad_file(form_dir, "no <topic>.json files here", FILE_HINT)
    if topics is None:
        return available
    unknown = [t for t in topics if t not in available]
    if unknown:
        raise InvalidInput(f"unknown PrefEval topic(s) {', '.join(unknown)}; available: "
                         f"{', '.join(available)}")
    return list(topics)


def _read_mcq(path: Path) -> list[Any] | None:
    if not path.is_file():
        return None
    data = read_json(path, FILE_HINT)
    if not isinstance(data, list):
        raise bad_file(path, "top level is not a list of items", FILE_HINT)
    return data


def _parse_item(raw: Any, index: int, form: str, topic: str, path: Path,
                mcq: tuple[list[Any] | None, Path], distractors: tuple[Turn, ...],
                seed: int | None, report: LoadReport) -> Unit:
    where = f"item {index}"
    preference = require(raw, "preference", str, path, where)
    text = require(raw, "question", str, path, where)
    unit_id = f"prefeval/{form}/{topic}/{index}"
    if form == "explicit":
        pref_turns = [Turn(id="pref:0", speaker="user", text=preference, at=None,
                           session="preference")]
    elif form == "implicit-choice":
        pref_turns = _choice_turns(require(raw, "conversation", dict, path, where), path, where)
    else:
        pref_turns = _persona_turns(require(raw, "conversation", dict, path, where), path, where)
    options, correct = _mcq_options(*mcq, index, text, preference, topic, seed, report)
    meta = {"preference": preference, "explanation": raw.get("explanation"), "form": form}
    for key in ("persona", "implicit_query", "options", "aligned_op"):
        if key in raw:
            meta[key] = raw[key]
    question = Question(id=f"{unit_id}:q", text=text, category=topic,
                        evidence=tuple(t.id for t in pref_turns), answer=None, asked_at=None,
                        asker="user", options=options, correct_option=correct,
                        evidence_sessions=("preference",), meta=meta)
    return Unit(id=unit_id, benchmark=BENCHMARK, agents=("user", "assistant"),
                turns=tuple(pref_turns) + distractors, questions=(question,),
                meta={"topic": topic, "form": form, "index": index, "file": str(path),
                      "n_distractors": len(distractors) // 2})


def _choice_turns(conversation: dict[str, Any], path: Path, where: str) -> list[Turn]:
    turns = []
    for k, (key, role) in enumerate(CHOICE_TURNS):
        text = require(conversation, key, str, path, f"{where} conversation")
        turns.append(Turn(id=f"pref:{k}", speaker=role, text=text, at=None, session="preference"))
    return turns


def _persona_turns(conversation: dict[str, Any], path: Path, where: str) -> list[Turn]:
    try:
        order = sorted(conversation, key=int)
    except ValueError:
        raise bad_record(path, where, "conversation", f"keys should be exchange numbers "
                         f"'0', '1', ..., got {sorted(conversation)!r}") from None
    turns: list[Turn] = []
    for key in order:
        exchange = conversation[key]
        for role in ("user", "assistant"):
            text = require(exchange, role, str, path, f"{where} conversation[{key!r}]")
            turns.append(Turn(id=f"pref:{len(turns)}", speaker=role, text=text, at=None,
                              session="preference"))
    return turns


def _mcq_options(mcq: list[Any] | None, mcq_path: Path, index: int, question: str,
                 preference: str, topic: str, seed: int | None, report: LoadReport
                 ) -> tuple[tuple[str, ...], int | None]:
    """The item's options, shuffled for `seed`, and the index the aligned (first) one got."""
    if mcq is None:
        return (), None
    where = f"item {index}"
    if index >= len(mcq):
        raise bad_record(mcq_path, where, "classification_task_options", "is missing: the mcq "
                         f"file has only {len(mcq)} items")
    record = mcq[index]
    if require(record, "question", str, mcq_path, where) != question:
        raise bad_record(mcq_path, where, "question", "differs from the preference file's item "
                         f"{index}; the two files must list items in the same order")
    if record.get("preference") != preference:
        # 23 explicit items upstream word the preference more strongly in mcq_options
        # ("I absolutely avoid ..."); the question matches, so the item is the same.
        report.notes["mcq_preference_worded_differently"] += 1
    options = require(record, "classification_task_options", list, mcq_path, where)
    if len(options) < 2 or not all(isinstance(o, str) and o for o in options):
        raise bad_record(mcq_path, where, "classification_task_options", "should be a list of "
                         "at least two option strings")
    order = list(range(len(options)))
    if seed is not None:
        random.Random(f"{seed}:{topic}:{index}").shuffle(order)
    return tuple(options[i] for i in order), order.index(0)
