"""Game rooms across phones (issue 38): a Zilch-family game whose seats are people on their
own phones (or several on one), optimal computers and companion seats (real dice typed),
played live.  A room is its set-up and its records (room_store.py: SQLite, written before a
move is shown); its game is the step engine's (match.ZilchMatch), replayed from the
records with the room's seed, so a restart resumes every room at its last move.

A room's move number is the count of its records: a move posted with another number (a
stale page, a repeated tap) is refused (409), a seat token moves only its own seat (403).
Computers play by themselves, one roll at a time, a pause apart (`pace`).  Every record is
published to the room's listeners (the event stream, room_api.py); a hint is private to
the phone that asks.  The rooms' kinds are written so that a Yahtzee room can join them:
`spec["game"]` names the engine."""

from __future__ import annotations

import asyncio
import os
import secrets
import threading
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from .room_store import RoomRow

if TYPE_CHECKING:
    from ..match import Step, ZilchMatch, ZilchState

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # (no 0/O, 1/I/L: read aloud, typed)
CODE_LENGTH = 6
KINDS = ("person", "companion", "computer")
MAX_SEATS = 6
FEED = 60  # events a room keeps to show (the newest)
LISTENERS = 32  # event streams one room serves at once
QUEUE = 256  # messages a slow listener may fall behind (then it is dropped: it reconnects)


