"""Every room of the server (issue 38): created, joined, started, moved, undone, ended,
rematched; kept in memory once loaded (replayed from the SQLite records, rooms.py) and
bounded (count, idle time, records); the computers driven one roll at a time; each record
published to the room's listeners.  The blocking methods (the engine's work, the SQLite
writes) run in a worker thread; publish() and kick() run on the event loop.

Across worker processes (`zilch serve --workers N`; room_store.py): each change of a room
is made holding the room against the other workers, the room first brought up to date
from the file (`_writing`), so a seat or a move number is never given twice; each worker watches the
file (`watch`: `pragma data_version` every WATCH seconds, then the rows of `changes` since)
and brings the rooms it holds up to date, pushing each record to its own phones' streams
(`_sync`).  The computers are driven by the worker that made the move before their turn;
where two drive one room, a roll is made only `pace` after the room's last record."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.concurrency import run_in_threadpool

from ..errors import InputError, TableMissing
from . import calls
from .room_store import RoomStore, state_folder
from .rooms import (
    LISTENERS,
    MAX_SEATS,
    QUEUE,
    Limits,
    Room,
    RoomError,
    apply_record,
    checked_code,
    hand_event,
    new_code,
    normal_seats,
    person_actions,
    replay,
    reseated,
    undo_event,
)

if TYPE_CHECKING:
    from ..match import ZilchMatch
    from .app_state import Web

Message = dict[str, Any]
# (a posted move's actions and steps: engine, state, body, whether the host types a roll)
StepsOf = Callable[[Any, Any, dict[str, Any], bool], tuple[list[Any], list[Any]]]
WATCH = 0.01  # seconds between a worker's looks at the rooms' file for other workers' changes
IDLE_WATCH = 0.25  # (the same, while it holds no room)
RECORDS = ("move", "computer", "undo", "seats", "hand", "end")  # (kinds of records)


class Rooms:
    """The server's rooms over its state folder (opened on first use)."""

    def __init__(self, web: Web, folder: Path | None, limits: Limits | None = None) -> None:
        self.web = web
        self.folder = folder or state_folder(web.store.folder)
        self.limits = limits or Limits.from_env()
        self._store: RoomStore | None = None
        self._lock = threading.Lock()
        self._rooms: dict[str, Room] = {}
        self._asks: dict[str, deque[float]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._synced: dict[str, int] = {}  # (each room's last change its memory holds)
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def store(self) -> RoomStore:
        with self._lock:
            if self._store is None:
                self._store = RoomStore(self.folder)
            return self._store

    # --- limits -----------------------------------------------------------------------------
    def throttle(self, client: str | None, missed: bool = False) -> None:
        """429 where the client asked for unknown room codes `joins_per_minute` times in
        the last minute (guessing codes); missed: this request is one more.  (Without a
        client: the server's own look-up of a room the request has found already.)"""
        if client is None:
            return
        now, key = time.monotonic(), client
        with self._lock:
            if len(self._asks) > 10_000:
                self._asks.clear()
            seen = self._asks.setdefault(key, deque())
            while seen and now - seen[0] > 60:
                seen.popleft()
            if len(seen) >= self.limits.joins_per_minute:
                raise RoomError(429, "too many unknown room codes tried from here: wait a minute")
            if missed:
                seen.append(now)

    def _expire(self) -> None:
        gone = self.store.expire(self.limits.idle_hours * 3600)
        with self._lock:
            for code in gone:
                self._rooms.pop(code, None)

    # --- a room by its code -----------------------------------------------------------------
    def get(self, code: str, client: str | None = None) -> Room:
        """The room (loaded and replayed where it is not in memory); 404 (counted against
        the client's tries) where there is none."""
        self.throttle(client)
        try:
            code = checked_code(code)
        except RoomError:
            self.throttle(client, missed=True)
            raise
        with self._lock:
            room = self._rooms.get(code)
        if room is not None:
            return room
        row = self.store.load(code)
        if row is None:
            self.throttle(client, missed=True)
            raise RoomError(404, "no such room (it ended long ago, or the code is mistyped)")
        room = Room(row)
        if row.started:
            with room.lock:
                room.engine = self.engine(row.spec)
                replay(room)
        with self._lock:
            if code not in self._rooms:
                self._synced[code] = row.seen
            return self._rooms.setdefault(code, room)

    def engine(self, spec: dict[str, Any]) -> ZilchMatch:
        """The room's engine (shared by rooms of the same rules, target and players)."""
        import dicesolver as ds

        from ..match import ZilchMatch
        from ..rules import load

        rules: Any = spec["rules"]
        if spec.get("rules_text") is not None:
            rules = calls.rules_from_text(spec["rules_text"])
        rs = load(rules) if isinstance(rules, str) else rules
        target, players = spec.get("target"), len(spec["seats"])
        try:
            stored = ds.game_table_status(rs, target, players, tables=self.web.query_store).stored
        except InputError:
            stored = False
        key = ("zilch", rs.digest(), target, players, stored)
        store = self.web.query_store
        return self.web.engines.get(key, lambda: ZilchMatch(rules, store, target=target))

    # --- create, join, start ----------------------------------------------------------------
    def create(self, body: Any) -> tuple[str, str]:
        """A new room: (its code, the host's token)."""
        spec = self.spec_of(body)
        self.engine(spec)  # (rules the game takes, a target it reaches: said now)
        self._expire()
        if self.store.count() >= self.limits.rooms:
            raise RoomError(503, f"the server keeps {self.limits.rooms} rooms, as many as it can")
        host = secrets.token_urlsafe(24)
        seed = secrets.randbits(32) if body.get("seed") is None else _seed(body["seed"])
        for _ in range(20):
            code = new_code()
            if self.store.load(code) is None:
                break
        self.store.create(code, host, spec, seed, len(spec["seats"]))
        return code, host

    def spec_of(self, body: Any) -> dict[str, Any]:
        from .pages import presets

        if not isinstance(body, dict):
            raise RoomError(400, 'the body is an object: {"rules", "target", "seats"}')
        extra = set(body) - {"rules", "rules_text", "target", "seats", "seed", "game"}
        if extra:
            raise RoomError(400, f"unknown field {sorted(extra)[0]!r}")
        if body.get("game", "zilch") != "zilch":
            raise RoomError(400, "rooms play the Zilch family for now (game: zilch)")
        rules, text = body.get("rules"), body.get("rules_text")
        if text is not None:
            if (
                rules is not None
                or not isinstance(text, str)
                or len(text) > calls.TEXT_LIMIT["rules_text"]
            ):
                raise RoomError(400, "rules_text: a rule file's text, without rules")
            name = calls.rules_from_text(text).name
        else:
            rules = rules or "farkle"
            names = [p["value"] for p in presets()]
            if not isinstance(rules, str) or rules not in names:
                raise RoomError(400, f"rules: a preset ({', '.join(names)}) or rules_text")
            name = rules
        target = body.get("target")
        if target is not None and (isinstance(target, bool) or not isinstance(target, int)):
            raise RoomError(400, f"target: a whole number, got {target!r}")
        seats = normal_seats(body.get("seats", ["person", "computer"]))
        return {
            "game": "zilch",
            "rules": rules,
            "rules_text": text,
            "rules_name": name,
            "target": target,
            "seats": seats,
        }

    def join(self, code: str, name: Any, client: str | None) -> tuple[int, str]:
        """The next free person seat, named: (its number, its token)."""
        room = self.get(code, client)
        name = _name(name)
        with self._writing(room):
            if room.row.started:
                raise RoomError(409, "the game has started: a seat is taken before the start")
            taken = [n.lower() for n in room.row.names if n]
            if name.lower() in taken:
                raise RoomError(409, f"{name!r} is taken in this room: another name")
            free = [k for k, kind in enumerate(room.kinds) if kind != "computer"]
            free = [k for k in free if room.row.tokens[k] is None]
            if not free:
                raise RoomError(409, "every person's seat is taken")
            k, token = free[0], secrets.token_urlsafe(24)
            self.store.seat(room.code, k, name, token)
            room.row.names[k], room.row.tokens[k] = name, token
        return k, token

    def start(self, code: str, token: Any) -> Message:
        room = self.get(code)
        with self._writing(room):
            if not room.is_host(_token(token)):
                raise RoomError(403, "only the host starts the game (the host's token)")
            if room.row.started:
                raise RoomError(409, "the game has started already")
            waiting = [
                k
                for k, kind in enumerate(room.kinds)
                if kind != "computer" and room.row.tokens[k] is None
            ]
            if waiting:
                raise RoomError(409, f"seat {waiting[0]} is not taken yet: join it first")
            room.engine = self.engine(room.row.spec)
            for k, kind in enumerate(room.kinds):
                if kind == "computer":
                    room.row.names[k] = f"computer {k - room.kinds.index('computer') + 1}"
            self.store.started(room.code)
            room.row.started = True
            replay(room)
            return self.message(room, "start", room.feed)

    def seats(self, code: str, body: Any) -> Message:
        """The host adds or removes a seat before the start (rooms.reseated): the set-up,
        the seats and a record of the change written in one transaction, then shown."""
        room = self.get(code)
        body = body if isinstance(body, dict) else {}
        extra = set(body) - {"token", "add", "remove", "force"}
        if extra:
            raise RoomError(400, f"unknown field {sorted(extra)[0]!r}")
        with self._writing(room):
            if not room.is_host(_token(body.get("token"))):
                raise RoomError(403, "only the host adds or removes seats (the host's token)")
            if room.row.started:
                raise RoomError(409, "the game has started: seats change before the start")
            row = room.row
            now = list(zip(room.kinds, row.names, row.tokens, strict=True))
            after, said = reseated(now, body)
            spec = row.spec | {"seats": [kind for kind, _, _ in after]}
            self.engine(spec)  # (a game of that many players the rules take: said now)
            change = {k: body[k] for k in ("add", "remove", "force") if k in body}
            seated = [(name, token) for _, name, token in after]
            self.store.reseat(room.code, room.version, spec, seated, change)
            row.records.append({"n": room.version, "kind": "seats", "seat": None, "body": change})
            row.spec = spec
            row.names = [name for name, _ in seated]
            row.tokens = [token for _, token in seated]
            return self.message(room, "seats", [{"kind": "seats", "text": said}])

    # --- moves ------------------------------------------------------------------------------
    def move(self, code: str, body: Any) -> tuple[Room, Message]:
        """A seat's move (or the host's typed roll for a computer): recorded, then shown."""
        if not isinstance(body, dict):
            raise RoomError(400, 'the body is {"token", "move", "keep", "then"} or {"best": true}')
        extra = set(body) - {"token", "move", "keep", "then", "best", "dice"}
        if extra:
            raise RoomError(400, f"unknown field {sorted(extra)[0]!r}")
        room = self.get(code)
        return room, self._move(room, body, zilch_steps)

    def _move(self, room: Room, body: dict[str, Any], steps_of: StepsOf) -> Message:
        """The move of a checked body: the token's seat to move (or the host typing a
        computer's roll), at the room's move now; `steps_of` the engine's actions and steps."""
        token = _token(body.get("token"))
        with self._writing(room):
            s = self._playing(room)
            mover = room.seat_of(token)
            if mover is None and not room.is_host(token):
                raise RoomError(403, "this token holds no seat of this room")
            self._at(room, body.get("move"))  # (a move repeated after the turn passed: 409)
            seat = s.seats[s.seat]
            host_types = seat.computer and room.dice_from == "input" and room.is_host(token)
            if mover != s.seat and not host_types:
                raise RoomError(403, f"it is {seat.name}'s turn: this token moves another seat")
            if seat.computer and not host_types:
                raise RoomError(403, f"a computer plays {seat.name}'s seat")
            try:
                actions, steps = steps_of(room.engine, s, body, host_types)
            except TableMissing as e:
                raise RoomError(409, calls.one_line(str(e))) from None
            events = [e for st in steps for e in st.events]
            return self._commit(room, "move", mover, {"actions": actions}, steps[-1].state, events)

    def _playing(self, room: Room) -> Any:
        if room.state is None:
            raise RoomError(409, "the game has not started yet")
        if room.over:
            raise RoomError(409, "the game is over")
        if room.version >= self.limits.moves:
            raise RoomError(409, f"the room has reached its {self.limits.moves} moves")
        return room.state

    def _at(self, room: Room, move: Any) -> None:
        if isinstance(move, bool) or not isinstance(move, int):
            raise RoomError(
                400, "move: the room's move number the move was made at (a whole number)"
            )
        if move != room.version:
            raise RoomError(
                409, f"move {move} is not the room's move now ({room.version}): it has moved on"
            )

    def _commit(
        self,
        room: Room,
        kind: str,
        seat: int | None,
        body: dict[str, Any],
        state: Any,
        events: list[dict[str, Any]],
    ) -> Message:
        """The record written (before anything is shown), then the room's state."""
        over = state.phase == "over"
        self.store.record(room.code, room.version, kind, seat, body, over)
        room.row.records.append(
            {"n": room.version, "kind": kind, "seat": seat, "body": body, "at": time.time()}
        )
        room.state = state
        room.hints.clear()
        room.add_events(events)
        return self.message(room, kind, events)

    def computer_step(self, room: Room) -> Message | None:
        """One roll of a computer's turn (seeded dice), recorded; None where it is not a
        computer's turn, {} where the room's last record is younger than the pace."""
        with self._writing(room):
            if not room.computer_to_move() or room.dice_from != "seed":
                return None
            if room.version >= self.limits.moves:
                return None
            last = room.row.records[-1].get("at") if room.row.records else None
            if last is not None and time.time() - float(last) < 0.9 * self.limits.pace:
                return {}  # (another worker's computer moved just now: the next pause)
            s = room.state
            action = self.computer_action(room)
            step = room.engine.apply(s, action)
            return self._commit(
                room, "computer", s.seat, {"actions": [action]}, step.state, list(step.events)
            )

    def computer_action(self, room: Room) -> str:
        """A computer's recorded step: one roll (a Zilch turn goes on roll by roll)."""
        return "roll"

    def hint(self, code: str, token: Any) -> dict[str, Any]:
        """The hint for the seat to move: private to the phone asking (not published)."""
        room = self.get(code)
        with room.lock:
            s = self._playing(room)
            if room.seat_of(_token(token)) != s.seat:
                raise RoomError(403, f"it is {s.seats[s.seat].name}'s turn: a hint is theirs")
            try:
                got: dict[str, Any] = room.engine.hint(s).to_dict()
            except TableMissing as e:
                raise RoomError(409, calls.one_line(str(e))) from None
            room.hints[s.seat] = got
            return got

    def undo(self, code: str, body: Any) -> Message:
        """The last person's move undone (the computers' moves after it too): by the host,
        or in a companion room by the seat that made it (a mistyped roll).  Recorded."""
        room = self.get(code)
        body = body if isinstance(body, dict) else {}
        token = _token(body.get("token"))
        with self._writing(room):
            if room.state is None:
                raise RoomError(409, "the game has not started yet")
            last = next((r for r in reversed(room.row.records) if r["kind"] != "computer"), None)
            if last is None or last["kind"] != "move":
                raise RoomError(409, "there is no move to undo")
            mine = room.dice_from == "input" and room.seat_of(token) == last["seat"] is not None
            if not (room.is_host(token) or mine):
                raise RoomError(403, "only the host undoes a move (or, with real dice, its player)")
            if "move" in body:
                self._at(room, body["move"])
            who = room.seat_of(token)
            self.store.record(room.code, room.version, "undo", who, {"undo": last["n"]}, False)
            room.row.records.append({"n": room.version, "kind": "undo", "seat": who, "body": {}})
            replay(room)
            return self.message(room, "undo", [undo_event(who)])

    def end(self, code: str, token: Any) -> Message:
        """The host ends the game (every person's review follows)."""
        room = self.get(code)
        with self._writing(room):
            if not room.is_host(_token(token)):
                raise RoomError(403, "only the host ends the game")
            s = self._playing(room)
            step = room.engine.apply(s, "quit")
            return self._commit(
                room, "end", None, {"actions": ["quit"]}, step.state, list(step.events)
            )

    def leave(self, code: str, token: Any, seat: Any = None) -> Message | None:
        """A person leaves (their token), or the host hands a seat to a computer (the
        host's token and the seat): before the start the seat is free again; during the
        game a computer plays it (recorded)."""
        room = self.get(code)
        with self._writing(room):
            k = room.seat_of(_token(token))
            if seat is not None:
                if not room.is_host(_token(token)):
                    raise RoomError(403, "only the host hands another's seat to a computer")
                n = len(room.kinds)
                if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
                    raise RoomError(400, f"seat: a seat of the room, 0 to {n - 1}")
                playing = room.state is not None and room.state.seats[seat].computer
                if room.kinds[seat] == "computer" or playing:
                    raise RoomError(409, "a computer plays that seat already")
                k = seat
            if k is None:
                raise RoomError(403, "no seat of this room has that token")
            if room.state is None:
                self.store.seat(room.code, k, None, None)
                room.row.names[k], room.row.tokens[k] = None, None
                return None
            s = self._playing(room)
            seats = tuple(replace(x, computer=True) if i == k else x for i, x in enumerate(s.seats))
            event = hand_event(s.seats[k].name)
            return self._commit(room, "hand", k, {"seat": k}, replace(s, seats=seats), [event])

    def rematch(self, code: str, token: Any) -> tuple[str, Message]:
        """A new game of the same seats (names, tokens, host), started at once."""
        room = self.get(code)
        with self._writing(room):
            if not room.is_host(_token(token)):
                raise RoomError(403, "only the host starts a rematch")
            if not room.over:
                raise RoomError(409, "the game is not over")
            if room.row.next_code:
                return room.row.next_code, {"kind": "rematch", "next": room.row.next_code}
            spec = dict(room.row.spec)  # (a Yahtzee room's game and hints kept too)
            kept = ("game", "rules", "rules_text", "target", "hints")
            new, _ = self.create({k: spec[k] for k in kept if k in spec} | {"seats": spec["seats"]})
            fresh = self.get(new)
            with self._writing(fresh):
                self.store.set_host(new, room.row.host)
                fresh.row.host = room.row.host
                for k, (n, t) in enumerate(zip(room.row.names, room.row.tokens, strict=True)):
                    if t is not None:
                        self.store.seat(new, k, n, t)
                        fresh.row.names[k], fresh.row.tokens[k] = n, t
            self.start(new, room.row.host)
            self.store.set_next(room.code, new)
            room.row.next_code = new
            return new, {"kind": "rematch", "next": new, "move": room.version}

    # --- what is shown ----------------------------------------------------------------------
    def message(self, room: Room, kind: str, events: list[dict[str, Any]]) -> Message:
        shown = [e for e in events if e.get("kind") != "hint"]
        return {"kind": kind, "events": shown, "state": self.summary(room)}

    def summary(self, room: Room) -> dict[str, Any]:
        """The room's state as the API answers it (GET /api/rooms/CODE)."""
        s = room.state
        out = summary_head(room, "zilch")
        seats = out["seats"]
        if s is None:
            return out | {
                "turn": None,
                "phase": "waiting",
                "scores": [0] * len(seats),
                "dice": [],
                "kept": [],
                "turn_total": 0,
            }
        view = room.engine.view(s)
        for k, p in enumerate(view["players"]):
            seats[k].update(name=p["name"], computer=p["computer"], score=p["score"])
        return out | {
            "target": view["target"],
            "turn": s.seat,
            "player": view["player"],
            "phase": view["phase"],
            "scores": [p["score"] for p in view["players"]],
            "dice": view["roll"],
            "kept": view["kept"],
            "turn_total": view["turn_total"],
            "dice_to_roll": view["dice"],
            "dice_left": view["dice_left"],
            "choices": view["choices"],
            "allowed": view["allowed"],
            "final_round": view["final_round"],
            "winners": view["winners"],
            "left": view["left"],
            "round": view["turn"],
            "seed": s.seed,
            "events": room.feed[-12:],
        }

    # --- live: listeners and the computers --------------------------------------------------
    def listen(self, room: Room) -> asyncio.Queue[Message | None]:
        if len(room.listeners) >= LISTENERS:
            raise RoomError(503, f"the room has {LISTENERS} live screens, as many as it serves")
        q: asyncio.Queue[Message | None] = asyncio.Queue(QUEUE)
        room.listeners.add(q)
        return q

    def publish(self, room: Room, msg: Message) -> None:
        """On the event loop: the message to every listener (one too far behind: dropped)."""
        for q in list(room.listeners):
            try:
                q.put_nowait(msg)
            except asyncio.QueueFull:
                room.listeners.discard(q)

    def close_streams(self) -> None:
        """On the event loop, as the server stops: every live stream ends (its phone
        reconnects to the server started again)."""
        with self._lock:
            held = list(self._rooms.values())
        for room in held:
            for q in list(room.listeners):
                room.listeners.discard(q)
                with contextlib.suppress(asyncio.QueueFull):
                    q.put_nowait(None)

    def kick(self, room: Room) -> None:
        """On the event loop: the computers play where it is their turn."""
        if room.driving or not room.computer_to_move() or room.dice_from != "seed":
            return
        room.driving = True
        task = asyncio.get_running_loop().create_task(self._drive(room))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _drive(self, room: Room) -> None:
        try:
            while True:
                await asyncio.sleep(self.limits.pace)
                msg = await run_in_threadpool(self.computer_step, room)
                if msg is None:
                    return
                if msg:
                    self.publish(room, msg)
        finally:
            room.driving = False

    # --- several workers: each change made on the room as stored, each seen by all --------
    @contextlib.contextmanager
    def _writing(self, room: Room) -> Iterator[None]:
        """The room locked, in this process and against every other (no other worker
        changes it meanwhile), brought up to date first; its changes counted as seen."""
        with room.lock, self.store.room_lock(room.code):
            self._sync(room)
            yield
            self._synced[room.code] = self.store.changed(room.code)

    def catch_up(self, room: Room) -> None:
        """(A worker thread) the room brought up to date with what other workers wrote."""
        with room.lock:
            self._sync(room)

    def _sync(self, room: Room) -> None:
        """The room as stored now, where another worker changed it since it was read here;
        each change pushed to this worker's listeners (on its event loop)."""
        code, had = room.code, self._synced.get(room.code, 0)
        with self.store.reading():
            seen = self.store.changed(code)
            if seen <= had:
                return
            kinds = self.store.changes_since(code, had)
            row = self.store.load(code)
        self._synced[code] = seen
        if row is None:  # (expired)
            with self._lock:
                self._rooms.pop(code, None)
            return
        for msg in self._caught_up(room, row, kinds):
            if self._loop is not None:
                self._loop.call_soon_threadsafe(self.publish, room, msg)

    def _caught_up(self, room: Room, row: Any, kinds: list[str]) -> list[Message]:
        """The room moved on to `row` (its records a continuation of those held): the
        messages of the changes, in order (the records' each with the state after it)."""
        old, fresh = room.row, row.records[len(room.row.records) :]
        room.row = row
        out: list[Message] = []
        if row.started:
            if room.engine is None:
                room.engine = self.engine(row.spec)
            room.hints.clear()
            again = not old.started or room.state is None
            if again or any(r["kind"] in ("undo", "seats") for r in fresh):
                replay(room)
                for r in fresh:
                    said = [undo_event(r.get("seat"))] if r["kind"] == "undo" else []
                    out.append(self.message(room, r["kind"], said))
            else:
                out = [self.message(room, r["kind"], self._apply(room, r)) for r in fresh]
        other = [k for k in kinds if k not in RECORDS and k not in ("create", "host")]
        return [self.message(room, k, room.feed if k == "start" else []) for k in other] + out

    def _apply(self, room: Room, rec: dict[str, Any]) -> list[dict[str, Any]]:
        """Another worker's record applied to the room's state (as replay applies it)."""
        state, events = apply_record(room, room.state, rec)
        room.state = state
        room.add_events(events)
        return events

    async def watch(self) -> None:
        """(The event loop, while the app runs) the other workers' changes of the rooms
        held here: looked for every WATCH seconds (`pragma data_version` moves when another
        connection commits), each such room brought up to date and pushed."""
        self._loop = asyncio.get_running_loop()
        conn: sqlite3.Connection | None = None
        version, seq = None, 0
        try:
            while True:
                await asyncio.sleep(WATCH if self._rooms else IDLE_WATCH)
                if self._store is None or not self._rooms:
                    continue
                with self._lock:
                    held = list(self._rooms)
                try:
                    if conn is None:
                        conn = self.store.watcher()
                        seq = int(
                            conn.execute("select coalesce(max(seq), 0) from changes").fetchone()[0]
                        )
                        await self._catch_up_all(held)  # (changed before the watch began)
                    now = conn.execute("pragma data_version").fetchone()[0]
                    if now == version:
                        continue
                    version = now
                    rows = conn.execute(
                        "select seq, code from changes where seq > ? order by seq", (seq,)
                    ).fetchall()
                except sqlite3.Error:  # (the file busy a moment: the next look)
                    continue
                if rows:
                    seq = int(rows[-1][0])
                    behind = {c for n, c in rows if n > self._synced.get(c, 0)}
                    await self._catch_up_all([c for c in held if c in behind])
        finally:
            if self._store is not None:
                self._store.close_watchers()

    async def _catch_up_all(self, codes: list[str]) -> None:
        for code in codes:
            with self._lock:
                room = self._rooms.get(code)
            if room is not None:
                try:
                    await run_in_threadpool(self.catch_up, room)
                except Exception as e:  # (a room that cannot be read: said, the watch goes on)
                    import logging

                    logging.getLogger("dicesolver.web").error("room %s", code, exc_info=e)

    def reviews(self, room: Room) -> tuple[dict[str, Any], str | None]:
        """Each person's review (once the game is over), computed once."""
        with room.lock:
            if room.reviews is None and room.over:
                try:
                    room.reviews = room.engine.reviews(room.state, log_name(room))
                except (InputError, TableMissing) as e:
                    room.reviews, room.review_error = {}, calls.one_line(str(e))
            return room.reviews or {}, room.review_error


def log_name(room: Room) -> str:
    return f"zilch-room-{room.code}-{room.row.seed}.jsonl"


def summary_head(room: Room, game: str) -> dict[str, Any]:
    """The fields of a room's state before the game's own: the seats (who has joined)."""
    row = room.row
    seats = [
        {
            "seat": k,
            "kind": kind,
            "name": row.names[k],
            "joined": kind == "computer" or row.tokens[k] is not None,
        }
        for k, kind in enumerate(room.kinds)
    ]
    return {
        "code": row.code,
        "game": game,
        "rules": row.spec["rules_name"],
        "target": row.spec.get("target"),
        "dice_from": room.dice_from,
        "move": room.version,
        "started": row.started,
        "finished": room.over,
        "next": row.next_code,
        "seats": seats,
    }


def zilch_steps(
    engine: Any, s: Any, body: dict[str, Any], host_types: bool
) -> tuple[list[Any], list[Any]]:
    """A Zilch move's actions and steps: the host's typed roll for a computer, else the
    person's (rooms.person_actions)."""
    if host_types:
        actions: list[Any] = [{"action": "roll", "dice": body.get("dice")}]
        return actions, [engine.apply(s, actions[0])]
    return person_actions(engine, s, body)


def _token(v: Any) -> str | None:
    return v if isinstance(v, str) and 0 < len(v) <= 64 else None


def _seed(v: Any) -> int:
    from ..match.session import check_seed

    return check_seed(v)


def _name(v: Any) -> str:
    if (
        not isinstance(v, str)
        or not v.strip()
        or len(v.strip()) > 40
        or not v.strip().isprintable()
    ):
        raise RoomError(400, "name: 1 to 40 printable characters")
    name = v.strip()
    if name.lower().startswith("computer"):
        raise RoomError(400, "name: the computers are named 'computer N': another name")
    return name


__all__ = ["MAX_SEATS", "Rooms"]
