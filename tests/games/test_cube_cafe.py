"""Cube Café: the rulebook's examples and a scenario for every rule branch of the rules file."""

from __future__ import annotations

import pytest

from games.cube_cafe import GAME
from games.cube_cafe.actions import (
    Action,
    Bus,
    Cash,
    Cook,
    Done,
    Drive,
    FreeRefill,
    Manager,
    Order,
    Recruit,
    Refill,
    Rotate,
    Seat,
    Serve,
    Wheel,
)
from games.cube_cafe.catalogue import (
    BABY,
    BIRTHDAY,
    CRITIC,
    DICE,
    GUEST,
    REGULAR,
    STAFF,
    TYCOON,
    VIPS,
    Colour,
    Source,
    Staff,
    tip,
)
from games.cube_cafe.state import Car, CubeCafeOptions, CubeCafeState
from games.engine import ALL_VIEWS, IllegalAction, Undo, apply, new_game, play_timeout

# -- helpers -------------------------------------------------------------------------------------


def fresh(players: int = 1, seed: int = 1) -> CubeCafeState:
    return new_game(GAME, [f"p{i}" for i in range(players)], CubeCafeOptions(), seed)


def staff(state: CubeCafeState, pid: str, *meeples: Staff) -> None:
    """Replace ``pid``'s staff this round with ``meeples``."""
    board = state.boards[pid]
    board.hand = sorted(meeples, key=STAFF.index)
    board.recruited = list(board.hand)
    board.spent, board.forfeited = [], []


def plate(state: CubeCafeState, colour: Colour) -> Colour:
    """Take a plate of ``colour`` out of the bag (for a hand-built table)."""
    state.plate_bag.remove(colour)
    return colour


def seat_guest(
    state: CubeCafeState,
    pid: str,
    table: int,
    satisfaction: int,
    order: Colour | None = None,
    guest: str = GUEST,
) -> None:
    t = state.boards[pid].tables[table - 1]
    t.guest, t.satisfaction = guest, satisfaction
    t.plate = plate(state, order) if order else None


def put_cube(state: CubeCafeState, pid: str, source: Source, colour: Colour) -> None:
    board = state.boards[pid]
    board.menu[colour] -= 1
    board.track(source).append(colour)


def play(state: CubeCafeState, pid: str, *actions: Action) -> CubeCafeState:
    for action in actions:
        state = apply(GAME, state, pid, action)
        GAME.check_invariants(state)
    return state


def end_round(state: CubeCafeState) -> CubeCafeState:
    for pid in state.players:
        if not state.boards[pid].done:
            state = play(state, pid, Done())
    return state


def refused(state: CubeCafeState, pid: str, action: Action, words: str) -> None:
    with pytest.raises(IllegalAction, match=words):
        apply(GAME, state, pid, action)


# -- setup, dice, wheel --------------------------------------------------------------------------


def test_setup_rolls_six_dice_and_everyone_recruits_the_same_staff() -> None:
    state = fresh(3, seed=5)
    GAME.check_invariants(state)
    assert len(state.dice) == 6
    for die, face in zip(DICE, state.dice, strict=True):
        assert face in die
    assert all(state.boards[p].hand == sorted(state.dice, key=STAFF.index) for p in state.players)
    assert state.round == 1 and len(state.vips) == 2 and set(state.vips) <= set(VIPS)
    assert len(state.plate_bag) == 40 and len(state.car_bag) == 15
    board = state.boards["p0"]
    assert board.queue == [GUEST] * 3 and board.menu == dict.fromkeys(board.menu, 2)
    assert [board.colour_at(s) for s in range(5)] == ["blue", "white", "red", "green", "yellow"]
    assert "Round 1/8" in state.announcements[-1].title
    assert state.announcements[-1].ping == state.players


def test_rulebook_wheel_example_blue_seats_yellow_rotates_red_takes_the_order() -> None:
    state = fresh()
    staff(state, "p0", "blue", "yellow", "red")
    top_plate = state.plate_bag[-1]
    state = play(state, "p0", Seat(staff="blue", table=1))
    table = state.boards["p0"].tables[0]
    assert table.guest == GUEST and table.satisfaction == 3
    assert state.boards["p0"].queue == [GUEST, GUEST]
    refused(state, "p0", Order(staff="red", table=1), "white staff")
    state = play(state, "p0", Rotate(staff="yellow", direction="ccw"))
    board = state.boards["p0"]
    assert board.colour_at(0) == "white" and board.colour_at(1) == "red"
    state = play(state, "p0", Order(staff="red", table=1))
    assert state.boards["p0"].tables[0].plate == top_plate
    assert state.boards["p0"].hand == [] and state.boards["p0"].spent == ["red", "yellow", "blue"]


