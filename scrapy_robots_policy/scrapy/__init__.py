"""The Scrapy boundary: every module that imports Scrapy or Twisted lives in this package.

The packages beside it (``robotstxt``, ``directives``, ``usage``, ``fetch``, ``cache``,
``pacing``, ``page``) are pure and know nothing of Scrapy; this package drives them from a
crawl. ``pyproject.toml`` declares the boundary and ``lint-imports`` enforces it.

- :mod:`.downloader`, :mod:`.spider`: the two middlewares; :mod:`.addon`; :mod:`.contracts`;
- :mod:`.settings`: every setting read once; :mod:`.useragent`: whose rules are read;
- :mod:`.rounds`, :mod:`.download`, :mod:`.closing`: the fetch machine driven by the crawl;
- :mod:`.refusals`, :mod:`.usagegate`, :mod:`.pageaccounts`: refusing, counting, logging;
- :mod:`.choose_cache`, :mod:`.redis_cache`, :mod:`.redis_outages`, :mod:`.turns`: the
  cache backend and the Redis sharing of robots.txt and turns;
- :mod:`.pacing`: the pacing rule applied to Scrapy's download slots;
- :mod:`.internals`: every use of Scrapy's non-public state, each with its reason.
"""
