"""Metadata lives in setup.cfg. With SCRAPY_ROBOTS_POLICY_COMPILE=1 the robots.txt engine
(``scrapy_robots_policy/robotstxt``, pure Python and typed) is also compiled to C with
mypyc: the same source, so the same answers, about twice as fast. Without it, or if it is
unset, the package stays pure Python."""

import os
from pathlib import Path

from setuptools import setup

ext_modules = []
if os.environ.get("SCRAPY_ROBOTS_POLICY_COMPILE") == "1":
    from mypyc.build import mypycify

    # The package's __init__ stays Python: it reports which engine was imported.
    engine = sorted(
        str(path)
        for path in Path("scrapy_robots_policy/robotstxt").glob("*.py")
        if path.name != "__init__.py"
    )
    ext_modules = mypycify(engine, opt_level="3", group_name="scrapy_robots_policy_engine")

setup(ext_modules=ext_modules)
