"""The memory as other agents and the page see it: the memory API (search, read, list, save), saves,
clients and their tokens, sections, page sessions, and the errors each becomes at the HTTP edge.

May import the shared vocabulary, core.memory, core.privacy and storage."""
