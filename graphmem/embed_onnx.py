"""A sentence-transformers model run by ONNX Runtime: the same vectors, about twice as fast.

One sentence of all-MiniLM-L6-v2 takes about 7 ms on one core here against 18 ms for
torch, and every recall and remember embeds one. The model is exported once from its
own weights (torch and onnx, offline) into the cache (``GRAPHMEM_CACHE``, else
``$XDG_CACHE_HOME/graphmem``, else ``~/.cache/graphmem``), keyed by the model's files, so
a later process loads the export without torch. Only models made of a transformer, mean
or CLS pooling and normalisation are run this way (every sentence-transformers model of
that shape, the packaged one included); for others `load` says why, and the caller uses
torch. ``GRAPHMEM_EMBED_RUNTIME=torch`` always uses torch.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import logging
import os
import tempfile
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from graphmem.errors import ConfigError

log = logging.getLogger(__name__)

#: bumped when the exported graph changes, so older exports are not used
EXPORT_FORMAT = 1
RUNTIME_ENV = "GRAPHMEM_EMBED_RUNTIME"
RUNTIMES = ("onnx", "torch")
_TRANSFORMER = "sentence_transformers.models.Transformer"
_POOLING = "sentence_transformers.models.Pooling"
_NORMALIZE = "sentence_transformers.models.Normalize"


def runtime(chosen: str | None = None) -> str:
    """``chosen``, else the runtime ``GRAPHMEM_EMBED_RUNTIME`` asks for (onnx unless set);
    ConfigError for one that does not exist."""
    name = chosen or os.environ.get(RUNTIME_ENV, "").strip().lower() or "onnx"
    if name not in RUNTIMES:
        where = "embedding runtime" if chosen else RUNTIME_ENV
        raise ConfigError(f"{where}={name!r}: choose one of {list(RUNTIMES)}")
    return name


def cache_dir() -> Path:
    """Where exports are kept."""
    if os.environ.get("GRAPHMEM_CACHE"):
        return Path(os.environ["GRAPHMEM_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "graphmem"


@dataclass(frozen=True)
class Layout:
    """What a sentence-transformers directory holds, as far as the export needs."""

    transformer: Path  # the Hugging Face model and its tokenizer
    pooling: str  # "mean" or "cls"
    max_length: int
    lower_case: bool


def layout(model_dir: Path) -> Layout | str:
    """The directory's layout, or why it cannot be exported."""
    try:
        modules = json.loads((model_dir / "modules.json").read_text())
    except (OSError, ValueError):
        return "no readable modules.json"
    kinds = [m.get("type") for m in modules]
    if kinds[:2] != [_TRANSFORMER, _POOLING] or any(k != _NORMALIZE for k in kinds[2:]):
        return f"modules {kinds} (only a transformer, pooling and normalisation are exported)"
    transformer = model_dir / modules[0].get("path", "")
    if not (transformer / "tokenizer.json").is_file():
        return "no tokenizer.json"
    pooling = json.loads((model_dir / modules[1]["path"] / "config.json").read_text())
    modes = [k for k, v in pooling.items() if k.startswith("pooling_mode_") and v]
    if modes not in (["pooling_mode_mean_tokens"], ["pooling_mode_cls_token"]):
        return f"pooling {modes} (only mean or CLS pooling is exported)"
    config: dict[str, Any] = {}
    for name in ("sentence_bert_config.json", "sentence_transformers_config.json"):
        if (transformer / name).is_file():
            config = json.loads((transformer / name).read_text())
            break
    hidden = json.loads((transformer / "config.json").read_text())
    longest = int(hidden.get("max_position_embeddings", 512))
    return Layout(transformer=transformer,
                  pooling="mean" if modes == ["pooling_mode_mean_tokens"] else "cls",
                  max_length=min(int(config.get("max_seq_length") or longest), longest),
                  lower_case=bool(config.get("do_lower_case", False)))


def fingerprint(model_dir: Path) -> str:
    """The model's files: names and contents of the small ones, names, sizes and times of
    the weights (hashing 90 MB at every start would cost more than it guards)."""
    digest = hashlib.sha256(f"graphmem-onnx-{EXPORT_FORMAT}".encode())
    for path in sorted(p for p in model_dir.rglob("*") if p.is_file()):
        stat = path.stat()
        digest.update(str(path.relative_to(model_dir)).encode())
        if stat.st_size <= 4 << 20:
            digest.update(path.read_bytes())
        else:
            digest.update(f"{stat.st_size}:{stat.st_mtime_ns}".encode())
    return digest.hexdigest()[:24]


