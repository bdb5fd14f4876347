"""The biographer: its runs behind the Biographer facade (runs.py: chat answers; runner.py: the
plumbing every run shares; questions.py, analysis.py, report.py, consolidation.py: one kind of run
each), the profile bio.md and its history, and the gate that lets one run at a time.

May import the shared vocabulary, core.agent, core.memory, core.privacy, core.ledger and storage."""
