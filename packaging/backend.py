"""The build backend: setuptools', asking for mypy as well when the build compiles the
robots.txt engine (``SCRAPY_ROBOTS_POLICY_COMPILE=1``, see setup.py), so that a plain
install needs nothing more than setuptools and no compiler."""

from __future__ import annotations

import os
from collections.abc import Callable

from setuptools import build_meta
from setuptools.build_meta import *  # noqa: F403  (the rest of the backend, as it is)

COMPILE = "SCRAPY_ROBOTS_POLICY_COMPILE"


def _with_compiler(
    requires: Callable[[dict[str, object] | None], list[str]],
    config_settings: dict[str, object] | None,
) -> list[str]:
    """setuptools' requirements, plus mypy when compiling: setup.py is read without the
    variable here, since it imports mypyc, which is what is being asked for."""
    compiling = os.environ.pop(COMPILE, None)
    try:
        found = requires(config_settings)
    finally:
        if compiling is not None:
            os.environ[COMPILE] = compiling
    return found + (["mypy>=1.11"] if compiling == "1" else [])


def get_requires_for_build_wheel(config_settings: dict[str, object] | None = None) -> list[str]:
    return _with_compiler(build_meta.get_requires_for_build_wheel, config_settings)


def get_requires_for_build_editable(
    config_settings: dict[str, object] | None = None,
) -> list[str]:
    return _with_compiler(build_meta.get_requires_for_build_editable, config_settings)
