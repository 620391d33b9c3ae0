"""`scrapy check` with @robotstxt and @meta_robots, in a generated project, on a local server.

Every run is the real command (`python -m scrapy check`) in a fresh Scrapy project whose
settings list only the add-on: the contracts must be registered by it, reported as OK
when they hold and as FAIL (never ERROR) with the reason when they do not.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import LocalServer, Reply

REPO = Path(__file__).resolve().parents[2]
AGENT = "ContractBot/1.0 (+https://example.invalid/bot)"
ROBOTS = (
    "User-agent: *\n"
    "Disallow: /\n"
    "\n"
    "User-agent: ContractBot\n"
    "Disallow: /members/\n"
    "Allow: /members/join\n"
)
HTML = {"Content-Type": "text/html"}

SPIDER = '''
import scrapy


class CheckedSpider(scrapy.Spider):
    name = "checked"

    def parse_open(self, response):
        """@url {base}/open
        @robotstxt allowed
        @meta_robots index follow
        """

    def parse_members(self, response):
        """The page 404s: the verdict still holds, the callback still runs.

        @url {base}/members/list
        @robotstxt disallowed
        """

    def parse_join(self, response):
        """@url {base}/members/join
        @meta {{"dont_redirect": true}}
        @robotstxt allowed
        """

    def parse_restricted(self, response):
        """@url {base}/restricted
        @meta_robots noindex nofollow max-snippet:20
        """

    def parse_members_fail(self, response):
        """@url {base}/members/area
        @robotstxt allowed
        """

    def parse_open_fail(self, response):
        """@url {base}/open
        @robotstxt disallowed
        """

    def parse_other_agent_fail(self, response):
        """@url {base}/other-agent
        @meta_robots noindex
        """

    def parse_follow_fail(self, response):
        """@url {base}/restricted
        @meta_robots follow
        """

    def parse_typo_fail(self, response):
        """@url {base}/restricted
        @meta_robots noindx
        """
'''


def routes() -> dict[str, Reply]:
    return {
        "/robots.txt": Reply(200, ROBOTS),
        "/open": Reply(200, "<html><head><title>open</title></head></html>", HTML),
        "/members/list": Reply(404, "gone", HTML),
        "/members/join": Reply(200, "<html></html>", HTML),
        "/members/area": Reply(200, "<html></html>", HTML),
        "/restricted": Reply(
            200,
            '<html><head><meta name="robots" content="nofollow, max-snippet: 20"></head></html>',
            {**HTML, "X-Robots-Tag": "contractbot: noindex"}),
        "/other-agent": Reply(
            200, '<html><head><meta name="googlebot" content="noindex"></head></html>',
            {**HTML, "X-Robots-Tag": "otherbot: noindex"}),
    }


@pytest.fixture
def server() -> Iterator[LocalServer]:
    with LocalServer(routes()) as local:
        yield local


def make_project(root: Path, base: str, *, addon: bool = True, spider: str = SPIDER,
                 agent: str = AGENT) -> Path:
    """A Scrapy project in ``root`` whose spider's contracts point at ``base``."""
    package = root / "checkproject"
    (package / "spiders").mkdir(parents=True)
    (root / "scrapy.cfg").write_text("[settings]\ndefault = checkproject.settings\n")
    (package / "__init__.py").write_text("")
    (package / "spiders" / "__init__.py").write_text("")
    addons = '{"scrapy_robots_policy.Addon": 0}' if addon else "{}"
    (package / "settings.py").write_text(textwrap.dedent(f"""\
        BOT_NAME = "checkproject"
        SPIDER_MODULES = ["checkproject.spiders"]
        ADDONS = {addons}
        ROBOTSTXT_OBEY = True
        USER_AGENT = {agent!r}
        TELNETCONSOLE_ENABLED = False
        """))
    (package / "spiders" / "checked.py").write_text(spider.format(base=base))
    return root


