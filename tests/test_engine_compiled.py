"""The compiled engine (an install with SCRAPY_ROBOTS_POLICY_COMPILE=1, see setup.py:
the Python source compiled with mypyc, and the rules builder and matcher in C) against
its own Python source: the same answers, line for line.

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
from scrapy_robots_policy.robotstxt import COMPILED, RobotsTxt, rules
from tests.support import CORPUS, RULE_VALUE

EXPECT_COMPILED = os.environ.get("ROBOTS_POLICY_EXPECT_COMPILED") == "1"
compiled_only = pytest.mark.skipif(not COMPILED, reason="the engine is not compiled here")
_AGENT_VALUE = re.compile(rb"(?im)^[ \t]*user-?agent[ \t]*:?[ \t]*([^\s#]+)")


def test_the_engine_is_compiled_exactly_when_the_install_asked_for_it() -> None:
    # Guards both ways: a compiled job testing Python source proves nothing, and a
    # module compiled in place and left in the tree would hide the Python one.
    assert COMPILED is EXPECT_COMPILED
    assert (rules.READ_COMPILED is not None) is EXPECT_COMPILED


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
        if not source.exists():
            # The C rules builder beside the compiled modules: the Python engine does
            # without it, as in a pure install (no other finder may look there).
            raise ModuleNotFoundError(f"no Python source for {name}", name=name)
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
    assert engine.rules.READ_COMPILED is None
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


def explained(rules: Any, url: str, agent: str) -> tuple[object, ...]:
    """``explain``'s report, comparable across the two engines' classes."""
    report = rules.explain(url, agent)
    decision = report.decision
    return (
        report.agent,
        report.group,
        report.group_lines,
        [(rule.allow, rule.pattern, rule.line) for rule in report.matches],
        (decision.allowed, decision.line, decision.rule),
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


# Rule lines in the spellings the C reader must read as lines.py's grammar does: keys by
# their prefix and with Google's typos, a colon or blanks as the separator (only before
# exactly one more word), blanks of every kind, comments.
_KEYS = st.sampled_from(
    ["Allow", "ALLOW", "allowed", "Disallow", "disallow", "DISALLOWING", "disalow",
     "dissallow", "dissalow", "diasllow", "disallaw", "Dis allow", "Allo", "User-agent"]
)
_SEPARATORS = st.sampled_from([":", ": ", " : ", "x:", " ", "\t", " \v", "\f ", "  ", ""])
_VALUES = st.text(alphabet="/ab*$#x.:\t\v\f ", max_size=12) | st.sampled_from(
    ["/a/index.html", "/index.htm", "/*.php$", "/a$b$", "/**a", "$", "*", "/a b", "/x # c"]
)
_RULE_LINE = st.builds(lambda *parts: "".join(parts), st.sampled_from(["", " ", "\t", "\v"]),
                       _KEYS, _SEPARATORS, _VALUES)
# Long paths: past 255 characters the C matcher checks a rule's grams before a search.
_LONG_PATH = st.builds(
    lambda unit, count, tail: "/" + unit * count + tail,
    st.text(alphabet="abqx12*.$/ \t", min_size=1, max_size=6),
    st.integers(0, 120),
    st.text(alphabet="abqx12./ \t", max_size=8),
)


@compiled_only
@settings(max_examples=400, deadline=None)
@given(
    lines=st.lists(_RULE_LINE | LINES, max_size=40),
    path=_LONG_PATH,
    agent=st.sampled_from(["FooBot/1.0", "Other"]),
)
def test_rule_lines_of_every_spelling_answer_alike_compiled_and_as_python(
    python_engine: ModuleType, lines: list[str], path: str, agent: str
) -> None:
    body = "User-agent: *\n" + "\n".join(lines)
    url = "https://example.com" + path
    compiled, python = RobotsTxt.parse(body), python_engine.RobotsTxt.parse(body)
    assert answers(compiled, url, agent) == answers(python, url, agent)
    assert explained(compiled, url, agent) == explained(python, url, agent)
    # Every rule read, matching or not: the C reader against lines.py's GROUP_LINE.
    data, spans = compiled._data, compiled._spans
    groups = list(range(compiled.group_count))
    read_compiled = rules.READ_COMPILED
    assert read_compiled is not None
    read = read_compiled(data, spans, groups)
    if read is not None:  # None: a group with a "%" or non-ASCII, read in Python
        first_lines: dict[tuple[bool, str], int] = {}
        for line, allow, pattern in python_engine.rules._rule_lines(data, spans, groups):
            first_lines.setdefault((allow, pattern), line)
        in_c = {read.rule(i)[1:] for i in range(read.rule_count())}
        assert in_c == {(allow, line, pattern) for (allow, pattern), line in first_lines.items()}


@compiled_only
@settings(max_examples=60, deadline=None)
@given(
    pieces=st.lists(st.text(alphabet="abqx12.", min_size=1, max_size=6), min_size=1, max_size=3),
    count=st.integers(100, 3_000),
    paths=st.lists(
        st.tuples(_LONG_PATH, st.integers(0, 3_000), st.booleans(), st.booleans()),
        min_size=1,
        max_size=5,
    ),
)
def test_thousands_of_wildcard_rules_answer_alike_compiled_and_as_python(
    python_engine: ModuleType,
    pieces: list[str],
    count: int,
    paths: list[tuple[str, int, bool, bool]],
) -> None:
    # Thousands of rules on one prefix: the Python engine's gram index against the C
    # matcher's grams, on long paths that hold a rule's pieces, or some of them.
    written = [
        f"{'Allow' if i % 3 == 0 else 'Disallow'}: /*{'*'.join(pieces)}{i}{'$' * (i % 4 == 1)}"
        for i in range(count)
    ]
    body = "User-agent: *\n" + "\n".join(written)
    compiled, python = RobotsTxt.parse(body), python_engine.RobotsTxt.parse(body)
    for filler, number, whole, at_end in paths:
        held = "x".join(pieces if whole else pieces[:-1]) + str(number)
        path = filler + held if at_end else filler + held + filler
        url = "https://example.com" + path
        assert answers(compiled, url, "FooBot") == answers(python, url, "FooBot")


@compiled_only
@settings(max_examples=300, deadline=None)
@given(
    body=st.text(alphabet=st.characters(max_codepoint=127), max_size=400),
    path=_LONG_PATH,
    agent=st.sampled_from(["FooBot", "Other"]),
)
def test_any_ascii_file_answers_alike_compiled_and_as_python(
    python_engine: ModuleType, body: str, path: str, agent: str
) -> None:
    # Any ASCII file: the only kind the C reader reads (control characters, stray
    # separators, NULs and "\r" included).
    url = "https://example.com" + path
    compiled, python = RobotsTxt.parse(body), python_engine.RobotsTxt.parse(body)
    assert answers(compiled, url, agent) == answers(python, url, agent)
    assert explained(compiled, url, agent) == explained(python, url, agent)
