"""``check ROBOTS URL... [-A NAME] [--explain]``: URLs against a robots.txt, and why."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from urllib.parse import urlsplit

from scrapy_robots_policy.cli import common, usage
from scrapy_robots_policy.cli.web import POLICY_SETTINGS, fetch_robots
from scrapy_robots_policy.fetch.document import TDMREP_JSON
from scrapy_robots_policy.fetch.origin import origin_of, robots_url
from scrapy_robots_policy.fetch.policy import Answer, CachedAnswer, Fetched, Policy
from scrapy_robots_policy.robotstxt import Explanation, RobotsTxt
from scrapy_robots_policy.usage.policy import UsagePolicy

HELP = "check URLs against a robots.txt"
DESCRIPTION = ("Check URLs against a robots.txt, as Google's parser and RFC 9309 read it; "
               "with --purpose, also the usage signals of robots.txt and (for a URL) the "
               "origin's tdmrep.json. Exit status: 0 if every URL is allowed, 1 if any is "
               "disallowed or a purpose refused.")


def configure(check: argparse.ArgumentParser) -> None:
    check.add_argument("robots", metavar="ROBOTS",
                       help="robots.txt URL (or a site URL), file path, or - for stdin")
    check.add_argument("urls", metavar="URL", nargs="+", help="absolute URL or path to check")
    check.add_argument(
        "-A",
        "--user-agent",
        default="*",
        metavar="NAME",
        help="crawler product token or full User-Agent (default: *, i.e. no own group)",
    )
    check.add_argument("--explain", action="store_true",
                       help="also print the group chosen and every rule that matched")
    usage.add_purpose_option(check)


def run(args: argparse.Namespace) -> int:
    """Print the verdict and deciding line per URL; exit 1 if any URL is disallowed."""
    robots_is_url = common.is_url(args.robots)
    if common.bad_urls([args.robots, *args.urls] if robots_is_url else args.urls):
        return common.EXIT_USAGE
    loaded = _load_rules(args)
    if loaded is None:
        return common.EXIT_USAGE
    rules, no_line = loaded
    if robots_is_url:
        _warn_other_origins(args.robots, args.urls)
    purposes = usage.policy(args.purpose)
    tdmrep = _load_tdmrep(args, purposes)
    status = common.EXIT_ALLOWED
    for url in args.urls:
        decision = rules.decide(url, args.user_agent)
        if decision.line is not None:
            reason = f"line {decision.line}: {decision.rule}"
        elif rules is RobotsTxt.disallow_all():
            reason = "robots.txt unreachable"
        elif no_line:
            reason = "no user-agent line in it"
        else:
            reason = "no rule matched"
        verdict = "allowed" if decision.allowed else "disallowed"
        print(f"{verdict:<10}  {url}  ({reason})")
        if args.explain and rules is not RobotsTxt.disallow_all():
            for line in _explain(rules.explain(url, args.user_agent)):
                print(f"    {line}")
        if not decision.allowed:
            status = common.EXIT_DISALLOWED
        if purposes.purposes:
            reading = purposes.for_robots(CachedAnswer(rules, "", 0.0, 0.0), url, args.user_agent,
                                          purposes.purposes)
            if tdmrep is not None:
                reading = purposes.with_tdmrep(reading, tdmrep, url)
            for line in usage.describe(reading):
                print(f"    {line}")
            if reading.refusal is not None:
                status = common.EXIT_DISALLOWED
    return status


def _load_tdmrep(args: argparse.Namespace, purposes: UsagePolicy) -> CachedAnswer | None:
    """The origin's tdmrep.json, when the robots.txt is a URL and a purpose needs it."""
    if not (common.is_url(args.robots) and purposes.needs_tdmrep(purposes.purposes)):
        return None
    origin = origin_of(args.robots)
    if origin is None:
        return None
    settled = fetch_robots(TDMREP_JSON.url(origin), args.user_agent, TDMREP_JSON)
    print(f"{_fetched(settled.answer)} {TDMREP_JSON.url(origin)}: {settled.answer.summary}"
          + ("" if settled.answer.definitive else ": unreachable, TDM reserved"))
    return settled.entry


