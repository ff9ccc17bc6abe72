"""constraints: the asker's own statements of a preference or of a rule they keep (a
refusal, a fear, a restriction, a stance: ``retrieval.preferences.states_constraint``),
by similarity. The profile channel's net, wider: it holds "I only use wired
peripherals" and "I am not comfortable with heights", and everyday talk too ("I never go
out on Mondays"). It runs in profile's place, with profile's weight, for a question in the
first person (`RecallConfig.asker_profile`): a request for advice about the asker reads
everything the asker said they like, avoid or keep to; a question about a named person
keeps profile's narrower net."""

from __future__ import annotations

from graphmem.retrieval.channels.profile import Stated

CHANNEL = Stated("constraints", 95, "constraint_rows")
