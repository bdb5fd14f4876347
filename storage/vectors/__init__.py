"""The vector index: float vectors (the store of record) and their sign bits in parts, written
by store.py and searched in memory by index.py, kept in step through a change log; codes.py: the
same vectors at a byte per dimension, in parts beside them, which bound a filtered search's cosines.

Imports numpy and storage's chunks and db; nothing is imported here, so `import storage.vectors`
costs nothing until a search or an indexing run needs it."""
