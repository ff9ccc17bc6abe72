"""Scripted langchain-core chat models for the tests of LLM paths."""

from __future__ import annotations

from typing import Any


def recording_chat_model(responses: list[str], fail_first: int = 0,
                         failure: type[Exception] = ConnectionError) -> Any:
    """A fake chat model that answers ``responses`` in turn, records every prompt it is
    sent, and raises ``failure`` on its first ``fail_first`` calls."""
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    class RecordingChatModel(FakeListChatModel):
        prompts: list[str] = []
        failures_left: int = 0

        def _call(self, messages, *args, **kwargs):  # noqa: ANN001 - langchain's signature
            self.prompts.append(messages[-1].content)
            if self.failures_left > 0:
                self.failures_left -= 1
                raise failure("scripted failure")
            return super()._call(messages, *args, **kwargs)

    return RecordingChatModel(responses=responses, prompts=[], failures_left=fail_first)