def scrapy_check(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (env.get("PYTHONPATH"), str(REPO)) if p)
    env.pop("SCRAPY_SETTINGS_MODULE", None)
    return subprocess.run([sys.executable, "-m", "scrapy", "check", "-v", *args], cwd=project,
                          env=env, capture_output=True, text=True, timeout=120, check=False)


def outcomes(output: str) -> dict[str, str]:
    """``{"parse_open (@robotstxt pre-hook)": "ok", ...}`` from ``scrapy check -v``."""
    found = re.findall(r"^\[checked\] (\S+ \(@\w+ pre-hook\)) \.\.\. (\w+)$", output, re.M)
    return dict(found)


def failure(output: str, test: str) -> str:
    """The message of one FAIL section of the report."""
    section = output.split(f"FAIL: [checked] {test}\n", 1)[1]
    match = re.search(r"ContractFail: (.*)", section)
    assert match, section
    return match.group(1)


def test_contracts_that_hold_pass_and_the_others_fail_with_reasons(
    tmp_path: Path, server: LocalServer
) -> None:
    result = scrapy_check(make_project(tmp_path, server.origin))
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert outcomes(output) == {
        "parse_open (@robotstxt pre-hook)": "ok",
        "parse_open (@meta_robots pre-hook)": "ok",
        "parse_members (@robotstxt pre-hook)": "ok",
        "parse_join (@robotstxt pre-hook)": "ok",
        "parse_restricted (@meta_robots pre-hook)": "ok",
        "parse_members_fail (@robotstxt pre-hook)": "FAIL",
        "parse_open_fail (@robotstxt pre-hook)": "FAIL",
        "parse_other_agent_fail (@meta_robots pre-hook)": "FAIL",
        "parse_follow_fail (@meta_robots pre-hook)": "FAIL",
        "parse_typo_fail (@meta_robots pre-hook)": "FAIL",
    }
    assert "ERROR" not in output
    assert "FAILED (failures=5)" in output
    robots = server.url("/robots.txt")
    assert failure(output, "parse_members_fail (@robotstxt pre-hook)") == (
        f"@robotstxt allowed: {server.url('/members/area')} is disallowed by {robots} "
        f"line 5: Disallow: /members/ (user agent {AGENT!r})")
    assert failure(output, "parse_open_fail (@robotstxt pre-hook)") == (
        f"@robotstxt disallowed: {server.url('/open')} is allowed by {robots}: "
        f"no rule matched (user agent {AGENT!r})")
    other = failure(output, "parse_other_agent_fail (@meta_robots pre-hook)")
    assert other.startswith("@meta_robots noindex: no noindex. Found for 'contractbot' on ")
    assert ("no directive (no Robots-Tag or X-Robots-Tag header or robots meta tag applies)"
            in other)
    assert other.endswith("not for this user agent: X-Robots-Tag: otherbot: noindex")
    assert failure(output, "parse_follow_fail (@meta_robots pre-hook)").startswith(
        '@meta_robots follow: not followable: nofollow (from <meta name="robots" '
        'content="nofollow, max-snippet: 20">). Found for \'contractbot\'')
    typo = failure(output, "parse_typo_fail (@meta_robots pre-hook)")
    assert typo.startswith("@meta_robots noindx: no noindx (not a directive this package "
                           "knows either: noindex, nofollow")
    # The robots.txt was fetched once, the disallowed pages were still checked.
    assert server.hits("/robots.txt") == 1
    assert server.hits("/members/list") == 1


def test_without_the_addon_the_contracts_are_unknown(tmp_path: Path,
                                                     server: LocalServer) -> None:
    result = scrapy_check(make_project(tmp_path, server.origin, addon=False))
    output = result.stdout + result.stderr
    assert result.returncode == 1
    assert "KeyError: 'robotstxt'" in output
    assert "KeyError: 'meta_robots'" in output
    assert outcomes(output) == {}


