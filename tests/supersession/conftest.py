"""The real parser and WordNet table, loaded once for the supersession tests."""

from __future__ import annotations

import pytest

from graphmem.supersession import Claim, read_claim
from graphmem.supersession.participants import name_copy
from graphmem.text.lexicon import default_lexicon
from graphmem.text.nlp import Parser


@pytest.fixture(scope="session")
def lexicon():
    return default_lexicon()


@pytest.fixture(scope="session")
def claim_of(lexicon):
    """text -> its Claim, read as the detector reads it (the real full spaCy parse of
    its name copy)."""
    parser = Parser(full=True)

    def read(text: str) -> Claim:
        copy, names = name_copy(text)
        return read_claim(parser.parse(copy), lexicon, names)
    return read
