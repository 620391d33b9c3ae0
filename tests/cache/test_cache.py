"""The origin cache stays bounded and forgets the least recently used origin first."""

from __future__ import annotations

import pytest

from scrapy_robots_policy.cache.memory import LRUCache


def test_bounded_and_least_recently_used_goes_first() -> None:
    cache: LRUCache[str, int] = LRUCache(3)
    for n, key in enumerate("abc"):
        cache.put(key, n)
    assert cache.get("a") == 0  # "a" is now the most recent; "b" the least
    cache.put("d", 3)
    assert list(cache) == ["c", "a", "d"]
    assert "b" not in cache
    assert cache.get("b") is None
    assert len(cache) == 3
    assert cache.evictions == 1


def test_overwriting_refreshes_recency_without_growing() -> None:
    cache: LRUCache[str, int] = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("a", 10)
    cache.put("c", 3)
    assert list(cache) == ["a", "c"]
    assert cache.get("a") == 10


def test_many_origins_never_exceed_the_bound() -> None:
    cache: LRUCache[int, int] = LRUCache(100)
    for n in range(10_000):
        cache.put(n, n)
        assert len(cache) <= 100
    assert list(cache) == list(range(9_900, 10_000))
    assert cache.evictions == 9_900


def test_a_cache_needs_room() -> None:
    with pytest.raises(ValueError):
        LRUCache(0)
