"""The timeline in a browser: ``graphmem ui`` serves a local page where a person sees an
agent's memories in the order they happened — each with its utility S = αR + βE + γU and
its terms, owners, conflicts and supersession — and steers them: Retain (pin), Forget
(undoable) and Consolidate (select, preview, confirm), every act logged with who did it.

It owns the page (``static/``), its JSON endpoints (``server``) and the reading of one
page of the timeline from the store (``timeline``). It may import the public
``MemoryGraph`` API (the named queries under ``cypher/ui/`` run through
``MemoryGraph.query``; the acts are ``MemoryGraph.pin/forget/consolidate``), the scoring
functions of ``graphmem.lifecycle.decay`` and ``summarise.central_statement`` (so the page
shows the figures and the consolidated text the API computes, not a copy of their rules),
``graphmem.retrieval.validity.status_of`` (the same status a recall hit carries), and
``graphmem.errors`` / ``graphmem.models`` (and ``graphmem.view`` for a type name). Nothing in the core imports it. Standard
library HTTP server only: no build step, no extra runtime dependency.
"""

from graphmem.ui.server import TimelineServer, serve
from graphmem.ui.timeline import Timeline

__all__ = ["Timeline", "TimelineServer", "serve"]
