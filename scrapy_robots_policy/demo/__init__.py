"""The demo: a bundled multi-origin site on 127.0.0.1 (``site``) and a crawl of it with
the add-on whose report says what robots rules did and why (``crawl``)."""

from scrapy_robots_policy.demo.crawl import main

__all__ = ["main"]
