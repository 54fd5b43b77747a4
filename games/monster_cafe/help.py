"""The rules in our own words, with every decision of shared/rules/monster-cafe.md."""

HELP_TEXT = """\
## Monster Café
2–4 players, 4 rounds. Collect monsters and the meals that feed them. Everything is public: \
play with the buttons on the table message.

## Cards
60 monsters: 6 each of 👁️ Eyeball, 🧠 Brain, 🦝 Roadkill, 🧦 Stinky Sock, 🦶 Toenail, \
🐰 Dust Bunny, 🤢 Sludge and 🧶 Bellybutton Lint Eaters, 6 🃏 Anything Eaters (wild) and \
6 🍋 Lemon Sorbets. 16 tables: 2 each of 🍝 Spaghetti and Eyeballs, 🍲 Boiled Brains, \
🍖 Roasted Roadkill, 🥘 Stinky Sock Stew, 🥩 Toenail Tartare, 🥚 Deviled Dust Bunnies, \
🍮 Sludge Soufflé and 🥪 B.B.L.T. Each table seats 4 monsters.

## Setup
Everyone starts with one monster (a sorbet is shuffled back and redrawn). A random player \
starts round 1. 4 players: 4 tables a round. 3 players: two regular monster types, chosen at \
random, leave the game with their 4 tables; 3 tables a round. 2 players: as for 3, and one \
table is a *dummy*: once both players have cleared a table, the table left over is discarded \
with its monsters.

## Your turn
• **Draw**: the top monster is revealed; seat it at any table with a free seat. Turn over.
• **Clear**: take a table that has at least one monster, with all its monsters; you sit out \
the rest of the round. Two taps: **Clear**, then **Confirm** (or **Cancel**), so a misclick \
never ends your round.
• Every table full → you must clear. No monster seated anywhere → you must draw.
• **🍋 Lemon Sorbet** drawn: pick one monster type from your collection (Anything Eaters are a \
type) and discard all of it with the sorbet. Empty collection: the sorbet is simply discarded. \
Turn over.
• **Last diner**: the last player left in a round keeps taking turns (draw, or clear) until \
they clear; a sorbet doesn't stop the run.
• **Empty deck**: every player left must clear a table, and then (only then) an empty table \
may be taken — it can still feed monsters.

## Rounds
A round ends when everyone has cleared a table. Whoever cleared the last table starts the \
next round; play goes on to the left (next seat). After round 4 the game ends.

## Scoring
Each monster: **+1** if you have one table of its meal, **+2** if you have both, **−1** if \
unfed. Each 🃏 Anything Eater is fed by whichever of your meals scores best for it — the bot \
places it for you. Unused tables score 0. Highest total wins; ties share the win. The table \
shows 📈 each player's score if the game ended now.
*Example*: 3 Sludge Eaters + one Sludge Soufflé (+3), a Stinky Sock Eater and an Anything \
Eater + both Stinky Sock Stews (+4), 3 unfed monsters (−3), an unused Spaghetti and \
Eyeballs (0) = 4.

## Timer
When your turn clock runs out the bot plays for you: it draws if a seat is free (seating the \
monster where it best fits your collection; a sorbet discards the type that hurts least), \
else clears the table with the most monsters. The last diner clears the fullest table at once \
(drawing first only if every table left is empty). A clear you asked for is confirmed if it \
is that table, else cancelled. The channel is told what was played.
"""
