"""`python -m scrapy_robots_policy demo`: a real crawl of the bundled site, told with reasons."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


#: README's first command installs the package without its extras: the demo runs here as
#: it would there, with the optional ``redis`` package made unimportable.
WITHOUT_EXTRAS = ("import runpy, sys; sys.modules['redis'] = None; "
                  "sys.argv = ['scrapy_robots_policy', 'demo']; "
                  "runpy.run_module('scrapy_robots_policy', run_name='__main__')")


@pytest.fixture(scope="module")
def report() -> str:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (env.get("PYTHONPATH"), str(REPO)) if p)
    result = subprocess.run([sys.executable, "-c", WITHOUT_EXTRAS],
                            capture_output=True, text=True, timeout=120, env=env, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    return result.stdout


def section(report: str, name: str) -> str:
    """The lines of one origin's part of the report."""
    match = re.search(rf"^{name}  http://127\.0\.0\.1:\d+ .*?(?=^\n|\Z)", report, re.M | re.S)
    assert match, report
    return match.group()


def row(text: str, path: str) -> str:
    match = re.search(rf"^  (?:crawled|refused)  {re.escape(path)} +(.*)$", text, re.M)
    assert match, f"{path} not in:\n{text}"
    return match.group(0)


def test_refusals_name_the_robots_txt_line(report: str) -> None:
    shop = section(report, "shop")
    assert "robots.txt: 200" in shop
    assert row(shop, "/cart").endswith("refused  /cart             robots.txt line 6: "
                                       "Disallow: /cart")
    assert row(shop, "/account/orders").endswith("robots.txt line 7: Disallow: /account/")
    # DemoBot's own group allows what the '*' group (Disallow: /) forbids.
    assert row(shop, "/products/tea").endswith("item kept")
    assert row(shop, "/account/help").endswith("item kept")


def test_dropped_items_and_unfollowed_links_say_why(report: str) -> None:
    news = section(report, "news")
    assert row(news, "/meta-noindex").endswith(
        'item dropped: noindex (from <meta name="robots" content="noindex">)')
    assert row(news, "/for-demobot").endswith(
        "item dropped: noindex (from X-Robots-Tag: demobot: noindex)")
    assert "item dropped: unavailable_after" in row(news, "/expired")
    assert ("link /linked-from-nofollow not followed: nofollow (from X-Robots-Tag: nofollow)"
            in news)
    assert "/linked-from-nofollow " not in news.replace("link /linked-from-nofollow ", "")
    # noindex pages are still followed: the page they link to was crawled.
    assert row(news, "/linked-from-noindex").endswith("item kept")
    assert row(news, "/drafts/tomorrow").endswith("robots.txt line 2: Disallow: /drafts/")


def test_other_crawlers_directives_change_nothing(report: str) -> None:
    news = section(report, "news")
    assert row(news, "/other-crawlers").endswith("item kept")
    assert row(news, "/linked-from-other-crawlers").endswith("item kept")
    assert "otherbot" not in news and "googlebot" not in news


def test_unreachable_and_missing_robots_txt(report: str) -> None:
    flaky = section(report, "flaky")
    assert "robots.txt: 503 (unreachable)" in flaky
    assert row(flaky, "/").endswith("robots.txt unreachable (503)")
    blog = section(report, "blog")
    assert "robots.txt: 404: allow all" in blog
    assert row(blog, "/post/1").endswith("item kept")


def test_summary_counts_match_the_rows(report: str) -> None:
    rows = re.findall(r"^  (crawled|refused)  ", report, re.M)
    dropped = len(re.findall(r"item dropped: ", report))
    summary = re.search(r"Summary: (\d+) pages crawled, (\d+) items kept, (\d+) items dropped"
                        r".*?(\d+)\s+requests\s+refused", report, re.S)
    assert summary, report
    crawled, kept, dropped_count, refused = map(int, summary.groups())
    assert crawled == rows.count("crawled") == kept + dropped_count
    assert refused == rows.count("refused")
    assert dropped_count == dropped == 5


def test_usage_signals_refuse_and_drop_for_the_declared_purposes(report: str) -> None:
    press = section(report, "press")
    assert "tdmrep.json: 200" in press
    assert ('usage: search allowed by robots.txt line 3: "Content-Signal: search=yes, '
            'ai-input=no, ai-train=no"') in press
    assert row(press, "/members/feed").endswith(
        'search refused (robots.txt line 4: "Content-Usage: /members/ search=n")')
    assert row(press, "/research/paper").endswith(
        "tdm refused (tdmrep.json rule 1: location '/research/*', tdm-reservation 1 "
        "(TDM policy: https://press.example/tdm-policy.json))")
    assert "item dropped: tdm refused (tdm-reservation: 1" in row(press, "/reports/2026")
    assert row(press, "/story").endswith("item kept")


def stop(process: subprocess.Popen[str]) -> None:
    """End ``process`` whatever its signal handling: SIGTERM, then SIGKILL if it lingers."""
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


def refused(url: str) -> bool:
    """Whether nothing listens at ``url`` any more."""
    try:
        urllib.request.urlopen(url, timeout=5).close()
    except urllib.error.URLError as error:
        return isinstance(error.reason, ConnectionRefusedError)
    return False


def test_serve_only_serves_the_site_for_the_other_commands(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from scrapy_robots_policy.cli import main

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (env.get("PYTHONPATH"), str(REPO)) if p)
    # SIGINT ignored, as in a background job of a non-interactive shell (CI): Ctrl-C could
    # not stop the server, so the test must not rely on it.
    serving = subprocess.Popen(
        [sys.executable, "-m", "scrapy_robots_policy", "demo", "--serve"],
        stdout=subprocess.PIPE, text=True, env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    origins: dict[str, str] = {}
    try:
        assert serving.stdout is not None
        lines = []
        for line in serving.stdout:
            lines.append(line)
            if line.startswith("Ctrl-C"):
                break
        origins = dict(line.split()[:2] for line in lines if line.startswith(("shop", "news")))
        assert main(["check", origins["shop"] + "robots.txt", "/cart", "/products/tea",
                     "-A", "DemoBot"]) == 1
        assert main(["directives", origins["news"] + "for-demobot", "-A", "DemoBot"]) == 0
    finally:
        stop(serving)
        if serving.stdout is not None:
            serving.stdout.close()
    assert serving.returncode is not None
    assert origins and all(refused(url + "robots.txt") for url in origins.values())
    out = capsys.readouterr().out
    assert "disallowed  /cart  (line 6: Disallow: /cart)" in out
    assert "allowed     /products/tea  (no rule matched)" in out
    assert "noindex                      from X-Robots-Tag: demobot: noindex" in out
