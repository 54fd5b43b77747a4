"""Loopback Discord emulator for end-to-end tests of a real discord.py client.

Quick start::

    async with DiscordEmulator() as emu:
        guild = emu.add_guild("Game Night")
        chan = emu.add_text_channel(guild, "cafe")
        alice = emu.add_user("alice", guild=guild)
        async with running_bot(emu, bot):
            res = await emu.slash(alice, chan, "game new", {"game": "cafe-carnage"})
            ...
        emu.assert_clean()
"""

from .emulator import DiscordEmulator
from .models import (
    EmulatorError,
    InteractionRecord,
    InteractionResult,
    Message,
    RestCall,
    Violation,
)
from .runner import running_bot
from .validation import FLAG_EPHEMERAL, FLAG_IS_COMPONENTS_V2, FLAG_LOADING, FormErrors

__all__ = [
    "FLAG_EPHEMERAL",
    "FLAG_IS_COMPONENTS_V2",
    "FLAG_LOADING",
    "DiscordEmulator",
    "EmulatorError",
    "FormErrors",
    "InteractionRecord",
    "InteractionResult",
    "Message",
    "RestCall",
    "Violation",
    "running_bot",
]
