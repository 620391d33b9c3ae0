"""``python -m scrapy_robots_policy``: the command line of :mod:`scrapy_robots_policy.cli`."""

import sys

from scrapy_robots_policy.cli import main

if __name__ == "__main__":
    sys.exit(main())