def _env_number(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


@dataclass(frozen=True)
class Limits:
    """The rooms' bounds: how many at once, idle hours before one expires, records (moves)
    a room takes, joins (and unknown codes asked) per client a minute, the computers' pause."""

    rooms: int = 200
    idle_hours: float = 12.0
    moves: int = 5000
    joins_per_minute: int = 30
    pace: float = 0.7

    @classmethod
    def from_env(cls) -> Limits:
        d = cls()
        return cls(
            int(_env_number("DICESOLVER_ROOMS", d.rooms)),
            _env_number("DICESOLVER_ROOM_IDLE_HOURS", d.idle_hours),
            int(_env_number("DICESOLVER_ROOM_MOVES", d.moves)),
            int(_env_number("DICESOLVER_ROOM_JOINS", d.joins_per_minute)),
            _env_number("DICESOLVER_ROOM_PACE", d.pace),
        )


class RoomError(InputError):
    """A room's refusal with its HTTP status (400 bad input, 403 not yours, 404 no such
    room, 409 stale or not now, 429 too many, 503 full)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.http_status = status


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def checked_code(code: str) -> str:
    code = code.strip().upper().replace("-", "").replace(" ", "")
    if len(code) != CODE_LENGTH or any(c not in ALPHABET for c in code):
        raise RoomError(404, "no such room (a room code is 6 letters and digits)")
    return code


# --- one room ------------------------------------------------------------------------------
@dataclass
class Room:
    """A room in memory: what is stored (row), its engine and the game's state (None before
    the start), its listeners, the private hints asked (by seat), the recent events."""

    row: RoomRow
    engine: Any = None
    state: Any = None
    feed: list[dict[str, Any]] = field(default_factory=list)
    hints: dict[int, dict[str, Any]] = field(default_factory=dict)
    listeners: set[asyncio.Queue[dict[str, Any] | None]] = field(default_factory=set)
    reviews: dict[str, Any] | None = None
    review_error: str | None = None
    driving: bool = False
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    @property
    def code(self) -> str:
        return self.row.code

    @property
    def version(self) -> int:
        return len(self.row.records)

    @property
    def kinds(self) -> list[str]:
        return list(self.row.spec["seats"])

    @property
    def dice_from(self) -> str:
        return "input" if "companion" in self.kinds else "seed"

    def seat_of(self, token: str | None) -> int | None:
        if not token:
            return None
        for k, t in enumerate(self.row.tokens):
            if t is not None and secrets.compare_digest(t, token):
                return k
        return None

    def is_host(self, token: str | None) -> bool:
        return bool(token) and secrets.compare_digest(self.row.host, str(token))

    @property
    def over(self) -> bool:
        return self.state is not None and self.state.phase == "over"

    def computer_to_move(self) -> bool:
        s = self.state
        return s is not None and s.phase != "over" and s.seats[s.seat].computer

    def add_events(self, events: list[dict[str, Any]]) -> None:
        self.feed = (self.feed + [e for e in events if e.get("kind") != "hint"])[-FEED:]


def normal_seats(seats: Any) -> list[str]:
    """The seats as the engine orders them: people (person, companion) first, then the
    computers (the engine's turn order)."""
    if not isinstance(seats, list) or not 2 <= len(seats) <= MAX_SEATS:
        raise RoomError(400, f"seats: a list of 2 to {MAX_SEATS} of {', '.join(KINDS)}")
    if any(s not in KINDS for s in seats):
        raise RoomError(400, f"seats: each is one of {', '.join(KINDS)}, got {seats!r}")
    people = [s for s in seats if s != "computer"]
    if not people:
        raise RoomError(400, "seats: a room needs one person at least")
    return people + [s for s in seats if s == "computer"]


Seat = tuple[str, str | None, str | None]  # (kind, name, token)


def reseated(seats: list[Seat], body: dict[str, Any]) -> tuple[list[Seat], str]:
    """The seats after the host's change before the start, and what it says: `add` a
    person, computer or companion seat (a person's before the computers: the turn order), or
    `remove` seat K (a person's seat someone took: only with `"force": true`).  400 where
    the room would have fewer than 2 seats or more than MAX_SEATS, or no person."""
    add, gone = body.get("add"), body.get("remove")
    if (add is None) == (gone is None):
        raise RoomError(400, 'the body is {"token", "add": KIND} or {"token", "remove": K}')
    if add is not None:
        if add not in KINDS:
            raise RoomError(400, f"add: one of {', '.join(KINDS)}, got {add!r}")
        people = sum(1 for kind, _, _ in seats if kind != "computer")
        at = len(seats) if add == "computer" else people
        after = [*seats[:at], (str(add), None, None), *seats[at:]]
        said = f"a {add} seat was added"
    else:
        n = len(seats)
        if isinstance(gone, bool) or not isinstance(gone, int) or not 0 <= gone < n:
            raise RoomError(400, f"remove: a seat of the room, 0 to {n - 1}")
        kind, name, token = seats[gone]
        if token is not None and body.get("force") is not True:
            raise RoomError(400, f'seat {gone} is taken by {name}: remove it with "force": true')
        after = seats[:gone] + seats[gone + 1 :]
        said = f"seat {gone} ({name or kind}) was removed"
    normal_seats([kind for kind, _, _ in after])  # (2 to MAX_SEATS, a person at least)
    return after, said


# --- the game: replayed from the records -----------------------------------------------------
def start_step(room: Room) -> Step:
    names = [n for n, k in zip(room.row.names, room.kinds, strict=True) if k != "computer"]
    computers = room.kinds.count("computer")
    people = [str(n) for n in names]
    return room.engine.start(people, computers, room.row.seed, room.dice_from)


def replay(room: Room) -> None:
    """The room's state and events from its start and its records: a move's actions
    applied again, an undo going back to before the last person's move (with the
    computers' moves after it), a seat handed to a computer, the game ended."""
    first = start_step(room)
    # (each record's kind, the state after it, and the events before it)
    stack: list[tuple[str, ZilchState, int]] = [("start", first.state, 0)]
    events: list[dict[str, Any]] = list(first.events)
    for rec in room.row.records:
        kind, state, before = rec["kind"], stack[-1][1], len(events)
        if kind == "seats":  # (the seats changed before the start: the set-up holds them)
            continue
        if kind == "undo":  # (what the undone moves showed goes with them)
            while len(stack) > 1 and stack[-1][0] == "computer":
                del events[stack.pop()[2] :]
            if len(stack) > 1:
                del events[stack.pop()[2] :]
            events.append(undo_event(rec.get("seat")))
            continue
        state, said = apply_record(room, state, rec)
        events.extend(said)
        stack.append((kind, state, before))
    room.state = stack[-1][1]
    room.feed = []
    room.add_events(events)


def apply_record(room: Room, state: Any, rec: dict[str, Any]) -> tuple[Any, list[dict[str, Any]]]:
    """The state after a record (a seat handed to a computer, or a move's actions applied
    again), and the events it shows."""
    events: list[dict[str, Any]] = []
    if rec["kind"] == "hand":
        k = int(rec["body"]["seat"])
        seats = tuple(replace(x, computer=True) if i == k else x for i, x in enumerate(state.seats))
        state = replace(state, seats=seats)
        events.append(hand_event(seats[k].name))
    else:
        for action in rec["body"]["actions"]:
            step = room.engine.apply(state, action)
            state = step.state
            events.extend(step.events)
    return state, events


def hand_event(name: str) -> dict[str, Any]:
    return {"kind": "hand", "text": f"{name} left: a computer plays the seat"}


def undo_event(seat: int | None) -> dict[str, Any]:
    return {"kind": "undo", "text": "the last move was undone", "seat": seat}


class _Run:
    """The engine's steps of one posted move, each from the state the last one left, and
    the actions that made them (recorded: a replay applies them again)."""

    def __init__(self, engine: ZilchMatch, first: ZilchState) -> None:
        self.engine, self.first = engine, first
        self.steps: list[Step] = []
        self.actions: list[Any] = []

    @property
    def now(self) -> ZilchState:
        return self.steps[-1].state if self.steps else self.first

    def __call__(self, action: Any) -> None:
        self.steps.append(self.engine.apply(self.now, action))
        self.actions.append(action)


def person_actions(
    engine: ZilchMatch, s: ZilchState, body: dict[str, Any]
) -> tuple[list[Any], list[Step]]:
    """The engine's actions and steps of a person's posted move: the dice kept (where
    new), then roll or bank; or the hint's best move; or a typed roll.  All or nothing
    (InputError); the actions are recorded, and applied again on a replay."""
    from ..match.session import dice_arg

    run = _Run(engine, s)
    then, dice = body.get("then"), body.get("dice")
    keep = None if body.get("keep") is None else list(dice_arg(body["keep"], "keep"))
    if then not in (None, "roll", "bank"):
        raise RoomError(400, f'then: "roll" or "bank", got {then!r}')
    if body.get("best") is True and s.phase != "roll":
        run("best")
    elif s.phase == "roll":
        if then == "bank":
            run("bank")  # (the engine's refusal: a turn starts with a roll)
        run({"action": "roll", "dice": dice} if s.dice_from == "input" else "roll")  # (best too)
    else:
        if keep is not None and (s.phase == "keep" or sorted(keep) != sorted(s.keep)):
            run({"action": "keep", "dice": keep})
        elif s.phase == "keep":
            raise RoomError(400, f"keep: which dice of {' '.join(map(str, s.roll))} are set aside?")
        _then(run, then, dice)
    return run.actions, run.steps


def _then(run: _Run, then: str | None, dice: Any) -> None:
    """Roll again or bank after the set-aside (a forced roll: its dice, on seeded dice)."""
    if then is None:
        if run.now.phase == "move":
            raise RoomError(400, 'then: "roll" or "bank" after the dice set aside')
    elif run.now.phase == "move" or then == "bank":
        typed = then == "roll" and run.first.dice_from == "input" and dice is not None
        run({"action": "roll", "dice": dice} if typed else then)
    elif run.now.dice_from == "seed":
        run("roll")  # (the set-aside forced the roll: it comes now)