def test_the_addon_in_custom_settings_registers_the_contracts_too(
    tmp_path: Path, server: LocalServer
) -> None:
    spider = textwrap.dedent('''
        import scrapy


        class CheckedSpider(scrapy.Spider):
            name = "checked"
            custom_settings = {{"ADDONS": {{"scrapy_robots_policy.Addon": 0}}}}

            def parse_open(self, response):
                """@url {base}/open
                @robotstxt allowed
                @meta_robots index follow
                """

            def parse_members_fail(self, response):
                """@url {base}/members/area
                @robotstxt allowed
                """
        ''')
    result = scrapy_check(make_project(tmp_path, server.origin, addon=False, spider=spider))
    output = result.stdout + result.stderr
    assert outcomes(output) == {"parse_open (@robotstxt pre-hook)": "ok",
                                "parse_open (@meta_robots pre-hook)": "ok",
                                "parse_members_fail (@robotstxt pre-hook)": "FAIL"}, output
    assert "ERROR" not in output and "KeyError" not in output
    assert failure(output, "parse_members_fail (@robotstxt pre-hook)").startswith(
        f"@robotstxt allowed: {server.url('/members/area')} is disallowed by ")


def test_a_contract_switched_off_in_custom_settings_stays_off(
    tmp_path: Path, server: LocalServer
) -> None:
    spider = textwrap.dedent('''
        import scrapy


        class CheckedSpider(scrapy.Spider):
            name = "checked"
            custom_settings = {{
                "ADDONS": {{"scrapy_robots_policy.Addon": 0}},
                "SPIDER_CONTRACTS": {{"scrapy_robots_policy.contracts.RobotsTxtContract": None}},
            }}

            def parse_open(self, response):
                """@url {base}/open
                @meta_robots index follow
                """

            def parse_robots(self, response):
                """@url {base}/open
                @robotstxt allowed
                """
        ''')
    result = scrapy_check(make_project(tmp_path, server.origin, addon=False, spider=spider))
    output = result.stdout + result.stderr
    assert outcomes(output) == {"parse_open (@meta_robots pre-hook)": "ok"}, output
    assert "KeyError: 'robotstxt'" in output


def test_robotstxt_obey_off_is_a_fail_saying_so(tmp_path: Path, server: LocalServer) -> None:
    spider = SPIDER.split("    def parse_members(")[0]  # parse_open only
    result = scrapy_check(make_project(tmp_path, server.origin, spider=spider),
                          "-s", "ROBOTSTXT_OBEY=False")
    output = result.stdout + result.stderr
    assert outcomes(output) == {"parse_open (@robotstxt pre-hook)": "FAIL",
                                "parse_open (@meta_robots pre-hook)": "ok"}
    assert failure(output, "parse_open (@robotstxt pre-hook)") == (
        "@robotstxt allowed: ROBOTSTXT_OBEY is off: no robots.txt decision")
    assert "ERROR" not in output
    assert server.hits("/robots.txt") == 0


def test_meta_after_robotstxt_is_a_fail_saying_what_to_change(
    tmp_path: Path, server: LocalServer
) -> None:
    spider = SPIDER.split("    def parse_members(")[0].replace(
        "@meta_robots index follow", '@meta {{"dont_redirect": true}}')
    result = scrapy_check(make_project(tmp_path, server.origin, spider=spider))
    output = result.stdout + result.stderr
    assert "write @meta before @robotstxt" in failure(output,
                                                      "parse_open (@robotstxt pre-hook)")


def test_robotstxt_on_the_robots_txt_itself_is_decided_like_any_page(
    tmp_path: Path, server: LocalServer
) -> None:
    """A spider's robots.txt request is answered from the plugin's fetch, but a contract's
    is decided and downloaded: its contract reads the middleware's decision."""
    spider = textwrap.dedent('''
        import scrapy


        class CheckedSpider(scrapy.Spider):
            name = "checked"

            def parse_robots(self, response):
                """@url {base}/robots.txt
                @robotstxt allowed
                """
    ''')
    result = scrapy_check(make_project(tmp_path, server.origin, spider=spider))
    output = result.stdout + result.stderr
    assert outcomes(output) == {"parse_robots (@robotstxt pre-hook)": "ok"}, output
    assert server.hits("/robots.txt") == 2  # the plugin's fetch, then the contract's


