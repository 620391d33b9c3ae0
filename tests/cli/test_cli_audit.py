"""`scrapy-robots-policy audit FEED`: compliance records of a feed, per origin and per item."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from scrapy.exporters import JsonItemExporter

from scrapy_robots_policy.cli import main

SITE = "http://127.0.0.1:8001"
REFUSAL = {"source": "content-signal", "purpose": "ai-train", "allowed": False,
           "evidence": f"{SITE}/robots.txt line 2: Content-Signal: ai-train=no"}


def item(path: str, purposes: dict[str, bool] | None = None,
         signals: tuple[dict[str, Any], ...] = (), site: str | None = SITE) -> dict[str, Any]:
    """An item as a crawl with ROBOTS_POLICY_ITEM_FIELD = "robots" writes it."""
    robotstxt = None if site is None else {
        "url": f"{site}/robots.txt", "fetched": "2026-11-24T07:40:00+00:00",
        "sha256": "c0b7", "line": 3, "rule": "Allow: /"}
    record: dict[str, Any] = {"robotstxt": robotstxt, "directives": {}}
    if purposes is not None:
        record["usage"] = {"purposes": purposes, "signals": list(signals)}
    return {"url": f"{site or 'http://elsewhere'}{path}", "title": path, "robots": record}


def json_lines(tmp_path: Path, *lines: dict[str, Any] | str) -> str:
    path = tmp_path / "feed.jl"
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n"
                            for line in lines))
    return str(path)


def audit(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str]]:
    status = main(["audit", *argv])
    return status, capsys.readouterr().out.splitlines()


def test_consistent_feed_prints_signals_and_decisions_per_origin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    allowed = {**REFUSAL, "allowed": True, "evidence": "robots.txt line 2: Content-Signal: "
               "ai-train=yes"}
    feed = json_lines(tmp_path, item("/a", {"ai-train": True, "search": True}, (allowed,)),
                      item("/b", {"ai-train": True, "search": True}, (allowed,)),
                      item("/c", site=None))
    status, lines = audit(capsys, feed)
    assert status == 0
    assert lines == [
        f"{feed}: JSON lines, record field 'robots', purposes: as each record declares",
        f"{SITE}: 2 items",
        "  signal: content-signal allows ai-train: robots.txt line 2: Content-Signal: "
        "ai-train=yes (2 items)",
        "  ai-train: 2 allowed",
        "  search: 2 allowed",
        "unknown origin: 1 item",
        "  no usage part (no purposes declared): 1",
        "3 items: 3 consistent",
    ]


def test_refused_purpose_kept_and_missing_record_are_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    feed = json_lines(tmp_path, item("/a", {"ai-train": True}),
                      item("/b", {"ai-train": False}, (REFUSAL,)),
                      {"url": f"{SITE}/c", "title": "written without the record"})
    status, lines = audit(capsys, feed)
    assert status == 1
    assert lines[1:] == [
        f"{SITE}: 2 items",
        f"  signal: content-signal refuses ai-train: {REFUSAL['evidence']} (1 item)",
        "  ai-train: 1 allowed, 1 refused",
        "2 to look at:",
        f"  line 2  {SITE}/b  ai-train refused ({REFUSAL['evidence']})",
        f"  line 3  {SITE}/c  no record: no 'robots' field",
        "3 items: 1 consistent, 1 contradicting, 1 without a record",
    ]
    # The same feed read through another field name has no record at all.
    status, lines = audit(capsys, feed, "--field", "compliance")
    assert status == 1
    assert lines[-1] == "3 items: 0 consistent, 3 without a record"


def test_purpose_option_checks_every_item_against_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    feed = json_lines(tmp_path, item("/a", {"search": True, "ai-train": False}, (REFUSAL,)),
                      item("/b", {"ai-train": True}), item("/c"))
    status, lines = audit(capsys, feed, "--purpose", "search")
    assert status == 1
    assert lines[0].endswith("purposes: search")
    assert lines[-4:] == [  # ai-train refused on /a: not what this audit asks about
        "2 to look at:",
        f"  line 2  {SITE}/b  not recorded for search (purposes recorded: ai-train)",
        f"  line 3  {SITE}/c  not recorded for search (purposes recorded: none)",
        "3 items: 1 consistent, 2 not recorded for search",
    ]
    assert "  search: 1 allowed, 2 not recorded" in lines
    status, lines = audit(capsys, feed, "--purpose", "search", "--purpose", "ai-train")
    assert status == 1
    assert lines[-4:] == [  # a refusal outweighs a purpose not recorded
        f"  line 1  {SITE}/a  ai-train refused ({REFUSAL['evidence']})",
        f"  line 2  {SITE}/b  not recorded for search (purposes recorded: ai-train)",
        f"  line 3  {SITE}/c  not recorded for search, ai-train (purposes recorded: none)",
        "3 items: 0 consistent, 1 contradicting, 2 not recorded for search or ai-train",
    ]
    with pytest.raises(SystemExit):  # a misspelt purpose would check nothing
        main(["audit", feed, "--purpose", "ai_train"])
    assert "invalid choice: 'ai_train'" in capsys.readouterr().err


def test_malformed_lines_and_records_are_listed_with_their_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = item("/d", {"ai-train": True})
    record["robots"]["usage"]["purposes"]["ai-train"] = "yes"
    feed = json_lines(tmp_path, item("/a", {"ai-train": True}), '{"url": "http://x/b", "ti',
                      "", "[1, 2]", record, item("/e", {"ai-train": True}))
    status, lines = audit(capsys, feed)
    assert status == 1
    assert lines[-5:] == [
        "3 to look at:",
        "  line 2  unreadable line: not JSON: Unterminated string starting at column 23",
        "  line 4  not an object: not a JSON object",
        f"  line 5  {SITE}/d  malformed record: usage.purposes is not an object of true/false",
        "4 items: 2 consistent, 1 with a malformed record, 1 not an object; 1 unreadable line",
    ]


def scrapy_json_feed(path: Path, items: list[dict[str, Any]], indent: int) -> list[str]:
    """The feed Scrapy writes for FEED_URI "*.json" (JsonItemExporter), as lines."""
    written = io.BytesIO()
    exporter = JsonItemExporter(written, indent=indent)
    exporter.start_exporting()
    for one in items:
        exporter.export_item(one)
    exporter.finish_exporting()
    path.write_bytes(written.getvalue())
    return written.getvalue().decode().splitlines()


def test_scrapy_json_array_feed_is_detected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = [item("/a", {"ai-train": True}), item("/b", {"ai-train": False}, (REFUSAL,))]
    path = tmp_path / "feed.json"
    scrapy_json_feed(path, items, indent=0)  # Scrapy's default: one item per line
    status, lines = audit(capsys, str(path))
    assert status == 1
    assert lines[0].startswith(f"{path}: JSON array,")
    assert lines[-2:] == [f"  line 3  {SITE}/b  ai-train refused ({REFUSAL['evidence']})",
                          "2 items: 1 consistent, 1 contradicting"]


def test_one_bad_line_of_an_indented_array_is_one_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = [item("/a", {"ai-train": True}), item("/b", {"ai-train": False}, (REFUSAL,)),
             item("/c", {"ai-train": True})]
    path = tmp_path / "feed.json"
    indented = scrapy_json_feed(path, items, indent=2)
    broken = indented.index('  "title": "/b",')
    indented[broken] = '  "title": /b",'
    path.write_text("\n".join(indented))
    status, lines = audit(capsys, str(path))
    assert status == 1
    assert lines[-3:] == [
        "1 to look at:",
        f"  line {broken + 1}  unreadable line: not JSON: Expecting value at column 12; the next "
        f"{indented.index('{', broken) - broken - 1} lines skipped, up to the next item",
        "2 items: 2 consistent; 1 unreadable line",
    ]


def test_array_cut_short_by_a_stopped_crawl(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "feed.json"
    path.write_text("[\n" + json.dumps(item("/a", {"search": True})) + ",\n{\"url\": ")
    status = main(["audit", str(path)])
    captured = capsys.readouterr()
    assert status == 1
    assert captured.out.splitlines()[-2:] == [
        "  line 3  unreadable line: cut short at the end of the feed",
        "1 item: 1 consistent; 1 unreadable line",
    ]
    assert "not closed (did the crawl stop early?)" in captured.err


def test_feed_from_standard_input(monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    feed = json.dumps(item("/a", {"tdm": False}, ({**REFUSAL, "purpose": "tdm"},))) + "\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(feed.encode())))
    status, lines = audit(capsys, "-")
    assert status == 1
    assert lines[0].startswith("standard input: JSON lines")
    assert lines[-2] == f"  line 1  {SITE}/a  tdm refused ({REFUSAL['evidence']})"


def test_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(tmp_path / "missing.jl")]) == 2
    assert "error: cannot read" in capsys.readouterr().err
    text = tmp_path / "robots.txt"
    text.write_text("User-agent: *\nDisallow: /\n")
    assert main(["audit", str(text)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (f"error: {text} is neither JSON lines nor a JSON array: line 1  "
                            "unreadable line: not JSON: Expecting value at column 1\n")


def test_console_entry_point(tmp_path: Path) -> None:
    feed = json_lines(tmp_path, item("/a", {"ai-train": False}, (REFUSAL,)), "oops")
    result = subprocess.run([sys.executable, "-m", "scrapy_robots_policy", "audit", feed],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 1
    assert result.stderr == ""
    assert result.stdout.splitlines()[-4:] == [
        "2 to look at:",
        f"  line 1  {SITE}/a  ai-train refused ({REFUSAL['evidence']})",
        "  line 2  unreadable line: not JSON: Expecting value at column 1",
        "1 item: 0 consistent, 1 contradicting; 1 unreadable line",
    ]


def test_records_that_never_declared_the_purpose_are_not_recorded_not_contradicting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    feed = json_lines(tmp_path, *(item(f"/{n}", {"search": True}) for n in range(7)))
    status, lines = audit(capsys, feed, "--purpose", "ai-train")
    assert status == 1  # nothing shows these items may be used to train
    assert "  ai-train: 7 not recorded" in lines
    assert lines[-2:] == [
        f"  line 7  {SITE}/6  not recorded for ai-train (purposes recorded: search)",
        "7 items: 0 consistent, 7 not recorded for ai-train",
    ]
    assert not any("contradicting" in line for line in lines)


def robots_policy_item(path: str, purposes: dict[str, bool]) -> dict[str, Any]:
    """An item as a crawl with ROBOTS_POLICY_ITEM_FIELD = "robots_policy" writes it."""
    written = item(path, purposes)
    written["robots_policy"] = written.pop("robots")
    return written


def test_the_record_field_is_found_in_the_items_and_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    feed = json_lines(tmp_path, robots_policy_item("/a", {"search": True}),
                      robots_policy_item("/b", {"search": True}),
                      {"url": f"{SITE}/c", "title": "no record"})
    status, lines = audit(capsys, feed)
    assert status == 1
    assert lines[0] == (f"{feed}: JSON lines, record field 'robots_policy' (found in the "
                        "items; --field to name another), purposes: as each record declares")
    assert lines[-2:] == [f"  line 3  {SITE}/c  no record: no 'robots_policy' field",
                          "3 items: 2 consistent, 1 without a record"]
    status, lines = audit(capsys, feed, "--field", "robots_policy")  # named: no "found"
    assert lines[0].startswith(f"{feed}: JSON lines, record field 'robots_policy', ")


def test_the_record_field_is_found_as_a_user_runs_the_command(tmp_path: Path) -> None:
    feed = json_lines(tmp_path, robots_policy_item("/a", {"ai-train": True}))
    result = subprocess.run([sys.executable, "-m", "scrapy_robots_policy", "audit", feed],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "record field 'robots_policy' (found in the items" in result.stdout
    assert result.stdout.splitlines()[-1] == "1 item: 1 consistent"


def test_a_feed_without_any_record_says_no_field_holds_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    feed = json_lines(tmp_path, {"url": f"{SITE}/a"}, {"url": f"{SITE}/b", "robots": None})
    status, lines = audit(capsys, feed)
    assert status == 1
    assert lines == [
        f"{feed}: JSON lines, no record field found (no field of an item holds a compliance "
        "record), purposes: as each record declares",
        "2 to look at:",
        f"  line 1  {SITE}/a  no record: no field holds a compliance record",
        f"  line 2  {SITE}/b  no record: 'robots' is null",
        "2 items: 0 consistent, 2 without a record",
    ]


@pytest.mark.parametrize(("text", "said"), [
    ("", "empty"), ("\n  \n", "empty"), ("[\n\n]", "a JSON array without items")])
def test_an_empty_feed_says_it_is_empty_and_fails(
    text: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "feed.jl"
    path.write_text(text)
    status, lines = audit(capsys, str(path))
    assert status == 1  # nothing was checked: an audit of nothing does not pass
    assert lines == [f"{path}: {said}: no item to audit"]


def test_scrapys_own_empty_json_feed_is_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "feed.json"
    scrapy_json_feed(path, [], indent=0)
    status, lines = audit(capsys, str(path))
    assert (status, lines) == (1, [f"{path}: a JSON array without items: no item to audit"])


def test_a_real_crawls_feed_with_its_own_field_name_audits_as_the_issue_expected(
    tmp_path: Path,
) -> None:
    """The issue's steps: crawl with ROBOTS_POLICY_ITEM_FIELD = "robots_policy" and search
    declared, write a JSON-lines feed, audit it with and without --purpose ai-train."""
    from tests.scrapy.test_crawl_robotstxt import crawl
    from tests.support import LocalServer, Reply

    feed = tmp_path / "items.jl"
    robots = "Content-Signal: search=yes\nUser-agent: *\nAllow: /\n"
    with LocalServer({"/robots.txt": Reply(body=robots)}) as server:
        result = crawl({"ROBOTS_POLICY_ITEM_FIELD": "robots_policy",
                        "ROBOTS_POLICY_PURPOSES": ["search"],
                        "FEEDS": {str(feed): {"format": "jsonlines"}}},
                       start_urls=[server.url("/a"), server.url("/b")])
    assert len(result.items) == 2, result.log[-2000:]

    def audit_feed(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "scrapy_robots_policy", "audit",
                               str(feed), *argv], capture_output=True, text=True, timeout=60)

    checked = audit_feed()
    assert checked.returncode == 0, checked.stdout + checked.stderr
    lines = checked.stdout.splitlines()
    assert "record field 'robots_policy' (found in the items" in lines[0]
    assert "  search: 2 allowed" in lines
    assert lines[-1] == "2 items: 2 consistent"

    for_training = audit_feed("--purpose", "ai-train")
    assert for_training.returncode == 1
    assert for_training.stdout.splitlines()[-1] == "2 items: 0 consistent, 2 not recorded " \
                                                   "for ai-train"
