"""The build backend: setuptools', asking for mypy as well when a wheel is built with the
robots.txt engine compiled (``SCRAPY_ROBOTS_POLICY_COMPILE=1``, see setup.py), so that a
plain install needs nothing more than setuptools and no compiler."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from setuptools import build_meta
from setuptools.build_meta import *  # noqa: F403  (the rest of the backend, as it is)

COMPILE = "SCRAPY_ROBOTS_POLICY_COMPILE"
Settings = dict[str, object] | None


@contextmanager
def _not_compiling() -> Iterator[bool]:
    """setup.py read without the variable (it would import mypyc); whether it was set."""
    compiling = os.environ.pop(COMPILE, None)
    try:
        yield compiling == "1"
    finally:
        if compiling is not None:
            os.environ[COMPILE] = compiling


def get_requires_for_build_wheel(config_settings: Settings = None) -> list[str]:
    with _not_compiling() as compiling:
        found = build_meta.get_requires_for_build_wheel(config_settings)
    return found + (["mypy>=1.11"] if compiling else [])


def get_requires_for_build_editable(config_settings: Settings = None) -> list[str]:
    with _not_compiling() as compiling:
        found = build_meta.get_requires_for_build_editable(config_settings)
    return found + (["mypy>=1.11"] if compiling else [])


def get_requires_for_build_sdist(config_settings: Settings = None) -> list[str]:
    with _not_compiling():
        return build_meta.get_requires_for_build_sdist(config_settings)


def build_sdist(sdist_directory: str, config_settings: Settings = None) -> str:
    # An sdist is sources: it is compiled, or not, where it is installed.
    with _not_compiling():
        return build_meta.build_sdist(sdist_directory, config_settings)
