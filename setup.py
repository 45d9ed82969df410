"""The one compiled part: the zygote's fork loop (``runner/sandbox/_forkserver.c``).

Everything else is in pyproject.toml. ``pip install -e .`` (``make setup``) builds it in place,
next to its source, which is where the sandbox's zygote imports it from.
"""

from setuptools import Extension, setup

FORK_LOOP = Extension(
    "runner.sandbox._forkserver",
    ["runner/sandbox/_forkserver.c"],
    extra_compile_args=["-O2", "-Wall", "-Werror"],
)

setup(ext_modules=[FORK_LOOP])
