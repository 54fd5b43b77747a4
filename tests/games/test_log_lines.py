"""The lines a move adds to a game's capped log: what the game's thread tells of it."""

from __future__ import annotations

from games.kit import new_log_lines


def test_the_lines_a_move_added_to_a_capped_log() -> None:
    assert new_log_lines([], ["a"]) == ["a"]
    assert new_log_lines(["a", "b"], ["a", "b", "c"]) == ["c"]
    assert new_log_lines(["a", "b", "c"], ["b", "c", "d"]) == ["d"]  # the oldest fell off
    assert new_log_lines(["a", "b", "c"], ["c", "d", "e"]) == ["d", "e"]
    assert new_log_lines(["a", "b", "c"], ["x", "y", "z"]) == ["x", "y", "z"]
    assert new_log_lines(["a", "b", "c"], ["a", "b", "c"]) == []  # a move that logged nothing
