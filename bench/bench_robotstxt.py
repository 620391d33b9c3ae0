"""Benchmark the robots.txt engine against its peers, in one process, interleaved.

    python bench/bench_robotstxt.py            # whole corpus, 5 rounds
    python bench/bench_robotstxt.py --quick    # every 8th file, 2 rounds
    python bench/bench_robotstxt.py --worst-case  # adversarial files and 2 KB / 100 KB URLs

Peers: scrapy_robots_policy.RobotsTxt (ours, pure Python), Protego (Scrapy's default
parser, the baseline), and when installed (the ``bench`` extra): texting_robots (Rust
through PyO3), Google's C++ reference parser through jwm.robotstxt (pybind) and through
fast-robotstxt (ctypes).
Agents are given to the other peers as Google's matcher reads them (the leading run of
[A-Za-z_-]); ours is given the whole User-Agent.

How each peer's parse is counted:

- texting_robots binds the crawler at parse (``Robot(agent, body)``): "parse" is one
  ``Robot`` per file; in "parse + 32 first questions" it parses once per distinct agent
  the file's questions ask (4 per file), counted as parse; warm questions ask those
  ``Robot`` objects (through a dict by agent).
- Google's bindings have no parsed object: they re-parse the file for every question.
  Their "parse" is one question per file (its parse and one match), their first
  question is a question on the raw text, and they have no warm question.

"memory after the questions" is the growth of the resident set of a fresh process
(one per peer and round) that reads and parses the whole corpus and asks every file its
32 questions, keeping what it parsed: native peers' memory (Rust, C++) is seen too.

Every round runs each measurement for every peer, the peer order rotating between
rounds; medians over rounds are printed, with ours against each peer. Times are CPU
time of this process (time.process_time), so other work on a shared machine does not
count against whichever peer happened to be running. The questions are the same for
every peer, and the engine keeps no answer from one question to the next.

``--worst-case`` also times the first question on a freshly parsed object for each 2 KB
URL (the rules read, the index built), and the user-agent lines of a 500 KiB file
naming one crawler each, asked by a name Google cuts ("FooBot") and by one it does not
("FooBot99999/1.0").
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
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
    # Parse for the questions of a file (their distinct agents); None: ``parse``.
    parse_for: Callable[[bytes, list[str]], Any] | None = None
    # One parse for the parse speed, when ``parse`` is None (Google's: one question).
    parse_once: Callable[[bytes], Any] | None = None


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
        from texting_robots import Robot

        def robots_by_agent(body: bytes, agents: list[str]) -> dict[str, Any]:
            return {agent: Robot(_google_cut(agent), body) for agent in dict.fromkeys(agents)}

        found.append(
            Peer(
                "texting_robots",
                lambda body: Robot("Googlebot", body),
                lambda robots, url, agent: robots[agent].allowed(url),
                parse_for=robots_by_agent,
            )
        )
    except ImportError:
        pass
    try:
        from jwm.robotstxt import googlebot

        matcher = googlebot.RobotsMatcher()
        found.append(
            Peer(
                "google-pybind",
                None,
                lambda body, url, agent: matcher.OneAgentAllowedByRobots(
                    body, _google_cut(agent), url
                ),
            )
        )
    except ImportError:
        pass
    try:
        import robotstxt as fast_robotstxt

        ctypes_matcher = fast_robotstxt.RobotsMatcher()

        def ctypes_ask(body: bytes, url: str, agent: str) -> bool:
            # It takes text only (and encodes it again to UTF-8 itself).
            text = body.decode("utf-8", "replace")
            return bool(ctypes_matcher.is_allowed(text, _google_cut(agent), url))

        found.append(
            Peer(
                "google-ctypes",
                None,
                ctypes_ask,
                parse_once=lambda body: ctypes_ask(body, "https://example.com/", "Googlebot"),
            )
        )
    except (ImportError, OSError):
        pass
    return found


def _google_cut(agent: str) -> str:
    """The agent as Google's matcher reads it: its leading run of [A-Za-z_-]."""
    return _TOKEN.match(agent).group()  # type: ignore[union-attr]


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
    parse = peer.parse or peer.parse_once
    assert parse is not None
    start = time.process_time()
    for body in bodies:
        parse(body)
    return time.process_time() - start


