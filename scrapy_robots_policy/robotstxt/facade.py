"""RobotsTxt: a parsed file, and the questions a crawler asks it.

Built for a crawler that parses one file per origin and then asks about every request:
parsing only assembles the groups (``agents``); the first question for a user agent reads
the rule lines of the groups that apply to it, and only those (``rules``), into a
``Matcher`` cached per agent; a question is then a path extraction, a percent-encoding
check and a walk of that matcher. Usage lines (Content-Signal, Content-Usage) are read on
the first question about them (``usage``).
"""

from __future__ import annotations

from array import array

from .agents import Agents, assemble, naming, product_token
from .lines import prepare, utf8
from .matcher import DISALLOW_EVERYTHING, NO_RULES, Best, Matcher
from .patterns import normalize_path, split_url
from .precedence import ROBOTS_TXT_PATH, Decision
from .report import Explanation, explain
from .rules import build
from .sitemaps import sitemap_urls
from .usage import UsageIndex, UsageLine, applying, index_usage

_MAX_CACHED_AGENTS = 64
_BODY_GIVEN = (
    "RobotsTxt() takes no robots.txt body (got {}): parse one with RobotsTxt.parse(body). "
    "For Scrapy's ROBOTSTXT_PARSER setting, use 'scrapy_robots_policy.RobotParser'."
)


