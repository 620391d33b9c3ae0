"""The documentation builds without a warning, and its reference pages say what the code does.

``docs/`` is a Sphinx project (Markdown pages read by MyST-Parser), built here as Read the
Docs builds it, with warnings as errors: a broken link between pages, a page left out of
the table of contents or a malformed table fails the suite. The settings page is checked
against the code by ``tests/test_settings.py``; the stats page here.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
PACKAGE = REPO / "scrapy_robots_policy"
README = REPO / "README.md"

#: The methods of Scrapy's ``StatsCollector`` that write a key.
STAT_METHODS = frozenset({"inc_value", "set_value", "max_value", "min_value"})
#: A row of a table on the stats page: its first cell is one stat key in backquotes.
STAT_ROW = re.compile(r"^\| `([a-z_][^`]*)` \|", re.M)
#: A settings row: name and default in backquotes (the pattern tests/test_settings.py reads).
SETTING_ROW = re.compile(r"^\| `(ROBOTS_POLICY_\w+)` \| `([^`]*)` \|", re.M)


def test_docs_build_without_warnings(tmp_path: Path) -> None:
    for module in ("sphinx", "myst_parser", "sphinx_rtd_theme"):
        pytest.importorskip(module)  # in the test extra (and the docs extra)
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-d", str(tmp_path / "doctrees"), str(DOCS), str(tmp_path / "html")],
        capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "WARNING" not in result.stderr, result.stderr
    built = {page.stem for page in (tmp_path / "html").glob("*.html")}
    assert {page.stem for page in DOCS.glob("*.md")} <= built


# -- the stats page against the code ------------------------------------------------------


def package_trees() -> Iterator[tuple[Path, ast.Module]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"))


def stat_keys_written() -> dict[str, str]:
    """Every stat key the package writes, as a template (``{}`` for each formatted part),
    with where it is written."""
    keys: dict[str, str] = {}
    for path, tree in package_trees():
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in STAT_METHODS and node.args):
                where = f"{path.relative_to(REPO)}:{node.lineno}"
                for key in templates(node.args[0], where):
                    keys.setdefault(key, where)
    return keys


def templates(node: ast.expr, where: str) -> Iterator[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, ast.JoinedStr):
        yield "".join(part.value if isinstance(part, ast.Constant) else "{}"
                      for part in node.values)
    elif isinstance(node, ast.IfExp):
        yield from templates(node.body, where)
        yield from templates(node.orelse, where)
    else:  # a key held in a variable: name it where it is counted, or teach this test
        raise AssertionError(f"{where}: a stat key this test cannot read: {ast.unparse(node)}")


def words_of_the_code() -> frozenset[str]:
    """Every ``/``-separated piece of every string the package writes: what a formatted
    part of a key can be when it is not a value only known at run time (a status code)."""
    words = set()
    for _, tree in package_trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                words.update(node.value.split("/"))
    return frozenset(word for word in words if word)


#: What a ``<placeholder>`` of the page stands for in a key: a value known at run time.
VARIES = "\0"


def producible(key: str, pieces: list[str], words: frozenset[str]) -> bool:
    """Whether a template (its literal ``pieces``, a formatted part between each two) can
    write ``key``: each formatted part is one or more ``/``-separated words of the code,
    or run-time values (``VARIES``)."""
    if len(pieces) == 1:
        return key == pieces[0]
    if not key.startswith(pieces[0]):
        return False
    rest = key[len(pieces[0]):]
    for end in range(1, len(rest) + 1):
        part = rest[:end]
        if (rest[end:].startswith(pieces[1])
                and all(w in words or w == VARIES for w in part.split("/"))
                and producible(rest[end:], pieces[1:], words)):
            return True
    return False


def stat_keys_documented() -> list[str]:
    return STAT_ROW.findall((DOCS / "stats.md").read_text(encoding="utf-8"))


def example(documented: str) -> str:
    """A key the page documents, each ``<placeholder>`` standing for a run-time value."""
    return re.sub(r"<[^<>/]+>", VARIES, documented)


def test_stats_are_read_from_the_code() -> None:
    written = stat_keys_written()
    assert "robotstxt/forbidden" in written and "robots_policy/{}/{}" in written
    assert len(written) > 30


def test_every_stat_the_code_writes_is_documented() -> None:
    documented = stat_keys_documented()
    assert len(documented) == len(set(documented)), "a stat is documented twice"
    words = words_of_the_code()
    for key, where in stat_keys_written().items():
        if "{}" not in key:
            assert key in documented, f"{key} ({where}) is not in docs/stats.md"
        else:
            pieces = key.split("{}")
            assert any(producible(example(d), pieces, words) for d in documented), \
                f"no key of docs/stats.md is one {key!r} ({where}) writes"


def test_every_documented_stat_is_one_the_code_writes() -> None:
    words = words_of_the_code()
    templates = [key.split("{}") for key in stat_keys_written()]
    for documented in stat_keys_documented():
        assert any(producible(example(documented), pieces, words) for pieces in templates), \
            f"docs/stats.md documents {documented}, which no code writes"


# -- README: the first page, pointing at the others ---------------------------------------


def test_readme_is_the_first_page_and_stays_short() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) < 400
    # .ci/run runs the second line of the first sh block: the test command, which also
    # installs Sphinx (the test extra) so that it builds these docs.
    first_block = text.split("```sh\n", 1)[1].split("```", 1)[0].splitlines()
    assert '-e ".[test]"' in first_block[1] and "-m pytest" in first_block[1]


def test_readme_links_to_files_that_exist() -> None:
    links = re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", README.read_text(encoding="utf-8"))
    assert any(link.startswith("docs/") for link in links)
    for link in links:
        assert (REPO / link).is_file(), link


def test_readme_settings_are_the_settings_pages() -> None:
    readme = dict(SETTING_ROW.findall(README.read_text(encoding="utf-8")))
    reference = dict(SETTING_ROW.findall((DOCS / "settings.md").read_text(encoding="utf-8")))
    assert readme, "README lists the most used settings"
    for name, default in readme.items():
        assert reference.get(name) == default, name
