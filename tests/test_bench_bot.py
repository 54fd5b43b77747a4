"""bench/bot.py's own requests: the copies of the clicked messages it posts for the bare bots
are paced by the buckets (as discord.py paces itself), so none is refused and read as a
message, and the bare bots' 401/403/429 answers are counted apart from them."""

from __future__ import annotations

from collections import Counter

import aiohttp

from bench.bot import Click, invalid_since, mark, post_copies
from emulator import DiscordEmulator


async def test_copies_of_a_dm_burst_are_paced_not_refused() -> None:
    async with DiscordEmulator() as emu:  # Discord's limits: 5 messages per channel per window
        guild = emu.add_guild("Bench")
        users = [emu.add_user(f"p{i}", guild=guild) for i in range(2)]
        clicks = [
            Click(user, emu.open_dm(user), {"content": f"menu {n}"}, "cb:x", None)
            for user in users
            for n in range(12)  # a player's 12 clicks: more than a window's worth
        ]
        since = mark(emu)
        copies = await post_copies(emu, clicks)
        assert emu.rate_limited == []
        assert invalid_since(emu, since) == Counter({401: 0, 403: 0, 429: 0})
        assert len(set(copies.values())) == len(clicks)
        for click in clicks:
            copy = emu.get_message(copies[id(click)])
            assert (copy.channel_id, copy.content) == (click.channel_id, click.message["content"])


async def test_refused_requests_are_counted_by_status() -> None:
    # Windows of 500 s: the burst below is inside one however slow the machine.
    async with DiscordEmulator(rate_limit_scale=100) as emu:
        user = emu.add_user("p", guild=emu.add_guild("Bench"))
        since = mark(emu)

        url = f"{emu.rest_base}/channels/{emu.open_dm(user)}/messages"
        async with aiohttp.ClientSession() as http:
            async with http.post(url, json={"content": "x"}) as response:  # no token
                assert response.status == 401
            headers = {"Authorization": f"Bot {emu.token}"}
            statuses = []
            for _ in range(7):  # unpaced: the bucket refuses the 6th and 7th
                async with http.post(url, json={"content": "x"}, headers=headers) as response:
                    statuses.append(response.status)
        assert statuses == [200] * 5 + [429] * 2
        assert invalid_since(emu, since) == Counter({401: 1, 403: 0, 429: statuses.count(429)})