class RobotsTxt:
    """A parsed robots.txt. Build with ``RobotsTxt.parse``; query with ``allowed``/``decide``."""

    __slots__ = (
        "_agents",
        "_data",
        "_fallback",
        "_matchers",
        "_origin",
        "_refused",
        "_sitemaps",
        "_spans",
        "_star",
        "_usage",
    )

    def __init__(
        self,
        data: bytes | None = None,
        spans: array[int] | None = None,
        agents: Agents | None = None,
        star: list[int] | None = None,
        fallback: Matcher = NO_RULES,
    ) -> None:
        if spans is None:
            if data is not None:
                # ``RobotsTxt(body)``: a body without its groups would answer "allowed" to
                # everything. Scrapy's RobotsTxtMiddleware builds ROBOTSTXT_PARSER this way
                # (its start-up check passes b""), so this stops such a crawl at start.
                raise TypeError(_BODY_GIVEN.format(type(data).__name__))
            spans = array("i")
        # The groups, as ``agents.assemble`` finds them: kept here rather than in an
        # object of their own, which would cost every parse an allocation.
        self._data = data or b""
        self._spans = spans
        self._agents = agents or {}
        self._star = star or []
        self._fallback = fallback  # what applies when no group does
        # By User-Agent; "" (no crawler's name, so the groups for "*") holds the matcher
        # every crawler no group names shares. Keys all str: a smaller, faster dictionary.
        self._matchers: dict[str, Matcher] = {}
        self._sitemaps: tuple[str, ...] | None = None
        self._usage: UsageIndex | None = None
        # "scheme://authority/" of the last URL asked about: one robots.txt serves one
        # origin, so the next URL almost always starts with it and its path is a slice.
        self._origin = ""
        # (User-Agent, path, rule found) of the last question answered "no": a crawler
        # asks ``decide`` next for the line to name in its refusal, read here, not searched.
        self._refused: tuple[str, str, Best] | None = None

    @classmethod
    def parse(cls, content: bytes | bytearray | memoryview | str) -> RobotsTxt:
        """Parse a robots.txt body. Never raises: whatever is not a valid line is skipped."""
        data = prepare(content)
        spans, agents, star = assemble(data)
        return cls(data, spans, agents, star)

    @classmethod
    def allow_all(cls) -> RobotsTxt:
        """What a 4xx answer means: no robots.txt, every URL allowed."""
        return _ALLOW_ALL

    @classmethod
    def disallow_all(cls) -> RobotsTxt:
        """What an unreachable robots.txt (5xx, network error) means: nothing allowed."""
        return _DISALLOW_ALL

    # -- questions ---------------------------------------------------------------------

    def allowed(self, url: str, user_agent: str) -> bool:
        """Whether ``user_agent`` (a product token or a full User-Agent) may fetch ``url``."""
        matcher = self._matchers.get(user_agent) or self._matcher_for(user_agent)
        origin = self._origin
        if (
            origin
            and url.startswith(origin)
            and url.isascii()
            and not ("#" in url or "%" in url or "*" in url or "$" in url)
        ):
            path = url[len(origin) - 1 :]  # ``_path``'s usual answer, without the call
        else:
            path = self._path(url)
        found = matcher.find(path)
        # Read here: a question is a few calls, each a tenth of its time.
        if (
            found is None
            or (found < 0 if isinstance(found, int) else found.allow)
            or path == ROBOTS_TXT_PATH
        ):
            return True
        self._refused = (user_agent, path, found)
        return False

    def decide(self, url: str, user_agent: str) -> Decision:
        """Like ``allowed``, with the line and rule that decided (None when no rule did)."""
        matcher = self._matchers.get(user_agent) or self._matcher_for(user_agent)
        path = self._path(url)
        refused = self._refused
        if refused is not None and refused[1] == path and refused[0] == user_agent:
            return matcher.decision_of(refused[2], path)  # ``allowed`` just searched it
        return matcher.decision(path)

    def decide_named(self, url: str, token: str) -> Decision | None:
        """The decision of the groups that name ``token`` ("GPTBot", "Google-Extended"), or
        None when no group names it: the ``*`` group does not count, so a crawler can also
        obey the groups written for other products' tokens."""
        if not self._named(product_token(token)):
            return None
        matcher = self._matchers.get(token) or self._matcher_for(token)
        return matcher.decision(self._path(url))

    def explain(self, url: str, user_agent: str) -> Explanation:
        """The group chosen for ``user_agent`` and every rule of it matching ``url``."""
        token = product_token(user_agent)
        named = self._named(token)
        kind = "specific" if named else ("*" if self._star else "none")
        matcher = self._matchers.get(user_agent) or self._matcher_for(user_agent)
        path = self._path(url)
        return explain(self._data, self._spans, named or self._star, kind, token, matcher, path)

    def usage_lines(self, url: str, user_agent: str) -> tuple[UsageLine, ...]:
        """The Content-Signal and Content-Usage lines that apply to ``url`` for
        ``user_agent``, in file order (which ones: see ``robotstxt.usage``)."""
        usage = self._usage_index()
        if not usage.outside and not usage.by_group:
            return ()
        groups = self._named(product_token(user_agent)) or self._star
        return applying(usage, groups, self._path(url))

    @property
    def usage_lines_unread(self) -> int:
        """How many usage lines were past the number read (``usage.MAX_USAGE_LINES``)."""
        return self._usage_index().unread

    def _usage_index(self) -> UsageIndex:
        if self._usage is None:
            self._usage = index_usage(self._data, self._spans)
        return self._usage

    def _named(self, token: str) -> list[int]:
        """The groups naming a product token (never the ``*`` group)."""
        return naming(self._data, self._spans, self._agents, utf8(token))

    @property
    def group_count(self) -> int:
        """How many groups (runs of user-agent lines and their rules) the file has."""
        return len(self._spans) // 3

    @property
    def sitemaps(self) -> tuple[str, ...]:
        """Every Sitemap value, in file order, wherever it stands in the file."""
        if self._sitemaps is None:
            self._sitemaps = sitemap_urls(self._data)
        return self._sitemaps

    def crawl_delay(self, user_agent: str) -> float | None:
        """Crawl-delay of the group that applies to ``user_agent``, in seconds, or None."""
        matcher = self._matchers.get(user_agent) or self._matcher_for(user_agent)
        return matcher.crawl_delay

    def _path(self, url: str) -> str:
        """The normalised path, params and query of ``url`` (see ``split_url``)."""
        origin = self._origin
        if origin and url.startswith(origin):
            # Same scheme and authority as last time, and a "/" right after them: the
            # general parse would find the path exactly here.
            path = url[len(origin) - 1 :]
            if "#" in path:
                path = path[: path.find("#")]
        else:
            path, start = split_url(url)
            if start > 0 and url[start] == "/" and "#" not in url[:start]:
                self._origin = url[: start + 1]
        if path.isascii() and "%" not in path and "*" not in path and "$" not in path:
            return path  # normalize_path's own shortcut, without the call
        return normalize_path(path)

    def _matcher_for(self, user_agent: str) -> Matcher:
        """The matcher of the groups that apply to ``user_agent``, built the first time.

        Cached by User-Agent string only: a crawl asks with one, and a second key per
        product token would cost every parsed file a larger dictionary.
        """
        name = product_token(user_agent)
        token = name.encode() if name.isascii() else utf8(name)
        indexes = naming(self._data, self._spans, self._agents, token)
        if indexes:
            # One per named agent: the Crawl-delay of a group may differ between the
            # agents it names.
            matcher = build(self._data, self._spans, indexes, token)
        else:
            shared = self._matchers.get("")
            if shared is None:
                star = self._star
                shared = build(self._data, self._spans, star, None) if star else self._fallback
                self._matchers[""] = shared
            matcher = shared
        if len(self._matchers) < _MAX_CACHED_AGENTS:
            self._matchers[user_agent] = matcher
        return matcher


_ALLOW_ALL = RobotsTxt()
_DISALLOW_ALL = RobotsTxt(fallback=DISALLOW_EVERYTHING)
