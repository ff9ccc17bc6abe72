"""The real parser and WordNet table, loaded once for the supersession tests."""

from __future__ import annotations

import pytest

from graphmem.supersession import Claim, read_claim
from graphmem.text.lexicon import default_lexicon
from graphmem.text.nlp import Parser


@pytest.fixture(scope="session")
def lexicon():
    return default_lexicon()


@pytest.fixture(scope="session")
def claim_of(lexicon):
    """text -> its Claim, read from the real full spaCy parse."""
    parser = Parser(full=True)

    def read(text: str) -> Claim:
        return read_claim(parser.parse(text), lexicon)
    return read
