"""A character's decisions from a langchain-core chat model, when the user gives one.

The prompt is the file ``prompts/decide.md`` filled with what the character observes
(the frozen world, its inbox, its short-term state). The model answers a JSON list of
actions; an answer that names an unknown action or misses an argument is asked again
(``graphmem.llm.invoke_json`` retries), and after the last attempt the character waits
that round (the failure is logged, the run goes on). Every call is logged: prompt,
reply, seconds, to ``log`` (a callable; the run writes ``llm.jsonl``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from importlib import resources
from typing import Any

from graphmem.errors import InvalidInput, LLMError, LLMOutputInvalid
from graphmem.llm import invoke_json
from graphmem.worlds.actions import REPERTOIRE, Action
from graphmem.worlds.kernel import Observation

MAX_ACTIONS = 6


def prompt_template(name: str = "decide.md") -> str:
    return resources.files("graphmem.worlds").joinpath("prompts", name).read_text("utf-8")


def repertoire_text() -> str:
    return "\n".join(f"- {kind}: needs {list(req)}" + (f", may have {list(opt)}" if opt else "")
                     for kind, (req, opt) in sorted(REPERTOIRE.items()))


def render_prompt(obs: Observation, template: str) -> str:
    """The decision prompt of one character in one round."""
    world, me = obs.world, obs.me
    names = {e.id: e.name for e in world.entities.values()}
    here = [names[c] + f" ({c})" for c in world.present_at(me.place) if c != obs.actor]
    carriers = [e.id for e in world.entities.values() if e.kind == "carrier"
                and (e.holder == obs.actor or e.place == me.place)]
    inbox = "\n".join(f"- {names.get(m.sender, m.sender)} ({m.kind}): {m.text}"
                      for m in obs.inbox) or "nothing"
    cache = "\n".join(f"- round {p.round}: {p.text}" for p in obs.mind.cache) or "nothing yet"
    return template.format(
        name=me.name, world=world.name, round=obs.round, place=me.place,
        here=", ".join(here) or "no one", goals=obs.mind.goals or "none",
        status=obs.mind.status or "nothing set", carriers=", ".join(carriers) or "none",
        inbox=inbox, cache=cache, places=", ".join(world.map.places),
        repertoire=repertoire_text())


def parse_actions(actor: str, value: Any) -> list[Action]:
    """The model's JSON as actions of ``actor``; unusable output raises LLMOutputInvalid."""
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        raise LLMOutputInvalid("expected a JSON list of actions")
    actions = []
    for item in value[:MAX_ACTIONS]:
        if not isinstance(item, dict) or "kind" not in item:
            raise LLMOutputInvalid(f"not an action: {item!r}")
        try:
            actions.append(Action(actor, str(item["kind"]), dict(item.get("args") or {})))
        except InvalidInput as exc:
            raise LLMOutputInvalid(str(exc)) from None
    return actions


class LLMPolicy:
    """Decide with ``chat_model``; ``log(record)`` gets every call."""

    def __init__(self, chat_model: Any, *, log: Callable[[dict], None] | None = None,
                 template: str | None = None) -> None:
        self.model = chat_model
        self.log = log
        self.template = template or prompt_template()

    def decide(self, obs: Observation) -> list[Action]:
        prompt = render_prompt(obs, self.template)
        started = time.perf_counter()
        try:
            actions = invoke_json(self.model, prompt,
                                  parse=lambda v: parse_actions(obs.actor, v))
            outcome: list[dict[str, Any]] | str = [a.to_dict() for a in actions]
        except LLMError as exc:
            actions, outcome = [Action(obs.actor, "wait")], f"failed: {exc}"
        if self.log:
            self.log({"round": obs.round, "actor": obs.actor, "prompt": prompt,
                      "actions": outcome, "seconds": round(time.perf_counter() - started, 3)})
        return actions
