"""Every setting of the plugin, read once per crawl into one typed object.

The middlewares, the contracts, the caches and the command line all receive a
:class:`RobotsPolicySettings` instead of reading Scrapy's settings themselves, so each
setting has one name, one default and one parse, documented in README's settings table.
A spider's ``custom_settings`` are already merged into ``crawler.settings``, so
per-spider overrides need nothing more.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from scrapy_robots_policy.fetch.policy import PolicySettings
from scrapy_robots_policy.pacing import PaceSettings
from scrapy_robots_policy.scrapy.crawlstate import crawl_state
from scrapy_robots_policy.usage import PURPOSES

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings

_T = TypeVar("_T")

#: Scrapy's own default of DOWNLOAD_TIMEOUT, when the settings object has none.
_SCRAPY_DOWNLOAD_TIMEOUT = 180.0


@dataclass(frozen=True)
class RobotsPolicySettings:
    """The plugin's settings (Scrapy's names where Scrapy has one, else ``ROBOTS_POLICY_*``)."""

    # robots.txt: Scrapy's switch, and how fetched files are treated (policy.py).
    obey_robotstxt: bool = False  # ROBOTSTXT_OBEY
    fetch: PolicySettings = field(default_factory=PolicySettings)
    fetch_timeout: float = 10.0  # ROBOTS_POLICY_FETCH_TIMEOUT, within DOWNLOAD_TIMEOUT
    max_origins: int = 10_000
    crawl_delay: bool = False
    max_crawl_delay: float = 60.0
    # Refusing a request whose robots.txt is known before the scheduler (scrapy/early.py).
    early_refusal: bool = True
    # Sharing robots.txt between processes.
    redis_url: str | None = None
    redis_prefix: str = "robots_policy:"
    redis_lease_time: float = 10.0
    shared_download_delay: bool = False  # ROBOTS_POLICY_SHARED_DOWNLOAD_DELAY
    download_delay: float = 0.0  # DOWNLOAD_DELAY
    # Pauses a site asks for with 429 / 503 (pacing/).
    site_backoff: bool = True
    site_backoff_statuses: frozenset[int] = frozenset({429, 503})
    site_backoff_max: float = 300.0
    site_backoff_max_pauses: int = 5
    site_backoff_max_pause_time: float = 600.0
    # Which user agent the rules are read for (scrapy/useragent.py).
    robotstxt_user_agent: str | None = None  # ROBOTSTXT_USER_AGENT
    default_headers_user_agent: str | None = None  # User-Agent in DEFAULT_REQUEST_HEADERS
    user_agent: str = ""  # USER_AGENT
    # Page-level directives: whether the spider middleware runs, and where it puts them
    # on items (scrapy/spider.py); what a page's directives drop (page/policy.py).
    directives_obey: bool = True
    item_field: str | None = None
    drop_noindex: bool = True
    obey_nofollow: bool = True
    nofollow_links_only: bool = False
    obey_rel_nofollow: bool = False
    # What the crawl's content is for, and what the sites' usage signals then do
    # (usage/policy.py); robots.txt groups of other tokens obeyed too (fetch/verdict.py).
    purposes: tuple[str, ...] = ()
    usage: str = "enforce"  # or "record"
    also_obey: tuple[str, ...] = ()

    @classmethod
    def of(cls, crawler: Crawler) -> RobotsPolicySettings:
        """The settings of a crawl, read once when they are frozen (a running crawl): every
        part of it shares that object, kept on the crawler (:mod:`.crawlstate`). Settings
        still being edited (a mocked crawler's) are read anew."""
        settings = crawler.settings
        if not getattr(settings, "frozen", False):
            return cls.read(settings)
        state = crawl_state(crawler)
        if state.settings is None or state.settings_source is not settings:
            state.settings_source, state.settings = settings, cls.read(settings)
        read: RobotsPolicySettings = state.settings
        return read

    @classmethod
    def read(cls, settings: BaseSettings) -> RobotsPolicySettings:
        """Parse every setting of ``settings`` (defaults for those not set).

        A value that cannot be read stops the crawl at start with a ``ValueError`` naming
        the setting, the value and what is accepted (:class:`_Reader`)."""
        d = cls()
        f = d.fetch
        r = _Reader(settings)
        fetch_timeout = r.seconds("ROBOTS_POLICY_FETCH_TIMEOUT", d.fetch_timeout)
        download_timeout = r.seconds("DOWNLOAD_TIMEOUT", _SCRAPY_DOWNLOAD_TIMEOUT)
        if download_timeout > 0:  # a crawl told to wait less for pages waits less here too
            fetch_timeout = min(fetch_timeout, download_timeout)
        return cls(
            obey_robotstxt=r.flag("ROBOTSTXT_OBEY", d.obey_robotstxt),
            fetch=PolicySettings(
                ttl=r.seconds("ROBOTS_POLICY_CACHE_TTL", f.ttl),
                min_ttl=r.seconds("ROBOTS_POLICY_MIN_TTL", f.min_ttl),
                max_ttl=r.seconds("ROBOTS_POLICY_MAX_TTL", f.max_ttl),
                stale_limit=r.seconds("ROBOTS_POLICY_STALE_LIMIT", f.stale_limit),
                patience=r.seconds("ROBOTS_POLICY_RETRY_PATIENCE", f.patience),
                backoff=r.seconds("ROBOTS_POLICY_RETRY_BACKOFF", f.backoff),
                backoff_max=r.seconds("ROBOTS_POLICY_RETRY_BACKOFF_MAX", f.backoff_max),
                max_size=r.count("ROBOTS_POLICY_MAX_SIZE", f.max_size, "bytes"),
                max_redirects=r.count("ROBOTS_POLICY_MAX_REDIRECTS", f.max_redirects),
            ),
            fetch_timeout=fetch_timeout,
            max_origins=r.count("ROBOTS_POLICY_MAX_ORIGINS", d.max_origins),
            crawl_delay=r.flag("ROBOTS_POLICY_CRAWL_DELAY", d.crawl_delay),
            max_crawl_delay=r.seconds("ROBOTS_POLICY_MAX_CRAWL_DELAY", d.max_crawl_delay),
            early_refusal=r.flag("ROBOTS_POLICY_EARLY_REFUSAL", d.early_refusal),
            redis_url=settings.get("ROBOTS_POLICY_REDIS_URL") or None,
            redis_prefix=settings.get("ROBOTS_POLICY_REDIS_PREFIX") or d.redis_prefix,
            redis_lease_time=r.seconds("ROBOTS_POLICY_REDIS_LEASE_TIME", d.redis_lease_time),
            shared_download_delay=r.flag("ROBOTS_POLICY_SHARED_DOWNLOAD_DELAY",
                                         d.shared_download_delay),
            download_delay=r.seconds("DOWNLOAD_DELAY", d.download_delay),
            site_backoff=r.flag("ROBOTS_POLICY_SITE_BACKOFF", d.site_backoff),
            site_backoff_statuses=r.read(
                "ROBOTS_POLICY_SITE_BACKOFF_STATUSES",
                lambda name: _statuses(settings.getlist(name, sorted(d.site_backoff_statuses))),
                "a list of HTTP status codes (100 to 599)"),
            site_backoff_max=r.seconds("ROBOTS_POLICY_SITE_BACKOFF_MAX", d.site_backoff_max),
            site_backoff_max_pauses=r.count("ROBOTS_POLICY_SITE_BACKOFF_MAX_PAUSES",
                                            d.site_backoff_max_pauses),
            site_backoff_max_pause_time=r.seconds("ROBOTS_POLICY_SITE_BACKOFF_MAX_PAUSE_TIME",
                                                  d.site_backoff_max_pause_time),
            robotstxt_user_agent=settings.get("ROBOTSTXT_USER_AGENT") or None,
            default_headers_user_agent=r.read(
                "DEFAULT_REQUEST_HEADERS",
                lambda name: _default_headers_user_agent(settings.getdict(name)),
                "a dict of header names and values"),
            user_agent=str(settings.get("USER_AGENT") or ""),
            directives_obey=r.flag("ROBOTS_POLICY_DIRECTIVES_OBEY", d.directives_obey),
            drop_noindex=r.flag("ROBOTS_POLICY_DROP_NOINDEX", d.drop_noindex),
            obey_nofollow=r.flag("ROBOTS_POLICY_OBEY_NOFOLLOW", d.obey_nofollow),
            nofollow_links_only=r.flag("ROBOTS_POLICY_NOFOLLOW_LINKS_ONLY",
                                       d.nofollow_links_only),
            obey_rel_nofollow=r.flag("ROBOTS_POLICY_OBEY_REL_NOFOLLOW", d.obey_rel_nofollow),
            item_field=settings.get("ROBOTS_POLICY_ITEM_FIELD") or None,
            purposes=r.read("ROBOTS_POLICY_PURPOSES",
                            lambda name: _purposes(settings.getlist(name)),
                            f"a list of purposes among {', '.join(PURPOSES)}"),
            usage=r.read("ROBOTS_POLICY_USAGE",
                         lambda name: _usage_mode(settings.get(name) or d.usage),
                         "'enforce' or 'record'"),
            also_obey=r.read("ROBOTS_POLICY_ALSO_OBEY", lambda name: tuple(
                str(token).strip() for token in settings.getlist(name) if str(token).strip()),
                "a list of product tokens"),
        )

    @property
    def pace(self) -> PaceSettings:
        """What the pacing rule reads: ``DOWNLOAD_DELAY`` is part of an origin's pace only
        when the cluster shares it (else it is Scrapy's own, per process and slot)."""
        shared = self.shared_download_delay and bool(self.redis_url)
        return PaceSettings(
            crawl_delay=self.crawl_delay, max_crawl_delay=self.max_crawl_delay,
            download_delay=self.download_delay if shared else 0.0,
            backoff=self.site_backoff, backoff_statuses=self.site_backoff_statuses,
            backoff_max=self.site_backoff_max, max_pauses=self.site_backoff_max_pauses,
            max_pause_time=self.site_backoff_max_pause_time, max_origins=self.max_origins)

    @property
    def enforce_usage(self) -> bool:
        """Whether usage signals refuse requests and drop items (else they are recorded)."""
        return bool(self.purposes) and self.usage == "enforce"


class _Reader:
    """Reads each setting once, with one parse; a value the parse refuses becomes one
    ``ValueError`` naming the setting, the value as written and what is accepted:
    ``ROBOTS_POLICY_CACHE_TTL: '1d' is not a number of seconds``. Scrapy's own message
    ("could not convert string to float") names neither."""

    def __init__(self, settings: BaseSettings) -> None:
        self.settings = settings

    def read(self, name: str, parse: Callable[[str], _T], accepted: str) -> _T:
        """``parse(name)``, or the error saying what ``name`` accepts."""
        try:
            return parse(name)
        except (ValueError, TypeError) as error:
            value = self.settings.get(name)
            why = f" ({error})" if isinstance(error, _Refused) else ""
            raise ValueError(f"{name}: {value!r} is not {accepted}{why}") from None

    def seconds(self, name: str, default: float) -> float:
        return self.read(name, lambda n: self.settings.getfloat(n, default),
                         "a number of seconds")

    def count(self, name: str, default: int, unit: str = "") -> int:
        return self.read(name, lambda n: self.settings.getint(n, default),
                         f"a whole number{' of ' + unit if unit else ''}")

    def flag(self, name: str, default: bool) -> bool:
        return self.read(name, lambda n: self.settings.getbool(n, default),
                         "True or False (or 1 / 0, 'true' / 'false')")


class _Refused(ValueError):
    """A value our own parse refuses, with a reason worth adding to the message (Scrapy's
    own reasons, "could not convert string to float", are not)."""


def _purposes(values: list[Any]) -> tuple[str, ...]:
    """The declared purposes, checked: a misspelt one would silently enforce nothing."""
    purposes = tuple(dict.fromkeys(str(value).strip().lower() for value in values
                                   if str(value).strip()))
    unknown = [purpose for purpose in purposes if purpose not in PURPOSES]
    if unknown:
        raise _Refused(f"unknown: {', '.join(unknown)}")
    return purposes


def _statuses(values: list[Any]) -> frozenset[int]:
    """HTTP status codes, checked: a typo would silently never back off."""
    statuses = frozenset(int(str(value).strip()) for value in values)
    if not all(100 <= status <= 599 for status in statuses):
        raise ValueError("not an HTTP status")
    return statuses


def _usage_mode(value: Any) -> str:
    mode = str(value).strip().lower()
    if mode not in ("enforce", "record"):
        raise ValueError("unknown usage mode")
    return mode


def _default_headers_user_agent(headers: dict[Any, Any]) -> str | None:
    """The User-Agent of ``DEFAULT_REQUEST_HEADERS`` (any case of the name), if set."""
    for name, value in headers.items():
        if value and _text(name).lower() == "user-agent":
            return _text(value)
    return None


def _text(value: Any) -> str:
    return value.decode("latin-1") if isinstance(value, bytes) else str(value)
