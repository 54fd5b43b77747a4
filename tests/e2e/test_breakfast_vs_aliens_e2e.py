"""Breakfast vs Aliens in Discord, end to end: the real bot, through discord.py, against the
emulator. Every move is a click a player would make, on the table message in the channel or on
the private (ephemeral) panel the bot shows them.

How the situations are reached: a shuffled deck rarely deals a Syrup Shield, a Magic Toaster and
the right disasters in the right hands, so the deck is stacked. The lobby is opened and started
through Discord as usual; then, before anyone moves, the test rearranges the started game's
stored state (who holds which heroes and treasures, the play cards, the top of the deck) as the
game's own unit tests build their tables (tests/games/test_breakfast_vs_aliens*.py), checks it
with the game's invariants, writes it back with ``UPDATE sessions SET state = ?`` through the
bot's store (as tests/e2e/test_faults_e2e.py damages a row) and drops the service's cached copy,
then asks the table sync to redraw the table. The whose-turn, the turn counter and the
announcements already posted are kept, so the stored turn timer and the posted turn notice still
match. From there on everything runs through the bot: clicks, timers, the restart.

Mini-Muffin and Full Pancake differ in what happens to a drawn alien the drawer does not
capture: only Mini-Muffin offers it to the other players (Full Pancake puts it at the bottom of
the deck), so that part is played in a Mini-Muffin game.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path

import pytest

from bot.app import CafeBot
from emulator import InteractionResult, Message
from games.breakfast_vs_aliens import GAME
from games.breakfast_vs_aliens.catalogue import COLOURS, EMOJI, Colour, card
from games.breakfast_vs_aliens.state import BvaState, DrawnStep, OfferStep, ShieldStep
from games.kit import seat_order_from
from tests.e2e.harness import Control, World, controls, ephemeral_text, press, state_of, world
from tests.games.test_breakfast_vs_aliens import (
    BAGEL,
    BURNT_R,
    CAPTAIN,
    CRINGE_RBP,
    CROISSANT,
    EARL,
    ED,
    FRENCH_RB,
    GLOOP_RB,
    HASH,
    ORACLE,
    PLUM,
    REINF_R,
    SHIELD_B,
    SHIELD_R,
    SUNNY_RP,
    TOASTER_Y,
    WAFFLE,
    ZLORG,
)

GAME_ID = "breakfast-vs-aliens"
NOT_YOUR_MOVE = "It's not your move right now"
REACTION_SECONDS = 45  # the Syrup Shield window, as the rules file says ("short")
QUICK_SECONDS = 120  # a capture offer to another player


# -- opening and stacking -------------------------------------------------------------------------


async def open_table(w: World, mode: str) -> Message:
    """The host opens a lobby and picks the mode (Full Pancake in the lobby's option select,
    Mini-Muffin with ``/game new setting:mode=…``); the others join; the host starts."""
    host, *others = w.users
    options = {"game": GAME_ID}
    if mode != "full-pancake":
        options["setting"] = f"mode={mode}"
    table = await (await w.emu.slash(host, w.channel, "game new", options)).final()
    if mode == "full-pancake":
        select, choices = next(s for s in table.selects() if s[1][0][1].startswith("mode:"))
        pretty = " ".join(part.capitalize() for part in mode.split("-"))  # "Full Pancake"
        (value,) = [v for label, v in choices if label.endswith(pretty)]
        picked = await w.emu.select(host, table.id, select, [value])
        assert not picked.ephemeral, "the host's option pick was refused"
        await w.settle()
        assert f"**Mode**: {pretty}" in w.emu.get_message(table.id).current_text()
    for user in others:
        await w.emu.click(user, table.id, w.emu.get_message(table.id).button("Join"))
    await w.emu.click(host, table.id, w.emu.get_message(table.id).button("Start"))
    await w.settle()
    return w.emu.get_message(table.id)


async def stack(
    w: World,
    bot: CafeBot,
    *,
    heroes: Sequence[Sequence[str]],
    attached: dict[str, list[str]] | None = None,
    play: Sequence[str] = (),
    top: Sequence[str] = (),
) -> BvaState:
    """Rearrange the started game before anyone moves: ``heroes[i]`` go to the i-th player
    clockwise from the one whose turn it is, with their ``attached`` treasures; ``play`` are the
    play cards (Full Pancake); ``top`` the top of the deck. Every other card goes under the deck
    in the order it was in. Returns the state the bot now holds."""
    state: BvaState = (await state_of(bot)).model_copy(deep=True)
    assert state.turn == 1 and state.pending is None, "stack before anyone moves"
    attached = attached or {}
    seats = seat_order_from(state.players, state.current)
    placed = [c for hand in heroes for c in hand] + [*play, *top]
    placed += [t for ts in attached.values() for t in ts]
    assert len(placed) == len(set(placed)), "a card placed twice"
    loose = [*state.deck, *state.play, *(h for p in state.players for h in state.heroes[p])]
    state.heroes = {p: list(hand) for p, hand in zip(seats, heroes, strict=True)}
    state.attached = {hero: list(ts) for hero, ts in attached.items()}
    state.play = list(play)
    state.deck = [*top, *(c for c in loose if c not in placed)]
    state.turn_deck = len(state.deck)
    GAME.check_invariants(state)
    await bot.store.raw_execute(
        "UPDATE sessions SET state = ? WHERE id = 1", (state.model_dump_json(),)
    )
    bot.service.forget(1)
    bot.tables.request_sync(1)  # show the stacked table (a restart would do it too)
    await w.settle()
    assert await state_of(bot) == state
    return state


# -- reading what players see ---------------------------------------------------------------------


async def names_of(bot: CafeBot) -> dict[str, str]:
    return (await bot.service.load(1)).names()


def fields_of(message: Message) -> dict[str, str]:
    (embed,) = message.embeds
    return {f["name"]: f["value"] for f in embed.get("fields", [])}


def seat_of(message: Message, name: str) -> tuple[str, str]:
    """The table field of player ``name``: its title (name, points) and its lines."""
    (found,) = [(k, v) for k, v in fields_of(message).items() if name in k]
    return found


def colours(traits: Sequence[Colour]) -> str:
    """Traits as the colour squares a phone shows, in the fixed order red, blue, purple, yellow."""
    return "".join(EMOJI[c] * list(traits).count(c) for c in COLOURS)


def jail_points(state: BvaState, jailed: str) -> int:
    """What a jailed card is worth, by the rules file: an alien its points; Alien Reinforcements
    2 (Full Pancake); a disaster stacked on an alien 1 (Mini-Muffin)."""
    if card(jailed).kind == "alien":
        return card(jailed).points
    return 2 if state.full else 1


def check_table(w: World, state: BvaState, names: dict[str, str]) -> Message:
    """The table reads on a phone: one field per player (name, points) with one line per hero
    and its colour squares and treasures, the jail with each card's points; in the description
    the deck count and (Full Pancake) the play cards, one per line."""
    table = w.table_message()
    (embed,) = table.embeds
    description = embed["description"]
    assert f"🂠 Deck: {len(state.deck)}" in description
    if state.full:
        for c in state.play:
            shown = card(c).name + (f" {colours(card(c).traits)}" if card(c).traits else "")
            assert any(line.startswith("• ") and shown in line for line in description.split("\n"))
    for pid in state.players:
        title, value = seat_of(table, names[pid])
        lines = value.split("\n")
        points = sum(jail_points(state, c) for c in state.jails[pid])
        assert title.endswith(f"· {points} pt" + ("" if points == 1 else "s")), title
        for hero in state.heroes[pid]:
            (line,) = [x for x in lines if x.startswith(f"🍩 {card(hero).name} ")]
            assert colours(card(hero).traits) in line, line
            for treasure in state.attached.get(hero, []):
                assert f"💎 {card(treasure).name}" in line, line
        if state.jails[pid]:
            (jail,) = [x for x in lines if x.startswith("🚔 ")]
            for c in state.jails[pid]:
                assert f"{card(c).name} ({jail_points(state, c)})" in jail, jail
    return table


def table_controls(w: World) -> list[Control]:
    return controls(w.table_message(), 1, "t")


def control(w: World, label: str) -> Control:
    (found,) = [c for c in table_controls(w) if c.label.startswith(label)]
    return found


async def tap(w: World, user: int, target: Control) -> InteractionResult:
    """A click on the table: the table shows the move in the click's own answer."""
    result = await press(w.emu, user, target)
    assert result.type == 7 and not result.ephemeral, f"{target.label!r} by {user}: {result.type}"
    await w.settle()
    return result


