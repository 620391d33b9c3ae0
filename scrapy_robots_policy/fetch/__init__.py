"""Getting an origin's robots.txt, in two layers.

Without I/O (pure, tested on a fake clock):

- :mod:`.policy`: what one answer means (2xx rules, 3xx follow, 4xx allow all, 5xx and
  errors unreachable), how long it holds, when to retry;
- :mod:`.machine`: one round of fetching as a state machine (download this, wait that
  long, settled with this entry), driven by the middleware and by the command line;
- :mod:`.decompress`: the first bytes of a compression bomb, read as rules.

Through Scrapy (the I/O around the machine):

- :mod:`.rounds`: one round per origin, the requests waiting for it, its log line;
- :mod:`.download`: one robots.txt download through Scrapy's engine, capped;
- :mod:`.closing`: whether the crawl is closing, and retry sleeps that stop when it is.
"""
