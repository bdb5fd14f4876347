"""Scheduled work: the jobs the scheduler runs (questions, reports, consolidation, the ledger) and
the owner's schedule preferences.

May import the shared vocabulary, core.memory, core.biographer, core.ledger, core.pictures, core.chat,
core.feeds and storage; core.service's schedule facet for types only (the facet builds the jobs)."""