async def refused(w: World, bot: CafeBot, user: int, target: Control, why: str) -> None:
    """A click that is not allowed: a private, friendly answer, and nothing changes."""
    log = await bot.store.actions(1)
    result = await press(w.emu, user, target)
    assert why in ephemeral_text(result)
    await w.settle()
    assert await bot.store.actions(1) == log


def seen_text(message: Message) -> str:
    """Every version of ``message`` as it was shown: text and component data (for leak checks)."""
    keys = ("content", "embeds", "components")
    return "\n".join(
        json.dumps({k: v[k] for k in keys}, ensure_ascii=False) for v in message.versions()
    )


def seen_by(w: World, user: int) -> str:
    """Everything ``user`` could ever have seen: every version of every message in the channel,
    in their DMs and in their ephemerals."""
    return "\n".join(seen_text(m) for m in w.emu.visible_to(user))


def pinged(w: World, user: int, title: str) -> bool:
    return any(
        f"<@{user}>" in m.content and any(e.get("title") == title for e in m.embeds)
        for m in w.game_messages()
    )


async def seconds_left(w: World, bot: CafeBot) -> float:
    deadline = await bot.service.deadline(1)
    assert deadline is not None, "the step has no deadline"
    return deadline.due_at - w.clock()


# -- Mini-Muffin: a declined alien goes round the table -------------------------------------------