class OnnxEncoder:
    """Encodes texts like sentence-transformers' ``encode`` with normalised embeddings."""

    def __init__(self, onnx_path: Path, shape: Layout) -> None:
        from tokenizers import Tokenizer

        self._path = onnx_path
        self._shape = shape
        self._tokenizer = Tokenizer.from_file(str(shape.transformer / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_length=shape.max_length)
        self._tokenizer.no_padding()
        hidden = json.loads((shape.transformer / "config.json").read_text())
        self._dimension = int(hidden["hidden_size"])
        self._pad_id = int(hidden.get("pad_token_id") or 0)
        self._lock = threading.Lock()
        self._sessions: dict[bool, Any] = {}
        self._inputs = {i.name for i in self._session(True).get_inputs()}

    def get_embedding_dimension(self) -> int:
        return self._dimension

    def _session(self, one_thread: bool) -> Any:
        """One session on one thread (a question, a statement's atoms: it keeps its speed
        while another process holds the other core) and one on every core (batches),
        made when first needed."""
        import onnxruntime as ort

        with self._lock:
            if one_thread not in self._sessions:
                options = ort.SessionOptions()
                options.intra_op_num_threads = 1 if one_thread else 0
                options.inter_op_num_threads = 1
                # threads that wait do not spin: the other core may be someone else's
                options.add_session_config_entry("session.intra_op.allow_spinning", "0")
                options.log_severity_level = 3
                self._sessions[one_thread] = ort.InferenceSession(
                    str(self._path), options, providers=["CPUExecutionProvider"])
            return self._sessions[one_thread]

    def encode(self, texts: Sequence[str], *, batch_size: int = 64,
               one_thread: bool = True) -> np.ndarray:
        """Unit vectors of ``texts``, (n, dimension) float32; batches of similar lengths."""
        clean = [t.strip() for t in texts]
        if self._shape.lower_case:
            clean = [t.lower() for t in clean]
        encodings = self._tokenizer.encode_batch(clean)
        order = np.argsort([-len(e.ids) for e in encodings], kind="stable")
        out = np.empty((len(texts), self._dimension), dtype=np.float32)
        session = self._session(one_thread)
        for start in range(0, len(order), batch_size):
            rows = order[start:start + batch_size]
            out[rows] = session.run(None, self._feed([encodings[i] for i in rows]))[0]
        return out

    def _feed(self, encodings: list[Any]) -> dict[str, np.ndarray]:
        width = max(len(e.ids) for e in encodings)
        ids = np.full((len(encodings), width), self._pad_id, dtype=np.int64)
        mask = np.zeros((len(encodings), width), dtype=np.int64)
        types = np.zeros((len(encodings), width), dtype=np.int64)
        for row, e in enumerate(encodings):
            ids[row, :len(e.ids)] = e.ids
            mask[row, :len(e.ids)] = 1
            types[row, :len(e.ids)] = e.type_ids
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        return {name: value for name, value in feed.items() if name in self._inputs}


def load(model_dir: Path) -> OnnxEncoder | str:
    """The model in ``model_dir`` on ONNX Runtime, exported first if no export is
    cached; or why it cannot be (the caller then uses torch)."""
    try:
        import onnxruntime  # noqa: F401
        import tokenizers  # noqa: F401
    except ImportError as exc:
        return f"{exc.name} is not installed"
    shape = layout(model_dir)
    if isinstance(shape, str):
        return shape
    target = cache_dir() / "onnx" / f"{fingerprint(model_dir)}.onnx"
    why = ""
    for _ in range(2):  # a damaged export (a full disk, a killed process) is made again
        if not target.is_file() and (why := _exported(shape, target)):
            return why
        try:
            return OnnxEncoder(target, shape)
        except Exception as exc:  # noqa: BLE001 (ONNX Runtime's errors have no common base)
            why = f"ONNX Runtime cannot load the export {target} ({exc})"
            log.warning("%s; exporting again", why)
            target.unlink(missing_ok=True)
    return why


def _exported(shape: Layout, target: Path) -> str:
    """`export`, or why it failed."""
    try:
        export(shape, target)
    except ImportError as exc:
        return f"exporting needs {exc.name}, which is not installed"
    except OSError as exc:
        return f"cannot write the export to {target.parent} ({exc}); set GRAPHMEM_CACHE"
    except Exception as exc:  # noqa: BLE001 (torch's exporter, whatever it raises)
        return f"the export failed ({exc.__class__.__name__}: {exc})"
    return ""


def export(shape: Layout, target: Path) -> None:
    """Write the transformer with its pooling and normalisation as one ONNX graph, in
    place at once (another process exporting the same model at the same time writes
    the same file)."""
    import torch
    from transformers import AutoModel

    model = AutoModel.from_pretrained(str(shape.transformer), local_files_only=True,
                                      attn_implementation="eager").eval()
    typed = "token_type_ids" in inspect.signature(model.forward).parameters
    names = ["input_ids", "attention_mask"] + (["token_type_ids"] if typed else [])
    pooled = _pooled(model, shape.pooling, typed).eval()
    example = tuple(torch.ones((2, 8), dtype=torch.int64) for _ in names)
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=target.parent, suffix=".part", delete=False) as part:
        pass
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the tracer's notes on shapes it fixes
            torch.onnx.export(
                pooled, example, part.name, input_names=names, output_names=["embedding"],
                dynamic_axes={**{n: {0: "batch", 1: "tokens"} for n in names},
                              "embedding": {0: "batch"}},
                opset_version=17, dynamo=False)
        os.replace(part.name, target)
    finally:
        Path(part.name).unlink(missing_ok=True)
    log.info("exported %s for ONNX Runtime to %s", shape.transformer, target)


def _pooled(model: Any, pooling: str, typed: bool) -> Any:
    """The transformer followed by its pooling and normalisation, as one torch module
    (defined here: torch is imported only to export)."""
    import torch

    class Pooled(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, ids: Any, mask: Any, types: Any = None) -> Any:
            extra = {"token_type_ids": types} if typed else {}
            hidden = self.model(input_ids=ids, attention_mask=mask, **extra).last_hidden_state
            if pooling == "cls":
                return torch.nn.functional.normalize(hidden[:, 0], dim=-1)
            weight = mask.unsqueeze(-1).to(hidden.dtype)
            mean = (hidden * weight).sum(1) / weight.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(mean, dim=-1)

    return Pooled()
