"""Sources that keep the biography current without the owner's help: mail accounts read over IMAP
and watched paths (folders where exports land, databases read in place). Each feed brings what is
new since it last read, through the memory core's importers, so what it brings is saved exactly
as an import of the same file would save it. May import core.memory and core.importers."""
