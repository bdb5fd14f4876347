"""A Progress for terminals: a bar for files saved and one for chunks embedded, on stderr, only
when it is a terminal. Counts inside the current document show beside the files bar."""

from __future__ import annotations

import sys

from tqdm import tqdm

#: stages that count within one document (no total): shown as a note on the "saving" bar
_WITHIN_DOCUMENT = {"messages", "chunks"}
#: a bar with a total says in words how long is left (tqdm's estimate from the recent rate): an
#: import of a life archive spends most of its time embedding, and the owner wants to know for how long
_WITH_TIME_LEFT = "{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed} so far, about {remaining} left]"


class TerminalProgress:
    def __init__(self, *, enabled: bool | None = None) -> None:
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._bars: dict[str, tqdm] = {}

    def __call__(self, stage: str, done: int, total: int | None) -> None:
        if not self.enabled:
            return
        if stage in _WITHIN_DOCUMENT:
            bar = self._bars.get("saving")
            if bar is not None:
                bar.set_postfix_str(f"{done:,} {stage} in this file")
            return
        bar = self._bars.get(stage)
        if bar is None:
            bar = self._bars[stage] = tqdm(total=total, desc=stage, unit="", file=sys.stderr,
                                           leave=True, dynamic_ncols=True,
                                           bar_format=_WITH_TIME_LEFT if total is not None else None)
        if total is not None and bar.total != total:
            bar.total = total
        bar.update(done - bar.n)
        if total is not None and done >= total:
            bar.close()  # drawn complete now (tqdm throttles redraws), and its clock stops
            del self._bars[stage]

    def close(self) -> None:
        for bar in self._bars.values():
            bar.close()
        self._bars.clear()
