"""A Progress for terminals: one tqdm bar per stage, on stderr, only when it is a terminal."""

from __future__ import annotations

import sys

from tqdm import tqdm


class TerminalProgress:
    def __init__(self, *, enabled: bool | None = None) -> None:
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._bars: dict[str, tqdm] = {}

    def __call__(self, stage: str, done: int, total: int | None) -> None:
        if not self.enabled:
            return
        bar = self._bars.get(stage)
        if bar is None:
            bar = self._bars[stage] = tqdm(total=total, desc=stage, unit="", file=sys.stderr,
                                           leave=True, dynamic_ncols=True)
        if total is not None and bar.total != total:
            bar.total = total
        bar.n = done
        bar.refresh()

    def close(self) -> None:
        for bar in self._bars.values():
            bar.close()
        self._bars.clear()
