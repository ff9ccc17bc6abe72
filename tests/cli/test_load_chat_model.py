"""``--llm module:factory`` finds a module in the current directory."""

from __future__ import annotations

import os
import sys

import pytest

from graphmem.cli.eval_commands import load_chat_model
from graphmem.errors import InvalidInput

FACTORY = '''
from langchain_core.language_models.fake_chat_models import FakeListChatModel

def make():
    return FakeListChatModel(responses=["hello"])
'''


def test_a_module_in_the_current_directory_is_found(tmp_path, monkeypatch):
    (tmp_path / "my_models_here.py").write_text(FACTORY)
    monkeypatch.chdir(tmp_path)
    # as under the console script: neither "" nor the working directory on the path
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", os.getcwd())])
    monkeypatch.delitem(sys.modules, "my_models_here", raising=False)
    model = load_chat_model("my_models_here:make")
    assert model.invoke("hi").content == "hello"


def test_bad_specs_say_what_is_wrong():
    with pytest.raises(InvalidInput, match="module:factory"):
        load_chat_model("no_colon")
    with pytest.raises(InvalidInput, match="cannot import"):
        load_chat_model("surely_not_a_module_xyz:make")