def test_unreachable_robots_txt_disallows(tmp_path: Path) -> None:
    spider = textwrap.dedent('''
        import scrapy


        class CheckedSpider(scrapy.Spider):
            name = "checked"

            def parse_open(self, response):
                """@url {base}/open
                @robotstxt allowed
                """

            def parse_open_fail(self, response):
                """@url {base}/open
                @robotstxt disallowed
                """
        ''')
    with LocalServer({"/robots.txt": Reply(503, "busy")}) as down:
        result = scrapy_check(make_project(tmp_path, down.origin, spider=spider),
                              "-s", "ROBOTS_POLICY_RETRY_PATIENCE=0")
    output = result.stdout + result.stderr
    # The name says it failed in the main test; here the 503 makes it hold.
    assert outcomes(output) == {"parse_open (@robotstxt pre-hook)": "FAIL",
                                "parse_open_fail (@robotstxt pre-hook)": "ok"}
    assert failure(output, "parse_open (@robotstxt pre-hook)") == (
        f"@robotstxt allowed: {down.url('/open')} is disallowed by {down.url('/robots.txt')} "
        "unreachable (503)")


NAMES_SPIDER = '''
import scrapy


class CheckedSpider(scrapy.Spider):
    name = "checked"

    def parse_mine(self, response):
        """@url {base}/mine
        @meta_robots noindex nofollow
        """

    def parse_others(self, response):
        """@url {base}/others
        @meta_robots index follow
        """
'''


def test_meta_robots_reads_the_crawlers_whole_name(tmp_path: Path) -> None:
    pages = {
        "/robots.txt": Reply(200, "User-agent: *\nAllow: /\n"),
        "/mine": Reply(200, '<html><head><meta name="mj12bot" content="noindex"></head></html>',
                       {**HTML, "X-Robots-Tag": "MJ12bot: nofollow"}),
        "/others": Reply(200, '<html><head><meta name="mj" content="noindex"></head></html>',
                         {**HTML, "X-Robots-Tag": "mj99bot: nofollow"}),
    }
    with LocalServer(pages) as local:
        project = make_project(tmp_path, local.origin, spider=NAMES_SPIDER,
                               agent="MJ12bot/1.0 (+http://mj12bot.com/)")
        output = scrapy_check(project).stderr
    assert outcomes(output) == {"parse_mine (@meta_robots pre-hook)": "ok",
                                "parse_others (@meta_robots pre-hook)": "ok"}, output


ROBOTS_TAG_SPIDER = '''
import scrapy


class CheckedSpider(scrapy.Spider):
    name = "checked"

    def parse_tagged(self, response):
        """@url {base}/tagged
        @meta_robots noindex nosnippet max-snippet:20
        """

    def parse_others_fail(self, response):
        """@url {base}/others
        @meta_robots noindex
        """
'''


def test_meta_robots_sees_the_robots_tag_header(tmp_path: Path) -> None:
    pages = {
        "/robots.txt": Reply(200, "User-agent: *\nAllow: /\n"),
        "/tagged": Reply(200, "<html></html>", {
            **HTML, "Robots-Tag": "*;nosnippet, ContractBot;noindex;max-snippet=20"}),
        "/others": Reply(200, "<html></html>", {
            **HTML, "Robots-Tag": "*;noarchive, OtherBot;noindex"}),
    }
    with LocalServer(pages) as local:
        project = make_project(tmp_path, local.origin, spider=ROBOTS_TAG_SPIDER)
        output = scrapy_check(project).stderr
    assert outcomes(output) == {"parse_tagged (@meta_robots pre-hook)": "ok",
                                "parse_others_fail (@meta_robots pre-hook)": "FAIL"}, output
    assert failure(output, "parse_others_fail (@meta_robots pre-hook)") == (
        f"@meta_robots noindex: no noindex. Found for 'contractbot' on "
        f"{local.url('/others')}: noarchive (from Robots-Tag: *;noarchive); "
        "not for this user agent: Robots-Tag: OtherBot;noindex")


