"""Issue 29 (the cold process): the presets' turn models ship with the package
(solver/rulesets/models/, outcomes/shipped.py) and are read instead of built.  Each file must
be exactly the model a fresh build gives, or the answers read from it would be another
game's: after a change to the scoring or the model's layout, `python -m
dicesolver.outcomes.shipped` writes them again."""

import numpy as np
import pytest

from dicesolver import rules
from dicesolver.outcomes import shipped
from dicesolver.outcomes.model import model_arrays
from dicesolver.store import Store
from dicesolver.tables import Tables


@pytest.mark.parametrize("name", rules.preset_names())
def test_every_presets_shipped_model_is_its_fresh_build(name):
    rs = rules.load(name)
    got = shipped.shipped(rs)
    assert got is not None, (
        f"no shipped model for {name}: run python -m dicesolver.outcomes.shipped"
    )
    fresh = model_arrays(rs)
    assert sorted(got) == sorted(fresh)
    for k in fresh:
        assert got[k].dtype == fresh[k].dtype and np.array_equal(got[k], fresh[k]), (name, k)


def test_no_file_is_shipped_but_a_presets():
    keys = {shipped.path(rules.load(n)).name for n in rules.preset_names()}
    assert {p.name for p in shipped.FOLDER.glob("*.npz")} == keys


def test_a_copy_of_a_preset_under_another_name_and_target_reads_its_model(tmp_path):
    import dataclasses

    rs = dataclasses.replace(rules.load("farkle"), name="my-farkle", target=5000)
    assert shipped.shipped(rs) is not None
    # a model the rules do not match (another definition) is not read
    other = dataclasses.replace(rs, bank_minimum=300)
    assert shipped.shipped(other) is None


@pytest.mark.parametrize("damage", ["truncate", "other_format", "other_key"])
def test_a_damaged_or_foreign_file_is_not_read(tmp_path, monkeypatch, damage):
    """A file cut short, of another model format or another rule definition is ignored:
    the model is built (and the answers are the same)."""
    rs = rules.load("farkle")
    monkeypatch.setattr(shipped, "FOLDER", tmp_path)
    shipped.write(tmp_path)
    p = shipped.path(rs)
    if damage == "truncate":
        p.write_bytes(p.read_bytes()[:200])
    else:
        with np.load(p) as z:
            arrays = {k: z[k] for k in z.files}
        if damage == "other_format":
            arrays["format"] = arrays["format"] + 1
        else:
            arrays["key"] = np.array(["0" * 64])
        np.savez_compressed(p, **arrays)
    assert shipped.shipped(rs) is None
    model = Tables(rs, Store(tmp_path / "tables")).model
    assert np.array_equal(model.prob, model_arrays(rs)["prob"])
