"""What a chat command or the biographer sends: platform-neutral reply values (text, files,
buttons) that each chat adapter renders its own way, and the conversation they are sent into."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from core.pictures import Picture


@dataclass(frozen=True)
class File:
    """A file to send: bytes in memory, or a file on disk (deleted after sending when `temporary`).
    A `picture` is shown (a photo, above the reply's text), with `alt` as its short description."""

    name: str
    data: bytes | None = None
    path: Path | None = None
    temporary: bool = False
    picture: bool = False
    alt: str = ""


def with_picture(text: str, picture: Picture) -> Reply:
    """`text` under a picture (none when the picture would show nothing)."""
    if picture.empty:
        return Reply(text)
    return Reply(text, files=(File(picture.name, data=picture.png, picture=True, alt=picture.alt),))


@dataclass(frozen=True)
class Button:
    label: str
    action: str  # handed back to Commands.press when clicked


@dataclass(frozen=True)
class Reply:
    text: str = ""
    files: tuple[File, ...] = ()
    buttons: tuple[Button, ...] = ()
    captioned: bool = False  # the text is the picture's caption: a platform that captions photos puts it there


class Chat(Protocol):
    """The conversation an event came from, as the adapter offers it to a command."""

    platform: str
    chat_id: str

    async def send(self, reply: Reply) -> None:
        """Send a reply into this chat now (acknowledgements, "queued" notes)."""

    def working(self) -> AbstractAsyncContextManager[None]:
        """Show that the bot is working (a typing indicator) for as long as it is entered."""
