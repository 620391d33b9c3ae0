"""``demo [--serve]``: crawl the bundled demo site and report what robots rules did."""

from __future__ import annotations

import argparse

HELP = "crawl a bundled demo site on 127.0.0.1 and report what robots rules did"
DESCRIPTION = ("Start a small demo site on 127.0.0.1 (several origins), crawl it with the "
               "add-on and print what was crawled, refused, dropped and not followed, and "
               "why. Needs no network.")


def configure(demo: argparse.ArgumentParser) -> None:
    demo.add_argument("--serve", action="store_true",
                      help="only serve the demo site (until Ctrl-C), to try the other commands")


def run(args: argparse.Namespace) -> int:
    from scrapy_robots_policy.demo import main  # imports Scrapy: only when asked for

    return main(serve_only=args.serve)
