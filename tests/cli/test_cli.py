"""`python -m scrapy_robots_policy check URL` and `directives URL` against a real local server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from scrapy_robots_policy.cli import main
from tests.support import LocalServer, Reply, free_ports

ROBOTS = (
    "User-agent: *\n"
    "Disallow: /private/\n"
    "Allow: /private/press/\n"
    "\n"
    "User-agent: MyBot\n"
    "User-agent: OtherBot\n"
    "Disallow: /\n"
    "Allow: /$\n"
)
MOVED = "User-agent: *\nDisallow: /x\n"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str]]:
    status = main(list(argv))
    return status, capsys.readouterr().out.splitlines()


def test_check_fetches_robots_txt_url(capsys: pytest.CaptureFixture[str]) -> None:
    with LocalServer({"/robots.txt": Reply(200, ROBOTS)}) as server:
        status, lines = run(capsys, "check", server.url("/robots.txt"),
                            server.url("/private/x"), "/private/press/1", "-A", "SomeBot")
    assert status == 1
    assert lines == [
        f"fetched {server.url('/robots.txt')}: 200, {len(ROBOTS)} bytes",
        f"disallowed  {server.url('/private/x')}  (line 2: Disallow: /private/)",
        "allowed     /private/press/1  (line 3: Allow: /private/press/)",
    ]
    assert server.seen[0].headers["user-agent"] == "SomeBot"


def test_check_site_url_means_its_robots_txt(capsys: pytest.CaptureFixture[str]) -> None:
    with LocalServer({"/robots.txt": Reply(200, ROBOTS)}) as server:
        status, lines = run(capsys, "check", server.url("/"), "/", "-A", "MyBot/2.0")
    assert status == 0
    assert lines[0].startswith(f"fetched {server.url('/robots.txt')}: 200")
    assert server.paths() == ["/robots.txt"]


def test_check_explain_prints_group_and_every_matching_rule(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with LocalServer({"/robots.txt": Reply(200, ROBOTS)}) as server:
        status, lines = run(capsys, "check", server.url("/robots.txt"), "/private/press/1",
                            "/", "--explain", "-A", "OtherBot")
        _, star = run(capsys, "check", server.url("/robots.txt"), "/private/press/1",
                      "--explain", "-A", "SomeBot")
    assert status == 1
    assert lines[1:] == [
        "disallowed  /private/press/1  (line 7: Disallow: /)",
        "    group for 'otherbot': user-agent lines 5, 6",
        "    matched line 7: Disallow: /",
        "allowed     /  (line 8: Allow: /$)",
        "    group for 'otherbot': user-agent lines 5, 6",
        "    matched line 7: Disallow: /",
        "    matched line 8: Allow: /$",
    ]
    assert star[1:] == [
        "allowed     /private/press/1  (line 3: Allow: /private/press/)",
        "    group '*' (no group names 'somebot'): user-agent line 1",
        "    matched line 2: Disallow: /private/",
        "    matched line 3: Allow: /private/press/",
    ]


def test_check_explain_with_a_file_and_no_group(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "robots.txt"
    path.write_text("User-agent: MyBot\nDisallow: /\n")
    status, lines = run(capsys, "check", str(path), "/x", "--explain", "-A", "SomeBot")
    assert status == 0
    assert lines == ["allowed     /x  (no rule matched)",
                     "    no group for 'somebot' and no '*' group: every URL allowed"]


def test_check_5xx_robots_txt_disallows_everything(capsys: pytest.CaptureFixture[str]) -> None:
    with LocalServer({"/robots.txt": Reply(503, "down")}) as server:
        status, lines = run(capsys, "check", server.url("/robots.txt"), "/", "--explain")
    assert status == 1
    assert lines == [f"fetched {server.url('/robots.txt')}: 503: unreachable, every URL "
                     "disallowed",
                     "disallowed  /  (robots.txt unreachable)"]


def test_check_4xx_robots_txt_allows_everything(capsys: pytest.CaptureFixture[str]) -> None:
    with LocalServer({"/robots.txt": Reply(404, "User-agent: *\nDisallow: /")}) as server:
        status, lines = run(capsys, "check", server.url("/robots.txt"), "/a")
    assert status == 0
    assert lines == [f"fetched {server.url('/robots.txt')}: 404: allow all",
                     "allowed     /a  (no rule matched)"]


def test_check_follows_redirects_like_the_middleware(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with LocalServer() as other, LocalServer() as server:
        server.routes["/robots.txt"] = Reply(301, headers={"Location": "/moved.txt"})
        server.routes["/moved.txt"] = Reply(302, headers={"Location": other.url("/r.txt")})
        other.routes["/r.txt"] = Reply(200, MOVED)
        status, lines = run(capsys, "check", server.url("/robots.txt"), "/x")
        other.routes["/loop.txt"] = Reply(302, headers={"Location": "/loop.txt"})
        loop_status, loop = run(capsys, "check", other.url("/loop.txt"), "/x")
    assert status == 1
    assert lines[0] == (f"fetched {server.url('/robots.txt')} (via {server.url('/moved.txt')}"
                        f" -> {other.url('/r.txt')}): 200, {len(MOVED)} bytes")
    assert lines[1] == "disallowed  /x  (line 2: Disallow: /x)"
    assert loop_status == 0
    assert loop[0].endswith("302, redirect loop: allow all")


def test_check_reads_only_the_size_cap(capsys: pytest.CaptureFixture[str]) -> None:
    body = "User-agent: *\nDisallow: /early\n" + "#" * 600_000 + "\nDisallow: /late\n"
    with LocalServer({"/robots.txt": Reply(200, body)}) as server:
        status, lines = run(capsys, "check", server.url("/robots.txt"), "/late", "/early")
    assert lines[0] == f"fetched {server.url('/robots.txt')}: 200, 512000 bytes, cut"
    assert lines[1].startswith("allowed     /late")
    assert lines[2].startswith("disallowed  /early")
    assert status == 1


def test_check_unreachable_server_is_a_disallow(capsys: pytest.CaptureFixture[str]) -> None:
    with LocalServer({"/robots.txt": Reply(reset=True)}) as server:
        status, lines = run(capsys, "check", server.url("/robots.txt"), "/")
    assert status == 1
    assert "unreachable, every URL disallowed" in lines[0]


def test_check_a_refused_connection_could_not_be_fetched() -> None:
    port = next(free_ports(1))
    result = subprocess.run(
        [sys.executable, "-m", "scrapy_robots_policy", "check", f"http://127.0.0.1:{port}/",
         "/a"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        f"could not fetch http://127.0.0.1:{port}/robots.txt: Connection refused: "
        "unreachable, every URL disallowed",
        "disallowed  /a  (robots.txt unreachable)",
    ]
    assert "Errno" not in result.stdout


def test_check_a_file_without_a_robots_txt_line_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "saved.html"
    page.write_text("<html><head><title>Shop</title></head>\n<body>Welcome</body></html>\n")
    assert main(["check", str(page), "/cart"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == ["allowed     /cart  (no user-agent line in it)"]
    assert captured.err.splitlines() == [
        f"note: nothing in {page} is a robots.txt group or sitemap (no user-agent line): "
        "every URL allowed, as a crawl reads it"]


def test_check_a_robots_txt_url_without_a_robots_txt_line_says_so(
    capsys: pytest.CaptureFixture[str]
) -> None:
    html = "<html><body>Not found, but 200</body></html>\n"
    with LocalServer({"/robots.txt": Reply(200, html)}) as server:
        status, lines = run(capsys, "check", server.url("/"), "/cart")
    assert status == 0
    assert lines == [
        f"fetched {server.url('/robots.txt')}: 200, {len(html)} bytes, no robots.txt line "
        "in it: allow all",
        "allowed     /cart  (no user-agent line in it)",
    ]


def test_check_a_file_whose_rules_simply_do_not_match_adds_no_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    robots = tmp_path / "robots.txt"
    robots.write_text("# comment only\n\nUser-agent: *\nDisallow: /private/\n")
    assert main(["check", str(robots), "/cart"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == ["allowed     /cart  (no rule matched)"]
    assert captured.err == ""


def test_directives_prints_each_directive_with_its_source(
    capsys: pytest.CaptureFixture[str],
) -> None:
    html = ('<html><head><meta name="robots" content="noarchive">'
            '<meta name="mybot" content="nofollow, max-snippet:20">'
            '<meta name="googlebot" content="noindex"></head><body></body></html>')
    headers = {"Content-Type": "text/html", "X-Robots-Tag": ["mybot: noindex", "otherbot: none"]}
    with LocalServer({"/p": Reply(200, html, headers)}) as server:
        status, lines = run(capsys, "directives", server.url("/p"), "-A", "MyBot/1.0")
    assert status == 0
    assert lines[0] == f"fetched {server.url('/p')}: 200, text/html, {len(html)} bytes"
    assert lines[1:] == [
        "directives for 'mybot':",
        "  noindex                      from X-Robots-Tag: mybot: noindex",
        '  noarchive                    from <meta name="robots" content="noarchive">',
        '  nofollow                     from <meta name="mybot" content="nofollow, '
        'max-snippet:20">',
        '  max-snippet: 20              from <meta name="mybot" content="nofollow, '
        'max-snippet:20">',
        "indexable: no (noindex)",
        "links followed: no",
        "effective: max-snippet:20, noarchive, nofollow, noindex",
        "not for 'mybot': X-Robots-Tag: otherbot: none",
        """not for 'mybot': <meta name="googlebot" content="noindex">""",
    ]


def test_directives_reads_the_robots_tag_header(capsys: pytest.CaptureFixture[str]) -> None:
    headers = {"Content-Type": "text/html",
               "Robots-Tag": ["*;nosnippet, MyBot;noindex;max-snippet=20", "OtherBot;nofollow;"],
               "X-Robots-Tag": "mybot: noarchive"}
    with LocalServer({"/p": Reply(200, "<html></html>", headers)}) as server:
        status, lines = run(capsys, "directives", server.url("/p"), "-A", "MyBot/1.0")
        _, everyone = run(capsys, "directives", server.url("/p"))
    assert status == 0
    assert lines[1:] == [
        "directives for 'mybot':",
        "  nosnippet                    from Robots-Tag: *;nosnippet",
        "  noindex                      from Robots-Tag: MyBot;noindex;max-snippet=20",
        "  max-snippet: 20              from Robots-Tag: MyBot;noindex;max-snippet=20",
        "  noarchive                    from X-Robots-Tag: mybot: noarchive",
        "  read leniently: Robots-Tag: *;nosnippet, MyBot;noindex;max-snippet=20, "
        "OtherBot;nofollow;: not RFC 9651 (Trailing delimiter at position 61), read after "
        "dropping a ';' that ends a member",
        "indexable: no (noindex)",
        "links followed: yes",
        "effective: max-snippet:20, noarchive, noindex, nosnippet",
        "not for 'mybot': Robots-Tag: OtherBot;nofollow;",
    ]
    assert everyone[1:3] == ["directives for 'robots':",
                             "  nosnippet                    from Robots-Tag: *;nosnippet"]
    assert "not for 'robots': Robots-Tag: MyBot;noindex;max-snippet=20" in everyone


def test_directives_max_size_cuts_the_page_and_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    head = '<html><head><meta name="robots" content="noarchive">'
    html = head + " " * 200 + '<meta name="robots" content="noindex"></head></html>'
    headers = {"Content-Type": "text/html", "X-Robots-Tag": "nofollow"}
    with LocalServer({"/p": Reply(200, html, headers)}) as server:
        status, lines = run(capsys, "directives", server.url("/p"), "--max-size", "100")
    assert status == 0
    assert lines[0] == f"fetched {server.url('/p')}: 200, text/html, 100 bytes, cut at " \
                       "--max-size 100"
    assert "indexable: yes" in lines  # the noindex tag was past the cut
    assert any(line.startswith("  nofollow ") for line in lines)  # headers are always read


@pytest.mark.parametrize("size", ["0", "-1", "5k"])
def test_directives_max_size_must_be_a_positive_number_of_bytes(
    size: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["directives", "http://127.0.0.1:9/", "--max-size", size])
    assert exited.value.code == 2
    assert (f"argument --max-size: not a whole number of bytes above 0: {size!r}"
            in capsys.readouterr().err)


def test_directives_help_documents_max_size(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["directives", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert ("--max-size BYTES read at most this many bytes of the page (default: 5000000)"
            in help_text)


def test_directives_for_another_crawler_do_not_apply(
    capsys: pytest.CaptureFixture[str],
) -> None:
    headers = {"Content-Type": "text/plain", "X-Robots-Tag": "otherbot: noindex, nofollow"}
    with LocalServer({"/file.txt": Reply(200, '<meta name="robots" content="noindex">',
                                         headers)}) as server:
        status, lines = run(capsys, "directives", server.url("/file.txt"), "-A", "MyBot")
    assert status == 0
    # Not HTML: the meta tag look-alike in a text file is not a directive either.
    assert lines[1:] == ["no directive applies to 'mybot'", "indexable: yes",
                         "links followed: yes",
                         "effective: (no directive applies: index, follow)",
                         "not for 'mybot': X-Robots-Tag: otherbot: noindex, nofollow"]


def test_a_meta_name_with_a_version_is_the_crawlers_own_not_another_crawlers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The CLI compares names as the middleware does: "MyBot/2.0" addresses mybot."""
    html = '<meta name="MyBot/2.0" content="noindex"><meta name="mj" content="nofollow">'
    with LocalServer({"/p": Reply(200, html, {"Content-Type": "text/html"})}) as server:
        status, lines = run(capsys, "directives", server.url("/p"), "-A", "MyBot")
    assert status == 0
    assert "indexable: no (noindex)" in lines
    assert [line for line in lines if line.startswith("not for")] == [
        """not for 'mybot': <meta name="mj" content="nofollow">"""]


