"""unavailable_after dates: the formats read, and those ignored and reported."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from scrapy_robots_policy import RobotsDirectives
from tests.directives_pages import meta

UTC = timezone.utc
R = RobotsDirectives


@pytest.mark.parametrize(("text", "expected"), [
    ("25 Jun 2010 15:00:00 PST", datetime(2010, 6, 25, 23, 0, tzinfo=UTC)),  # RFC 822 zone
    ("25 Jun 2010 15:00:00 EST", datetime(2010, 6, 25, 20, 0, tzinfo=UTC)),
    ("Fri, 25 Jun 2010 15:00:00 +0200", datetime(2010, 6, 25, 13, 0, tzinfo=UTC)),
    ("Saturday, 01-Jul-23 15:00:00 GMT", datetime(2023, 7, 1, 15, 0, tzinfo=UTC)),  # RFC 850
    ("Saturday 01-Jul-23 15:00:00 GMT", datetime(2023, 7, 1, 15, 0, tzinfo=UTC)),
    ("Sat Jul  1 15:00:00 2023", datetime(2023, 7, 1, 15, 0, tzinfo=UTC)),  # asctime
    ("25 Jun 2010 15:00:00", datetime(2010, 6, 25, 15, 0, tzinfo=UTC)),  # no zone: UTC
    ("25 Jun 2010", datetime(2010, 6, 25, tzinfo=UTC)),
    ("2020-09-21", datetime(2020, 9, 21, tzinfo=UTC)),  # ISO 8601
    ("2020-09-21T10:30:00Z", datetime(2020, 9, 21, 10, 30, tzinfo=UTC)),
    ("2020-09-21T10:30:00z", datetime(2020, 9, 21, 10, 30, tzinfo=UTC)),
    ("2020-09-21T10:30Z", datetime(2020, 9, 21, 10, 30, tzinfo=UTC)),
    ("2020-09-21 10:30:00", datetime(2020, 9, 21, 10, 30, tzinfo=UTC)),
    ("2020-09-21T10:30:00.5+02:00", datetime(2020, 9, 21, 8, 30, 0, 500000, tzinfo=UTC)),
    ("2020-09-21T10:30:00-0500", datetime(2020, 9, 21, 15, 30, tzinfo=UTC)),
    ("2020-09-21T10:30:00.123456789Z", datetime(2020, 9, 21, 10, 30, 0, 123456, tzinfo=UTC)),
    # ISO 8601 basic format (no separators), with and without seconds, fraction and zone
    ("20200921T150000Z", datetime(2020, 9, 21, 15, 0, tzinfo=UTC)),
    ("20200921t150000z", datetime(2020, 9, 21, 15, 0, tzinfo=UTC)),
    ("20200921T150000", datetime(2020, 9, 21, 15, 0, tzinfo=UTC)),  # no zone: UTC
    ("20200921T1500Z", datetime(2020, 9, 21, 15, 0, tzinfo=UTC)),
    ("20200921T1500", datetime(2020, 9, 21, 15, 0, tzinfo=UTC)),
    ("20200921", datetime(2020, 9, 21, tzinfo=UTC)),
    ("20200921T150000+0200", datetime(2020, 9, 21, 13, 0, tzinfo=UTC)),
    ("20200921T150000-05", datetime(2020, 9, 21, 20, 0, tzinfo=UTC)),
    ("20200921T150000.25Z", datetime(2020, 9, 21, 15, 0, 0, 250000, tzinfo=UTC)),
])
def test_unavailable_after_date_formats(text, expected):
    for directives in (R.from_x_robots_tag([f"unavailable_after: {text}"], "mybot"),
                       R.from_html(meta(("robots", f"unavailable_after: {text}")), "mybot")):
        assert directives.unavailable_after == expected
        assert directives.unavailable_after.tzinfo is not None


@pytest.mark.parametrize("text", [
    "tomorrow", "2020-13-01", "2020-02-30", "31 Feb 2010 10:00:00 GMT", "25 Foo 2010 10:00",
    "9999999999", "", "2020-09-21T25:00:00Z", "x" * 4_000,  # within the 4 KiB read
    # ISO 8601 basic format: an impossible date, time or zone, or basic and extended mixed
    "20201321T150000Z", "20200921T250000Z", "20200921T150000+2500", "20200921150000",
    "20200921T15", "20200921T15:00:00Z", "2020-09-21T150000Z", "2020921T150000Z",
    # digits of other scripts: Arabic-Indic, fullwidth, superscript
    "\u0662\u0660\u0662\u0660-01-01", "\uff12\uff10\uff12\uff10-01-01T00:00:00Z",
    "1 Jan \u0662\u0660\u0662\u0660 00:00:00 GMT", "2020-01-0\u00b9",
])
def test_unparseable_dates_are_ignored_and_reported(text):
    directives = R.from_x_robots_tag([f"unavailable_after: {text}, noarchive"], "mybot")
    assert directives == R(noarchive=True)
    assert any("unavailable_after" in problem for problem in directives.problems)
