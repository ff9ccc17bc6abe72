"""The language layer every write and recall runs: parsing (spaCy), named entities and
their resolution, times named in text and in questions, and what the equivalence judge
compares: readings (roles from the dependency parse) and WordNet relations (lexicon).

It imports only :mod:`graphmem.errors` and :mod:`graphmem.models` from the project, so the
store, the write path and retrieval can all stand on it.
"""
