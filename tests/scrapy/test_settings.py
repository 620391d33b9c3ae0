"""Settings are read once into one typed object, with the names and defaults of the
settings page (docs/settings.md)."""

from __future__ import annotations

import re
from pathlib import Path
from unittest import mock

import pytest
from scrapy import Spider
from scrapy.settings import Settings

from scrapy_robots_policy.scrapy.settings import RobotsPolicySettings
from tests.support import idle_crawler

SETTINGS_PAGE = Path(__file__).resolve().parents[2] / "docs" / "settings.md"


def read(values: dict[str, object]) -> RobotsPolicySettings:
    settings = Settings()
    settings.setdict(values, priority="project")
    return RobotsPolicySettings.read(settings)


def test_scrapy_defaults_give_the_documented_defaults() -> None:
    s = read({})
    assert s.obey_robotstxt is False
    assert (s.fetch.ttl, s.fetch.patience, s.fetch.max_size) == (86400.0, 20.0, 512_000)
    assert (s.fetch_timeout, s.max_origins, s.redis_url) == (10.0, 10_000, None)
    assert s.user_agent.startswith("Scrapy/")  # Scrapy's own USER_AGENT
    assert s.directives_obey and s.drop_noindex and s.obey_nofollow


def test_every_setting_is_read_from_its_name() -> None:
    s = read({"ROBOTSTXT_OBEY": True, "ROBOTS_POLICY_CACHE_TTL": 5,
              "ROBOTS_POLICY_RETRY_PATIENCE": "0", "ROBOTS_POLICY_MAX_REDIRECTS": 2,
              "ROBOTS_POLICY_REDIS_URL": "redis://h:1/0", "ROBOTS_POLICY_CRAWL_DELAY": "True",
              "ROBOTS_POLICY_ITEM_FIELD": "robots", "ROBOTSTXT_USER_AGENT": "MyBot",
              "DEFAULT_REQUEST_HEADERS": {b"user-AGENT": b"HeaderBot/2"}})
    assert s.obey_robotstxt and s.crawl_delay
    assert (s.fetch.ttl, s.fetch.patience, s.fetch.max_redirects) == (5.0, 0.0, 2)
    assert (s.redis_url, s.item_field, s.robotstxt_user_agent) == (
        "redis://h:1/0", "robots", "MyBot")
    assert s.default_headers_user_agent == "HeaderBot/2"


def test_a_shorter_download_timeout_bounds_the_robots_txt_timeout() -> None:
    assert read({"DOWNLOAD_TIMEOUT": 3}).fetch_timeout == 3.0
    assert read({"DOWNLOAD_TIMEOUT": 0}).fetch_timeout == 10.0  # 0: no timeout at all


def test_a_running_crawls_settings_are_read_once_edited_ones_each_time() -> None:
    crawler = mock.MagicMock()  # as Scrapy's own middleware tests build one
    crawler.settings = Settings({"ROBOTS_POLICY_CACHE_TTL": 1})
    first = RobotsPolicySettings.of(crawler)
    crawler.settings.set("ROBOTS_POLICY_CACHE_TTL", 2)
    assert RobotsPolicySettings.of(crawler).fetch.ttl == 2.0 != first.fetch.ttl
    crawler.settings.freeze()
    assert RobotsPolicySettings.of(crawler) is RobotsPolicySettings.of(crawler)
    crawler.settings = Settings({"ROBOTS_POLICY_CACHE_TTL": 3}, priority="project")
    crawler.settings.freeze()
    assert RobotsPolicySettings.of(crawler).fetch.ttl == 3.0


def test_the_settings_page_documents_every_setting_with_its_real_default() -> None:
    rows = re.findall(r"^\| `(ROBOTS_POLICY_\w+)` \| `([^`]*)` \|", SETTINGS_PAGE.read_text(),
                      re.M)
    documented = dict(rows)
    defaults = RobotsPolicySettings()
    real = {
        "ROBOTS_POLICY_CACHE_TTL": defaults.fetch.ttl,
        "ROBOTS_POLICY_MIN_TTL": defaults.fetch.min_ttl,
        "ROBOTS_POLICY_MAX_TTL": defaults.fetch.max_ttl,
        "ROBOTS_POLICY_STALE_LIMIT": defaults.fetch.stale_limit,
        "ROBOTS_POLICY_MAX_ORIGINS": defaults.max_origins,
        "ROBOTS_POLICY_REDIS_URL": defaults.redis_url,
        "ROBOTS_POLICY_REDIS_PREFIX": defaults.redis_prefix,
        "ROBOTS_POLICY_REDIS_LEASE_TIME": defaults.redis_lease_time,
        "ROBOTS_POLICY_SHARED_DOWNLOAD_DELAY": defaults.shared_download_delay,
        "ROBOTS_POLICY_MAX_SIZE": defaults.fetch.max_size,
        "ROBOTS_POLICY_MAX_REDIRECTS": defaults.fetch.max_redirects,
        "ROBOTS_POLICY_FETCH_TIMEOUT": defaults.fetch_timeout,
        "ROBOTS_POLICY_RETRY_PATIENCE": defaults.fetch.patience,
        "ROBOTS_POLICY_RETRY_BACKOFF": defaults.fetch.backoff,
        "ROBOTS_POLICY_RETRY_BACKOFF_MAX": defaults.fetch.backoff_max,
        "ROBOTS_POLICY_CRAWL_DELAY": defaults.crawl_delay,
        "ROBOTS_POLICY_MAX_CRAWL_DELAY": defaults.max_crawl_delay,
        "ROBOTS_POLICY_EARLY_REFUSAL": defaults.early_refusal,
        "ROBOTS_POLICY_SITE_BACKOFF": defaults.site_backoff,
        "ROBOTS_POLICY_SITE_BACKOFF_STATUSES": sorted(defaults.site_backoff_statuses),
        "ROBOTS_POLICY_SITE_BACKOFF_MAX": defaults.site_backoff_max,
        "ROBOTS_POLICY_SITE_BACKOFF_MAX_PAUSES": defaults.site_backoff_max_pauses,
        "ROBOTS_POLICY_SITE_BACKOFF_MAX_PAUSE_TIME": defaults.site_backoff_max_pause_time,
        "ROBOTS_POLICY_DIRECTIVES_OBEY": defaults.directives_obey,
        "ROBOTS_POLICY_DROP_NOINDEX": defaults.drop_noindex,
        "ROBOTS_POLICY_OBEY_NOFOLLOW": defaults.obey_nofollow,
        "ROBOTS_POLICY_NOFOLLOW_LINKS_ONLY": defaults.nofollow_links_only,
        "ROBOTS_POLICY_OBEY_REL_NOFOLLOW": defaults.obey_rel_nofollow,
        "ROBOTS_POLICY_ITEM_FIELD": defaults.item_field,
        "ROBOTS_POLICY_PURPOSES": list(defaults.purposes),
        "ROBOTS_POLICY_USAGE": defaults.usage,
        "ROBOTS_POLICY_ALSO_OBEY": list(defaults.also_obey),
    }
    assert set(documented) == set(real)
    for name, value in real.items():
        if isinstance(value, str):
            assert documented[name] == repr(value).replace("'", '"'), name
        elif isinstance(value, float):
            assert float(documented[name]) == value, name
        else:
            assert documented[name] == str(value), name