def test_effective_line_never_reads_like_the_none_directive(
    capsys: pytest.CaptureFixture[str],
) -> None:
    html = {"Content-Type": "text/html"}
    with LocalServer({"/all": Reply(200, '<meta name="robots" content="all">', html),
                      "/none": Reply(200, '<meta name="robots" content="none">', html)}) as server:
        _, everything = run(capsys, "directives", server.url("/all"))
        _, nothing = run(capsys, "directives", server.url("/none"))
    assert everything[-1] == "effective: (no restriction: index, follow)"
    assert nothing[-1] == "effective: nofollow, noindex"


@pytest.mark.parametrize("argv", [
    ["check", "{robots}", "http://[::1/x"],
    ["check", "{robots}", "http://127.0.0.1:abc/x"],
    ["check", "{robots}", "http://127.0.0.1:99999/x"],
    ["check", "{robots}", "/ok", "http://127.0.0.1/a b"],
    ["check", "{robots}", "/a\tb"],
    ["check", "http://[::1", "/x"],
    ["check", "http://127.0.0.1:abc/robots.txt", "/x"],
    ["check", "http://127.0.0.1 /robots.txt", "/x"],
    ["check", "http:///robots.txt", "/x"],
    ["directives", "http://[::1/page"],
    ["directives", "http://127.0.0.1:abc/page"],
    ["directives", "http://127.0.0.1/a page"],
])
def test_malformed_urls_are_a_one_line_usage_error(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with LocalServer({"/robots.txt": Reply(200, ROBOTS)}) as server:
        args = [arg.replace("{robots}", server.url("/robots.txt")) for arg in argv]
        status = main(args)
    captured = capsys.readouterr()
    assert status == 2
    assert captured.out == ""
    [line] = captured.err.splitlines()
    assert line.startswith("error: invalid URL "), line
    assert server.seen == []  # refused before anything was fetched


def test_check_warns_about_urls_another_robots_txt_governs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with LocalServer({"/robots.txt": Reply(200, ROBOTS)}) as server:
        same = server.url("/private/x").replace("http://127.0.0.1", "HTTP://127.0.0.1")
        other = f"https://127.0.0.1:{server.port}/private/x"
        status = main(["check", server.url("/"), same, other, "/private/y",
                       "http://localhost/z"])
    captured = capsys.readouterr()
    assert status == 1
    assert captured.err.splitlines() == [
        f"warning: {other} is on https://127.0.0.1:{server.port}, not {server.origin}: a "
        f"crawler would obey https://127.0.0.1:{server.port}/robots.txt for it",
        f"warning: http://localhost/z is on http://localhost, not {server.origin}: a crawler "
        "would obey http://localhost/robots.txt for it",
    ]
    assert len(captured.out.splitlines()) == 5  # every URL is still answered


def test_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["directives", "not-a-url"]) == 2
    with LocalServer({"/x": Reply(reset=True)}) as server:
        assert main(["directives", server.url("/x")]) == 2
    assert "cannot fetch" in capsys.readouterr().err


