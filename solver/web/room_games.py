"""Yahtzee rooms (issue 38 with issue 37 item 5): the rooms of room_hub.Rooms, their
engine chosen by the set-up's `game` (`"zilch"`, or `"yahtzee"` for a Yahtzee-family
preset: match.YahtzeeSeats, 2 to 4 seats of people, computers and companion seats).  A
Yahtzee room is created, joined, started, undone, ended and replayed as a Zilch room is;
what differs is here: its set-up (the hints fixed at the creation: by P(win) where the
rules' beat table is stored, else by the expected score, so a replay decides as the game
did), a person's move (`{"keep": [...]}` rolls the others, `{"box": NAME}`, `{"best":
true}`, a roll at a turn's start), a computer's whole turn a record, and the state shown
(every seat's sheet, the score to beat)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import InputError, TableMissing
from ..yahtzee.yahtzee_rules import YahtzeeRules
from . import calls
from .room_hub import Message, summary_head
from .room_hub import Rooms as ZilchRooms
from .rooms import Room, RoomError

if TYPE_CHECKING:
    from ..match.yahtzee_seats import TableState, YahtzeeSeats

YAHTZEE_SEATS = 4
MOVE_FIELDS = {"token", "move", "keep", "box", "best", "dice", "then"}


def is_yahtzee(spec: dict[str, Any]) -> bool:
    return spec.get("game") == "yahtzee"


class Rooms(ZilchRooms):
    """Every room of the server: the Zilch family's (room_hub.Rooms), and Yahtzee's."""

    # --- the set-up and the engine ------------------------------------------------------
    def spec_of(self, body: Any) -> dict[str, Any]:
        if not isinstance(body, dict):
            return super().spec_of(body)
        wants = body.get("game") == "yahtzee" or body.get("rules") in calls.yahtzee_presets()
        if not wants:
            return super().spec_of(body)
        extra = set(body) - {"rules", "rules_text", "seats", "seed", "game", "hints"}
        if extra:
            raise RoomError(400, f"unknown field {sorted(extra)[0]!r} (a Yahtzee room)")
        text = body.get("rules_text")
        uploaded: YahtzeeRules | None = None
        if text is not None:  # (an uploaded rule file: kept in the room, read again on a restart)
            if body.get("rules") is not None:
                raise RoomError(400, "rules_text: a rule file's text, without rules")
            uploaded = yahtzee_rules_of(text)
            rules, name = None, uploaded.name
        else:
            rules = name = body.get("rules") or "yahtzee"
            if rules not in calls.yahtzee_presets():
                names = ", ".join(calls.yahtzee_presets())
                raise RoomError(400, f"rules: a Yahtzee preset ({names}) or rules_text")
        from .rooms import normal_seats

        seats = normal_seats(body.get("seats", ["person", "computer"]))
        hints = body.get("hints")
        if hints not in (None, "win", "expected"):
            raise RoomError(400, f'hints: "win" or "expected", got {hints!r}')
        if hints is None:
            hints = "win" if self._beat_stored(uploaded or name) else "expected"
        return {
            "game": "yahtzee",
            "rules": rules,
            "rules_text": text,
            "rules_name": name,
            "target": None,
            "seats": seats,
            "hints": hints,
        }

    def _beat_stored(self, rules: str | YahtzeeRules) -> bool:
        """Whether the rules' beat table (hints and computers by P(win)) is stored."""
        import dicesolver as ds

        try:
            ds.yahtzee_value(rules, score=0, beat=1, tables=self.web.query_store)
            return True
        except (InputError, TableMissing):
            return False

    def engine(self, spec: dict[str, Any]) -> Any:
        if not is_yahtzee(spec):
            return super().engine(spec)
        if not 2 <= len(spec["seats"]) <= YAHTZEE_SEATS:
            raise RoomError(400, f"seats: a Yahtzee room has 2 to {YAHTZEE_SEATS}")
        hints = spec.get("hints", "expected")
        text = spec.get("rules_text")
        rules: str | YahtzeeRules = spec["rules"] if text is None else yahtzee_rules_of(text)
        key = rules if isinstance(rules, str) else rules.digest()  # (an upload: by its hash)
        return self.web.engines.get(
            ("yahtzee-seats", key, hints), lambda: _seats_engine(self, rules, hints)
        )

    def create(self, body: Any) -> tuple[str, str]:
        if isinstance(body, dict) and (
            body.get("game") == "yahtzee" or body.get("rules") in calls.yahtzee_presets()
        ):
            # (a rematch names a Yahtzee room's target, rules and rules_text, some None)
            none = [k for k in ("target", "rules", "rules_text") if k in body and body[k] is None]
            body = {k: v for k, v in body.items() if k not in none}
        return super().create(body)

    # --- moves --------------------------------------------------------------------------
    def move(self, code: str, body: Any) -> tuple[Room, Message]:
        room = self.get(code)
        if not is_yahtzee(room.row.spec):
            return super().move(code, body)
        if not isinstance(body, dict):
            raise RoomError(400, 'the body is {"token", "move", "keep"} or {"box"} or {"best"}')
        extra = set(body) - MOVE_FIELDS
        if extra:
            raise RoomError(400, f"unknown field {sorted(extra)[0]!r}")
        return room, self._move(room, body, yahtzee_actions)

    def computer_action(self, room: Room) -> str:
        """A Yahtzee computer's whole turn one record (as room_hub's otherwise)."""
        return "play" if is_yahtzee(room.row.spec) else super().computer_action(room)

    def reviews(self, room: Room) -> tuple[dict[str, Any], str | None]:
        """Each person's review by P(win) (a list of one, as the Zilch rooms' pages show)."""
        got, error = super().reviews(room)
        if not is_yahtzee(room.row.spec):
            return got, error
        return {n: r if isinstance(r, list) else [r] for n, r in got.items()}, error

    # --- what is shown ------------------------------------------------------------------
    def summary(self, room: Room) -> dict[str, Any]:
        if not is_yahtzee(room.row.spec):
            return super().summary(room)
        s = room.state
        if s is None:
            return super().summary(room) | {"game": "yahtzee", "hints": room.row.spec["hints"]}
        view = room.engine.view(s)
        base = summary_head(room, "yahtzee")
        seats = base["seats"]
        for k, p in enumerate(view["seats"]):
            seats[k].update(
                name=p["name"], computer=p["computer"], score=p["score"], sheet=p["sheet"]
            )
            seats[k].update(finished=p["finished"], upper=p["upper"])
            seats[k].update(upper_bonus=p["upper_bonus"], yahtzee_bonus=p["yahtzee_bonus"])
        playing = view["phase"] in ("keep", "box") and not view["over"]
        return base | {
            "game": "yahtzee",
            "hints": view["hints"],
            "turn": s.seat,
            "player": view["player"],
            "phase": view["phase"],
            "scores": [p["score"] for p in view["seats"]],
            "dice": view["dice"],
            "dice_to_roll": view["to_roll"],
            "rolls_left": view["rolls_left"],
            "to_beat": view["to_beat"],
            "to_beat_final": view["to_beat_final"],
            "boxes": box_points(room.engine, s) if playing else [],
            "allowed": view["allowed"],
            "winners": view["winners"],
            "left": view["left"],
            "round": view["round"],
            "rounds": view["rounds"],
            "seed": s.seed,
            "events": room.feed[-12:],
            "view": view,
        }


