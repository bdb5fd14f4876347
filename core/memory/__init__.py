"""The memory: saving sources (ingest, chunking, indexing), and finding them again (hybrid search,
ranking, grep, read-back), with the owner flags, sources and embedding choice they rest on.

May import the shared vocabulary (core's top-level modules), core.importers, core.providers,
core.privacy and storage; never the biographer, chat, schedule or serving packages."""
