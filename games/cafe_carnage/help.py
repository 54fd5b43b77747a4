"""The rules of Café Carnage in our own words, with the table's decisions (≤ 3500 characters,
in `## ` sections: front ends page the help by them)."""

HELP_TEXT = """\
## Café Carnage
3–8 players (the box says 4–6; 3 and 7–8 are variants), 5 rounds.
Everyone starts with **$30** and 5 action cards: 2 × 🤝 Split the Bill Evenly, \
2 × 🧾 Each Pay Separately, 1 × 🏃 RUN!. A dish's value is both its Gourmet Points (GP) \
and its price in $.

## A round
All by DM, in one step:
1. **Order**: you get 3 starters, 3 mains and 3 desserts; keep one of each.
2. **Secret ballot**: play one action card from your hand.
Your DM has a row of buttons per course and one for your action card: one tap each, your picks so far in blue. You may change both until you press **Confirm**. The table only sees who has confirmed.
3. **Dinner is served**: all dishes are revealed; you gain GP equal to your meal's value.
4. **Check, please!** RUN! cards are revealed (see Security).
5. **Settle up**: the others' cards are tallied anonymously (who voted what is never shown).
• Majority Split: all unpaid meals (theirs, plus escaped runners' meals when nobody was \
caught) are divided among the remaining players, rounded up.
• Majority Separate, or a tie: each pays for their own meal; escaped runners' meals go unpaid.
• If everyone ran, nothing more is paid.
6. **IOU**: if you can't pay, you automatically take $5 from the supply and lose 5 GP, as \
often as needed, and hold an IOU for the rest of the game.
7. Played cards are discarded (a caught runner keeps RUN!). Unchosen dishes go back into \
their decks; if a deck can't deal 3 to everyone, that course's eaten dishes are shuffled back.

## Security
• 1 runner escapes and pays nothing. 2+ runners whose meals all cost the same all escape.
• Otherwise the priciest meals are caught. How many depends on how many RUN: 1 runner is \
caught if 2–4 ran, 2 if 5 or more ran; everyone tied at that line is caught too \
(3 runners at $9, $9, $5 → both $9 caught).
• The caught pay the total of **all** runners' meals, split equally, each share rounded up.
• Escaped runners discard RUN! for the rest of the game; caught runners take it back.

## End of game
After round 5, each player **without an IOU** gains 1 GP per $ left. Most GP wins; ties go \
to the larger budget left; still tied, the win is shared.
Payments go to the supply; rounding extras are the waiters' tip.

## Options
• `no_repeats`: no dish twice in a week. A dish you ate in an earlier round isn't offered \
while that course of your menu has one you haven't eaten; only when all of that course were \
eaten must you pick one of them: it gives 0 GP but still costs its price. Your menu marks \
eaten dishes.
• `turn_timeout`: how long the table waits (default 24 h). At the deadline, whatever you \
haven't chosen is filled in: the cheapest dish on offer for each missing course and Each Pay \
Separately if you hold one (else Split, else RUN!); choices you already made are kept. The \
channel is told who was auto-played. A reminder comes halfway.
"""