def yahtzee_rules_of(text: Any) -> YahtzeeRules:
    """A Yahtzee-family rule file's text (as `yahtzee --rules FILE` reads it), else 400."""
    if not isinstance(text, str) or len(text) > calls.TEXT_LIMIT["rules_text"]:
        raise RoomError(400, "rules_text: a rule file's text")
    try:
        rs = calls.any_rules_from_text(text)
    except InputError as e:
        raise RoomError(400, f"rules_text: {e}") from None
    if not isinstance(rs, YahtzeeRules):
        raise RoomError(400, "rules_text: a Yahtzee-family rule file (with its [[boxes]])")
    return rs


def _seats_engine(rooms: Rooms, rules: str | YahtzeeRules, hints: str) -> YahtzeeSeats:
    from ..match.yahtzee_seats import YahtzeeSeats

    return YahtzeeSeats(rules, rooms.web.query_store, hints)


def box_points(engine: YahtzeeSeats, s: TableState) -> list[dict[str, Any]]:
    """The open boxes of the seat to play, with the points its hand scores in each."""
    from ..yahtzee import solitaire as Y

    g = s.game
    sheet = Y.SheetState(g.mask, g.upper, g.yf)
    out = []
    for i, box in enumerate(engine.rules.boxes):
        if g.mask >> i & 1:
            continue
        try:
            points, _ = Y.score_box(engine.rules, sheet, tuple(g.hand), i)
        except InputError:
            continue  # (the joker rule forbids it here)
        out.append({"box": box, "points": points})
    return out


def yahtzee_actions(
    engine: YahtzeeSeats, s: TableState, body: dict[str, Any], host_types: bool
) -> tuple[list[Any], list[Any]]:
    """The engine's actions and steps of a posted Yahtzee move (all or nothing): a roll
    (typed where the room rolls real dice; the host's for a computer, which then plays
    on to its next roll), the dice kept (the others rolled), a box, or the best move."""
    from ..match.session import dice_arg

    actions: list[Any] = []
    steps: list[Any] = []

    def run(action: Any) -> None:
        steps.append(engine.apply(steps[-1].state if steps else s, action))
        actions.append(action)

    typed = s.dice_from == "input"
    box, keep = body.get("box"), body.get("keep")
    if s.game.phase == "roll" or host_types:  # (the best move at a turn's start: the roll)
        if box is not None or keep is not None:
            raise RoomError(409, "roll first: a turn starts with a roll")
        run({"action": "roll", "dice": body.get("dice")} if typed else "roll")
        if host_types and "play" in engine.allowed(steps[-1].state):
            run("play")  # (the computer decides at once, to its next roll to type)
    elif body.get("best") is True:
        run("best")
    elif box is not None:
        if not isinstance(box, str):
            raise RoomError(400, "box: the name of an open box")
        run({"action": "box", "box": box})
    elif keep is not None:
        if s.game.phase != "keep":
            raise RoomError(409, "no roll is left: score the hand in a box")
        kept = list(dice_arg(keep, "keep")) if keep != [] else "none"
        run({"action": "keep", "dice": kept})
    else:
        raise RoomError(400, 'the move is {"keep": [...]}, {"box": NAME} or {"best": true}')
    return actions, steps
