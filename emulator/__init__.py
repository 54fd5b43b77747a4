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
from .faults import Fault
from .models import (
    EmulatorError,
    FaultRecord,
    InteractionRecord,
    InteractionResult,
    Message,
    RateLimitRecord,
    RestCall,
    Violation,
)
from .ratelimits import RULES, BucketRule, RateLimiter
from .runner import running_bot
from .validation import FLAG_EPHEMERAL, FLAG_IS_COMPONENTS_V2, FLAG_LOADING, FormErrors

__all__ = [
    "FLAG_EPHEMERAL",
    "FLAG_IS_COMPONENTS_V2",
    "FLAG_LOADING",
    "RULES",
    "BucketRule",
    "DiscordEmulator",
    "EmulatorError",
    "Fault",
    "FaultRecord",
    "FormErrors",
    "InteractionRecord",
    "InteractionResult",
    "Message",
    "RateLimitRecord",
    "RateLimiter",
    "RestCall",
    "Violation",
    "running_bot",
]
