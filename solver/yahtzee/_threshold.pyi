"""The C build of a threshold level (_threshold.c): its one function, typed for its callers."""

import numpy as np

from .widget import RuleArrays

def level(
    states: np.ndarray,
    data: np.ndarray,
    off: np.ndarray,
    index: np.ndarray,
    next_off: np.ndarray,
    next_data: np.ndarray,
    rules: RuleArrays,
    lo: int,
    threads: int,
    /,
) -> None: ...
