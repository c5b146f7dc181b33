"""The C build of a level (_widget.c): its one function, typed for its Python callers."""

import numpy as np

from .widget import RuleArrays

def level(states: np.ndarray, E: np.ndarray, rules: RuleArrays, threads: int, /) -> None: ...
