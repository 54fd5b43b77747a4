"""Who sits in a seat: a Discord user (a snowflake id) or a bot player (``bot-N``).

Bot seats are played by :mod:`bot.core.robots`. Front ends ask :func:`is_robot` before anything
only a person can receive: a DM, a ping, a reminder.

A bot seat's level (``easy`` / ``normal`` / ``hard``) is kept in its stored name, where every
screen shows it ("🤖 Biscuit (hard)"); a name without one (a seat stored before levels) plays
``normal``, as it always did.
"""

from __future__ import annotations

ROBOT_PREFIX = "bot-"
ROBOT_LABEL = "🤖"  # every bot player's name starts with it, wherever names are shown
ROBOT_NAMES = ["Biscuit", "Mocha", "Crumble", "Waffle", "Toffee", "Pretzel", "Nougat", "Muffin"]


def robot_id(number: int) -> str:
    return f"{ROBOT_PREFIX}{number}"


def robot_number(user_id: str) -> int:
    digits = user_id.removeprefix(ROBOT_PREFIX)
    return int(digits) if digits.isdigit() else 1


def is_robot(user_id: str) -> bool:
    return user_id.startswith(ROBOT_PREFIX)


def robot_name(user_id: str) -> str:
    """The name a bot seat is shown with: a pure function of its id, so a text that has no
    session at hand (an error message) can name it too."""
    number = max(1, robot_number(user_id))
    base = ROBOT_NAMES[(number - 1) % len(ROBOT_NAMES)]
    lap = (number - 1) // len(ROBOT_NAMES)
    return f"{ROBOT_LABEL} {base}" + (f" {lap + 1}" if lap else "")


LEVELS = ("easy", "normal", "hard")


def robot_seat_name(user_id: str, level: str) -> str:
    """A bot seat's stored name: its name and its level."""
    return f"{robot_name(user_id)} ({level})"


def robot_level(name: str) -> str:
    """The level a bot seat's stored name says (``normal`` when it says none)."""
    for level in LEVELS:
        if name.endswith(f" ({level})"):
            return level
    return "normal"


def free_robot_id(taken: list[str]) -> str:
    """The lowest ``bot-N`` not seated yet."""
    number = 1
    while robot_id(number) in taken:
        number += 1
    return robot_id(number)
