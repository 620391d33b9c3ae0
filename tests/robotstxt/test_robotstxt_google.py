"""Differential tests against Google's reference parser (jwm.robotstxt, its C++ via pybind).

Two sources of robots.txt files: every file of the real corpus, with questions derived
from each file's own rules, and generated files full of syntax corner cases.

Three documented differences. Percent-encoding: we follow RFC 9309 (2.2.2: %XX of an
unreserved character equals the character, a "%" starting no escape is "%25" (but one
with at most one hex digit before a "*", a "$" or the end, kept as written, in a rule
and in a URL alike, as for Google); 2.2.3: "%2A" and "%24" in a pattern match a literal
"*" and "$"), Google compares those octets as written. Several names on one user-agent
line ("User-agent: Agent2 Agent3"): each names a crawler for us (as crawler-commons and
Nutch read it), Google reads the first only. A disagreement counts as explained by one
of these choices only when Google agrees with us once the body (and URL) are given to it
in our reading: in RFC 9309 normal form, or with one name per user-agent line
(``one_name_per_line``). And the URI /robots.txt
is allowed whatever the rules say (RFC 9309 2.2.2); Google applies them to it.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_robots_policy.robotstxt import MAX_BYTES, ROBOTS_TXT_PATH, RobotsTxt
from tests.support import CORPUS, RULE_VALUE

googlebot = pytest.importorskip("jwm.robotstxt.googlebot")

# Google re-parses the whole file for every question: bound the octets it reads per file.
GOOGLE_OCTETS_PER_FILE = 1_500_000
MAX_QUESTIONS_PER_FILE = 48

_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
# What our reading decodes: unreserved characters, and those a URI cannot hold raw.
_DECODED = _UNRESERVED | frozenset(b' "<>\\^`{|}')
_AGENT_VALUE = re.compile(rb"(?im)^[ \t]*user-?agent[ \t]*:?[ \t]*([A-Za-z_-]+)")


def google_url(url: str) -> str:
    """The URL as Google wants it: UTF-8 percent-encoded, hex in upper case."""
    raw = url.encode("utf-8", "surrogateescape")
    raw = re.sub(rb"[\x80-\xff]", lambda m: b"%%%02X" % m.group()[0], raw)
    return re.sub(rb"%[0-9a-fA-F]{2}", lambda m: m.group().upper(), raw).decode("ascii")


# A "%" with at most one hex digit before a "*", a "$" (or their escapes) or the end of a
# value (of a rule) or path (of a URL) is kept as written, as for Google; elsewhere a lone
# "%" is a literal one.
_KEPT = rb"(?P<kept>%%[0-9A-Fa-f]?(?=[*$]|%%2[Aa4]|%s))|"
_RULE_END = rb"[ \t\v\f]*(?:#|\r|\n|$)"
_URL_END = rb"#|$"


def rfc_form(raw: bytes, url: bool = False) -> bytes:
    """The RFC 9309 normal form: %XX of unreserved characters decoded, a lone "%" as
    "%25" (unless it ends a piece, see ``_KEPT``), a literal "$" (not ending a value) as
    "%24"; in a URL, "*" and "$" escaped."""

    def replace(m: re.Match[bytes]) -> bytes:
        text = m.group()
        if m.group("kept") is not None:
            return text  # the start of an escape, kept as written (see ``_KEPT``)
        if len(text) == 1:
            return b"%25"
        octet = int(text[1:], 16)
        return bytes((octet,)) if octet in _DECODED else text.upper()

    kept = _KEPT % (_URL_END if url else _RULE_END)
    raw = re.sub(rb"%[0-9A-Fa-f]{2}|" + kept + rb"%", replace, raw)
    if url:
        return raw.replace(b"*", b"%2A").replace(b"$", b"%24")
    return re.sub(rb"\$(?![ \t\v\f]*(?:#|\r|\n|$))", b"%24", raw)


# A user-agent line in the colon form, at the start of a line (after CR, LF or nothing):
# its key up to the blanks after the colon, then its value up to a comment. (Without a
# colon a line has one name at most.)
_AGENT_LINE = re.compile(
    rb"(?i)(?<![^\r\n])([ \t\v\f]*user(?:-| )?agent[^:#\r\n]*:[ \t\v\f]*)([^#\r\n]*)"
)


def one_name_per_line(body: bytes) -> bytes:
    """The body with "User-agent: a b c" written "User-agent: a", "User-agent: b", ...

    Our reading of several names on one line, in a form Google reads the same way. A "*"
    value stays the global group whatever follows; a later "*" names no crawler.
    """

    def split(m: re.Match[bytes]) -> bytes:
        first, *more = m.group(2).split() or [b""]
        if first == b"*" or not more:
            return m.group()
        lines = [m.group(1) + first]
        lines += [b"user-agent: " + name for name in more if name != b"*"]
        return b"\n".join(lines)

    # A first line behind a byte order mark is a line too (both parsers skip the mark).
    bom = b"\xef\xbb\xbf" if body.startswith(b"\xef\xbb\xbf") else b""
    return bom + _AGENT_LINE.sub(split, body[len(bom):])


def within_limit(body: bytes) -> bytes:
    """What we read of a file: 500 KiB, without the line the limit cuts."""
    if len(body) <= MAX_BYTES:
        return body
    body = body[:MAX_BYTES]
    return body[: max(body.rfind(b"\n"), body.rfind(b"\r")) + 1]


@dataclass
class Tally:
    files: int = 0
    questions: int = 0
    explained: int = 0
    robots_txt: int = 0
    several_names: list[str] = field(default_factory=list)
    disagreements: list[str] = field(default_factory=list)


def compare(tally: Tally, name: str, body: bytes, ours: RobotsTxt, url: str, agent: str) -> None:
    """One question to both parsers; Google gets the agent's product token."""
    token = re.match(r"[A-Za-z_-]*", agent).group()  # type: ignore[union-attr]
    matcher = googlebot.RobotsMatcher()
    expected = matcher.OneAgentAllowedByRobots(body, token, google_url(url))
    got = ours.allowed(url, agent)
    tally.questions += 1
    if got == expected:
        return
    if got and urlsplit(url).path == ROBOTS_TXT_PATH and not urlsplit(url).query:
        tally.robots_txt += 1  # RFC 9309 2.2.2: implicitly allowed; Google applies the rules
        return
    normal_url = rfc_form(url.encode("utf-8", "surrogateescape"), url=True).decode(
        "utf-8", "surrogateescape"
    )
    decision = ours.decide(url, agent)
    line = f"{name}: {agent!r} {url!r} ours={got} ({decision})"
    if got == matcher.OneAgentAllowedByRobots(rfc_form(body), token, google_url(normal_url)):
        tally.explained += 1
    elif got == matcher.OneAgentAllowedByRobots(one_name_per_line(body), token, google_url(url)):
        tally.several_names.append(line)
    else:
        tally.disagreements.append(line)


