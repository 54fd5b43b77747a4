"""The refusal limit's count per user and its bound on the users it keeps (a clock by hand)."""

from __future__ import annotations

from bot.adapter.refusals import RefusalLimit


def test_a_user_gets_a_few_redrawn_refusals_per_window() -> None:
    now = [0.0]
    limit = RefusalLimit(per_window=2, window=10.0, clock=lambda: now[0])
    assert [limit.redraw("a") for _ in range(4)] == [True, True, False, False]
    assert limit.redraw("b"), "counted per user"
    now[0] = 9.5
    assert not limit.redraw("a")
    now[0] = 10.0
    assert [limit.redraw("a") for _ in range(3)] == [True, True, False]


def test_the_users_kept_are_bounded() -> None:
    limit = RefusalLimit(per_window=1, window=10.0, users_kept=3, clock=lambda: 0.0)
    for user in "abcdef":
        assert limit.redraw(user)
    assert len(limit) == 3
    assert not limit.redraw("f"), "the newest are kept"
    assert limit.redraw("a"), "the oldest was dropped: counted afresh"
