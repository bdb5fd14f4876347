"""The memory: saving sources (ingest, chunking, indexing), and finding them again (hybrid search,
ranking, grep, read-back), with the owner flags, sources and embedding choice they rest on.

May import the shared vocabulary (core.types, ports, errors, config, times, dates, files), core.importers,
core.privacy and storage; never the biographer, chat, schedule or serving packages."""
