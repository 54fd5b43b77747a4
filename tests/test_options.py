"""Game options as Discord offers them: labels, durations, parsing."""

from __future__ import annotations

import pytest

from bot.core.options import describe_options, parse_setting, setting_suggestions
from games import REGISTRY
from games.kit import duration


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(60, "1 min"), (90, "1 min 30 s"), (3600, "1 h"), (86400, "1 day"), (604800, "7 days")],
)
def test_durations_read_like_durations(seconds: int, text: str) -> None:
    assert duration(seconds) == text


def test_a_timeout_outside_the_labelled_choices_is_still_shown_as_a_duration() -> None:
    game = REGISTRY["cafe-carnage"]
    text = describe_options(game, game.parse_options({"turn_timeout": 60}))
    assert "**Turn timeout**: 1 min" in text
    assert "60" not in text.split("**Turn timeout**: ")[1].split("\n")[0]


def test_settings_parse_only_what_is_offered() -> None:
    game = REGISTRY["cafe-carnage"]
    assert parse_setting(game, "no_repeats=on") == ("no_repeats", True)
    assert "no_repeats=on" in setting_suggestions(game, "repeat")
    with pytest.raises(ValueError, match="no option"):
        parse_setting(game, "dessert_first=on")
    with pytest.raises(ValueError, match="can be: on, off"):
        parse_setting(game, "no_repeats=maybe")
