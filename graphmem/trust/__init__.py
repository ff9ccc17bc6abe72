"""Trust between agents (RFC-0011): who may do what in a namespace, who they are, how
far what they say is believed, and the defences against an agent that floods the memory.

    policy      a namespace's trust policy (governed or not, limits, the confidence rule)
    confidence  the confidence rule, as events folded into confidences (and replayed)
    gate        the order of checks before a write: permission, identity, then limits
    ledger      what one deposit adds to the confidences, the agent's counters and the log
    admin       trust profiles, permissions, quarantine, revocation, conflicts, events
    federation  merging a namespace from another graphmem store
    bundle      authorship in recall: who asserted a hit, its trust and confidence

May import the write path's lower layers (views, consensus, store, models, security); the
write path (``graphmem.writer``) and the API import it, nothing below them does.
"""
