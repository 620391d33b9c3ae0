"""The package's layers (pyproject.toml, [tool.importlinter]) hold: the pure packages
import neither Scrapy nor Twisted nor the adapter, the adapter sits above them, the
command line and the demo above it, and no two packages import each other."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_lint_imports_keeps_every_contract() -> None:
    # The console script of the test extra's import-linter, in the environment of the tests.
    script = Path(sys.executable).parent / "lint-imports"
    assert script.exists(), "import-linter is missing: pip install -e '.[test]'"
    result = subprocess.run([str(script), "--no-cache"], cwd=ROOT, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout, result.stdout