def test_addon_registers_the_contracts_before_any_crawler() -> None:
    from scrapy.addons import AddonManager
    from scrapy.settings import Settings

    settings = Settings({"ADDONS": {"scrapy_robots_policy.Addon": 0}})
    AddonManager.load_pre_crawler_settings(settings)
    assert settings.getdict("SPIDER_CONTRACTS") == {
        "scrapy_robots_policy.contracts.RobotsTxtContract": 0,
        "scrapy_robots_policy.contracts.MetaRobotsContract": 0,
        "scrapy_robots_policy.contracts.UsageAllowedContract": 0,
        "scrapy_robots_policy.contracts.UsageRefusedContract": 0,
    }


def test_addon_keeps_the_users_contract_entries() -> None:
    from scrapy.addons import AddonManager
    from scrapy.settings import Settings

    from scrapy_robots_policy.scrapy.contracts import RobotsTxtContract

    settings = Settings()
    settings.setdict({"ADDONS": {"scrapy_robots_policy.Addon": 0},
                      "SPIDER_CONTRACTS": {RobotsTxtContract: None,
                                           "myproject.contracts.Other": 5}}, "project")
    AddonManager.load_pre_crawler_settings(settings)
    assert settings.getdict("SPIDER_CONTRACTS") == {
        RobotsTxtContract: None,  # switched off by the user: stays off
        "myproject.contracts.Other": 5,
        "scrapy_robots_policy.contracts.MetaRobotsContract": 0,
        "scrapy_robots_policy.contracts.UsageAllowedContract": 0,
        "scrapy_robots_policy.contracts.UsageRefusedContract": 0,
    }


USAGE_SPIDER = '''
import scrapy


class CheckedSpider(scrapy.Spider):
    name = "checked"

    def parse_open(self, response):
        """@url {base}/open
        @usage_allowed search ai-input
        """

    def parse_train(self, response):
        """Refused by the origin's Content-Signal: checked all the same, never refused.

        @url {base}/open
        @usage_refused ai-train
        """

    def parse_wrong(self, response):
        """@url {base}/noai
        @usage_allowed ai-input
        """

    def parse_typo(self, response):
        """@url {base}/open
        @usage_refused ai_train
        """
'''


def test_usage_contracts_check_purposes_the_crawl_does_not_declare(tmp_path: Path) -> None:
    pages = {
        "/robots.txt": Reply(200, "Content-Signal: ai-train=no\nUser-agent: *\nAllow: /\n"),
        "/open": Reply(200, "<html><body>open</body></html>", HTML),
        "/noai": Reply(200, '<html><head><meta name="robots" content="noai"></head></html>',
                       HTML),
    }
    with LocalServer(pages) as local:
        project = make_project(tmp_path, local.origin, spider=USAGE_SPIDER)
        output = scrapy_check(project).stderr
    assert outcomes(output) == {
        "parse_open (@usage_allowed pre-hook)": "ok",
        "parse_train (@usage_refused pre-hook)": "ok",
        "parse_wrong (@usage_allowed pre-hook)": "FAIL",
        "parse_typo (@usage_refused pre-hook)": "FAIL",
    }, output
    assert "ai-input refused (noai (from <meta" in failure(
        output, "parse_wrong (@usage_allowed pre-hook)")
    assert "unknown: ai_train" in failure(output, "parse_typo (@usage_refused pre-hook)")
