"""The rules of Breakfast vs Aliens in our own words, with the table's decisions (≤ 3500 chars)."""

HELP_TEXT = """\
## Breakfast vs Aliens
Capture aliens with your breakfast heroes! 60 cards: 24 🍩 heroes, 18 🛸 aliens \
(1, 3, 5 or 8 pts), 10 💎 treasures, 8 🌪️ disasters. Colours: 🟥 R (Courage/Fear), 🟦 B \
(Wisdom/Dishonesty), 🟪 P (Respect/Rudeness), 🟨 Y (Effort/Laziness). Table cards are public; \
only the deck is hidden. Everyone starts with 3 heroes; a random player begins, then clockwise. \
Most points wins; ties share the win.

## Capturing
Use any set of your heroes whose traits (treasures included) cover the alien's, with \
multiplicity (🟥🟥 needs two reds). Those heroes are discarded with their treasures; the alien \
goes to your jail. The bot proposes the fewest heroes, then the fewest wasted traits (equal \
heroes: fewer treasures first); pick another set from the menu if you like.

## Mini-Muffin (default)
Card texts ignored. Your turn: draw a card.
• Hero: yours. Treasure: attach it to a hero you choose; it adds its bar's colour. No hero: it \
waits for your next one.
• Disaster: beside the deck; its colour is added to the next alien (they stack).
• Alien: you may capture it; if not, the next players clockwise get the offer one at a time \
(those who can't are skipped). Nobody: it escapes, its disasters are discarded. Captured \
disasters score 1 pt each.
Deck empty: clockwise from the next player, each who can may capture one escaped alien or pass, \
until a full round passes without a capture.

## Full Pancake
Colour bars ignored, texts used. 3 face-up play cards (a disaster drawn for them goes under). \
Your turn: refill to 3 (a disaster drawn then happens and ends your turn; a Breakfast Rush is \
yours, with another turn), then one action: capture a play-card alien; take a play-card hero \
or treasure; use your Toaster or Compass; or draw (alien: capture it or put it under, at once \
if you can't; disaster: it happens; hero/treasure: yours). Pass only on an empty deck. The game \
ends after the turn in which the last card is drawn. Stalemate: after (deck + players) turns in \
a row with no capture and no card leaving the deck, it ends too.

## Full Pancake cards
• Treasures go on a hero you choose (or wait) and are lost with it. A Jam Jar's colour is \
chosen when you gain it.
• Golden Spatula: when capturing, ignore one trait (a one-trait alien needs no hero); discarded.
• Syrup Shield: when a disaster is revealed, holders have 45 s to cancel it (both discarded); \
a cancelled disaster does nothing, your turn goes on.
• Magic Toaster, Cereal Compass: your action, reusable; only you see the cards. Toaster: top 2 \
(fewer if the deck is short); keep a hero or treasure if any, the rest go under in order. \
Compass: top 3, back on top in the order you pick.
• Breakfast Rush: from the deck (refill, draw, Toaster) it gives another turn; taken from the \
play cards it is just a treasure.
• Burnt Toast: whoever revealed it discards a hero.
• Spilled Milk: everyone with a hero passes one left, all at once (shown when all chose).
• Alien Reinforcements: +2 to the next capture by anyone (they stack).
• Kitchen Fire: play cards discarded and refilled (disasters go under).

## Timers
`turn_timeout` (default 24 h): an absent player draws and declines captures (puts a drawn \
alien back; passes on an empty deck), attaches to their first hero, picks the colour they have \
least of, gives up their weakest hero, keeps the first keepable card or the order. A capture \
offer to another player and Spilled Milk wait 2 min (or the turn timer if shorter); the Syrup \
Shield window 45 s, then it happens.
"""
