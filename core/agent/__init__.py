"""The biographer agent: the tool loop, its tools, citation checks and prompts.

One room with core.biographer and core.ledger (what the loop keeps and extracts); may import
core.memory, core.privacy and storage."""