async def test_mini_muffin_an_alien_the_drawer_declines_is_captured_by_another_player(
    tmp_path: Path,
) -> None:
    async with world(tmp_path, 3) as w, w.bot_running() as bot:
        await open_table(w, "mini-muffin")
        before = await stack(
            w,
            bot,
            # The drawer could capture Glitch Gloop (red + blue) with French Toast Knight; the
            # next player cannot; the third can, with Captain Pancake + Waffle Wizard.
            heroes=[[FRENCH_RB, PLUM, BAGEL], [EARL, CROISSANT, ED], [CAPTAIN, WAFFLE, HASH]],
            top=[GLOOP_RB],
        )
        names = await names_of(bot)
        drawer, skipped, third = (int(p) for p in seat_order_from(before.players, before.current))
        check_table(w, before, names)

        await tap(w, drawer, control(w, "Draw a card"))
        state = await state_of(bot)
        assert state.pending == OfferStep(player=str(drawer), queue=[str(skipped), str(third)])
        assert "Glitch Gloop 🟥🟦 (3 pts)" in w.table_message().current_text()
        assert [c.label for c in table_controls(w)] == [
            "Glitch Gloop: Knight",
            "Pass",
        ]
        # The drawer declines.
        await tap(w, drawer, control(w, "Pass"))
        state = await state_of(bot)
        assert state.pending == OfferStep(player=str(third), queue=[]), "skipped can't capture"
        assert pinged(w, third, "🛸 Capture offer") and not pinged(w, skipped, "🛸 Capture offer")
        assert 0 < await seconds_left(w, bot) <= QUICK_SECONDS, "another player's offer is quick"
        capture = control(w, "Glitch Gloop")
        assert capture.label == "Glitch Gloop: Pancake + Wizard"
        # Only the player the alien is offered to may take it; the drawer cannot change their mind.
        await refused(w, bot, drawer, capture, NOT_YOUR_MOVE)
        await refused(w, bot, skipped, capture, NOT_YOUR_MOVE)

        await tap(w, third, capture)
        state = await state_of(bot)
        assert state.jails[str(third)] == [GLOOP_RB]
        assert state.heroes[str(third)] == [HASH]
        assert state.heroes[str(drawer)] == [FRENCH_RB, PLUM, BAGEL], "the drawer kept theirs"
        assert state.current == str(skipped), "play goes on clockwise from the drawer"
        table = check_table(w, state, names)
        assert "🚔 Glitch Gloop (3)" in seat_of(table, names[str(third)])[1]
        assert any("captured Glitch Gloop" in t for t in w.channel_texts())
        assert [c.label for c in table_controls(w)] == ["Draw a card"]


# -- Full Pancake: Syrup Shield reactions, a private peek, a restart mid-turn ---------------------