def first_and_repeated(
    peer: Peer, corpus: list[tuple[str, bytes]], questions: list[list[tuple[str, str]]]
) -> tuple[float, float, float]:
    """(parse seconds, first-questions seconds, repeated-questions seconds), summed."""
    parse, parse_for, ask = peer.parse, peer.parse_for, peer.ask
    clock = time.process_time
    parse_total = first_total = 0.0
    parsed = []
    for (_, body), asked in zip(corpus, questions, strict=True):
        agents = [agent for _, agent in asked]
        start = clock()
        if parse_for is not None:
            rules = parse_for(body, agents)
        else:
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


def _resident_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def memory_growth(peer_name: str, quick: bool) -> tuple[float, float]:
    """(MB after parsing the corpus, MB after its questions too): growth of this process's
    resident set, every file read, parsed and kept (a parser that keeps its input pays
    for it). Run in a fresh process (``--memory-of``)."""
    peer = next(p for p in peers() if p.name == peer_name)
    paths = sorted(CORPUS.iterdir())[:: 8 if quick else 1]
    questions = [questions_for(path.name, path.read_bytes()) for path in paths]
    agents = [[agent for _, agent in asked] for asked in questions]
    gc.collect()
    base = _resident_bytes()
    if peer.parse_for is not None:
        kept = [peer.parse_for(p.read_bytes(), a) for p, a in zip(paths, agents, strict=True)]
    else:
        assert peer.parse is not None
        kept = [peer.parse(path.read_bytes()) for path in paths]
    gc.collect()
    parsed = _resident_bytes()
    for rules, asked in zip(kept, questions, strict=True):
        for url, agent in asked:
            peer.ask(rules, url, agent)
    gc.collect()
    return (parsed - base) / 1e6, (_resident_bytes() - base) / 1e6


def memory_in_fresh_process(peer: Peer, quick: bool) -> tuple[float, float]:
    command = [sys.executable, __file__, "--memory-of", peer.name, *(["--quick"] * quick)]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    before, after = out.split()
    return float(before), float(after)


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
    if peer.parse_for is not None:
        rules = peer.parse_for(body, ["FooBot"])
    else:
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


# --- worst case: files and URLs built to defeat the matcher ------------------------------

WORST_URL_SIZES = (2_000, 100_000)
#: Protego gets this many seconds per measurement; past that it is reported as "> cap".
PROTEGO_CAP_SECONDS = 3.0


def _cut(lines: list[str]) -> bytes:
    """The body as every parser here will read it: at most 500 KiB, whole lines."""
    body = ("\n".join(lines) + "\n").encode()
    if len(body) > 500 * 1024:
        body = body[: body.rfind(b"\n", 0, 500 * 1024) + 1]
    return body


