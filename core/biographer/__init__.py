"""The biographer: its runs (answers, analysis, questions, reports), the profile bio.md and its
history, and the gate that lets one run at a time.

May import the shared vocabulary, core.agent, core.memory, core.privacy, core.ledger and storage."""
