"""Benchmark the robots.txt engine against its peers, in one process, interleaved.

    python bench/bench_robotstxt.py            # whole corpus, 5 rounds
    python bench/bench_robotstxt.py --quick    # every 8th file, 2 rounds

Peers: scrapy_robots_policy.RobotsTxt (ours), Protego (Scrapy's default parser, the
baseline), Google's C++ reference parser through jwm.robotstxt (pybind) and through
fast-robotstxt (ctypes) when installed. texting_robots (Rust) is not installable here.
Google's bindings have no parsed object: they re-parse the file for every question, so
they appear only where a question includes its parse.

Every round runs each measurement for every peer, the peer order rotating between
rounds; medians over rounds are printed, with ratios against Protego. Times are CPU
time of this process (time.process_time), so other work on a shared machine does not
count against whichever peer happened to be running.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import re
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from protego import Protego

from scrapy_robots_policy.robotstxt import RobotsTxt

CORPUS = Path(os.environ.get("ROBOTS_CORPUS")
              or Path(__file__).resolve().parents[2] / "shared" / "corpus" / "robots-txt")
FIRST_QUESTIONS = 32
_RULE_VALUE = re.compile(rb"(?im)^[ \t]*(?:dis)?allow[ \t]*:?[ \t]*([^\s#]+)")
_AGENT_VALUE = re.compile(rb"(?im)^[ \t]*user-?agent[ \t]*:?[ \t]*([A-Za-z_-]+)")
_TOKEN = re.compile(r"[A-Za-z_-]*")


@dataclass
class Peer:
    """How one library parses a body and answers a question about the parsed result."""

    name: str
    parse: Callable[[bytes], Any] | None  # None: no parsed object (parses per question)
    ask: Callable[[Any, str, str], bool]  # (parsed object or body, url, user agent)


def peers() -> list[Peer]:
    found = [
        Peer("ours", RobotsTxt.parse, lambda rules, url, agent: rules.allowed(url, agent)),
        # As Scrapy's ProtegoRobotParser feeds it: text decoded leniently.
        Peer(
            "protego",
            lambda body: Protego.parse(body.decode("utf-8", "ignore")),
            lambda rules, url, agent: rules.can_fetch(url, agent),
        ),
    ]
    try:
        from jwm.robotstxt import googlebot

        matcher = googlebot.RobotsMatcher()
        found.append(
            Peer(
                "google-pybind",
                None,
                lambda body, url, agent: matcher.OneAgentAllowedByRobots(
                    body, _TOKEN.match(agent).group(), url
                ),
            )
        )
    except ImportError:
        pass
    try:
        import robotstxt as fast_robotstxt

        ctypes_matcher = fast_robotstxt.RobotsMatcher()
        found.append(
            Peer(
                "google-ctypes",
                None,
                # It takes text only (and encodes it again to UTF-8 itself).
                lambda body, url, agent: ctypes_matcher.is_allowed(
                    body.decode("utf-8", "replace"), _TOKEN.match(agent).group(), url
                ),
            )
        )
    except (ImportError, OSError):
        pass
    return found


def questions_for(name: str, body: bytes) -> list[tuple[str, str]]:
    """32 questions derived from the file's own rules: several agents, path variations."""
    rnd = random.Random(name)
    paths = {"/", "/index.html", "/robots.txt"}
    values = _RULE_VALUE.findall(body[:512_000])
    for value in rnd.sample(values, min(len(values), 10)):
        pattern = value.decode("utf-8", "replace")
        bare = pattern.rstrip("$")
        for path in (bare, bare.replace("*", ""), bare.replace("*", "x/y.php"), bare + "x"):
            paths.add(path if path.startswith("/") else "/" + path)
    named = sorted({v.decode("ascii") for v in _AGENT_VALUE.findall(body[:512_000])})
    agents = ["Googlebot", "Mozilla/5.0 (compatible; MyCrawler/1.0; +https://x.test/bot)"]
    agents += ["UnknownBot", *rnd.sample(named, min(len(named), 1))]
    pool = [(f"https://example.com{p}", a) for p in sorted(paths) for a in agents]
    rnd.shuffle(pool)
    while len(pool) < FIRST_QUESTIONS:
        pool += pool
    return pool[:FIRST_QUESTIONS]


