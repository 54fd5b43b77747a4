"""The rules in our own words, with every decision of shared/rules/cube-cafe.md and our own."""

HELP_TEXT = """\
## Cube Café
1–5 players (solo: beat your own best), 8 rounds, most money wins. Each player runs a \
restaurant; the staff dice are shared. Everything is open: the table shows every restaurant; \
you play yours from your private panel. Colours: 🟥R 🟨Y 🟩G 🟦B ⬜W; 🌟★ = wild.

## A round
1. **Arrive**: from round 4 a car joins your drive-thru's 3★ slot. Rounds 5 and 7: the round's \
VIP (2 of the 5 cards, drawn at setup) goes to the front of every queue; a full queue's last \
regular customer goes home.
2. **Shift change**: the bot rolls the 6 staff dice; everyone recruits those 6 staff.
3. **Assign jobs** (at the same time): spend staff one at a time, then **Done**. Unspent staff \
are lost. When the phase clock runs out, your remaining staff (and rewards not chosen) are \
forfeited and the table is told.
4. **Feed**: served customers eat and tip ★1 $1, ★2 $2, ★3 $3, ★4 $5, ★5 $8 (★0: $0); the plate \
stays dirty on the table. Everyone still waiting loses 1: a seated customer below 1 leaves \
(plate back in the bag), a car below 2 leaves. Food moves Grill → Hot → Cold → back to the \
menu; refills clear; the queue refills to 3 (regular customers never run out); the dishwasher \
empties.

## The wheel
Slots: 0 Seat/Drive-thru, 1 Take Order, 2 Cook, 3 Serve, 4 Refill. A job needs the staff colour \
facing its slot, or a wild (it takes that colour). Start: B W R G Y. Any staff may turn the \
wheel one step: ⟲ moves every colour to the previous slot.
• **Seat**: front customer → an empty table (no plate), at ★3 (VIPs: their card).
• **Drive-thru**: slot 0 must show the car's colour; a cube of it from your menu to the car.
• **Take Order**: draw a plate for a seated customer: its colour is the order.
• **Cook**: a cube of the Cook colour from the menu to the Grill (2 at most).
• **Serve**: any prep-track cube onto a waiting plate: Grill −1, Hot +1, Cold 0; wrong colour −1.
• **Refill**: +1, once per customer per round.
• **Manager**: instead of a job, move the manager by the slot's number (1–4).
Satisfaction stays within 0–5.

## Manager and dishwasher
The manager loops over 8 spaces. Every reward space reached **or passed** pays, in order (a \
4-step move from 2 pays spaces 3 and 5), but each pays **once a round**: 3 any colour · 5 any \
colour or $1 · 7 a wild or $2. Choose each reward before your next move; recruits work at once.
**Bus** (free): a dirty plate to an empty dishwasher space for its bonus: 1 manager +3 · 2 \
recruit the plate's colour · 3 copy a colour you hold (not a wild) · 4 turn the wheel to any \
position · 5 a free Refill · 6 manager +3. A bonus that can't be used (nothing to copy, nobody \
to refill) is lost.

## VIPs
Their effects last while they sit at one of your tables.
• 🧐 Food Critic: ★3; its tip is doubled.
• 🙋 The Regular: ★4; its plate is drawn when seated (later, if the bag was empty).
• 🎂 Birthday Party: ★3; every serve (cars too) gets +1.
• 👶 Crying Baby: ★2; your other seated customers lose 1 extra each round.
• 🎩 Tycoon: ★5; loses 2 a round; tips $12 at ★5.

## Details
Plates (40) and cars (15) are drawn from shuffled bags; an empty plate bag means no orders for \
now. A car arrives at ★3; unserved it moves to the 2★ slot, then leaves. A wild offered for a \
job you could do in colour is not listed (it would be wasted).

## End
After round 8: most money wins; a tie goes to fewest customers still at tables and in cars; \
still tied: a shared win.
"""