def test_purposes_usage_mode_and_usage_tokens() -> None:
    s = read({"ROBOTS_POLICY_PURPOSES": "AI-Train, search,ai-train",
              "ROBOTS_POLICY_USAGE": "Record", "ROBOTS_POLICY_ALSO_OBEY": ["GPTBot", " "]})
    assert (s.purposes, s.usage, s.also_obey) == (("ai-train", "search"), "record", ("GPTBot",))
    assert not s.enforce_usage  # recorded only
    assert read({"ROBOTS_POLICY_PURPOSES": ["tdm"]}).enforce_usage  # enforce by default
    assert not read({}).enforce_usage  # nothing declared, nothing enforced


@pytest.mark.parametrize(("name", "value", "message"), [
    ("ROBOTS_POLICY_CACHE_TTL", "1d", "ROBOTS_POLICY_CACHE_TTL: '1d' is not a number of seconds"),
    ("ROBOTS_POLICY_RETRY_PATIENCE", "20s",
     "ROBOTS_POLICY_RETRY_PATIENCE: '20s' is not a number of seconds"),
    ("DOWNLOAD_TIMEOUT", "3m", "DOWNLOAD_TIMEOUT: '3m' is not a number of seconds"),
    ("ROBOTS_POLICY_MAX_SIZE", "500k",
     "ROBOTS_POLICY_MAX_SIZE: '500k' is not a whole number of bytes"),
    ("ROBOTS_POLICY_MAX_ORIGINS", "1e4",
     "ROBOTS_POLICY_MAX_ORIGINS: '1e4' is not a whole number"),
    ("ROBOTSTXT_OBEY", "yes",
     "ROBOTSTXT_OBEY: 'yes' is not True or False (or 1 / 0, 'true' / 'false')"),
    ("ROBOTS_POLICY_SITE_BACKOFF_STATUSES", "429,slow",
     "ROBOTS_POLICY_SITE_BACKOFF_STATUSES: '429,slow' is not a list of HTTP status codes "
     "(100 to 599)"),
    ("ROBOTS_POLICY_SITE_BACKOFF_STATUSES", [42],
     "ROBOTS_POLICY_SITE_BACKOFF_STATUSES: [42] is not a list of HTTP status codes "
     "(100 to 599)"),
    ("ROBOTS_POLICY_PURPOSES", "ai_train, search",
     "ROBOTS_POLICY_PURPOSES: 'ai_train, search' is not a list of purposes among search, "
     "ai-input, ai-train, tdm (unknown: ai_train)"),
    ("ROBOTS_POLICY_USAGE", "warn", "ROBOTS_POLICY_USAGE: 'warn' is not 'enforce' or 'record'"),
    ("ROBOTS_POLICY_ALSO_OBEY", 5, "ROBOTS_POLICY_ALSO_OBEY: 5 is not a list of product tokens"),
])
def test_a_bad_value_stops_the_crawl_naming_the_setting_the_value_and_what_is_accepted(
        name: str, value: object, message: str) -> None:
    with pytest.raises(ValueError) as raised:
        read({name: value})
    assert str(raised.value) == message


def test_a_bad_value_in_a_crawlers_settings_is_named_when_the_crawl_reads_them() -> None:
    crawler = idle_crawler(Spider, {"ROBOTS_POLICY_CACHE_TTL": "1d"})
    with pytest.raises(ValueError,
                       match=re.escape("ROBOTS_POLICY_CACHE_TTL: '1d' is not a number")):
        RobotsPolicySettings.of(crawler)


def test_values_scrapy_reads_as_numbers_and_flags_are_still_accepted() -> None:
    s = read({"ROBOTS_POLICY_CACHE_TTL": "3600", "ROBOTS_POLICY_MAX_SIZE": 1000.0,
              "ROBOTS_POLICY_CRAWL_DELAY": "false", "ROBOTS_POLICY_SITE_BACKOFF": 0,
              "ROBOTS_POLICY_SITE_BACKOFF_STATUSES": "503, 429"})
    assert (s.fetch.ttl, s.fetch.max_size, s.crawl_delay, s.site_backoff) == (
        3600.0, 1000, False, False)
    assert s.site_backoff_statuses == frozenset({429, 503})