def test_rotating_clockwise_and_a_wild_takes_the_slot_colour() -> None:
    state = fresh()
    staff(state, "p0", "white", "wild")
    state = play(state, "p0", Rotate(staff="white", direction="cw"))
    assert state.boards["p0"].colour_at(2) == "white"  # green, then white moves up to Cook
    state = play(state, "p0", Cook(staff="wild"))
    assert state.boards["p0"].grill == ["white"] and state.boards["p0"].menu["white"] == 1


def test_cook_needs_the_slot_colour_room_on_the_grill_and_a_cube_on_the_menu() -> None:
    state = fresh()
    staff(state, "p0", "red", "red", "red", "blue")
    refused(state, "p0", Cook(staff="blue"), "red staff")
    state = play(state, "p0", Cook(staff="red"), Cook(staff="red"))
    assert state.boards["p0"].grill == ["red", "red"] and state.boards["p0"].menu["red"] == 0
    refused(state, "p0", Cook(staff="red"), "Grill holds 2")
    state.boards["p0"].grill = []
    state.boards["p0"].hot = ["red", "red"]
    refused(state, "p0", Cook(staff="red"), "no red cube")


def test_seat_needs_an_empty_table_without_a_plate() -> None:
    state = fresh()
    staff(state, "p0", "blue")
    board = state.boards["p0"]
    board.tables[0].plate, board.tables[0].dirty = plate(state, "green"), True
    refused(state, "p0", Seat(staff="blue", table=1), "bus its dirty plate")
    refused(state, "p0", Seat(staff="blue", table=4), "only 3 tables")
    state = play(state, "p0", Seat(staff="blue", table=2))
    assert state.boards["p0"].tables[1].guest == GUEST


def test_take_order_is_refused_when_the_plate_bag_is_empty() -> None:
    state = fresh()
    staff(state, "p0", "white")
    seat_guest(state, "p0", 1, 3)
    order = Order(staff="white", table=1)
    assert GAME.is_legal(state, "p0", order)
    empty = state.model_copy(deep=True)
    empty.plate_bag = []  # (a probe of legality only: the plates are nowhere)
    assert not GAME.is_legal(empty, "p0", order)
    assert GAME.explain_illegal(empty, "p0", order).startswith("The plate bag is empty")
    assert order not in GAME.legal_actions(empty, "p0")


def test_the_regular_seated_with_an_empty_bag_orders_later() -> None:
    state = fresh()
    state.boards["p0"].queue = [REGULAR, GUEST, GUEST]
    state.vips = [REGULAR, CRITIC]
    state.round = 5
    state.progress = [{"p0": 0}] * 4
    staff(state, "p0", "blue")
    empty = state.model_copy(deep=True)
    empty.plate_bag = []
    seated = GAME.apply_action(empty, "p0", Seat(staff="blue", table=1))
    table = seated.boards["p0"].tables[0]
    assert table.guest == REGULAR and table.satisfaction == 4 and table.plate is None


# -- serving -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("source", "after"), [("grill", 2), ("hot", 4), ("cold", 3)])
def test_serving_from_each_prep_track_position(source: Source, after: int) -> None:
    state = fresh()
    staff(state, "p0", "green")
    seat_guest(state, "p0", 1, 3, order="red")
    put_cube(state, "p0", source, "red")
    state = play(state, "p0", Serve(staff="green", source=source, cube="red", table=1))
    table = state.boards["p0"].tables[0]
    assert table.cube == "red" and table.satisfaction == after
    assert state.boards["p0"].track(source) == []


def test_rulebook_serve_example_hot_but_wrong_colour_cancels_out() -> None:
    state = fresh()
    staff(state, "p0", "green", "green")
    seat_guest(state, "p0", 1, 3, order="blue")
    seat_guest(state, "p0", 2, 3, order="blue")
    put_cube(state, "p0", "hot", "yellow")
    put_cube(state, "p0", "cold", "yellow")
    state = play(state, "p0", Serve(staff="green", source="hot", cube="yellow", table=1))
    state = play(state, "p0", Serve(staff="green", source="cold", cube="yellow", table=2))
    tables = state.boards["p0"].tables
    assert tables[0].satisfaction == 3  # +1 hot, −1 "that's not what I ordered"
    assert tables[1].satisfaction == 2  # cold 0, −1 wrong colour


