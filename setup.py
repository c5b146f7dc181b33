"""The compiled backward pass of the turn solver (solver/turn/_kernel.c) and the Yahtzee
table build (solver/yahtzee/_widget.c) and its threshold tables (_threshold.c), built at
install.

Everything else is configured in pyproject.toml.  The extension is optional: if no C
compiler is found, the package installs without it and the solver runs its numpy loop."""

import sys

from setuptools import Extension, setup

threads = [] if sys.platform == "win32" else ["-pthread"]  # its rows shared by threads
setup(
    ext_modules=[
        Extension(
            "dicesolver.turn._kernel",
            ["solver/turn/_kernel.c"],
            optional=True,
            extra_compile_args=["-O3"] + threads,
            extra_link_args=threads,
        ),
        Extension(  # the Yahtzee table build (without it: numba compiles widget.py)
            "dicesolver.yahtzee._widget",
            ["solver/yahtzee/_widget.c"],
            depends=["solver/yahtzee/rule_arrays.h"],
            optional=True,
            extra_compile_args=["-O3"] + threads,
            extra_link_args=threads,
        ),
        Extension(  # the threshold tables (without it: numba compiles threshold_widget.py)
            "dicesolver.yahtzee._threshold",
            ["solver/yahtzee/_threshold.c"],
            depends=["solver/yahtzee/rule_arrays.h"],
            optional=True,
            extra_compile_args=["-O3"] + threads,
            extra_link_args=threads,
        ),
    ]
)
