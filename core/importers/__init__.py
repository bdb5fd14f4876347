"""Importers, one module per source format (see registry.py for the order they are tried in);
the larger formats have rooms of their own beside theirs: whatsapp_stamps (line and time grammar)
and whatsapp_bodies (what one message is), email_mbox (cutting an mbox) and email_body (an
e-mail's own words).

The package itself stays light: importing `core.importers.base` (the interface) must not load
every parser and its libraries (email, icalendar, ijson...), which commands like `grep` never need.
Importers read other programs' files and may import only the shared vocabulary.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ImportContext", "Importer", "default_importers", "pick_importer"]


def __getattr__(name: str) -> Any:
    if name in ("default_importers", "pick_importer"):
        from core.importers import registry

        return getattr(registry, name)
    if name in ("ImportContext", "Importer"):
        from core.importers import base

        return getattr(base, name)
    raise AttributeError(name)