async def test_full_pancake_shield_reactions_private_toaster_peek_and_a_restart_mid_turn(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with world(tmp_path, 3) as w:
        async with w.bot_running() as bot:
            await open_table(w, "full-pancake")
            # The peeked cards: a hero and an alien nobody has seen (in the deck as dealt).
            dealt = await state_of(bot)
            named = {CAPTAIN, WAFFLE, PLUM, SUNNY_RP, BAGEL, HASH, ZLORG, CRINGE_RBP, ORACLE}
            named |= {BURNT_R, REINF_R, GLOOP_RB}
            unseen = [c for c in dealt.deck if c not in named]
            # A hero with no purple trait: keeping it lets its user capture no play card.
            hero = next(c for c in unseen if card(c).kind == "hero" and "P" not in card(c).traits)
            alien = next(c for c in unseen if card(c).kind == "alien")
            secrets = [card(hero).name, card(alien).name, hero, alien]
            before = await stack(
                w,
                bot,
                heroes=[[CAPTAIN, WAFFLE], [PLUM, SUNNY_RP], [BAGEL, HASH]],
                # The first player owns the Magic Toaster; the third holds both Syrup Shields.
                attached={CAPTAIN: [TOASTER_Y], BAGEL: [SHIELD_R], HASH: [SHIELD_B]},
                play=[ZLORG, CRINGE_RBP, ORACLE],  # nobody can capture either alien
                # The toaster sees the hero and the alien; then two disasters; then an alien.
                top=[hero, alien, BURNT_R, REINF_R, GLOOP_RB],
            )
            assert before.full
            names = await names_of(bot)
            first, second, third = (int(p) for p in seat_order_from(before.players, before.current))
            others = [second, third]
            table = check_table(w, before, names)
            assert "🎴 **Play cards**" in table.current_text()
            assert [c.label for c in table_controls(w)] == [
                "Take Oatmeal Oracle",
                "Use Magic Toaster",
                "Draw a card",
            ]

            # -- (3) the Magic Toaster: what it shows is its user's alone --------------------
            for user in w.users:
                assert [s for s in secrets if s in seen_by(w, user)] == [], "stacked badly"
            use = await press(w.emu, first, control(w, "Use Magic Toaster"))
            assert use.type == 7 and not use.ephemeral  # the table, updated by the answer itself
            await w.settle()
            # The peek follows the table's answer, from the same click handler.
            (peek,) = await w.emu.wait_until(lambda: use.followups())
            assert peek.ephemeral_to == first
            assert "only you see these" in peek.current_text()
            assert card(hero).name in peek.current_text()
            assert card(alien).name in peek.current_text()
            shown = w.table_message().current_text()
            assert "is looking at 2 card(s) with the Magic Toaster" in shown
            assert table_controls(w) == [], "the table waits for the peek"
            # /game hand shows the user the peek again (a dismissed ephemeral is not lost),
            # another player no peek and nothing to click.
            again = await w.emu.slash(first, w.channel, "game hand", {})
            assert card(hero).name in ephemeral_text(again)
            hand = await w.emu.slash(second, w.channel, "game hand", {})
            assert hand.message is not None and controls(hand.message, 1) == []
            # Nothing the others could ever see names the peeked cards (channel, table, DMs,
            # their ephemerals, every version); the user sees them in the peek panel alone.
            for user in others:
                seen = seen_by(w, user)
                assert [s for s in secrets if s in seen] == []
            for message in w.emu.visible_to(first):
                if message.ephemeral_to != first:
                    assert [s for s in secrets if s in seen_text(message)] == [], message.id
            # The peek's Keep button belongs to its user's ephemeral message: forged by another
            # player (on the table, where it is not), it is refused and changes nothing.
            (keep,) = controls(peek, 1)
            assert keep.label == f"Keep {card(hero).name}"
            log = await bot.store.actions(1)
            forged = await w.emu.forge_component(second, table.id, keep.custom_id)
            assert forged.ephemeral
            assert await bot.store.actions(1) == log

        # The bot stops while the peek is pending; a new one starts on the same database. The
        # button on the peek (an ephemeral message sent by the first bot) still works.
        async with w.bot_running() as bot:
            kept = await press(w.emu, first, keep)
            assert kept.type == 7, "the peek panel is updated by the answer itself"
            await w.settle()
            assert card(alien).name not in w.emu.get_message(peek.id).current_text()
            state = await state_of(bot)
            assert state.heroes[str(first)] == [CAPTAIN, WAFFLE, hero]
            assert state.deck[-1] == alien, "the other card went under the deck"
            assert state.current == str(second)
            for user in others:
                seen = seen_by(w, user)
                assert f"kept {card(hero).name}" in seen, "what was kept is public"
                assert card(alien).name not in seen and alien not in seen
            check_table(w, state, names)

            # -- (2a) Burnt Toast is revealed: the shield holder cancels it ------------------
            await tap(w, second, control(w, "Draw a card"))
            state = await state_of(bot)
            assert state.pending == ShieldStep(waiting=[str(third)], refill=False)
            assert state.disaster == BURNT_R
            assert pinged(w, third, "🛡️ Syrup Shield?")
            left = await seconds_left(w, bot)
            assert REACTION_SECONDS - 5 < left <= REACTION_SECONDS, "a short reaction window"
            # The table shows whom it waits for and the window's countdown.
            waiting = fields_of(w.table_message())["⏳ Waiting for"]
            assert names[str(third)] in waiting
            deadline = await bot.service.deadline(1)
            assert deadline is not None and f"<t:{int(deadline.due_at)}:R>" in waiting
            shown = w.table_message().current_text()
            assert "Burnt Toast revealed!" in shown and f"Waiting for {names[str(third)]}" in shown
            assert [c.label for c in table_controls(w)] == ["Use Syrup Shield", "Let it happen"]
            shield = control(w, "Use Syrup Shield")
            await refused(w, bot, second, shield, NOT_YOUR_MOVE)  # the drawer holds no shield
            await tap(w, third, shield)
            state = await state_of(bot)
            assert state.heroes[str(second)] == [PLUM, SUNNY_RP], "Burnt Toast did nothing"
            assert {BURNT_R, SHIELD_R} <= set(state.discard)
            assert BAGEL not in state.attached and state.attached[HASH] == [SHIELD_B]
            assert state.current == str(third), "the draw was the turn's action"
            assert any("cancelled 🌪️ Burnt Toast" in t for t in w.channel_texts())
            check_table(w, state, names)

            # -- (2b) Alien Reinforcements: nobody answers, the window runs out ---------------
            # The drawer holds the other shield this time, and lets the clock run.
            await tap(w, third, control(w, "Draw a card"))
            state = await state_of(bot)
            assert state.pending == ShieldStep(waiting=[str(third)], refill=False)
            assert state.disaster == REINF_R
            w.clock.advance(REACTION_SECONDS - 5)
            await w.fire_timers()
            assert isinstance((await state_of(bot)).pending, ShieldStep), "still open"
            w.clock.advance(6)
            await w.fire_timers()
            state = await state_of(bot)
            assert state.pending is None and state.disaster is None
            assert state.beside == [REINF_R], "it happened"
            assert state.attached[HASH] == [SHIELD_B], "the shield was not spent"
            assert (await bot.store.actions(1))[-1].source == "timeout"
            assert state.current == str(first)
            assert "next capture gets +2 pts" in w.table_message().current_text()

            # -- (4) mid-turn: the first player draws an alien they can capture --------------
            await tap(w, first, control(w, "Draw a card"))
            state = await state_of(bot)
            assert state.pending == DrawnStep(player=str(first)) and state.alien == GLOOP_RB
            old = w.table_message()
            old_controls = table_controls(w)
            labels = [c.label for c in old_controls]
            # The proposal (no trait wasted) first, then the other sets (buttons while they
            # fit), then the rest.
            assert labels[0] == "Glitch Gloop: Pancake + Wizard"
            rest = labels.index("Put it at the bottom")
            assert rest > 1 and all(label.startswith("Glitch Gloop: ") for label in labels[:rest])

        # The bot stops mid-turn again; a new one starts; the table's old controls still work.
        async with w.bot_running() as bot:
            await w.settle()
            assert w.table_message().id == old.id
            capture = old_controls[0]
            await refused(w, bot, second, capture, NOT_YOUR_MOVE)
            await tap(w, first, capture)  # the control as the message showed it before
            state = await state_of(bot)
            assert state.jails[str(first)] == [GLOOP_RB, REINF_R], "with the reinforcements"
            assert state.heroes[str(first)] == [hero], "the heroes used are discarded"
            assert {CAPTAIN, WAFFLE, TOASTER_Y} <= set(state.discard), "with their treasures"
            assert state.alien is None and state.beside == []
            table = check_table(w, state, names)
            title, lines = seat_of(table, names[str(first)])
            assert title.endswith("· 5 pts")
            assert "🚔 Glitch Gloop (3), Alien Reinforcements (2)" in lines
            assert state.current == str(second)
            assert [c.label for c in table_controls(w)][-1] == "Draw a card"
            # The card the toaster put back under the deck was never shown to anyone else.
            for user in others:
                assert card(alien).name not in seen_by(w, user)
            # Every announcement was posted exactly once, in order, across the restart.
            posted = [e["title"] for m in w.game_messages() if m.id != old.id for e in m.embeds]
            # (a turn notice on its own goes when the next one comes, one told with its move
            # stays in the log: of the turn notices the newest is left, and maybe older ones)
            anns = state.announcements
            turn_titles = {a.title for a in anns if a.kind == "turn"}
            assert [t for t in posted if t not in turn_titles] == [
                a.title for a in anns if a.kind != "turn"
            ]
            newest = max(i for i, a in enumerate(anns) if a.kind == "turn")
            assert anns[newest].title in posted
            # (discord.py warns once per process that voice is unsupported, at the first
            # client made: in whichever test comes first)
            errors = [
                r
                for r in caplog.records
                if r.levelno >= logging.WARNING and "voice will NOT" not in r.getMessage()
            ]
            assert errors == [], [r.getMessage() for r in errors]
