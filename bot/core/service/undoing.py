"""Taking a move back: at once, or asked of the other players and granted when they agree
or nobody objects in time."""

from __future__ import annotations

import json

from bot.core.errors import NotAllowed, UserError
from bot.core.seats import is_robot
from bot.core.service.model import Session, UndoAnswer, names_of, notice
from bot.core.service.writing import Writing
from bot.core.stale import retry_stale_writes
from bot.core.store import NewAction, NewPost, SessionStatus, UndoRequestRow
from bot.core.undo import UndoPlan, plan_undo
from games.engine import Undo
from games.presentation import player as player_token


class Undoing(Writing):
    """Undo requests and the undos they grant."""

    # -- undo ------------------------------------------------------------------------------------
    @retry_stale_writes
    async def ask_undo(self, session_id: int, user_id: str) -> UndoAnswer:
        """``user_id`` asks to take back their last move: at once when it affects nobody else
        (Undo.FREE, or nobody else is seated), else the others are asked (a post with
        buttons) and it is taken back when all agree or nobody objects in time."""
        async with self.lock(session_id):
            s = await self.load(session_id)
            self._require_playing(s)
            if s.player(user_id) is None:
                raise NotAllowed("You're not playing in this game.")
            plan = await self._plan_undo(s, user_id)
            # Bot players agree at once: only the people are asked.
            others = [p for p in s.player_ids if p != user_id and not is_robot(p)]
            if plan.policy is Undo.FREE or not others:
                bots = plan.policy is not Undo.FREE and len(s.player_ids) > 1
                why = "the bot players agreed" if bots else "it affected nobody else yet"
                await self._undo(s, plan, why)
                answer = UndoAnswer(f"↩️ Taken back: {plan.label}.", undone=True)
            else:
                answer = await self._ask_others(s, plan, user_id, others)
        self._changed(session_id, None if answer.undone else frozenset())
        return answer

    async def _ask_others(
        self, s: Session, plan: UndoPlan, user_id: str, others: list[str]
    ) -> UndoAnswer:
        now = self.now()
        due = now + self.undo_wait
        seq = plan.target.seq
        request = {"seq": seq, "player": user_id, "label": plan.public_label, "due": due}
        await self.store.ask_undo(
            UndoRequestRow(s.id, seq, user_id, "", now, due),
            [NewPost({"undo_request": request, "ping": others})],
        )
        return UndoAnswer(
            f"↩️ Asked the others to let you take back {plan.label}: it is undone when they "
            f"all agree, or if nobody objects <t:{int(due)}:R>.",
            settled=False,
            due=due,
            seq=seq,
        )

    @retry_stale_writes
    async def answer_undo(self, session_id: int, user_id: str, seq: int, agree: bool) -> UndoAnswer:
        """Another player agrees to (or objects to) the undo of move ``seq``."""
        async with self.lock(session_id):
            request = await self.store.undo_request(session_id)
            if request is None or request.seq != seq:
                raise NotAllowed("That undo request is over.")
            s = await self.load(session_id)
            if s.player(user_id) is None:
                raise NotAllowed("Only the players of this game decide.")
            if user_id == request.player:
                raise NotAllowed("It's your own request: the others decide.")
            who = player_token(user_id)
            if not agree:
                # Nothing changes: the request's own message says so (no post of its own).
                text = f"✋ {who} objected: {player_token(request.player)}'s move stands."
                await self.store.drop_undo(session_id, [])
                answer = UndoAnswer(text)
            else:
                # Counted in the store at once: two players agreeing together (through two
                # processes sharing the database) are both counted.
                stored = await self.store.agree_undo(session_id, seq, user_id)
                if stored is None:
                    raise NotAllowed("That undo request is over.")
                agreed = sorted(stored)
                waiting = [
                    p
                    for p in s.player_ids
                    if p not in agreed and p != request.player and not is_robot(p)
                ]
                if waiting:
                    return UndoAnswer(
                        f"👍 {names_of(agreed)} agreed; waiting for {names_of(waiting)}.",
                        settled=False,
                        due=request.due_at,
                        seq=seq,
                    )
                answer = await self._grant(s, request, "everyone agreed")
        self._changed(session_id)
        return answer

    async def settle_due_undos(self) -> int:
        """Grant the requests nobody objected to in time (the scheduler calls this)."""
        granted = 0
        for request in await self.store.undo_requests_due(self.now()):
            granted += await self._settle_undo(request.session_id)
        return granted

    @retry_stale_writes
    async def _settle_undo(self, session_id: int) -> bool:
        async with self.lock(session_id):
            # Read again under the lock: settled meanwhile (here, or by another process
            # sharing the database, whose grant makes this one's write stale: retried).
            current = await self.store.undo_request(session_id)
            if current is None or current.due_at > self.now():
                return False
            try:
                s = await self.load(session_id)
            except UserError:
                await self.store.drop_undo(session_id, [])
                return False
            answer = await self._grant(s, current, "nobody objected")
        self._changed(session_id)
        return answer.undone

    async def next_undo_due(self) -> float | None:
        return await self.store.next_undo_due()

    async def _grant(self, s: Session, request: UndoRequestRow, why: str) -> UndoAnswer:
        """Take the move back if that is still possible (the game may have moved on)."""
        try:
            if s.status is not SessionStatus.ACTIVE:
                raise NotAllowed("the game has ended.")
            plan = await self._plan_undo(s, request.player, request.seq)
        except UserError as exc:
            text = (
                f"↩️ {player_token(request.player)}'s move stands after all: "
                f"{exc.message[0].lower()}{exc.message[1:]}"
            )
            await self.store.drop_undo(s.id, [notice(text)])
            return UndoAnswer(text)
        await self._undo(s, plan, why)
        return UndoAnswer(
            f"↩️ {player_token(request.player)} took back {plan.public_label} ({why}).", undone=True
        )

    async def _plan_undo(self, s: Session, player: str, seq: int | None = None) -> UndoPlan:
        assert s.state is not None
        return plan_undo(
            s.game,
            players=s.player_ids,
            options=s.options,
            seed=s.row.seed,
            log=await self.store.actions(s.id),
            current=s.state,
            player=player,
            names=s.names(),
            seq=seq,
        )

    async def _undo(self, s: Session, plan: UndoPlan, why: str) -> None:
        """Commit the state without the move, and the undo entry naming it."""
        assert s.state is not None
        entry = NewAction(
            plan.target.player, json.dumps({"undo": plan.target.seq}), undoes=plan.target.seq
        )
        text = f"↩️ {player_token(plan.target.player)} took back {plan.public_label} ({why})."
        await self._commit(s, s.state, plan.state, [entry], [notice(text)], settle_undo=True)