def load(quick: bool) -> list[tuple[str, bytes]]:
    files = sorted(CORPUS.iterdir())
    if quick:
        files = files[::8]
    return [(path.name, path.read_bytes()) for path in files]


# --- measurements (one peer, one round) --------------------------------------------------


def parse_seconds(peer: Peer, bodies: list[bytes]) -> float:
    parse = peer.parse
    assert parse is not None
    start = time.process_time()
    for body in bodies:
        parse(body)
    return time.process_time() - start


def first_and_repeated(
    peer: Peer, corpus: list[tuple[str, bytes]], questions: list[list[tuple[str, str]]]
) -> tuple[float, float, float]:
    """(parse seconds, first-questions seconds, repeated-questions seconds), summed."""
    parse, ask = peer.parse, peer.ask
    clock = time.process_time
    parse_total = first_total = 0.0
    parsed = []
    for (_, body), asked in zip(corpus, questions, strict=True):
        start = clock()
        rules = parse(body) if parse is not None else body
        middle = clock()
        for url, agent in asked:
            ask(rules, url, agent)
        end = clock()
        parse_total += middle - start
        first_total += end - middle
        parsed.append(rules)
    start = clock()
    for rules, asked in zip(parsed, questions, strict=True):
        for url, agent in asked:
            ask(rules, url, agent)
    return parse_total, first_total, clock() - start


def retained_bytes(peer: Peer, paths: list[Path]) -> int:
    """Memory still held once every file is parsed; reading the files is inside the
    trace, so a parser that keeps its input pays for it."""
    assert peer.parse is not None
    gc.collect()
    tracemalloc.start()
    kept = [peer.parse(path.read_bytes()) for path in paths]
    gc.collect()
    size = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del kept
    return size


def big_file() -> tuple[bytes, list[str]]:
    """A 500 KiB robots.txt: one group of 20,000 rules, plus the questions to ask it."""
    rnd = random.Random(20_000)
    lines = ["User-agent: *"]
    for i in range(20_000):
        kind = "Allow" if i % 5 == 0 else "Disallow"
        suffix = "*.pdf$" if i % 7 == 0 else "/"
        lines.append(f"{kind}: /s{i % 40}/p{rnd.randrange(10**5)}{suffix}")
    body = "\n".join(lines).encode()
    while len(body) > 500 * 1024:
        lines.pop()
        body = "\n".join(lines).encode()
    urls = [
        f"https://example.com/s{rnd.randrange(40)}/p{rnd.randrange(10**5)}/doc{i}.pdf"
        for i in range(200)
    ]
    return body, urls


def big_file_seconds(peer: Peer, body: bytes, urls: list[str]) -> float:
    """Seconds per question on the 20,000-rule file, once parsed and warmed."""
    rules = peer.parse(body) if peer.parse is not None else body
    peer.ask(rules, urls[0], "FooBot")
    sample = urls if peer.parse is not None else urls[:20]
    start = time.process_time()
    for url in sample:
        peer.ask(rules, url, "FooBot")
    return (time.process_time() - start) / len(sample)


def pathological() -> list[tuple[str, float]]:
    """Our engine on inputs meant to hurt: seconds for each."""
    cases: list[tuple[str, Callable[[], object]]] = []
    rules = RobotsTxt.parse("User-agent: *\nDisallow: /*a*a*a*a*a*a*a*a*a*a*a*a*b\n")
    rules.allowed("/", "x")
    long_url = "/" + "a" * 10_000
    cases.append(
        ("/*a*a*a*a*a*a*a*a*a*a*a*a*b vs 10,000-char URL", lambda: rules.allowed(long_url, "x"))
    )
    agents = "".join(f"User-agent: bot{i}\n" for i in range(100_000)) + "Disallow: /\n"
    cases.append(
        (
            "100,000 user-agent lines: parse + question",
            lambda: RobotsTxt.parse(agents).allowed("/x", "bot"),
        )
    )
    one_line = "User-agent: *\nDisallow: /" + "a" * 1_000_000
    cases.append(
        ("single 1 MB line: parse + question", lambda: RobotsTxt.parse(one_line).allowed("/a", "x"))
    )
    results = []
    for name, call in cases:
        best = float("inf")
        for _ in range(3):
            start = time.process_time()
            call()
            best = min(best, time.process_time() - start)
        results.append((name, best))
    return results


