"""Real crawls: usage tokens (ROBOTS_POLICY_ALSO_OBEY) and declared purposes (issue 15)."""

from __future__ import annotations

from typing import Any

from tests.scrapy.test_crawl_robotstxt import crawl, downloaded, log_lines
from tests.support import LocalServer, Reply

TOKENS = """\
User-agent: *
Disallow: /private

User-agent: GPTBot
Disallow: /articles

User-agent: Google-Extended
Disallow: /
Allow: /public
"""


def pages(server: LocalServer, *paths: str) -> list[str]:
    return [server.url(path) for path in paths]


def test_also_obey_groups_of_usage_tokens_most_restrictive_wins() -> None:
    with LocalServer({"/robots.txt": Reply(body=TOKENS)}) as s:
        r = crawl({"ROBOTS_POLICY_ALSO_OBEY": ["GPTBot", "Google-Extended"]},
                  start_urls=pages(s, "/articles/1", "/public/a", "/other", "/private/x"))
    assert downloaded(s) == ["/public/a"]
    assert r.stat("robotstxt/forbidden") == 3
    assert r.stat("robots_policy/also_obey/forbidden/GPTBot") == 1
    assert r.stat("robots_policy/also_obey/forbidden/Google-Extended") == 1
    # The deciding line names the token whose group refused.
    assert log_lines(r, r"Forbidden by robots.txt: <GET .*/articles/1>.*line 5: "
                        r"Disallow: /articles, user agent 'GPTBot'")
    assert log_lines(r, r"Forbidden by robots.txt: <GET .*/other>.*line 8: "
                        r"Disallow: /, user agent 'Google-Extended'")


def test_a_token_without_a_group_of_its_own_adds_nothing() -> None:
    # CCBot has no group: the "*" group already spoke for the crawler; it is not the
    # token's to refuse more.
    with LocalServer({"/robots.txt": Reply(body=TOKENS)}) as s:
        r = crawl({"ROBOTS_POLICY_ALSO_OBEY": ["CCBot"]},
                  start_urls=pages(s, "/articles/1", "/other", "/private/x"))
    assert sorted(downloaded(s)) == ["/articles/1", "/other"]
    assert r.stat("robotstxt/forbidden") == 1


def test_without_also_obey_the_token_groups_do_not_apply() -> None:
    with LocalServer({"/robots.txt": Reply(body=TOKENS)}) as s:
        crawl(start_urls=pages(s, "/articles/1", "/other"))
    assert sorted(downloaded(s)) == ["/articles/1", "/other"]




# --- declared purposes: origin-level signals refuse requests ----------------------------

SIGNALS = """\
Content-Signal: search=yes, ai-train=no

User-agent: *
Allow: /
Content-Usage: /archive/ train-ai=y, search=n
"""


def purposes_crawl(server: LocalServer, paths: list[str], purposes: list[str],
                   **settings: Any) -> Any:
    return crawl({"ROBOTS_POLICY_PURPOSES": purposes, **settings},
                 start_urls=pages(server, *paths))


def test_no_declared_purpose_changes_nothing() -> None:
    with LocalServer({"/robots.txt": Reply(body=SIGNALS)}) as s:
        r = crawl(start_urls=pages(s, "/a", "/archive/1"))
    assert sorted(s.paths()) == ["/a", "/archive/1", "/robots.txt"]  # no tdmrep.json either
    assert not any(key.startswith("robots_policy/usage") for key in r.stats)


def test_content_signal_outside_groups_refuses_a_declared_purpose_for_every_request() -> None:
    with LocalServer({"/robots.txt": Reply(body=SIGNALS)}) as s:
        r = purposes_crawl(s, ["/a", "/b"], ["ai-train"])
    assert downloaded(s) == [p for p in downloaded(s) if p.startswith("/.well-known/")]
    assert r.stat("robots_policy/usage/requests_refused") == 2
    assert r.stat("robots_policy/usage/requests_refused/content-signal/ai-train") == 2
    refused = log_lines(r, r"Refused by usage signals: <GET .*/a>")
    assert refused and 'robots.txt line 1: "Content-Signal: search=yes, ai-train=no"' in (
        refused[0])


def test_content_usage_with_a_path_refuses_only_below_it() -> None:
    with LocalServer({"/robots.txt": Reply(body=SIGNALS)}) as s:
        r = purposes_crawl(s, ["/a", "/archive/1"], ["search"])
    assert downloaded(s) == ["/a"]
    assert r.stat("robots_policy/usage/requests_refused/content-usage/search") == 1


