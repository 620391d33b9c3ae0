"""Getting an origin's robots.txt (or tdmrep.json), without I/O: pure, tested on a fake
clock. The Scrapy driver around it is :mod:`scrapy_robots_policy.scrapy.rounds`; the
command line drives it through urllib (:mod:`scrapy_robots_policy.cli.web`).

- :mod:`.origin`: which origin (and so which robots.txt) governs a URL;
- :mod:`.document`: which per-origin file a round fetches (robots.txt, tdmrep.json);
- :mod:`.policy`: what one answer means (2xx rules, 3xx follow, 4xx allow all, 5xx and
  errors unreachable), how long its :class:`~.policy.CachedAnswer` holds, when to retry;
- :mod:`.machine`: one round of fetching as a state machine (download this, wait that
  long, settled with this answer);
- :mod:`.decompress`: the first bytes of a compression bomb, read as rules;
- :mod:`.verdict`: what a cached answer says of one request, and why.
"""
