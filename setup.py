"""The compiled backward pass of the turn solver (solver/_kernel.c), built at install.

Everything else is configured in pyproject.toml.  The extension is optional: if no C
compiler is found, the package installs without it and the solver runs its numpy loop."""
from setuptools import Extension, setup

setup(ext_modules=[Extension("solver._kernel", ["solver/_kernel.c"], optional=True,
                             extra_compile_args=["-O3"])])