USAGE_ROBOTS = ("Content-Signal: search=yes, ai-train=no\n"
                "User-agent: *\nAllow: /\nContent-Usage: /open/ train-ai=y\n")
TDMREP = '[{"location": "/papers/*", "tdm-reservation": 1}]'


def test_check_purpose_prints_the_signals_that_decided(
        capsys: pytest.CaptureFixture[str]) -> None:
    routes = {"/robots.txt": Reply(200, USAGE_ROBOTS),
              "/.well-known/tdmrep.json": Reply(200, TDMREP)}
    with LocalServer(routes) as server:
        status, lines = run(capsys, "check", server.url("/"), "/a", "/papers/1",
                            "--purpose", "ai-train", "--purpose", "search")
        _, searched = run(capsys, "check", server.url("/"), "/a", "--purpose", "search")
    assert status == 1
    assert lines[1] == f"fetched {server.url('/.well-known/tdmrep.json')}: 200, {len(TDMREP)} bytes"
    assert lines[2:5] == [
        "allowed     /a  (line 3: Allow: /)",
        '    refused for ai-train: robots.txt line 1: "Content-Signal: search=yes, '
        'ai-train=no" (content-signal)',
        '    allowed for search: robots.txt line 1: "Content-Signal: search=yes, '
        'ai-train=no" (content-signal)',
    ]
    assert lines[5] == "allowed     /papers/1  (line 3: Allow: /)"
    assert lines[8] == ("      also: ai-train refused by tdmrep.json rule 1: location "
                        "'/papers/*', tdm-reservation 1 (tdmrep.json)")
    assert server.hits("/.well-known/tdmrep.json") == 1  # once for the origin
    assert len(searched) == 3  # search needs no tdmrep.json: not fetched


