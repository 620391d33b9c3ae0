"""The Scrapy boundary: every module that imports Scrapy or Twisted lives in this package.

The packages beside it (the robots.txt engine, pacing, fetch policy, directives, usage)
are pure and know nothing of Scrapy; this package drives them from a crawl.
"""
