"""`python -m scrapy_robots_policy check`: verdicts, deciding lines and exit status."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from scrapy_robots_policy.cli import main

ROBOTS = (
    "# example\n"
    "User-agent: *\n"
    "Disallow: /private/\n"
    "Allow: /private/press/\n"
    "\n"
    "User-agent: MyBot\n"
    "Disallow: /\n"
    "Allow: /$\n"
)


@pytest.fixture
def robots_file(tmp_path: Path) -> Path:
    path = tmp_path / "robots.txt"
    path.write_text(ROBOTS)
    return path


def test_check_prints_verdict_and_deciding_line(
    robots_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    urls = ["https://example.com/private/x", "https://example.com/private/press/1", "/open"]
    status = main(["check", str(robots_file), *urls, "--user-agent", "OtherBot"])
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "disallowed  https://example.com/private/x  (line 3: Disallow: /private/)",
        "allowed     https://example.com/private/press/1  (line 4: Allow: /private/press/)",
        "allowed     /open  (no rule matched)",
    ]
    assert status == 1


def test_check_exit_zero_when_everything_is_allowed(
    robots_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", str(robots_file), "/", "/public", "-A", "OtherBot"]) == 0
    assert main(["check", str(robots_file), "/", "-A", "MyBot/1.2 (+https://x.example)"]) == 0
    assert "line 8: Allow: /$" in capsys.readouterr().out
    assert main(["check", str(robots_file), "/page", "-A", "MyBot/1.2 (+https://x.example)"]) == 1


def test_check_reads_standard_input_and_any_bytes() -> None:
    body = b"\xef\xbb\xbfUser-agent: *\r\nDisallow: /caf\xc3\xa9\r\n\xff\xfe garbage\r\n"
    result = subprocess.run(
        [sys.executable, "-m", "scrapy_robots_policy", "check", "-", "/caf%C3%A9/menu", "/tea"],
        input=body,
        capture_output=True,
        check=False,
    )
    assert result.returncode == 1, result.stderr
    assert result.stdout.decode().splitlines() == [
        "disallowed  /caf%C3%A9/menu  (line 2: Disallow: /caf%C3%A9)",
        "allowed     /tea  (no rule matched)",
    ]


def test_check_reads_a_file_only_up_to_the_size_cap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "huge.txt"
    path.write_bytes(b"User-agent: *\nDisallow: /early\n" + b"#" * 600_000
                     + b"\nDisallow: /late\n")
    assert main(["check", str(path), "/late", "/early"]) == 1
    captured = capsys.readouterr()
    assert captured.out.splitlines() == ["allowed     /late  (no rule matched)",
                                         "disallowed  /early  (line 2: Disallow: /early)"]
    assert captured.err == (f"note: {path} is longer than 512000 bytes: only that much was "
                            "read, as a crawl reads\n")
    assert main(["check", str(robots_path(tmp_path)), "/x"]) == 0
    assert capsys.readouterr().err == ""


def robots_path(tmp_path: Path) -> Path:
    path = tmp_path / "small.txt"
    path.write_text(ROBOTS)
    return path


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_check_endless_standard_input_is_cut() -> None:
    with open("/dev/zero", "rb") as zero:
        result = subprocess.run(
            [sys.executable, "-m", "scrapy_robots_policy", "check", "-", "/x"],
            stdin=zero, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0
    assert result.stdout == "allowed     /x  (no user-agent line in it)\n"  # NUL bytes
    assert result.stderr == ("note: standard input is longer than 512000 bytes: only that "
                             "much was read, as a crawl reads\n"
                             "note: nothing in standard input is a robots.txt group or "
                             "sitemap (no user-agent line): every URL allowed, as a crawl "
                             "reads it\n")


def test_check_missing_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", str(tmp_path / "absent.txt"), "/"]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_command_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([])
    assert exit_info.value.code == 2