def test_check_purpose_names_the_labels_it_did_not_read(
        capsys: pytest.CaptureFixture[str]) -> None:
    robots = "User-agent: *\nContent-Usage: ai=n, ai-use=n\nAllow: /\n"
    with LocalServer({"/robots.txt": Reply(200, robots)}) as server:
        status, lines = run(capsys, "check", server.url("/"), "/a", "--purpose", "ai-input")
    assert status == 1  # ai-use=n: vocab-08's AI Use is ai-input
    assert lines[-1] == (
        "      ignored: label 'ai' (robots.txt line 2: \"Content-Usage: ai=n, ai-use=n\"): "
        "AI Training in draft-ietf-aipref-vocab-01; not a label of draft-ietf-aipref-vocab-08, "
        "which ignores the labels it does not define (section 6.4)")


def test_directives_purpose_prints_page_level_usage(capsys: pytest.CaptureFixture[str]) -> None:
    page = Reply(200, '<html><head><meta name="robots" content="noai"></head></html>',
                 {"Content-Type": "text/html", "Content-Usage": "search=y"})
    with LocalServer({"/p": page}) as server:
        status, lines = run(capsys, "directives", server.url("/p"), "--purpose", "ai-input",
                            "--purpose", "search")
    assert status == 1
    assert lines[-2:] == [
        '  refused for ai-input: noai (from <meta name="robots" content="noai">) (noai)',
        "  allowed for search: Content-Usage: search=y (content-usage-header)",
    ]