def test_serve_refusals() -> None:
    state = fresh()
    staff(state, "p0", "green")
    seat_guest(state, "p0", 1, 3)
    put_cube(state, "p0", "hot", "red")
    refused(state, "p0", Serve(staff="green", source="hot", cube="red", table=1), "order first")
    refused(state, "p0", Serve(staff="green", source="cold", cube="red", table=1), "no red cube")
    refused(state, "p0", Serve(staff="green", source="hot", cube="red", table=2), "Nobody")


def test_satisfaction_stays_within_0_and_5() -> None:
    state = fresh()
    staff(state, "p0", "green", "green", "yellow")
    seat_guest(state, "p0", 1, 0, order="red")
    seat_guest(state, "p0", 2, 5, order="red")
    put_cube(state, "p0", "grill", "blue")
    put_cube(state, "p0", "hot", "red")
    state = play(state, "p0", Serve(staff="green", source="grill", cube="blue", table=1))
    state = play(state, "p0", Serve(staff="green", source="hot", cube="red", table=2))
    state = play(state, "p0", Refill(staff="yellow", table=2))
    assert [t.satisfaction for t in state.boards["p0"].tables[:2]] == [0, 5]


def test_refill_once_per_customer_per_round() -> None:
    state = fresh()
    staff(state, "p0", "yellow", "yellow")
    seat_guest(state, "p0", 1, 2, order="red")
    state = play(state, "p0", Refill(staff="yellow", table=1))
    assert state.boards["p0"].tables[0].satisfaction == 3 and state.boards["p0"].tables[0].refill
    refused(state, "p0", Refill(staff="yellow", table=1), "one per customer per round")
    state = end_round(state)
    table = state.boards["p0"].tables[0]
    assert not table.refill and table.satisfaction == 2  # impatience took 1 at the end of round
    staff(state, "p0", "yellow")
    state = play(state, "p0", Refill(staff="yellow", table=1))
    assert state.boards["p0"].tables[0].satisfaction == 3


# -- the manager track ---------------------------------------------------------------------------


def test_manager_space_3_recruits_any_colour_which_works_at_once() -> None:
    state = fresh()
    staff(state, "p0", "green")
    state = play(state, "p0", Manager(staff="green", slot=3))
    board = state.boards["p0"]
    assert board.manager == 3 and board.pending == ["any"]
    refused(state, "p0", Cook(staff="red"), "First choose your reward")
    refused(state, "p0", Done(), "First choose your reward")
    refused(state, "p0", Cash(), "can't be taken as money")
    refused(state, "p0", Recruit(staff="wild"), "not a wild")
    state = play(state, "p0", Recruit(staff="red"))
    assert state.boards["p0"].hand == ["red"] and state.boards["p0"].pending == []
    state = play(state, "p0", Cook(staff="red"))
    assert state.boards["p0"].grill == ["red"]


def test_rulebook_manager_example_passing_space_5_recruit_or_dollar() -> None:
    state = fresh()
    staff(state, "p0", "green", "green")
    state.boards["p0"].manager = 3
    state = play(state, "p0", Manager(staff="green", slot=3))  # white in the rulebook: 3 steps
    assert state.boards["p0"].manager == 6 and state.boards["p0"].pending == ["any_or_cash"]
    taken_cash = play(state, "p0", Cash())
    assert taken_cash.boards["p0"].money == 1 and taken_cash.boards["p0"].hand == ["green"]
    recruited = play(state, "p0", Recruit(staff="blue"))
    assert recruited.boards["p0"].money == 0 and recruited.boards["p0"].hand == ["green", "blue"]
    # ...and the blue recruit does a Refill at once (once the wheel shows blue on Refill).
    seat_guest(recruited, "p0", 1, 3, order="red")
    recruited = play(recruited, "p0", Rotate(staff="green", direction="ccw"))
    assert recruited.boards["p0"].colour_at(4) == "blue"
    recruited = play(recruited, "p0", Refill(staff="blue", table=1))
    assert recruited.boards["p0"].tables[0].satisfaction == 4


