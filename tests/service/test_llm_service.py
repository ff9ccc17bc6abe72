"""``graphmem serve --llm module:factory``: the service atomises with the configured model."""

from __future__ import annotations

import os

from tests.service.running import needs

SCRIPTED = '''
from langchain_core.language_models.fake_chat_models import FakeListChatModel

def make():
    # the atomiser's answer to the one deposit of the test: two statements
    return FakeListChatModel(responses=['["The depot opens at six.", "The depot closes at ten."]'])
'''


def test_the_service_uses_the_chat_model_it_was_given(tmp_path):
    needs("fastapi", "uvicorn")
    from graphmem.service.client import Client
    from graphmem.service.spawn import spawned_service

    (tmp_path / "scripted_models.py").write_text(SCRIPTED)
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "GRAPHMEM_LLM": "scripted_models:make"}
    with spawned_service(tmp_path / "data", env=env) as service, \
            Client(service.url, service.token) as memory:
        result = memory.remember("ada", "Depot hours are six to ten.")
    assert [a.text for a in result.atoms] == ["The depot opens at six.", "The depot closes at ten."]