def test_a_group_for_another_crawler_says_nothing_to_us() -> None:
    robots = ("User-agent: OtherBot\nContent-Signal: ai-train=no\nDisallow: /x\n\n"
              "User-agent: *\nAllow: /\n")
    with LocalServer({"/robots.txt": Reply(body=robots)}) as s:
        r = purposes_crawl(s, ["/a"], ["ai-train"])
    assert "/a" in downloaded(s)
    assert r.stat("robots_policy/usage/requests_refused") == 0


def test_record_mode_refuses_nothing_and_counts_what_it_would_have_refused() -> None:
    with LocalServer({"/robots.txt": Reply(body=SIGNALS)}) as s:
        r = purposes_crawl(s, ["/a", "/b"], ["ai-train"], ROBOTS_POLICY_USAGE="record",
                           ROBOTS_POLICY_ITEM_FIELD="robots")
    assert {"/a", "/b"} <= set(downloaded(s))
    assert r.stat("robots_policy/usage/requests_refused") == 0
    assert r.stat("robots_policy/usage/requests_refused_recorded/content-signal/ai-train") == 2
    assert r.stat("robots_policy/items_refused_recorded/usage/content-signal/ai-train") == 2
    record = r.items[0]["robots"]
    assert record["usage"]["purposes"] == {"ai-train": False}
    assert record["usage"]["signals"][0]["source"] == "content-signal"


# --- page-level signals drop items -----------------------------------------------------

HTML = {"Content-Type": "text/html"}


def html_page(head: str = "", **headers: str) -> Reply:
    return Reply(body=f"<html><head>{head}</head><body>text</body></html>",
                 headers={**HTML, **headers})


PAGES = {
    "/robots.txt": Reply(body="User-agent: *\nAllow: /\n"),
    "/.well-known/tdmrep.json": Reply(
        body='[{"location": "/research/*", "tdm-reservation": 1, '
             '"tdm-policy": "https://example.com/policy.json"}]',
        headers={"Content-Type": "application/json"}),
    "/plain": html_page(),
    "/usage-header": html_page(**{"Content-Usage": "train-ai=n"}),
    "/noai": html_page('<meta name="robots" content="noai">'),
    "/tdm-header": html_page(**{"tdm-reservation": "1"}),
    "/tdm-meta": html_page('<meta name="tdm-reservation" content="1">'),
    "/research/lifted": html_page(**{"tdm-reservation": "0"}),
    "/research/paper": html_page(),
}


def page_items(result: Any) -> dict[str, Any]:
    return {item["url"].split("/", 3)[3]: item for item in result.items}


def test_page_signals_drop_items_counted_per_source_and_purpose() -> None:
    paths = ["/plain", "/usage-header", "/noai", "/tdm-header", "/tdm-meta",
             "/research/paper"]
    with LocalServer(PAGES) as s:
        r = purposes_crawl(s, paths, ["ai-train"])
    assert s.hits("/.well-known/tdmrep.json") == 1  # once for the origin
    assert "/research/paper" not in s.paths()  # refused by tdmrep.json before fetching
    assert r.stat("robots_policy/usage/requests_refused/tdmrep.json/ai-train") == 1
    assert sorted(page_items(r)) == ["plain"]
    for source in ("content-usage-header", "noai", "tdm-header", "tdm-meta"):
        assert r.stat(f"robots_policy/items_dropped/usage/{source}/ai-train") == 1, source
    dropped = log_lines(r, r"Dropped an item of .*/tdm-meta: ai-train refused")
    assert dropped and '<meta name="tdm-reservation" content="1">' in dropped[0]


def test_tdmrep_reservation_speaks_of_tdm_and_training_not_of_search() -> None:
    with LocalServer(PAGES) as s:
        r = purposes_crawl(s, ["/tdm-header", "/research/paper", "/noai"], ["search"])
    assert s.hits("/.well-known/tdmrep.json") == 0  # no declared purpose needs it
    assert sorted(page_items(r)) == ["noai", "research/paper", "tdm-header"]


def test_a_page_header_lifts_the_files_reservation_once_fetched() -> None:
    # Refused before the request by the file; in "record" mode it is fetched, and the
    # header's tdm-reservation: 0 supersedes the file (TDMRep's processing priority).
    with LocalServer(PAGES) as s:
        r = purposes_crawl(s, ["/research/lifted"], ["tdm"], ROBOTS_POLICY_USAGE="record",
                           ROBOTS_POLICY_ITEM_FIELD="robots")
    assert r.stat("robots_policy/usage/requests_refused_recorded/tdmrep.json/tdm") == 1
    record = page_items(r)["research/lifted"]["robots"]
    assert record["usage"]["purposes"] == {"tdm": True}
    assert [signal["source"] for signal in record["usage"]["signals"]] == ["tdm-header"]