def test_manager_space_7_recruits_a_wild_or_pays_2() -> None:
    state = fresh()
    staff(state, "p0", "yellow", "yellow")
    state.boards["p0"].manager = 3
    state = play(state, "p0", Manager(staff="yellow", slot=4))
    assert state.boards["p0"].pending == ["any_or_cash", "wild_or_cash"]
    state = play(state, "p0", Cash())
    refused(state, "p0", Recruit(staff="red"), "recruits a wild")
    wild = play(state, "p0", Recruit(staff="wild"))
    assert wild.boards["p0"].hand == ["yellow", "wild"] and wild.boards["p0"].money == 1
    cash = play(state, "p0", Cash())
    assert cash.boards["p0"].money == 3 and cash.boards["p0"].pending == []


def test_manager_passing_several_rewards_pays_each_in_order_and_loops() -> None:
    state = fresh()
    staff(state, "p0", "yellow", "yellow", "yellow")
    state.boards["p0"].manager = 2
    state = play(state, "p0", Manager(staff="yellow", slot=4))  # 2 → 6: passes 3 and 5
    assert state.boards["p0"].pending == ["any", "any_or_cash"]
    state = play(state, "p0", Recruit(staff="white"), Cash())
    state = play(state, "p0", Manager(staff="yellow", slot=4))  # 6 → 2: passes 7 and Now Open
    board = state.boards["p0"]
    assert board.manager == 2 and board.pending == ["wild_or_cash"]
    # Each reward space pays once a round: a second lap pays nothing (no endless staff engine).
    state = play(state, "p0", Cash(), Manager(staff="yellow", slot=4))
    assert state.boards["p0"].manager == 6 and state.boards["p0"].pending == []
    state = end_round(state)
    assert state.boards["p0"].paid == []


def test_manager_moves_by_the_slot_number_and_needs_its_colour() -> None:
    state = fresh()
    staff(state, "p0", "red", "blue")
    refused(state, "p0", Manager(staff="blue", slot=2), "red staff")
    refused(state, "p0", Manager(staff="blue", slot=0), "numbered 1–4")
    state = play(state, "p0", Manager(staff="red", slot=2))
    assert state.boards["p0"].manager == 2 and state.boards["p0"].pending == []


# -- the dishwasher ------------------------------------------------------------------------------


def dirty_table(state: CubeCafeState, number: int, colour: Colour) -> None:
    table = state.boards["p0"].tables[number - 1]
    table.plate, table.dirty = plate(state, colour), True


def test_dishwasher_space_1_and_6_advance_the_manager_3() -> None:
    state = fresh()
    staff(state, "p0")
    dirty_table(state, 1, "red")
    dirty_table(state, 2, "blue")
    state = play(state, "p0", Bus(table=1, space=1))
    board = state.boards["p0"]
    assert board.manager == 3 and board.pending == ["any"] and board.dishwasher[0] == "red"
    assert board.tables[0].plate is None and board.tables[0].free
    state = play(state, "p0", Recruit(staff="green"), Bus(table=2, space=6))
    assert state.boards["p0"].manager == 6 and state.boards["p0"].pending == ["any_or_cash"]
    refused(state, "p0", Bus(table=2, space=2), "reward")


def test_dishwasher_space_2_recruits_the_plates_colour() -> None:
    state = fresh()
    staff(state, "p0")
    dirty_table(state, 3, "yellow")
    state = play(state, "p0", Bus(table=3, space=2))
    assert state.boards["p0"].hand == ["yellow"] and state.boards["p0"].recruited == ["yellow"]


def test_dishwasher_space_3_copies_a_colour_you_hold() -> None:
    state = fresh()
    staff(state, "p0", "green", "wild")
    dirty_table(state, 1, "red")
    state = play(state, "p0", Bus(table=1, space=3))
    assert state.boards["p0"].pending == ["copy"]
    refused(state, "p0", Recruit(staff="red"), "Copy a colour")
    refused(state, "p0", Recruit(staff="wild"), "Copy a colour")
    state = play(state, "p0", Recruit(staff="green"))
    assert state.boards["p0"].hand == ["green", "green", "wild"]


def test_dishwasher_space_3_is_lost_without_a_coloured_staff() -> None:
    state = fresh()
    staff(state, "p0", "wild")
    dirty_table(state, 1, "red")
    state = play(state, "p0", Bus(table=1, space=3))
    assert state.boards["p0"].pending == [] and "lost" in state.boards["p0"].notes[-1]


