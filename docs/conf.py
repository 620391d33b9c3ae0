"""Sphinx configuration of the scrapy_robots_policy documentation (Read the Docs builds it
from .readthedocs.yaml; tests/test_docs.py builds it with warnings as errors).

The pages are Markdown, read by MyST-Parser: the tables the tests check against the code
(settings, stats) stay plain pipe tables, the same text on GitHub as on Read the Docs.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

project = "scrapy_robots_policy"
author = "scrapy_robots_policy contributors"
copyright = "scrapy_robots_policy contributors"
# The one place the version is written is the package; read it without importing it, so
# the docs build needs neither the package nor Scrapy installed.
release = re.search(r'^__version__ = "([^"]+)"',
                    (ROOT / "scrapy_robots_policy" / "__init__.py").read_text(),
                    re.M).group(1)
version = release

extensions = ["myst_parser"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns: list[str] = []
# Headings down to ### get anchors, so pages link to each other's sections:
# [which user agent](robots-txt.md#which-user-agent).
myst_heading_anchors = 3
# No intersphinx: the build never touches the network.

html_theme = "sphinx_rtd_theme"
html_title = f"scrapy_robots_policy {release}"
html_show_sourcelink = False
