"""A click's answer, decided once: what the interaction is answered with.

A handler decides one :class:`Answer` (drawn once, by :class:`~bot.adapter.screens.Screens`) and
hands it to :meth:`~bot.adapter.replies.Replies.answer`, the one place it reaches the messenger.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from bot.adapter.screens import Rendered


class How(Enum):
    EDIT = "edit"  # the clicked message shows it
    NEW = "new"  # a new ephemeral message shows it
    ACK = "ack"  # only acknowledged: the sync worker shows the move


@dataclass(frozen=True)
class Answer:
    how: How
    rendered: Rendered | None = None
    note: str | None = None
    # An edit that leaves the message's attachments as they are (a DM of an older step, closed
    # by a click: what pictures it shows is not looked up).
    keeps_attachments: bool = False
    # Shown to the clicker alone after the answer (a private decision: a peek at the deck).
    then: Rendered | None = None
    # Whether what its pictures became is remembered (the memo: a row): not for a refusal's
    # copy, which a click would edit uploading its picture anew.
    remembers_pictures: bool = True


ACK = Answer(How.ACK)


def edit(rendered: Rendered, *, keeps_attachments: bool = False) -> Answer:
    return Answer(How.EDIT, rendered, keeps_attachments=keeps_attachments)


def new(rendered: Rendered, note: str | None = None, *, remembers_pictures: bool = True) -> Answer:
    return Answer(How.NEW, rendered, note, remembers_pictures=remembers_pictures)