def test_dishwasher_space_4_turns_the_wheel_to_any_position() -> None:
    state = fresh()
    staff(state, "p0")
    dirty_table(state, 1, "red")
    state = play(state, "p0", Bus(table=1, space=4))
    assert state.boards["p0"].pending == ["wheel"]
    state = play(state, "p0", Wheel(seat="green"))
    board = state.boards["p0"]
    assert [board.colour_at(s) for s in range(5)] == ["green", "yellow", "blue", "white", "red"]


def test_dishwasher_space_5_is_a_free_refill() -> None:
    state = fresh()
    staff(state, "p0")
    dirty_table(state, 1, "red")
    seat_guest(state, "p0", 2, 2, order="white")
    state = play(state, "p0", Bus(table=1, space=5))
    assert state.boards["p0"].pending == ["refill"]
    refused(state, "p0", FreeRefill(table=1), "Nobody is seated")
    state = play(state, "p0", FreeRefill(table=2))
    table = state.boards["p0"].tables[1]
    assert table.satisfaction == 3 and table.refill and state.boards["p0"].spent == []


def test_dishwasher_spaces_are_taken_once_and_empty_at_the_end_of_the_round() -> None:
    state = fresh()
    staff(state, "p0")
    dirty_table(state, 1, "red")
    dirty_table(state, 2, "red")
    state = play(state, "p0", Bus(table=1, space=2))
    refused(state, "p0", Bus(table=2, space=2), "space is taken")
    refused(state, "p0", Bus(table=3, space=1), "no dirty plate")
    bag = len(state.plate_bag)
    state = end_round(state)
    assert state.boards["p0"].dishwasher == [None] * 6 and len(state.plate_bag) == bag + 1


# -- feeding, impatience, food ------------------------------------------------------------------


def test_feeding_tips_by_satisfaction_leaves_a_dirty_plate_and_returns_the_cube() -> None:
    state = fresh()
    staff(state, "p0")
    for number, sat in ((1, 4), (2, 5)):
        seat_guest(state, "p0", number, sat, order="red")
        table = state.boards["p0"].tables[number - 1]
        table.cube = "red"
        state.boards["p0"].menu["red"] -= 1
    state = end_round(state)
    board = state.boards["p0"]
    assert board.money == 5 + 8 and board.menu["red"] == 2
    assert all(t.guest is None and t.dirty and t.plate == "red" for t in board.tables[:2])
    assert "+$13" in state.announcements[-2].description


def test_impatience_makes_a_customer_leave_and_returns_their_plate() -> None:
    state = fresh()
    staff(state, "p0")
    seat_guest(state, "p0", 1, 1, order="blue")
    seat_guest(state, "p0", 2, 2)
    bag = len(state.plate_bag)
    state = end_round(state)
    board = state.boards["p0"]
    assert board.tables[0].guest is None and board.tables[0].plate is None
    assert board.tables[1].guest == GUEST and board.tables[1].satisfaction == 1
    assert len(state.plate_bag) == bag + 1
    assert "left unfed: table 1" in state.announcements[-2].description


def test_food_advances_and_cubes_on_the_cold_counter_are_thrown_out() -> None:
    state = fresh()
    staff(state, "p0")
    put_cube(state, "p0", "grill", "red")
    put_cube(state, "p0", "hot", "blue")
    put_cube(state, "p0", "cold", "green")
    state = end_round(state)
    board = state.boards["p0"]
    assert (board.grill, board.hot, board.cold) == ([], ["red"], ["blue"])
    assert board.menu == {"red": 1, "yellow": 2, "green": 2, "blue": 1, "white": 2}
    assert "thrown out: G" in state.announcements[-2].description


def test_the_queue_refills_to_three_and_unspent_staff_are_lost() -> None:
    state = fresh()
    staff(state, "p0", "blue", "blue", "red")
    state = play(state, "p0", Seat(staff="blue", table=1), Seat(staff="blue", table=2))
    assert state.boards["p0"].queue == [GUEST]
    state = end_round(state)
    board = state.boards["p0"]
    assert board.queue == [GUEST] * 3 and board.hand == sorted(state.dice, key=STAFF.index)
    assert board.spent == [] and board.forfeited == []
    assert state.progress == [{"p0": 0}]


# -- drive-thru ----------------------------------------------------------------------------------


def to_round(state: CubeCafeState, round_no: int) -> CubeCafeState:
    while state.round < round_no:
        state = end_round(state)
    return state


