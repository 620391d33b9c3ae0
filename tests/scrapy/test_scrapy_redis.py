"""Two scrapy-redis workers sharing one request queue and the plugin's Redis cache.

Real parts: a ``redis-server`` (tests/conftest.py) holds both scrapy-redis's queue,
duplicate filter and start URLs and the plugin's robots.txt answers and Crawl-delay turns;
each worker is a Scrapy process of its own (a forked ``CrawlerProcess``) running a
``RedisSpider``; the site is a local server. The queue is scrapy-redis's own priority
queue, which also writes each URL it takes into a Redis list, so the test sees exactly
what entered the shared queue.
"""

from __future__ import annotations

import itertools
import time
from typing import Any

from scrapy import Request
from scrapy_redis.queue import PriorityQueue  # the test extra installs scrapy-redis
from scrapy_redis.spiders import RedisSpider

from tests.support import LocalServer, RedisServer, Reply, start_crawl

ROBOTS = "User-agent: *\nCrawl-delay: 0.5\nDisallow: /private\n"
#: Where :class:`RecordingQueue` writes every URL pushed into the shared queue.
PUSHED = "test:pushed"


class RecordingQueue(PriorityQueue):  # type: ignore[misc]
    """scrapy-redis's default queue, which also records what is pushed into it."""

    def push(self, request: Any) -> None:
        self.server.rpush(PUSHED, request.url)
        super().push(request)


class Worker(RedisSpider):  # type: ignore[misc]
    """Start pages yield four pages and three disallowed URLs; each page one more
    disallowed URL. One start URL per worker at a time, so both have work at once."""

    name = "worker"
    redis_batch_size = 1

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # scrapy-redis starts its idle clock when its module is imported (a class
        # attribute): in these forked workers, when pytest collected this file. A worker
        # whose first idle finds no start URL left would close at once, before taking its
        # share of the queue. Started here, as in a worker started for the job.
        self.spider_idle_start_time = int(time.time())

    def parse(self, response: Any) -> Any:
        path = "/" + response.url.split("/", 3)[3]
        yield {"url": response.url}
        if path.startswith("/start/"):
            name = path.rsplit("/", 1)[1]
            for n in range(4):
                yield Request(response.urljoin(f"/p/{name}{n}"))
            for n in range(3):
                yield Request(response.urljoin(f"/private/{name}{n}"))
        else:
            yield Request(response.urljoin(f"/private/from{path.replace('/', '-')}"))


def worker_settings(redis_url: str) -> dict[str, Any]:
    """What docs/cluster.md tells a scrapy-redis user to set, and short waits."""
    return {
        "ADDONS": {"scrapy_robots_policy.Addon": 0},
        "ROBOTSTXT_OBEY": True,
        "ROBOTS_POLICY_REDIS_URL": redis_url,
        "ROBOTS_POLICY_CRAWL_DELAY": True,
        "SCHEDULER": "scrapy_redis.scheduler.Scheduler",
        "DUPEFILTER_CLASS": "scrapy_redis.dupefilter.RFPDupeFilter",
        "SCHEDULER_PERSIST": True,  # a worker that stops must not empty the others' queue
        "SCHEDULER_QUEUE_CLASS": f"{__name__}.RecordingQueue",
        "REDIS_URL": redis_url,
        # A RedisSpider waits for start URLs forever; this closes it once idle. Counted in
        # whole seconds of the clock: 1 would close a worker that had just taken a start
        # URL whenever a second began between its look and its count.
        "MAX_IDLE_TIME_BEFORE_CLOSE": 2,
        "CONCURRENT_REQUESTS": 2,
        "RETRY_ENABLED": False,
    }


def test_two_workers_share_one_fetch_no_disallowed_request_in_the_queue_and_crawl_delay(
        redis_server: RedisServer) -> None:
    with LocalServer({"/robots.txt": Reply(body=ROBOTS)}) as s:
        redis_server.client.rpush("worker:start_urls", s.url("/start/a"), s.url("/start/b"))
        crawls = [start_crawl(Worker, worker_settings(redis_server.url)) for _ in range(2)]
        results = [crawl.result(90) for crawl in crawls]
    pages = [seen for seen in s.seen if seen.path != "/robots.txt"]
    pushed = [url.decode() for url in redis_server.client.lrange(PUSHED, 0, -1)]

    def total(key: str) -> int:
        return sum(r.stat(key) for r in results)

    assert s.hits("/robots.txt") == 1, [r.log for r in results]  # one fetch, for both
    assert total("robotstxt/redis_shared") >= 1  # the other worker took it from Redis
    # Both start pages, and their 8 pages; nothing disallowed ever reached the server...
    assert sorted(p.path for p in pages) == sorted(
        [f"/start/{x}" for x in "ab"] + [f"/p/{x}{n}" for x in "ab" for n in range(4)])
    assert all(r.stat("response_received_count") >= 1 for r in results)  # both worked
    # ... nor the shared queue: 3 disallowed per start page and 1 per page, all refused
    # by the worker that yielded them, before its scheduler pushed them.
    assert len(pushed) == total("scheduler/enqueued/redis") == 10
    assert not [url for url in pushed if "/private" in url]
    assert total("robotstxt/forbidden") == total("robotstxt/forbidden/early") == 6 + 8
    # Crawl-delay: 0.5 s held across both workers, as measured at the server (with the
    # 0.1 s of jitter tests/scrapy/test_cluster.py allows), the first gap too: each
    # worker's first request once spent part of its turn resolving the host's name.
    times = sorted(p.at for p in pages)
    gaps = [round(b - a, 3) for a, b in itertools.pairwise(times)]
    assert all(gap >= 0.4 for gap in gaps), gaps