def variants(value: bytes) -> set[str]:
    """Paths near a rule's pattern: itself, wildcards expanded, extended, truncated."""
    pattern = value.decode("utf-8", "surrogateescape")
    bare = pattern[:-1] if pattern.endswith("$") else pattern
    found = {
        pattern,
        bare,
        bare.replace("*", ""),
        bare.replace("*", "x"),
        bare.replace("*", "/a/b.php"),
        bare + "x",
        bare + "/",
        bare + "?q=1",
        bare[:-1],
        bare[: max(1, len(bare) // 2)],
    }
    return {path if path.startswith("/") else "/" + path for path in found}


def corpus_files() -> list[Path]:
    if not CORPUS.is_dir():
        pytest.skip(f"no corpus at {CORPUS}")
    return sorted(CORPUS.iterdir())


def test_corpus_agrees_with_google() -> None:
    tally = Tally()
    for path in corpus_files():
        raw = path.read_bytes()
        body = within_limit(raw)
        ours = RobotsTxt.parse(raw)
        rnd = random.Random(path.name)  # deterministic per file
        values = RULE_VALUE.findall(body)
        paths = {"/", "/index.html"}
        for value in rnd.sample(values, min(len(values), 12)):
            paths |= variants(value)
        named = sorted({v.decode("ascii") for v in _AGENT_VALUE.findall(body)})
        agents = ["googlebot", "Googlebot/2.1 (+http://www.google.com/bot.html)", "UnknownBot"]
        agents += rnd.sample(named, min(len(named), 2))
        questions = [(p, a) for p in sorted(paths) for a in agents]
        budget = max(len(agents), GOOGLE_OCTETS_PER_FILE // max(len(body), 1))
        rnd.shuffle(questions)
        for url_path, agent in questions[: min(budget, MAX_QUESTIONS_PER_FILE)]:
            compare(tally, path.name, body, ours, "http://example.com" + url_path, agent)
        tally.files += 1
    summary = (
        f"corpus differential: {tally.files} files, {tally.questions} questions, "
        f"{len(tally.disagreements)} disagreements, "
        f"{tally.explained} explained by RFC 9309 percent-encoding, "
        f"{len(tally.several_names)} by several names on one user-agent line, "
        f"{tally.robots_txt} on /robots.txt, implicitly allowed"
    )
    print(summary, *tally.several_names, sep="\n  ")
    assert tally.files > 1000
    assert not tally.disagreements, "\n".join([summary, *tally.disagreements[:20]])


def test_corpus_lines_with_several_names_read_as_one_name_per_line() -> None:
    """Every name after the first on a user-agent line of the corpus ("Yahoo! Slurp",
    "Sogou web spider") names a crawler for us exactly as it would on a line of its own:
    Google, given the file with one name per line, agrees on every question."""
    files = questions = 0
    disagreements = []
    for path in corpus_files():
        body = within_limit(path.read_bytes())
        later = {
            cut.group()
            for m in _AGENT_LINE.finditer(body)
            if not m.group(2).startswith(b"*")
            for name in m.group(2).split()[1:]
            if (cut := re.match(rb"[A-Za-z_-]+", name))
        }
        if not later:
            continue
        split = one_name_per_line(body)
        ours = RobotsTxt.parse(body)
        rnd = random.Random(path.name)
        values = RULE_VALUE.findall(body)
        paths = {"/", "/index.html"}
        for value in rnd.sample(values, min(len(values), 6)):
            paths |= variants(value)
        agents = sorted(name.decode("ascii") for name in later)
        agents = rnd.sample(agents, min(len(agents), 3))
        matcher = googlebot.RobotsMatcher()
        for url_path in sorted(paths):
            url = "http://example.com" + url_path
            normal = rfc_form(url.encode("utf-8", "surrogateescape"), url=True).decode(
                "utf-8", "surrogateescape"
            )
            for agent in agents:
                questions += 1
                got = ours.allowed(url, agent)
                if got in (
                    matcher.OneAgentAllowedByRobots(split, agent, google_url(url)),
                    matcher.OneAgentAllowedByRobots(rfc_form(split), agent, google_url(normal)),
                ):
                    continue
                disagreements.append(f"{path.name}: {agent!r} {url!r} ours={got}")
        files += 1
    print(f"several names per line: {files} files, {questions} questions")
    assert files > 100
    assert not disagreements, "\n".join(disagreements[:20])


# --- generated files full of corner cases -------------------------------------------------

SPACE = st.sampled_from(["", " ", "\t", "  ", "\v", "\f"])
KEY = st.sampled_from(
    [
        "user-agent",
        "User-Agent",
        "USERAGENT",
        "user agent",
        "user-agentx",
        "allow",
        "Allow",
        "allowed",
        "disallow",
        "DISALLOW",
        "dissallow",
        "dissalow",
        "disalow",
        "diasllow",
        "disallaw",
        "sitemap",
        "crawl-delay",
        "crawl delay",
        "crawldelay",
        "foo",
        "#user-agent",
    ]
)
SEPARATOR = st.sampled_from([":", ": ", " : ", " ", "\t", "", " :", "::"])
AGENT_VALUE = st.sampled_from(
    [
        "FooBot",
        "foobot",
        "FOOBOT/1.2",
        "Foo Bar",
        "*",
        "* x",
        "*Foo",
        "BarBot",
        "",
        "googlebot*",
        "BarBot FooBot/2",
        "x\tbarbot * foobot",
        "Foo FOOBOT",
        "*x FooBot",
        "* FooBot",
    ]
)
PATH_VALUE = st.one_of(
    st.sampled_from(
        ["/", "/a", "/a*", "/*b$", "/a$", "*", "/%61", "/é", "/%C3%A9", "/a/index.html"]
    ),
    st.text(alphabet="/ab*$%?#:=.é~2F \t", max_size=10),
)
EOL = st.sampled_from(["\n", "\r\n", "\r"])


@st.composite
def robots_line(draw: st.DrawFn) -> str:
    key = draw(KEY)
    value = draw(AGENT_VALUE) if "agent" in key else draw(PATH_VALUE)
    comment = draw(st.sampled_from(["", " # note", "#x:y"]))
    return draw(SPACE) + key + draw(SEPARATOR) + value + draw(SPACE) + comment + draw(EOL)


@settings(max_examples=400, deadline=None)
@given(
    lines=st.lists(robots_line(), max_size=14),
    prefix=st.sampled_from(["", "\ufeff", "\n"]),
    urls=st.lists(
        st.one_of(
            st.sampled_from(["", "a", "ab", "a/", "b", "a/b", "é", "%61b"]),
            st.text(alphabet="/ab*$%?#.é~2F", max_size=8),
        ),
        min_size=1,
        max_size=4,
    ),
)
def test_generated_files_agree_with_google(lines: list[str], prefix: str, urls: list[str]) -> None:
    # Google is asked in RFC 9309 normal form, one name per user-agent line (see module
    # docstring): any disagreement left is a real one.
    body = rfc_form((prefix + "".join(lines)).encode())
    ours = RobotsTxt.parse(body)
    matcher = googlebot.RobotsMatcher()
    for url in urls:
        full = "http://example.com/" + url
        normal = rfc_form(full.encode(), url=True).decode()
        for agent in ("FooBot", "BarBot", "Other"):
            expected = matcher.OneAgentAllowedByRobots(
                one_name_per_line(body), agent, google_url(normal)
            )
            assert ours.allowed(full, agent) == expected, (body, full, agent)