def test_cars_arrive_from_round_4() -> None:
    state = fresh(2)
    state = to_round(state, 3)
    assert state.boards["p0"].drive == [None, None]
    bag = len(state.car_bag)
    state = to_round(state, 4)
    for pid in state.players:
        car = state.boards[pid].drive[0]
        assert car is not None and car.satisfaction == 3
    assert len(state.car_bag) == bag - 2
    assert "Drive-thru cars" in state.announcements[-1].description


def test_a_drive_thru_car_served_tips_and_another_leaves_unserved() -> None:
    state = to_round(fresh(), 4)
    board = state.boards["p0"]
    car = board.drive[0]
    assert car is not None
    board.rotation = ["blue", "white", "red", "green", "yellow"].index(car.colour)
    other: Colour = "red" if car.colour != "red" else "blue"
    board.drive[1] = Car(colour=state.car_bag.pop(state.car_bag.index(other)), satisfaction=2)
    staff(state, "p0", car.colour, "wild")
    refused(state, "p0", Drive(staff=car.colour, stars=2), f"The car is {other}")
    state = play(state, "p0", Drive(staff=car.colour, stars=3))
    served = state.boards["p0"].drive[0]
    assert served is not None and served.cube == car.colour
    refused(state, "p0", Drive(staff="wild", stars=3), "has its food")
    bag = len(state.car_bag)
    state = end_round(state)
    board = state.boards["p0"]
    # The served car tipped $3 and left; the 2★ car lost patience (below 2) and left; the new
    # round's car arrived in the 3★ slot.
    assert board.money == 3
    assert board.drive[1] is None and board.drive[0] is not None
    assert len(state.car_bag) == bag + 2 - 1
    assert board.menu[car.colour] == 2
    text = state.announcements[-2].description
    assert "3★ car ★3 $3" in text and f"the {other} car" in text


def test_an_unserved_car_moves_to_the_2_star_slot_then_leaves() -> None:
    state = to_round(fresh(), 4)
    first = state.boards["p0"].drive[0]
    assert first is not None
    state = end_round(state)
    second = state.boards["p0"].drive[0]
    assert state.boards["p0"].drive[1] == Car(colour=first.colour, satisfaction=2)
    assert second is not None and second.satisfaction == 3  # round 5's car
    bag = len(state.car_bag)
    state = end_round(state)
    assert state.boards["p0"].drive[1] == Car(colour=second.colour, satisfaction=2)
    assert len(state.car_bag) == bag + 1 - 1  # the first car went back; round 6's came out
    assert f"left unfed: the {first.colour} car" in state.announcements[-2].description


# -- VIPs ----------------------------------------------------------------------------------------


def with_vips(first: str, second: str) -> CubeCafeState:
    state = fresh()
    state.vips = [first, second]
    return state


def test_vips_arrive_in_rounds_5_and_7_at_the_front_bumping_the_last_customer() -> None:
    state = with_vips(CRITIC, TYCOON)
    assert GAME.secrets(state, None) == {CRITIC, TYCOON}
    state = to_round(state, 5)
    assert state.boards["p0"].queue == [CRITIC, GUEST, GUEST]
    assert GAME.secrets(state, None) == {TYCOON}
    assert "Food Critic" in state.announcements[-1].description
    state = to_round(state, 7)
    assert state.boards["p0"].queue == [TYCOON, CRITIC, GUEST]
    assert GAME.secrets(state, None) == set()


def seated_vip(vip: str) -> CubeCafeState:
    state = with_vips(vip, CRITIC if vip != CRITIC else TYCOON)
    state = to_round(state, 5)
    staff(state, "p0", state.boards["p0"].colour_at(0))
    return play(state, "p0", Seat(staff=state.boards["p0"].colour_at(0), table=1))


def test_food_critic_is_seated_at_3_and_tips_double() -> None:
    state = seated_vip(CRITIC)
    table = state.boards["p0"].tables[0]
    assert table.guest == CRITIC and table.satisfaction == 3 and table.plate is None
    assert tip(CRITIC, 4) == 10 and tip(CRITIC, 5) == 16
    table.plate, table.cube = plate(state, "red"), "red"
    state.boards["p0"].menu["red"] -= 1
    money = state.boards["p0"].money
    state = end_round(state)
    assert state.boards["p0"].money == money + 6


