"""The compiled engine (an install with SCRAPY_ROBOTS_POLICY_COMPILE=1, see setup.py)
against its own Python source: the same answers, line for line.

CI runs the whole suite a third time on a compiled install, with
ROBOTS_POLICY_EXPECT_COMPILED=1; there the engine's source is imported a second time, as
Python, under another name, and both are asked the same questions.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import os
import random
import re
import sys
from importlib.machinery import ModuleSpec, SourceFileLoader
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_robots_policy import robotstxt
from scrapy_robots_policy.robotstxt import COMPILED, RobotsTxt
from tests.support import CORPUS, RULE_VALUE

EXPECT_COMPILED = os.environ.get("ROBOTS_POLICY_EXPECT_COMPILED") == "1"
compiled_only = pytest.mark.skipif(not COMPILED, reason="the engine is not compiled here")
_AGENT_VALUE = re.compile(rb"(?im)^[ \t]*user-?agent[ \t]*:?[ \t]*([^\s#]+)")


def test_the_engine_is_compiled_exactly_when_the_install_asked_for_it() -> None:
    # Guards both ways: a compiled job testing Python source proves nothing, and a
    # module compiled in place and left in the tree would hide the Python one.
    assert COMPILED is EXPECT_COMPILED


class _PythonSource(importlib.abc.MetaPathFinder):
    """Finds ``python_engine`` and its modules as the engine's .py files, never the
    compiled modules beside them."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        package, _, module = name.partition(".")
        if package != "python_engine":
            return None
        source = self.directory / f"{module or '__init__'}.py"
        return importlib.util.spec_from_file_location(
            name,
            source,
            loader=SourceFileLoader(name, str(source)),
            submodule_search_locations=None if module else [str(self.directory)],
        )


@pytest.fixture(scope="module")
def python_engine() -> ModuleType:
    finder = _PythonSource(Path(robotstxt.__file__).parent)
    sys.meta_path.insert(0, finder)
    try:
        engine = importlib.import_module("python_engine")
    finally:
        sys.meta_path.remove(finder)
    assert engine.COMPILED is False
    return engine


def answers(rules: Any, url: str, agent: str) -> tuple[object, ...]:
    """Everything a crawler reads from a parsed file about one URL, comparable."""
    decision = rules.decide(url, agent)
    return (
        rules.allowed(url, agent),
        (decision.allowed, decision.line, decision.rule),
        rules.crawl_delay(agent),
        rules.sitemaps,
        rules.group_count,
        [(u.key, u.value, u.line, u.path, u.cut) for u in rules.usage_lines(url, agent)],
    )


def questions(name: str, body: bytes) -> list[tuple[str, str]]:
    """URLs from the file's own rules, asked by the agents it names and by others."""
    rnd = random.Random(name)
    paths = {"/", "/index.html"}
    values = RULE_VALUE.findall(body)
    for value in rnd.sample(values, min(8, len(values))):
        pattern = value.decode("utf-8", "replace").rstrip("$")
        paths.update({pattern, pattern.replace("*", "x/y.php"), pattern + "%41é"})
    named = sorted({v.decode("latin-1") for v in _AGENT_VALUE.findall(body)})
    agents = ["Googlebot", "UnknownBot/2.0", *rnd.sample(named, min(2, len(named)))]
    return [(f"https://example.com/{p.lstrip('/')}", a) for p in sorted(paths) for a in agents]


@compiled_only
@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}")
def test_every_corpus_file_answers_alike_compiled_and_as_python(
    python_engine: ModuleType,
) -> None:
    differ = []
    for path in sorted(CORPUS.iterdir()):
        body = path.read_bytes()
        compiled, python = RobotsTxt.parse(body), python_engine.RobotsTxt.parse(body)
        for url, agent in questions(path.name, body):
            if answers(compiled, url, agent) != answers(python, url, agent):
                differ.append((path.name, url, agent))
    assert differ == []


LINES = st.sampled_from(
    ["User-agent: *", "User-agent: FooBot", "user-agent: foo bar", "Crawl-delay: 2",
     "Disallow: /", "Disallow: /a*b$", "Allow: /a/", "Allow: /$", "Disallow: /%7Ex",
     "Disallow: /é", "Allow: /*.php", "Sitemap: https://x/s.xml", "Content-Signal: search=no",
     "Disallow /two words", "# note", "", "Disallow: /a/index.html", "Allow: /a/index.html"]
)


@compiled_only
@settings(max_examples=300, deadline=None)
@given(
    lines=st.lists(LINES | st.text(max_size=30), max_size=30),
    path=st.text(alphabet="/ab*$%é.?=x", max_size=20),
    agent=st.sampled_from(["FooBot/1.0", "foo", "bar", "Other", ""]),
)
def test_generated_files_answer_alike_compiled_and_as_python(
    python_engine: ModuleType, lines: list[str], path: str, agent: str
) -> None:
    body = "\n".join(lines)
    url = "https://example.com" + path
    compiled, python = RobotsTxt.parse(body), python_engine.RobotsTxt.parse(body)
    assert answers(compiled, url, agent) == answers(python, url, agent)
