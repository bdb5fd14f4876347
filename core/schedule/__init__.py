"""Scheduled work: the jobs the scheduler runs (questions, reports, consolidation, the ledger) and
the owner's schedule preferences.

May import the shared vocabulary, core.biographer, core.memory, core.ledger and storage."""
