"""Where the benchmark scripts read the evaluation data by default: the library's
`graphmem.worlds.sources.shared_data` (``$GRAPHMEM_SHARED_DATA``, else ``shared/data``
beside the repository), wherever a script is started from."""

from __future__ import annotations

from graphmem.worlds.sources import shared_data

SHARED_DATA = shared_data()
