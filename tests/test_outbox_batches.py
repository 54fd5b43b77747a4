"""How unsent posts become messages (bot.adapter.posts.batches): the same rows always make the
same messages, so a retry after a crash sends the same message with the same nonce."""

from __future__ import annotations

import json
from typing import Any

from bot.adapter.posts import HOLD_SETTLE, batches, turns_superseded
from bot.core.store import CHANNEL, PostRow
from games.presentation import Announcement


def row(post_id: int, at: float, payload: dict[str, Any], target: str = CHANNEL) -> PostRow:
    return PostRow(post_id, 1, target, json.dumps(payload), at, 0, at, None, None, None)


def said(title: str, hold: float = 0.0, kind: str = "event") -> dict[str, Any]:
    payload: dict[str, Any] = {"announcement": {"title": title, "kind": kind}}
    if hold:
        payload["hold"] = hold
    return payload


def ids(posts: list[PostRow]) -> list[list[int]]:
    return [[p.id for p in batch.posts] for batch in batches(posts)]


def test_one_change_is_one_message_and_a_cold_post_waits_for_nobody() -> None:
    posts = [
        row(1, 10.0, said("a")),
        row(2, 10.0, {"notice": "n", "ping": []}),
        row(3, 11.0, said("b")),
    ]
    assert ids(posts) == [[1, 2], [3]]
    assert [b.ready_at for b in batches(posts)] == [0.0, 0.0]


def test_a_held_post_takes_the_posts_made_before_its_hold_ends() -> None:
    posts = [
        row(1, 10.0, said("a", hold=3.0)),
        row(2, 11.0, said("b", hold=3.0)),
        row(3, 12.9, said("c", hold=3.0)),
        row(4, 13.5, said("d", hold=3.0)),  # after 10 + 3: the next message
        row(5, 14.0, {"result": {}}),  # never joins
        row(6, 14.0, {"dm": "x"}, target="user:7"),
    ]
    assert ids(posts) == [[1, 2, 3], [4], [5], [6]]
    first = batches(posts)[0]
    assert first.ready_at == 10.0 + 3.0 + HOLD_SETTLE
    assert ids(posts) == ids(list(posts)), "the same rows, the same messages"


def test_a_message_holds_at_most_ten_embeds() -> None:
    posts = [row(i, 10.0 + i / 100, said(str(i), hold=3.0)) for i in range(1, 14)]
    assert [len(b) for b in ids(posts)] == [10, 3]


def test_only_the_newest_turn_notice_of_a_message_is_shown() -> None:
    shown = turns_superseded(
        [
            Announcement(title="Bob's turn", kind="turn", ping=["2"]),
            Announcement(title="Bob drew"),
            Announcement(title="Carol's turn", kind="turn", ping=["3"]),
        ]
    )
    assert [a.title for a in shown] == ["Bob drew", "Carol's turn"]