# --- the run ---------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--quick", action="store_true", help="every 8th file, 2 rounds")
    options.add_argument("--rounds", type=int, default=None, help="rounds (default 5, quick 2)")
    args = options.parse_args(argv)
    rounds = args.rounds or (2 if args.quick else 5)

    corpus = load(args.quick)
    bodies = [body for _, body in corpus]
    questions = [questions_for(name, body) for name, body in corpus]
    megabytes = sum(map(len, bodies)) / 1e6
    everyone = peers()
    parsers = [peer for peer in everyone if peer.parse is not None]
    big_body, big_urls = big_file()
    print(
        f"corpus: {len(corpus)} files, {megabytes:.1f} MB, {FIRST_QUESTIONS} questions per "
        f"file; peers: {', '.join(p.name for p in everyone)}; {rounds} rounds; "
        f"Python {sys.version.split()[0]}"
    )

    samples: dict[tuple[str, str], list[float]] = {}

    def record(peer: Peer, metric: str, value: float) -> None:
        samples.setdefault((peer.name, metric), []).append(value)

    for round_number in range(rounds):
        shift = round_number % len(everyone)
        order = everyone[shift:] + everyone[:shift]
        for peer in order:
            if peer.parse is not None:
                record(peer, "parse MB/s", megabytes / parse_seconds(peer, bodies))
            parse_s, first_s, repeated_s = first_and_repeated(peer, corpus, questions)
            asked = len(corpus) * FIRST_QUESTIONS
            record(peer, "first question µs", first_s / asked * 1e6)
            record(peer, "parse+32 first µs/file", (parse_s + first_s) / len(corpus) * 1e6)
            if peer.parse is not None:
                record(peer, "repeated question µs", repeated_s / asked * 1e6)
            record(
                peer, "20k-rule file question µs", big_file_seconds(peer, big_body, big_urls) * 1e6
            )
        print(f"  round {round_number + 1}/{rounds} done", file=sys.stderr)

    paths = sorted(CORPUS.iterdir())[:: 8 if args.quick else 1]
    for peer in parsers:
        record(peer, "memory MB (corpus parsed)", retained_bytes(peer, paths) / 1e6)

    metrics = [
        ("parse MB/s", True),
        ("repeated question µs", False),
        ("first question µs", False),
        ("parse+32 first µs/file", False),
        ("memory MB (corpus parsed)", False),
        ("20k-rule file question µs", False),
    ]
    names = [peer.name for peer in everyone]
    print()
    print(f"{'median':<28}" + "".join(f"{n:>15}" for n in names) + f"{'ours vs protego':>18}")
    for metric, higher_is_better in metrics:
        row = f"{metric:<28}"
        values = {}
        for name in names:
            got = samples.get((name, metric))
            if got:
                values[name] = statistics.median(got)
                row += f"{values[name]:>15.2f}"
            else:
                row += f"{'-':>15}"
        if "ours" in values and "protego" in values:
            ratio = (
                values["ours"] / values["protego"]
                if higher_is_better
                else values["protego"] / values["ours"]
            )
            row += f"{ratio:>17.2f}x"
        print(row)
    print("(ratio: how many times better ours is; for µs and MB it is protego / ours)")
    print()
    print("pathological inputs (ours, best of 3):")
    for name, seconds in pathological():
        print(f"  {name:<52} {seconds * 1e3:8.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
