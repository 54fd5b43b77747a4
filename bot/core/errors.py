"""Errors a user caused. The Discord layer shows their message privately; the CLI prints it."""

from __future__ import annotations


class UserError(Exception):
    """A mistake or a refused request, explained in a player's words. Nothing was changed."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotFound(UserError):
    pass


class NotAllowed(UserError):
    pass


class StaleVersion(UserError):
    def __init__(
        self, message: str = "The table has moved on since that message — here is the current view."
    ) -> None:
        super().__init__(message)


class StaleWrite(StaleVersion):
    """A versioned write found a newer version stored (another writer, e.g. another process
    sharing the database, came first). The service reads the session again and retries."""


class IllegalMove(UserError):
    pass


class DamagedSession(UserError):
    """The stored session cannot be read (bad JSON, unknown game): refused, not repaired."""


class StorageFull(Exception):
    """The database's disk is full: the write was refused and nothing changed (the store
    has logged the episode; the front end tells the player to try again later)."""


class ConfigError(Exception):
    """A bad configuration value; ``str()`` is one line naming the key and the problem."""
