"""Metadata lives in setup.cfg. With SCRAPY_ROBOTS_POLICY_COMPILE=1 the robots.txt engine
(``scrapy_robots_policy/robotstxt``, pure Python and typed) is also compiled to C with
mypyc, the same source, and the rules builder and matcher are built in C
(``robotstxt/native/``, the module ``robotstxt._native``), checked by the tests to answer
as the Python ones do. Without it, or if it is unset, the package stays pure Python."""

import os
from pathlib import Path

from setuptools import Extension, setup

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
    ext_modules.append(
        Extension(
            "scrapy_robots_policy.robotstxt._native",
            sorted(str(path) for path in Path("scrapy_robots_policy/robotstxt/native").glob("*.c")),
            depends=["scrapy_robots_policy/robotstxt/native/rules.h"],
            extra_compile_args=["-O2"],
        )
    )

setup(ext_modules=ext_modules)
