"""games.rng draws exactly what random.Random's own methods draw from the same seed, so every
stored game replays as it was played."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from games.rng import Rng


@given(seed=st.integers(0, 2**62), counter=st.integers(0, 10_000), size=st.integers(0, 80))
def test_shuffle_is_random_shuffle(seed: int, counter: int, size: int) -> None:
    ours, theirs = list(range(size)), list(range(size))
    Rng(seed=seed, counter=counter).shuffle(ours)
    random.Random(f"{seed}:{counter + 1}").shuffle(theirs)
    assert ours == theirs


@given(
    seed=st.integers(0, 2**62),
    counter=st.integers(0, 10_000),
    low=st.integers(-1000, 1000),
    width=st.integers(1, 2**40),
)
def test_randint_and_choice_are_random_s(seed: int, counter: int, low: int, width: int) -> None:
    expected = random.Random(f"{seed}:{counter + 1}").randint(low, low + width - 1)
    assert Rng(seed=seed, counter=counter).randint(low, low + width - 1) == expected
    items = list(range(min(width, 500)))
    chosen = random.Random(f"{seed}:{counter + 1}").choice(items)
    assert Rng(seed=seed, counter=counter).choice(items) == chosen


def test_each_draw_moves_the_counter_once_and_bad_ranges_are_refused() -> None:
    rng = Rng(seed=3)
    rng.shuffle([1, 2, 3])
    rng.randint(1, 6)
    rng.choice("ab")
    assert rng.counter == 3
    for bad in (lambda: rng.randint(2, 1), lambda: rng.choice([])):
        try:
            bad()
        except ValueError:
            continue
        raise AssertionError("an empty range was accepted")
    assert rng.counter == 3, "a refused draw moves nothing"