def _read_robots(source: str, max_size: int) -> tuple[bytes, bool]:
    """The robots.txt body from a file path, or from standard input for "-", and whether
    it was cut: at most ``max_size`` bytes are read, as a crawl reads at most that much
    (so ``/dev/zero`` or a huge file cannot exhaust memory)."""
    if source == "-":
        body = sys.stdin.buffer.read(max_size + 1)
    else:
        with open(source, "rb") as handle:
            body = handle.read(max_size + 1)
    return body[:max_size], len(body) > max_size


def _robots_location(source: str) -> str | None:
    """The robots.txt URL for ``source``: itself, or the origin's when it names a site."""
    if urlsplit(source).path not in ("", "/"):
        return source
    origin = origin_of(source)
    return robots_url(origin) if origin is not None else None


def _fetched(answer: Answer) -> str:
    """How a fetch line starts: "fetched" for an answer (any status), "could not fetch"
    when none came (a refused connection, an unknown host, a timeout)."""
    return "could not fetch" if answer.status is None and not answer.not_fetched else "fetched"


def _load_rules(args: argparse.Namespace) -> tuple[RobotsTxt, bool] | None:
    """The rules to check against, and whether the body held no robots.txt line at all
    (read as allow all, as a crawl reads it); prints where they came from for a URL."""
    max_size = POLICY_SETTINGS.max_size
    if not common.is_url(args.robots):
        try:
            body, cut = _read_robots(args.robots, max_size)
        except OSError as error:
            print(f"error: cannot read {args.robots}: {error.strerror or error}",
                  file=sys.stderr)
            return None
        name = "standard input" if args.robots == "-" else args.robots
        if cut:
            print(f"note: {name} is longer than {max_size} bytes: only that much was read, "
                  "as a crawl reads", file=sys.stderr)
        # Read as a crawl reads a 2xx body: the same rules, the same "unparsable" verdict.
        answer = Policy(POLICY_SETTINGS).read([name], Fetched(200, body, truncated=cut))
        assert isinstance(answer, Answer)  # a 2xx answer is never a redirect to follow
        if answer.unparsable:
            print(f"note: nothing in {name} is a robots.txt group or sitemap (no user-agent "
                  "line): every URL allowed, as a crawl reads it", file=sys.stderr)
        return answer.rules, answer.unparsable
    location = _robots_location(args.robots)
    if location is None:
        print(f"error: not a URL with a host: {args.robots}", file=sys.stderr)
        return None
    settled = fetch_robots(location, args.user_agent)
    answer, chain = settled.answer, settled.chain
    via = f" (via {' -> '.join(chain[1:])})" if len(chain) > 1 else ""
    meaning = "" if answer.definitive else ": unreachable, every URL disallowed"
    print(f"{_fetched(answer)} {location}{via}: {answer.summary}{meaning}")
    return settled.entry.rules, answer.unparsable


def _explain(explanation: Explanation) -> list[str]:
    """The group chosen for the agent and every rule of it that matched, one per line."""
    agent = explanation.agent or "*"
    at = ", ".join(str(line) for line in explanation.group_lines)
    lines = "lines" if len(explanation.group_lines) > 1 else "line"
    if explanation.group == "specific":
        found = [f"group for {agent!r}: user-agent {lines} {at}"]
    elif explanation.group == "*":
        why = f" (no group names {agent!r})" if explanation.agent else ""
        found = [f"group '*'{why}: user-agent {lines} {at}"]
    else:
        found = [f"no group for {agent!r} and no '*' group: every URL allowed"]
    found.extend(f"matched line {rule.line}: {rule}" for rule in explanation.matches)
    if not explanation.matches and explanation.group != "none":
        found.append("no rule matched")
    return found


def _warn_other_origins(robots: str, urls: Sequence[str]) -> None:
    """Warn about absolute URLs that this robots.txt does not govern: a crawler would ask
    their own origin's robots.txt (origins compared as the middleware compares them)."""
    home = origin_of(robots)
    for url in urls:
        origin = origin_of(url) if "://" in url else home
        if origin != home:
            print(f"warning: {url} is on {origin or 'no origin'}, not {home}: a crawler "
                  f"would obey {robots_url(origin) if origin else 'no robots.txt'} for it",
                  file=sys.stderr)
