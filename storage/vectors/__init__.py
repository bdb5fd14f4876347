"""The vector index: float vectors (the store of record) and their sign bits in parts, written
by store.py and searched in memory by index.py, kept in step through a change log.

Imports numpy and storage's chunks and db; nothing is imported here, so `import storage.vectors`
costs nothing until a search or an indexing run needs it."""