def test_the_regular_is_seated_at_4_with_its_plate_drawn() -> None:
    state = with_vips(REGULAR, CRITIC)
    state = to_round(state, 5)
    colour = state.boards["p0"].colour_at(0)
    staff(state, "p0", colour)
    top = state.plate_bag[-1]
    after = play(state, "p0", Seat(staff=colour, table=1))
    table = after.boards["p0"].tables[0]
    assert table.guest == REGULAR and table.satisfaction == 4 and table.plate == top
    assert GAME.undo_policy(state, after, "p0", Seat(staff=colour, table=1)) == Undo.NEVER


def test_birthday_party_gives_every_serve_plus_1_cars_too() -> None:
    state = seated_vip(BIRTHDAY)
    board = state.boards["p0"]
    assert board.tables[0].satisfaction == 3
    seat_guest(state, "p0", 2, 3, order="red")
    put_cube(state, "p0", "cold", "red")
    car = Car(colour=state.car_bag.pop(), satisfaction=3)
    for old in board.drive:
        if old is not None:
            state.car_bag.append(old.colour)
    board.drive[1] = None
    board.drive[0] = car
    board.rotation = ["blue", "white", "red", "green", "yellow"].index(car.colour)
    serve_colour = board.colour_at(3)
    staff(state, "p0", serve_colour, car.colour)
    state = play(state, "p0", Serve(staff=serve_colour, source="cold", cube="red", table=2))
    state = play(state, "p0", Drive(staff=car.colour, stars=3))
    board = state.boards["p0"]
    assert board.tables[1].satisfaction == 4  # cold 0, right colour, +1 for the party
    served = board.drive[0]
    assert served is not None and served.satisfaction == 4


def test_crying_baby_makes_the_other_seated_customers_lose_1_extra() -> None:
    state = seated_vip(BABY)
    assert state.boards["p0"].tables[0].satisfaction == 2
    seat_guest(state, "p0", 2, 3)
    state = end_round(state)
    tables = state.boards["p0"].tables
    assert tables[0].guest == BABY and tables[0].satisfaction == 1  # the baby loses 1
    assert tables[1].satisfaction == 1  # 1 + 1 extra


def test_tycoon_is_seated_at_5_loses_2_a_round_and_tips_12_at_5() -> None:
    state = seated_vip(TYCOON)
    assert state.boards["p0"].tables[0].satisfaction == 5
    assert tip(TYCOON, 5) == 12 and tip(TYCOON, 4) == 5
    state = end_round(state)
    assert state.boards["p0"].tables[0].satisfaction == 3


def test_vip_effects_end_when_the_vip_leaves() -> None:
    state = seated_vip(BABY)
    state.boards["p0"].tables[0].satisfaction = 1  # the baby will leave this round
    seat_guest(state, "p0", 2, 4)
    state = end_round(state)
    assert state.boards["p0"].tables[0].guest is None
    assert state.boards["p0"].tables[1].satisfaction == 2  # the baby was still there
    state = end_round(state)
    assert state.boards["p0"].tables[1].satisfaction == 1  # now only 1


# -- timeout, undo, views ------------------------------------------------------------------------


def test_a_phase_ended_by_the_clock_forfeits_the_absent_players_staff() -> None:
    state = fresh(2)
    state = play(state, "p0", Done())
    clock = GAME.clock(state)
    assert clock is not None and clock.key == "assign-1" and clock.seconds == 86400
    staff(state, "p1", "red", "blue", "wild")
    state.boards["p1"].manager = 2
    state = play(state, "p1", Manager(staff="red", slot=2))  # a reward left pending
    assert state.boards["p1"].pending == ["any"]
    state, played = play_timeout(GAME, state, "p1")
    assert played == [Done(timed_out=True)]
    clock = GAME.clock(state)
    assert state.round == 2 and clock is not None and clock.key == "assign-2"
    results = state.announcements[-2].description
    assert "{p:p1}" in results and "out of time: 2 staff forfeited" in results
    assert "out of time" not in results.split("\n")[0]  # p0 said done in time
    assert GAME.announces_timeouts


def test_undo_is_free_for_an_assignment_and_never_for_a_plate_draw_or_done() -> None:
    state = fresh(2)
    staff(state, "p0", "blue", "white", "green")
    seat = Seat(staff="blue", table=1)
    seated = play(state, "p0", seat)
    assert GAME.undo_policy(state, seated, "p0", seat) == Undo.FREE
    rotate = Rotate(staff="green", direction="ccw")
    turned = play(seated, "p0", rotate)
    assert GAME.undo_policy(seated, turned, "p0", rotate) == Undo.FREE
    order = Order(staff="white", table=1)
    ordered = play(seated, "p0", order)
    assert GAME.undo_policy(seated, ordered, "p0", order) == Undo.NEVER
    done = play(seated, "p0", Done())
    assert GAME.undo_policy(seated, done, "p0", Done()) == Undo.NEVER


