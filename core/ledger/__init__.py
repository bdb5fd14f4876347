"""The life ledger: promises, debts, recommendations and facts about people, kept from every
conversation with their sources (see book.py for the ledger itself, extraction.py for how
conversations are read into it, validation.py for the checks every proposal passes).

One room with core.agent and core.biographer; may import core.memory, core.importers and storage."""