def test_an_unreachable_tdmrep_json_refuses_what_it_would_speak_of() -> None:
    routes = {**PAGES, "/.well-known/tdmrep.json": Reply(503, "down")}
    with LocalServer(routes) as s:
        r = purposes_crawl(s, ["/plain"], ["tdm", "search"])
    assert "/plain" not in s.paths()
    assert r.stat("robots_policy/usage/requests_refused/tdmrep.json/tdm") == 1
    assert r.stat("robots_policy/tdmrep/unreachable_count") == 1
    assert s.hits("/.well-known/tdmrep.json") >= 2  # retried, as robots.txt is


def test_malformed_signals_are_ignored_counted_and_logged_once() -> None:
    routes = {
        "/robots.txt": Reply(body="Content-Signal: ai-train=maybe\nUser-agent: *\nAllow: /\n"),
        "/.well-known/tdmrep.json": Reply(body=b"\xff[not json"),
        "/a": html_page(**{"Content-Usage": "train-ai=(("}),
        "/b": html_page(),
    }
    with LocalServer(routes) as s:
        r = purposes_crawl(s, ["/a", "/b"], ["ai-train"])
    assert sorted(page_items(r)) == ["a", "b"]  # nothing refused or dropped
    # robots.txt's and tdmrep.json's problem once each for the origin, the header's once.
    assert r.stat("robots_policy/usage/invalid_signals") == 3
    assert len(log_lines(r, r"Usage signal of .* ignored: .*Content-Signal")) == 1


def test_labels_not_read_are_told_once_per_origin_at_info_and_counted() -> None:
    # What generated robots.txt files and some servers still write: labels of earlier
    # aipref revisions (ignored, as vocab-08 section 6.4 requires), Content Signals' use=.
    routes = {
        "/robots.txt": Reply(body="User-agent: *\nContent-Usage: ai=n\n"
                                  "Content-Signal: search=yes, use=reference\nAllow: /\n"),
        "/.well-known/tdmrep.json": Reply(404),
        "/a": html_page(**{"Content-Usage": "train-genai=n, x-private=y"}),
        "/b": html_page(**{"Content-Usage": "train-genai=n"}),
        # The label robots.txt used, in a header: the origin's label was told already.
        "/c": html_page(**{"Content-Usage": "ai=n"}),
    }
    with LocalServer(routes) as s:
        r = purposes_crawl(s, ["/a", "/b", "/c"], ["search", "ai-train"])
    assert sorted(page_items(r)) == ["a", "b", "c"]  # ai=n, train-genai=n refuse nothing
    told = log_lines(r, r"^INFO .*Usage label '.*' of http://127\.0\.0\.1:\d+ ignored")
    assert len(told) == 4, told
    [ai] = [line for line in told if "'ai'" in line]
    assert 'ignored (robots.txt line 2: "Content-Usage: ai=n"): AI Training in ' \
           "draft-ietf-aipref-vocab-01; not a label of draft-ietf-aipref-vocab-08" in ai
    assert r.stat("robots_policy/usage/ignored_labels") == 4
    for name in ("ai", "use", "train-genai", "other"):
        assert r.stat(f"robots_policy/usage/ignored_labels/{name}") == 1, name
    assert r.stat("robots_policy/usage/invalid_signals") == 0  # nothing malformed


# --- the compliance record -------------------------------------------------------------


def test_the_record_names_the_robots_txt_body_line_and_usage_decisions() -> None:
    import hashlib

    robots = "User-agent: *\nContent-Signal: search=yes\nAllow: /plain\n"
    routes = {**PAGES, "/robots.txt": Reply(body=robots)}
    with LocalServer(routes) as s:
        r = purposes_crawl(s, ["/plain", "/noai"], ["search", "ai-input"],
                           ROBOTS_POLICY_ITEM_FIELD="robots", ROBOTS_POLICY_USAGE="record")
    items = page_items(r)
    record = items["plain"]["robots"]
    assert record["robotstxt"]["url"] == s.url("/robots.txt")
    assert record["robotstxt"]["sha256"] == hashlib.sha256(robots.encode()).hexdigest()
    assert (record["robotstxt"]["line"], record["robotstxt"]["rule"]) == (3, "Allow: /plain")
    assert record["robotstxt"]["fetched"].endswith("+00:00")
    assert record["directives"] == {}
    assert record["usage"]["purposes"] == {"search": True, "ai-input": True}
    noai = items["noai"]["robots"]
    assert noai["directives"] == {"noai": True}
    assert noai["usage"]["purposes"] == {"search": True, "ai-input": False}
    assert noai["robotstxt"]["why"] == "no rule matched"


