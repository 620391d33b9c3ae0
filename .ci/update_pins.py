"""Write .ci/pins.txt: the exact versions of the tools that judge the code.

ruff, mypy (and the type stubs it reads), import-linter (and grimp, its graph), Sphinx,
its extensions and docutils decide whether main is green; a release of any of them must
not turn it red between two submissions. So CI and README's test command install them
from these pins (pip constraints), and this script moves the pins on purpose:

    python .ci/update_pins.py

It asks pip which versions it would install today for the oldest supported Python (3.10)
and for 3.11 and later (where the newest Sphinx and import-linter need 3.11), and writes
one pin per tool and Python range. Scrapy and the other libraries users install are not
pinned: CI tests the oldest and the newest supported Scrapy on purpose.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

TOOLS = ("ruff", "mypy", "lxml-stubs", "import-linter", "grimp", "sphinx", "myst-parser",
         "sphinx-rtd-theme", "docutils")
#: Each Python range, and the version pip resolves it for (its oldest).
RANGES = (('python_version < "3.11"', "3.10"), ('python_version >= "3.11"', "3.11"))
PINS = Path(__file__).with_name("pins.txt")


def resolve(python: str) -> dict[str, str]:
    """The version of each tool pip would install today for ``python``."""
    with tempfile.TemporaryDirectory() as target:
        report = Path(target) / "report.json"
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--dry-run",
             "--ignore-installed", "--only-binary=:all:", "--python-version", python,
             "--target", str(Path(target) / "site"), "--report", str(report), *TOOLS],
            check=True)
        installed = json.loads(report.read_text())["install"]
    versions = {item["metadata"]["name"].lower().replace("_", "-"):
                item["metadata"]["version"] for item in installed}
    return {tool: versions[tool] for tool in TOOLS}


def main() -> None:
    lines = ["# The tools that judge the code, pinned (pip constraints). Written by",
             "# .ci/update_pins.py; update them on purpose with: python .ci/update_pins.py"]
    by_range = {marker: resolve(python) for marker, python in RANGES}
    for tool in TOOLS:
        versions = {by_range[marker][tool] for marker, _ in RANGES}
        if len(versions) == 1:
            lines.append(f"{tool}=={versions.pop()}")
        else:
            lines.extend(f"{tool}=={by_range[marker][tool]}; {marker}" for marker, _ in RANGES)
    PINS.write_text("\n".join(lines) + "\n")
    print(f"wrote {PINS}")


if __name__ == "__main__":
    main()
