"""Ctrl-C in a command: a KeyboardInterrupt that is never lost, and never a kill by signal
once the command has said "aborted".

Three ways a Ctrl-C went wrong in whole processes (the slow tier caught them):
- raised inside a garbage collector's callback (Dask's distributed has one), Python printed
  "Exception ignored in ..." and went on: a solve on workers ran to its end and printed its
  answer.  An interrupt Python would drop (sys.unraisablehook: gc callbacks, __del__, ctypes
  callbacks) is now said nowhere and raised again a moment later.
- raised inside numba's compiler (a ctypes callback), it came out as numba's RuntimeError and
  a traceback: any exception after a Ctrl-C is "aborted" (received() tells the command line).
- a second Ctrl-C during the interpreter's last steps, after Python has put the default
  action back, killed the process by the signal (-2) instead of exit 130.  Once the exit
  handlers have run, a Ctrl-C is ignored: the process is ending anyway.
"""

from __future__ import annotations

import atexit
import signal
import sys
import threading
from types import FrameType
from typing import Any

RETRY_SECONDS = 0.05  # when an interrupt Python dropped is raised again
_state = {"received": False, "pending": False}


def install() -> None:
    """The command's Ctrl-C handler, where Python's own is in place (not where SIGINT is
    ignored, or another handler was chosen), in the main thread only."""
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return
    signal.signal(signal.SIGINT, _handler)
    sys.unraisablehook = _unraisable


def received() -> bool:
    """Whether a Ctrl-C reached this command."""
    return _state["received"]


def settle() -> None:
    """The command is ending on its interrupt: no interrupt is raised again."""
    _state["pending"] = False


def _handler(sig: int, frame: FrameType | None) -> None:
    _state["received"] = True
    _state["pending"] = False
    raise KeyboardInterrupt


def _unraisable(unraisable: Any) -> None:
    kind = unraisable.exc_type
    if not (isinstance(kind, type) and issubclass(kind, KeyboardInterrupt)):
        sys.__unraisablehook__(unraisable)
        return
    _state["pending"] = True
    retry = threading.Timer(RETRY_SECONDS, _again)
    retry.daemon = True
    retry.start()


def _again() -> None:
    if _state["pending"]:  # (to the main thread itself: a wait there must wake)
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)


def _ignore_at_the_end() -> None:
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


# (registered at import, before any library's exit handler: run after all of them)
atexit.register(_ignore_at_the_end)
