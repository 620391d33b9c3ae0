"""X-Robots-Tag headers: which values are read, and which of their directives address us
(``robots``-wide ones, and those after a ``name:`` prefix that names our crawler)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from scrapy_robots_policy.directives.fold import DirectiveReading, collect, new_reading
from scrapy_robots_policy.directives.lists import (
    MAX_VALUES,
    name_value,
    read_value,
    split_list,
)
from scrapy_robots_policy.directives.vocabulary import (
    ALL_AGENTS,
    FLAGS,
    HEADER,
    VALUED,
    Directive,
    addressee,
    quoted,
)
from scrapy_robots_policy.robotstxt import product_token

_AGENT_PREFIX = re.compile(r"[^\s:,]+")


def read_x_robots_tag(values: Iterable[str | bytes], agent: str) -> DirectiveReading:
    """The directives of X-Robots-Tag ``values`` for ``robots`` or ``agent`` (a product
    token), folded; at most MAX_VALUES values are read.

    A ``name:`` prefix scopes the rest of its value to that crawler (it may appear
    mid-list: ``noindex, mybot: nofollow``); only ``robots``-wide and our own apply.
    """
    found, folded, problems, cut = reading = new_reading()
    for index, raw_value in enumerate(values):
        if index == MAX_VALUES:
            cut.append(f"X-Robots-Tag values after the first {MAX_VALUES} not read")
            break
        text = read_value(raw_value, "an X-Robots-Tag value", cut)
        raw = quoted(text)
        scope = ALL_AGENTS
        for piece in split_list(text):
            name, value = name_value(piece)
            if (value is not None and name not in VALUED and name not in FLAGS
                    and _AGENT_PREFIX.fullmatch(name)):
                scope = addressee(name)
                if not value:
                    continue
                name, value = name_value(value)
            if name and scope in (ALL_AGENTS, agent):
                collect(found, folded, problems, Directive(name, value, HEADER, scope, raw))
    return reading


def header_values_for_others(values: Iterable[str], user_agent: str) -> list[str]:
    """The X-Robots-Tag values with no directive for ``user_agent``: meant for other
    crawlers only, the usual reason a directive seems ignored."""
    agent = product_token(user_agent)
    return [value for value in values if not read_x_robots_tag([value], agent).found]
