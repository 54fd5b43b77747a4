"""A private run: a player's moves played one after another in one transaction (a bot seat's
picks, ballot and Confirm), while nobody else can see them yet. The session service plays runs
(``act_with(private_run=True)``) and the arena plays hard seats' plans by the same rule."""

from __future__ import annotations

from typing import Any

from games.engine import Game, GameState, PlayerId

# At most this many moves in one private run: a random player may dither over its picks, and
# the run holds the event loop (the rest is played after its next pause).
PRIVATE_RUN_MOST = 32


def run_goes_on(
    game: Game[Any, Any],
    state: GameState,
    player: PlayerId,
    touched: set[PlayerId | None],
    played: int,
) -> bool:
    """Whether the player's run goes on after ``played`` moves that left ``state``: each so far
    changed no view but the player's own (``touched``: the views they changed; a caller whose
    moves may have changed any view stops before asking), the game goes on, the player is still
    awaited, and the run is under its cap."""
    return (
        played < PRIVATE_RUN_MOST
        and touched <= {player}
        and game.outcome(state) is None
        and player in game.active_players(state)
    )
