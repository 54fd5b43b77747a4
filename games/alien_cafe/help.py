"""Alien Café's rules in our own words, paged by ``## `` headings."""

HELP_TEXT = """\
## Alien Café
Cooperative and simultaneous: everyone fills their own 4×4 tray at once, against the round \
timer; the table wins or loses together. 1 player = solo practice.

## Tiles
Red bag: 36 aliens (🟣🟢🔵🟠, each wants to be next to a 🍔 main, 🍰 dessert or 🥤 drink) + \
4 alien Jokers. Blue bag: 36 orders (🍔🍰🥤, each wants an alien of a given colour) + 4 order \
Jokers. "Next to" = touching in the same row or column.

## A round
1) Each player picks a level 0–4 in their DM (default: last round's level, kept at the level \
timeout; the host may start without an absent player, who then keeps their level). Level L \
adds one random special tile of each level from 1 to L.
2) Everyone gets 3 aliens + 3 orders by DM and the service timer starts.
3) In your DM: tap a hand tile, then an empty cell to place it. Tap a placed tile, then another \
cell to move it (onto a tile: they swap), or ↩️ to take it back. Draw 👽/🍽️ from either bag (an \
empty bag is refused). With a hand tile held, 🎁 give it to a player who is not done — never a \
special tile.
4) Ask the table: post a request ("need 🟢👽") or offer a hand tile ("have 🍔 to give"; the \
table sees its type only). Requests and offers show on the table until met (a tile of that \
type is given to you / your offered tile leaves your hand), withdrawn, you are done, or the \
round ends. One of each per player; a new one replaces the old.
5) Press **Done** when happy: it is final for the round (your tray locks; nobody can give you \
tiles). The round ends when everyone is done or at the deadline (everyone still working is made \
done).

## Scoring
Each placed tile: +1 if its condition holds, −1 if not. Jokers: 0. Each tile left in hand \
(special ones too): −1. House Rules: +1 if your tray has no tile of the banned type, else −1; \
never counted as unplaced. A Joker counts as the type it is declared (and so as an alien or an \
order) for its neighbours and House Rules. The bot picks the best declarations for you (shown \
live); tap a placed Joker to declare it yourself — your choice wins ("automatic" undoes it).

## Special tiles
6 per level, face down, drawn at random, never given:
L1 🧂 Seasoning: not next to any order · 😠 Grumpy alien: not next to any other alien.
L2 🍱 Sharing Platter: next to ≥ 2 aliens · 😋 Hungry alien: next to ≥ 2 orders.
L3 🦃 Banquet: next to ≥ 3 aliens · 🤤 Glutton: next to ≥ 3 orders.
L4 📜 House Rule (no purple / green / blue / orange aliens, no drinks, no desserts): not placed; \
applies to your whole tray.
Grumpy, Hungry and Glutton are aliens of no colour; Platters and Banquets are orders of no \
category; Seasoning is neither.

## The service and the end
A service succeeds when every player has ≥ 10 points; the table then shows a picture of every \
tray (✓ met, ✗ failed). All tiles go back: aliens and orders to their bags, special tiles to \
their level's pile (reshuffled). The table wins at the 3rd successful service and loses at the \
3rd failed one (at most 5 rounds).

## Taking moves back
Placing, moving, taking back, holding and declaring on your own tray, and posting or withdrawing \
a request or offer, can be undone freely before Done. A gift needs the others' consent. Draws, \
Done and the level pick that starts the service can't be undone.
"""
