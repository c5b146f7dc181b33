"""The turn models of the built-in presets, shipped with the package (rulesets/models/, one
.npz per rule definition but for its target, RuleSet.table_key()): a first query of a preset
reads its model instead of scoring every roll of every dice count (farkle: ~50 ms of a
~0.3 s process; issue 29's cold `zilch strategy`).  Any rule file with a preset's definition
finds it too.  A file is used only where its model format and key are this code's and its
arrays are sound; tests/test_shipped_models.py holds every file equal to a fresh build, and
`python -m dicesolver.outcomes.shipped` writes them again (after a change to the scoring
or to the model's layout)."""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path

import numpy as np

from ..rules import RuleSet, load, preset_names
from .model import FORMAT, model_arrays, sound

FOLDER = Path(__file__).resolve().parent.parent / "rulesets" / "models"


def path(rules: RuleSet) -> Path:
    return FOLDER / f"{rules.table_key()[:16]}.npz"


def shipped(rules: RuleSet) -> dict[str, np.ndarray] | None:
    """The shipped model arrays of these rules' definition, or None (no such file, or one
    of another format, key or shape: the caller builds the model)."""
    p = path(rules)
    if not p.is_file():
        return None
    try:
        with np.load(p, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error):  # damaged
        return None
    fmt, key = arrays.pop("format", None), arrays.pop("key", None)
    if fmt is None or key is None or fmt.shape != (1,) or key.shape != (1,):
        return None
    if int(fmt[0]) != FORMAT or str(key[0]) != rules.table_key() or not sound(rules, arrays):
        return None
    return arrays


def write(folder: Path = FOLDER) -> list[Path]:
    """Every preset's model into `folder` (the files shipped)."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name in preset_names():
        rules = load(name)
        p = folder / path(rules).name
        arrays = {"format": np.array([FORMAT]), "key": np.array([rules.table_key()])}
        arrays.update(model_arrays(rules))
        np.savez_compressed(p, allow_pickle=False, **arrays)
        out.append(p)
    return out


if __name__ == "__main__":
    for p in write():
        print(p)
