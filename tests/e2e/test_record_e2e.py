"""A game record anyone can check: the table shows a commitment from the start, the end reveals
the seed, /game history (paged, finished and abandoned games) gives the record as JSON, and
`python -m bot verify` replays it, and refuses a tampered one naming the first bad action."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.__main__ import main as cli_main
from bot.core.record import commitment
from emulator import Message
from tests.e2e.harness import World, controls, ephemeral_text, open_game, press, world

ROOT = Path(__file__).resolve().parents[2]


async def verify_cli(path: Path) -> tuple[int, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "verify",
        str(path),
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await proc.communicate()
    assert proc.returncode is not None
    return proc.returncode, out.decode()


def verify_here(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """`python -m bot verify` through the CLI's main in this process, both streams read: for the
    records a test checks after the first (a process each cost a start-up, proving no more)."""
    code = cli_main(["verify", str(path)])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


async def history_message(w: World, user: int) -> Message:
    result = await w.emu.slash(user, w.channel, "game history", {})
    message = await result.final()
    assert not result.ephemeral, "the history is shown to the table"
    return w.emu.get_message(message.id)


async def fetch_record(w: World, user: int, history: Message, session_id: int) -> dict[str, Any]:
    ((select_id, offered),) = [s for s in history.selects() if s[0].startswith("cb:x:")]
    assert str(session_id) in [value for _, value in offered]
    answer = await w.emu.select(user, history.id, select_id, [str(session_id)])
    assert "python -m bot verify" in ephemeral_text(answer)
    assert answer.message is not None
    data = answer.message.file(f"cafebot-game-{session_id}.json")
    record: dict[str, Any] = json.loads(data)
    return record


async def test_a_record_is_exported_verified_and_a_tampered_one_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with world(tmp_path, players=3) as w, w.bot_running() as bot:
        alice, bob, carol = w.users
        table = await open_game(w, "cafe-carnage")
        sealed = commitment(
            "cafe-carnage", json.loads((await bot.service.load(1)).row.options), w.seed
        )
        footer = table.embeds[-1]["footer"]["text"]
        assert f"sealed {sealed[:16]}" in footer, "the table shows the commitment at the start"
        assert str(w.seed) not in table.current_text(), "the seed stays secret while playing"
        early = await w.emu.slash(alice, w.channel, "game history", {})
        assert "No game has been played" in (await early.final()).current_text()

        for user in (alice, bob):  # some real moves, then the deadlines play the rest
            dm = w.latest_dm(user)
            await press(w.emu, user, controls(dm, 1)[0])
            await w.settle()
        await w.finish_by_deadlines()
        row = await bot.store.get_session(1)
        assert row is not None and row.outcome is not None
        final = [m for m in w.game_messages() if "game over" in m.current_text()][-1]
        assert f"seed {w.seed}" in final.current_text(), "the end reveals the seed"

        history = await history_message(w, carol)
        record = await fetch_record(w, carol, history, 1)
        assert record["seed"] == w.seed and record["commitment"] == sealed
        assert record["players"] == [str(alice), str(bob), str(carol)]
        log = await bot.store.actions(1)
        assert len(record["actions"]) == len(log) > 2
        assert {a["source"] for a in record["actions"]} == {"player", "timeout"}
        assert all(a["at"] > 0 and a["player"] in record["players"] for a in record["actions"])

        good = tmp_path / "record.json"
        good.write_text(json.dumps(record))
        code, out = await verify_cli(good)
        assert code == 0, out
        assert "✔ the seed and options match the commitment" in out
        assert f"✔ {len(log)} actions replayed" in out
        outcome = json.loads(row.outcome)
        best = max(outcome["scores"], key=outcome["scores"].get)
        best_name = record["names"][best]
        assert re.search(rf"Final scores: .*{best_name} {outcome['scores'][best]} \(won\)", out), (
            out
        )

        # A move changed after the fact: the first action that no longer replays is named.
        tampered = json.loads(json.dumps(record))
        victim = tampered["actions"][1]
        victim["player"] = str(carol) if victim["player"] != str(carol) else str(alice)
        bad = tmp_path / "tampered.json"
        bad.write_text(json.dumps(tampered))
        code, out = verify_here(bad, capsys)
        assert code == 1, out
        first_bad = re.search(r"✘ action #(\d+) by \w+ .* does not replay", out)
        assert first_bad is not None, out
        assert int(first_bad.group(1)) <= victim["seq"]
        assert "Final scores" not in out

        # Another deal than the sealed one: the commitment gives it away.
        reseeded = json.loads(json.dumps(record)) | {"seed": w.seed + 1}
        bad.write_text(json.dumps(reseeded))
        code, out = verify_here(bad, capsys)
        assert code == 1 and "the commitment does not match" in out, out

        bad.write_text("{not json")
        code, out = verify_here(bad, capsys)
        assert code == 2 and "not JSON" in out, out


async def test_history_pages_through_finished_and_abandoned_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with world(tmp_path, players=3) as w:
        club = w.emu.add_guild("Elsewhere")
        elsewhere = w.emu.add_text_channel(club, "far")
        w.emu.add_member(club, w.users[0])
        async with w.bot_running() as bot:
            ended: list[int] = []
            for number in range(7):
                await open_game(w, "cafe-carnage")
                sid = number + 1
                if number % 3 == 2:
                    ask = await w.emu.slash(w.users[0], w.channel, "game abandon", {})
                    assert ask.message is not None
                    await w.emu.click(
                        w.users[0], ask.message.id, ask.message.button("Yes, abandon it")
                    )
                    await w.settle()
                else:
                    await w.finish_by_deadlines(sid)
                ended.append(sid)
            # A lobby closed before its start is not a game played.
            await (
                await w.emu.slash(w.users[0], w.channel, "game new", {"game": "monster-cafe"})
            ).final()
            ask = await w.emu.slash(w.users[0], w.channel, "game abandon", {})
            assert ask.message is not None
            await w.emu.click(w.users[0], ask.message.id, ask.message.button("Yes, abandon it"))
            far = await (
                await w.emu.slash(w.users[0], elsewhere, "game new", {"game": "monster-cafe"})
            ).final()
            assert far is not None

            history = await history_message(w, w.users[1])
            text = history.current_text()
            assert "Page 1/2" in text and "7 games" in text
            shown = [int(f["name"].split("#")[1]) for f in history.embeds[0]["fields"]]
            assert shown == [7, 6, 5, 4, 3], "newest first, five to a page"
            marks = ["🧹 abandoned" in f["value"] for f in history.embeds[0]["fields"]]
            assert marks == [False, True, False, False, True], "games 6 and 3 were abandoned"
            older = await w.emu.click(w.users[2], history.id, history.button("Older"))
            assert older.type == 7, "the page turns in place"
            history = w.emu.get_message(history.id)
            shown = [int(f["name"].split("#")[1]) for f in history.embeds[0]["fields"]]
            assert shown == [2, 1] and "Page 2/2" in history.current_text()
            assert [d for label, _, d in history.buttons() if label == "Older"] == [True]
            first = await fetch_record(w, w.users[1], history, 1)
            assert first["status"] == "finished" and first["outcome"] is not None

            # An abandoned game's record replays up to where it was left.
            newer = await w.emu.click(w.users[2], history.id, history.button("Newer"))
            assert newer.type == 7
            history = w.emu.get_message(history.id)
            record = await fetch_record(w, w.users[1], history, 3)
            assert record["status"] == "abandoned" and record["outcome"] is None
            path = tmp_path / "abandoned.json"
            path.write_text(json.dumps(record))
            code, out = verify_here(path, capsys)
            assert code == 0 and "abandoned before its end" in out, out

            # Another server's game is not given here, even to a forged select.
            ((select_id, _),) = [s for s in history.selects() if s[0].startswith("cb:x:")]
            forged = await w.emu.forge_component(
                w.users[0], history, select_id, component_type=3, values=["9"]
            )
            assert "no game #9 in this server" in ephemeral_text(forged)
            assert (await bot.store.get_session(9)) is not None
