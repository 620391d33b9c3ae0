"""The sdist a user (or a distribution) builds carries what it takes to run its tests."""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import scrapy_robots_policy

REPO = Path(__file__).resolve().parents[1]


def test_sdist_ships_tests_license_and_type_marker(tmp_path: Path) -> None:
    pytest.importorskip("build")  # in the test extra
    result = subprocess.run([sys.executable, "-m", "build", "--sdist", "--outdir",
                             str(tmp_path), str(REPO)],
                            capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    version = scrapy_robots_policy.__version__
    [sdist] = tmp_path.glob("*.tar.gz")
    assert sdist.name == f"scrapy_robots_policy-{version}.tar.gz"  # setup.cfg reads it
    root = f"scrapy_robots_policy-{version}"
    with tarfile.open(sdist) as archive:
        names = set(archive.getnames())
        metadata = archive.extractfile(f"{root}/PKG-INFO")
        assert metadata is not None
        pkg_info = metadata.read().decode()
    for name in ("tests/support.py", "tests/cli/test_cli.py", "LICENSE",
                 "scrapy_robots_policy/py.typed", "setup.cfg", "pyproject.toml", "README.md"):
        assert f"{root}/{name}" in names, name
    # Google's parser has wheels only up to CPython 3.12: the bench extra must not ask
    # for it on newer Pythons, where nothing could install it.
    assert 'Requires-Dist: jwm.robotstxt>=1.0; python_version < "3.13" and extra == "bench"' \
        in pkg_info
    assert "License-File: LICENSE" in pkg_info


def test_wheel_built_from_the_sdist_is_pure_python_and_typed(tmp_path: Path) -> None:
    """One engine, Python only: the wheel installs anywhere, with no compiler."""
    pytest.importorskip("build")
    # Without --sdist or --wheel, build makes the sdist, then the wheel from it.
    result = subprocess.run([sys.executable, "-m", "build", "--outdir", str(tmp_path),
                             str(REPO)], capture_output=True, text=True, timeout=300,
                            check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    [wheel] = tmp_path.glob("*.whl")
    assert wheel.name == f"scrapy_robots_policy-{scrapy_robots_policy.__version__}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert {"scrapy_robots_policy/py.typed", "scrapy_robots_policy/robotstxt/facade.py"} <= names
    assert not [name for name in names if name.endswith((".c", ".h", ".pyi", ".so"))]


def test_console_script_is_the_module_command(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "scrapy-robots-policy"
    if not script.exists():
        pytest.skip(f"the package is not installed in {sys.prefix} (no {script.name})")
    robots = tmp_path / "robots.txt"
    robots.write_text("User-agent: *\nDisallow: /private\n")
    result = subprocess.run([str(script), "check", str(robots), "/private/x", "/public"],
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines() == ["disallowed  /private/x  (line 2: Disallow: /private)",
                                          "allowed     /public  (no rule matched)"]
    usage = subprocess.run([str(script), "--help"], capture_output=True, text=True,
                           timeout=60, check=False)
    assert usage.stdout.startswith("usage: scrapy-robots-policy ")
