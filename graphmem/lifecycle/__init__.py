"""The lifecycle of memories: what people and maintenance do to them after they are
written — pin, forget, correct, delete, consolidate (``curation``).

It may import the core below the API (store, views, queries, retry, models, embed); the
core never imports it. ``MemoryGraph`` exposes its acts.
"""