def _fill(size: int, unit: str) -> str:
    """A URL path of ``size`` characters repeating ``unit``."""
    return "/" + (unit * (size // max(1, len(unit)) + 1))[: size - 1]


Shape = tuple[str, bytes, Callable[[int], list[str]], str]


def worst_files() -> list[Shape]:
    """(name, body, URLs of a given size, user agent asking): each shape aims at one way
    to defeat an index."""
    rnd = random.Random(40_000)
    shapes: list[Shape] = []

    def common(size: int) -> list[str]:
        letters = "abcdefghijklmnopqrstuvwxyz0123456789-_./"
        return [_fill(size, "a"), "/" + "".join(rnd.choice(letters) for _ in range(size - 1))]

    head = ["User-agent: *"]
    shapes.append(
        (
            "40k Disallow: /*q<i>",
            _cut(head + [f"Disallow: /*q{i}" for i in range(40_000)]),
            lambda n: [*common(n), _fill(n, "qx"), _fill(n, "q1-"), _fill(n, "q12345")],
            "FooBot",
        )
    )
    mixed = []
    for i in range(20_000):
        mixed.append(
            [
                f"Disallow: /s{i % 40}/p{i}/",
                f"Disallow: /*q{i}",
                f"Allow: /*x{i}*.pdf$",
                f"Disallow: /d{i % 40}/*y{i}*z",
                f"Disallow: /*{i}.php$",
            ][i % 5]
        )
    shapes.append(
        (
            "20k mixed (prefix, /*q, *.pdf$, *y*z, .php$)",
            _cut(head + mixed),
            lambda n: [*common(n), _fill(n, "x1y2.pdf"), _fill(n, "d1/y12z") + ".php"],
            "FooBot",
        )
    )
    pieces = ["ab", "cd", "ef", "gh", "ij", "kl", "mn", "op"]
    shared = [
        "Disallow: /*" + "*".join(rnd.sample(pieces, 5)) for _ in range(30_000)
    ]  # every key is shared by thousands of rules
    shapes.append(
        (
            "30k /*ab*cd*ef*gh*ij orders of 8 pieces",
            _cut(head + shared),
            lambda n: [*common(n), _fill(n, "".join(pieces[::-1])), _fill(n, "".join(pieces))],
            "FooBot",
        )
    )
    shapes.append(
        (
            "20k /*common-literal*x<i>",
            _cut(head + [f"Disallow: /*common-literal*x{i}" for i in range(20_000)]),
            lambda n: [*common(n), _fill(n, "common-literal-x"), _fill(n, "x1common-literal")],
            "FooBot",
        )
    )
    shapes.append(
        (
            "1000 /*...* (only stars) + 40k /*",
            _cut(head + [f"Disallow: /{'*' * k}" for k in range(1, 1_000)] + ["Allow: /*"] * 40000),
            common,
            "FooBot",
        )
    )
    long = "L" * 2_000
    shapes.append(
        (
            "250 /*<2,000-char literal><i>",
            _cut(head + [f"Disallow: /*{long}{i}" for i in range(250)]),
            lambda n: [*common(n), _fill(n, long + "x"), _fill(n, "L")],
            "FooBot",
        )
    )
    shapes.append(
        (
            "40k /*q<i>$ and /*.e<i>$",
            _cut(head + [(f"Disallow: /*q{i}$", f"Allow: /*.e{i}$")[i % 2] for i in range(40000)]),
            lambda n: [*common(n), _fill(n, "q1") + "q1234", _fill(n, "q.e") + ".e7"],
            "FooBot",
        )
    )
    shapes.append(
        (
            "1000 /a..a*b (deep prefix chain)",
            _cut(head + [f"Disallow: /{'a' * k}*b{k}" for k in range(1, 1_000)]),
            common,
            "FooBot",
        )
    )
    # Found by a fuzzer: a second crawler's first question on 500 KiB of "%" (each once
    # escaped in a Python callback), and a NUL between every character (250,000 lines).
    percents = _cut(
        ["User-agent: Other", "Disallow: /o", "User-agent: FooBot"]
        + [f"Disallow: /{'%' * 40}{i}" for i in range(20_000)]
    )
    shapes.append(("500 KiB of % (distinct rules), a second agent", percents, common, "FooBot"))
    nuls = b"User-agent: *\n" + b"\n\0" * 250_000
    shapes.append(("500 KiB, a NUL between every character", nuls[: 500 * 1024], common, "FooBot"))
    agents = _cut(
        ["User-agent: *", "Disallow: /x"] + [f"User-agent: foobot{i}" for i in range(100_000)]
    )
    for agent in ("FooBot", "FooBot99999/1.0"):
        shapes.append((f"100,000 user-agent lines foobot<i>, {agent}", agents, common, agent))
    return shapes


def _median_seconds(call: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.process_time()
        call()
        times.append(time.process_time() - start)
    return statistics.median(times)


class _Cap(Exception):
    pass


def _capped(call: Callable[[], object], cap: float) -> float | None:
    """Seconds ``call`` took, or None when it ran past ``cap`` (interrupted)."""

    def stop(*_: object) -> None:
        raise _Cap

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, cap)
    start = time.process_time()
    try:
        call()
        return time.process_time() - start
    except _Cap:
        return None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _protego_parse(body: bytes, into: list[Any]) -> None:
    into.append(Protego.parse(body.decode("utf-8", "ignore")))


def _first_question(body: bytes, url: str, agent: str) -> float:
    """Seconds of the first question on a freshly parsed object (its parse not counted)."""
    fresh = RobotsTxt.parse(body)
    start = time.process_time()
    fresh.allowed(url, agent)
    return time.process_time() - start


def worst_case(runs: int) -> None:
    """Per shape and URL size: worst and median question time over its URLs, ours and
    Protego's; ours parse, and the first question on a fresh object (the rules read,
    the index built), worst over the 2 KB URLs."""
    print(f"worst case: median of {runs} runs per URL; CPU ms; Protego capped at "
          f"{PROTEGO_CAP_SECONDS:.0f} s per call")
    print(f"{'shape':<46}{'URL':>7}{'ours worst':>11}{'ours med':>10}"
          f"{'protego worst':>15}{'ratio':>8}")
    for name, body, urls_for, agent in worst_files():
        parse = _median_seconds(partial(RobotsTxt.parse, body), runs)
        ours = RobotsTxt.parse(body)
        first = max(
            statistics.median(_first_question(body, url, agent) for _ in range(runs))
            for url in ["https://example.com" + path for path in urls_for(WORST_URL_SIZES[0])]
        )
        theirs = None
        holder: list[Any] = []
        parse_s = _capped(partial(_protego_parse, body, holder), PROTEGO_CAP_SECONDS)
        if parse_s is not None:
            theirs = holder[0]
        print(f"{name}: {len(body) / 1024:.0f} KiB, ours parse {parse * 1e3:.1f} ms, "
              f"first question (2 KB URL) {first * 1e3:.1f} ms; protego parse "
              f"{'> cap' if parse_s is None else f'{parse_s * 1e3:.0f} ms'}")
        for size in WORST_URL_SIZES:
            urls = ["https://example.com" + path for path in urls_for(size)]
            mine = [_median_seconds(partial(ours.allowed, url, agent), runs) for url in urls]
            peer: list[float | None] = []
            for url in urls:
                if theirs is None or (peer and peer[-1] is None):
                    peer.append(None)  # capped once: the rest is not worth the wait
                    continue
                peer.append(_capped(partial(theirs.can_fetch, url, agent), PROTEGO_CAP_SECONDS))
            finished = [t for t in peer if t is not None]
            worst_peer = (
                f"{max(finished) * 1e3:13.2f}" if len(finished) == len(peer) else "      > cap"
            )
            ratio = (
                f"{max(finished) / max(mine):7.0f}x" if len(finished) == len(peer) else "      -"
            )
            print(f"{'':<46}{size // 1000:>5}KB{max(mine) * 1e3:>11.3f}"
                  f"{statistics.median(mine) * 1e3:>10.3f}{worst_peer:>15} {ratio}")
    print("(ratio: protego worst / ours worst)")


# --- the run ---------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--quick", action="store_true", help="every 8th file, 2 rounds")
    options.add_argument("--rounds", type=int, default=None, help="rounds (default 5, quick 2)")
    options.add_argument(
        "--worst-case", action="store_true", help="only files and URLs built to be slow"
    )
    options.add_argument("--memory-of", help=argparse.SUPPRESS)  # one peer, in a fresh process
    args = options.parse_args(argv)
    if args.memory_of:
        print(*memory_growth(args.memory_of, args.quick))
        return 0
    if args.worst_case:
        worst_case(args.rounds or 5)
        return 0
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
            if peer.parse is not None or peer.parse_once is not None:
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

    for round_number in range(rounds):
        shift = round_number % len(parsers)
        for peer in parsers[shift:] + parsers[:shift]:
            before, after = memory_in_fresh_process(peer, args.quick)
            record(peer, "memory MB, parsed", before)
            record(peer, "memory MB, after questions", after)

    metrics = [
        ("parse MB/s", True),
        ("repeated question µs", False),
        ("first question µs", False),
        ("parse+32 first µs/file", False),
        ("memory MB, parsed", False),
        ("memory MB, after questions", False),
        ("20k-rule file question µs", False),
    ]
    names = [peer.name for peer in everyone]
    medians = {key: statistics.median(got) for key, got in samples.items()}
    print()
    print(f"{'median':<28}" + "".join(f"{n:>15}" for n in names))
    for metric, _ in metrics:
        row = f"{metric:<28}"
        for name in names:
            value = medians.get((name, metric))
            row += f"{'-':>15}" if value is None else f"{value:>15.2f}"
        print(row)
    print()
    print("ours against each peer (how many times better ours is; for µs and MB: peer / ours)")
    for metric, higher_is_better in metrics:
        ours = medians.get(("ours", metric))
        if ours is None:
            continue
        row = f"{metric:<28}{'':>15}"
        for name in names[1:]:
            theirs = medians.get((name, metric))
            if theirs is None:
                row += f"{'-':>15}"
            else:
                row += f"{(ours / theirs if higher_is_better else theirs / ours):>14.2f}x"
        print(row)
    print()
    print("pathological inputs (ours, best of 3):")
    for name, seconds in pathological():
        print(f"  {name:<52} {seconds * 1e3:8.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