def test_the_record_binds_the_page_and_the_files_in_force_when_it_was_read(
        tmp_path: Any) -> None:
    # What draft-reilly-aipref-compliance-00 has a record bind: the content retrieved,
    # the preference expressions in force then, the uses the crawl assigned it.
    import hashlib
    import json
    import subprocess
    import sys

    feed = tmp_path / "items.jl"
    with LocalServer(PAGES) as s:
        purposes_crawl(s, ["/plain"], ["tdm", "search"], ROBOTS_POLICY_ITEM_FIELD="robots",
                       FEEDS={str(feed): {"format": "jsonlines"}})
    [line] = feed.read_text().splitlines()
    record = json.loads(line)["robots"]
    served = PAGES["/plain"].body
    assert isinstance(served, str)
    assert record["page"]["url"] == s.url("/plain")
    assert record["page"]["sha256"] == hashlib.sha256(served.encode()).hexdigest()
    assert record["page"]["fetched"].endswith("+00:00")
    tdmrep = PAGES["/.well-known/tdmrep.json"].body
    assert isinstance(tdmrep, str)
    assert record["usage"]["tdmrep"] == {
        "url": s.url("/.well-known/tdmrep.json"), "fetched": record["usage"]["tdmrep"]["fetched"],
        "sha256": hashlib.sha256(tdmrep.encode()).hexdigest()}
    assert record["usage"]["vocabulary"] == "draft-ietf-aipref-vocab-08"
    assert record["usage"]["purposes"] == {"tdm": True, "search": True}
    audit = subprocess.run([sys.executable, "-m", "scrapy_robots_policy", "audit", str(feed)],
                           capture_output=True, text=True, timeout=60, check=False)
    assert audit.returncode == 0, audit.stdout  # the old reader reads the new record


def test_without_purposes_the_item_field_holds_the_record_without_usage() -> None:
    with LocalServer({"/robots.txt": Reply(404), "/a": html_page()}) as s:
        r = crawl({"ROBOTS_POLICY_ITEM_FIELD": "robots"}, start_urls=[s.url("/a")])
    record = r.items[0]["robots"]
    assert record["robotstxt"] == {"url": s.url("/robots.txt"),
                                   "fetched": record["robotstxt"]["fetched"],
                                   "why": "404: allow all"}
    assert "usage" not in record


def test_audit_reads_a_real_crawls_feed_and_flags_what_record_mode_kept(tmp_path: Any) -> None:
    import json
    import subprocess
    import sys

    feed = tmp_path / "items.jl"
    with LocalServer(PAGES) as s:
        purposes_crawl(s, ["/plain", "/noai"], ["ai-input"], ROBOTS_POLICY_USAGE="record",
                       ROBOTS_POLICY_ITEM_FIELD="robots",
                       FEEDS={str(feed): {"format": "jsonlines"}})
    records = [json.loads(line)["robots"] for line in feed.read_text().splitlines()]
    assert len(records) == 2
    audit = subprocess.run([sys.executable, "-m", "scrapy_robots_policy", "audit", str(feed)],
                           capture_output=True, text=True, timeout=60, check=False)
    assert audit.returncode == 1, audit.stdout  # the noai page was kept: a contradiction
    assert "ai-input refused (noai (from <meta" in audit.stdout
    assert "2 items: 1 consistent, 1 contradicting" in audit.stdout


def test_purposes_declared_per_spider_through_custom_settings() -> None:
    from tests.scrapy.test_crawl_robotstxt import Pages

    class TrainingSpider(Pages):
        name = "training"
        custom_settings = {"ROBOTS_POLICY_PURPOSES": ["ai-train"]}  # noqa: RUF012

    with LocalServer({"/robots.txt": Reply(body=SIGNALS)}) as s:
        r = crawl(spider=TrainingSpider, start_urls=pages(s, "/a"))
    assert "/a" not in s.paths()
    assert r.stat("robots_policy/usage/requests_refused/content-signal/ai-train") == 1
