"""The keys that buttons and select options carry: the same move in the same step always gets
the same key (messages already sent keep working across restarts), another move or another
step never does."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from bot.adapter import render
from bot.adapter.render import action_key

scalars = st.one_of(st.booleans(), st.integers(-3, 3), st.floats(-2, 2), st.text(max_size=4))
actions = st.dictionaries(
    st.sampled_from(["type", "card", "n", "to"]),
    st.one_of(scalars, st.lists(scalars, max_size=3)),
    max_size=4,
)


def released_key(stamp: str, action: Any) -> str:
    """The key as the released bot computed it (buttons in sent messages carry these)."""
    digest = hashlib.sha1(json.dumps([stamp, action], sort_keys=True).encode()).hexdigest()
    return digest[:10]


@given(st.sampled_from(["round-1", "round-2", "over"]), actions)
def test_a_key_is_the_released_key_whether_remembered_or_not(stamp: str, action: Any) -> None:
    first = action_key(stamp, action)
    again = action_key(stamp, dict(reversed(list(action.items()))))  # another insertion order
    assert first == again == released_key(stamp, action)


def test_values_equal_in_python_but_not_in_json_get_their_own_keys() -> None:
    # 1 == True == 1.0 in Python, but the moves differ: a cache by equality would mix them up.
    keys = {action_key("s", {"n": v}) for v in (1, True, 1.0)}
    assert keys == {released_key("s", {"n": v}) for v in (1, True, 1.0)}
    assert len(keys) == 3


def test_the_remembered_keys_are_bounded(monkeypatch: Any) -> None:
    monkeypatch.setattr(render, "ACTION_KEYS_KEPT", 5)
    monkeypatch.setattr(render, "_ACTION_KEYS", {})
    for n in range(12):
        assert action_key("s", {"n": n}) == released_key("s", {"n": n})
    assert len(render._ACTION_KEYS) <= 5