def test_undoing_a_free_move_by_replaying_the_log_changes_nobody_elses_draws() -> None:
    start = fresh(2)
    staff(start, "p0", "blue")
    staff(start, "p1", "blue", "white")
    log: list[tuple[str, Action]] = [
        ("p0", Seat(staff="blue", table=1)),
        ("p1", Seat(staff="blue", table=2)),
        ("p1", Order(staff="white", table=2)),
    ]
    state = start
    for pid, action in log:
        state = play(state, pid, action)
    assert GAME.undo_policy(start, play(start, *log[0]), "p0", log[0][1]) == Undo.FREE
    replayed = start
    for pid, action in log[1:]:
        replayed = play(replayed, pid, action)
    assert replayed.boards["p1"] == state.boards["p1"]  # the same plate was drawn
    assert replayed.boards["p0"].tables[0].guest is None and replayed.boards["p0"].hand == ["blue"]


def test_views_touched_by_a_phase_3_move_are_the_player_and_the_table() -> None:
    state = fresh(2)
    staff(state, "p0", "blue")
    after = play(state, "p0", Seat(staff="blue", table=1))
    assert GAME.views_touched(state, after, "p0") == {"p0", None}
    done = play(after, "p0", Done())
    assert GAME.views_touched(after, done, "p0") == {"p0", None}
    ended = play(done, "p1", Done())
    assert ended.round == 2
    assert GAME.views_touched(done, ended, "p1") is ALL_VIEWS


def test_done_is_refused_twice_and_moves_after_done_are_refused() -> None:
    state = fresh(2)
    state = play(state, "p0", Done())
    assert GAME.active_players(state) == {"p1"}
    with pytest.raises(IllegalAction, match="waiting for"):
        apply(GAME, state, "p0", Done())
    assert GAME.legal_actions(state, "p0") == []


# -- the end -------------------------------------------------------------------------------------


def finished(money: dict[str, int], customers: dict[str, int]) -> CubeCafeState:
    state = fresh(len(money))
    state = to_round(state, 8)
    for pid, amount in money.items():
        board = state.boards[pid]
        for table in board.tables:
            if table.guest is not None and table.plate is not None:
                state.plate_bag.append(table.plate)
            table.guest, table.plate, table.dirty, table.cube, table.satisfaction = (
                None,
                None,
                False,
                None,
                0,
            )
        for car in board.drive:
            if car is not None:
                state.car_bag.append(car.colour)
        board.drive = [None, None]
        for number in range(customers[pid]):
            seat_guest(state, pid, number + 1, 5)  # at 5 they will still be there after round 8
        board.money = amount
    return end_round(state)


def test_the_end_after_round_8_most_money_wins() -> None:
    state = finished({"p0": 20, "p1": 31}, {"p0": 0, "p1": 2})
    outcome = GAME.outcome(state)
    assert outcome is not None and state.over
    assert outcome.scores == {"p0": 20, "p1": 31} and outcome.winners == ["p1"]
    assert len(outcome.progress) == 8 and outcome.progress[-1] == {"p0": 20, "p1": 31}
    assert not any("Tie" in line for line in outcome.summary)
    assert "final standings" in state.announcements[-1].title
    assert GAME.active_players(state) == set() and GAME.clock(state) is None


def test_a_money_tie_goes_to_fewest_customers_left() -> None:
    state = finished({"p0": 25, "p1": 25, "p2": 10}, {"p0": 2, "p1": 1, "p2": 0})
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == ["p1"]
    assert any("fewest customers" in line for line in outcome.summary)


def test_a_tie_on_money_and_customers_is_shared() -> None:
    state = finished({"p0": 25, "p1": 25, "p2": 10}, {"p0": 1, "p1": 1, "p2": 0})
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == ["p0", "p1"]
    assert any("shared win" in line for line in outcome.summary)


def test_solo_is_a_score_chase() -> None:
    state = finished({"p0": 17}, {"p0": 0})
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == ["p0"] and outcome.scores == {"p0": 17}
    assert "Solo" in outcome.summary[0]
