"""Packaging: what pyproject.toml declares, the requirements files and CI say what the README says.

The oracle is the README's text (its Install and Run-the-tests sections) and the packaging
standards: an SPDX `license` string (PEP 639, setuptools 77 and later), a `py.typed` marker
shipped as package data (PEP 561), the LICENSE file it names.
"""
import re
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")   # Python 3.11+: the suite runs on CI's 3.11

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))

#: The packages only the tests and the development tools use: never in requirements.txt.
DEV_ONLY = {"pytest", "pytest-xdist", "hypothesis", "ruff", "mypy", "types-panda3d", "pdoc", "build", "mutmut"}


def readme_section(title):
    """The text of the README's `## title` section, up to the next `## ` heading."""
    start = README.index(f"\n## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start:end if end >= 0 else None]


def sh_blocks(text):
    """The command lines of every ```sh block in `text`."""
    return [line for block in re.findall(r"```sh\n(.*?)```", text, re.DOTALL)
            for line in block.splitlines() if line.strip()]


def requirement_names(path):
    """(package names, included files) of a requirements file; `-e .` comes back as '-e .'."""
    names, included = set(), []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("-r "):
            included.append(line[3:].strip())
        elif line.startswith("-e "):
            names.add(line)
        else:
            names.add(re.split(r"[<>=!~\[; ]", line, maxsplit=1)[0].lower())
    return names, included


def test_license_is_an_spdx_string_with_its_file():
    project = PYPROJECT["project"]
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n")
    assert "Permission is hereby granted, free of charge" in text
    # setuptools reads an SPDX string from 77 on; older ones reject it.
    assert "setuptools>=77" in [req.split()[0] for req in PYPROJECT["build-system"]["requires"]]


def test_supported_versions_agree_with_the_readme():
    project = PYPROJECT["project"]
    oldest = re.fullmatch(r">=3\.(\d+)", project["requires-python"])
    assert oldest, project["requires-python"]
    install = readme_section("Install")
    assert f"Python 3.{oldest.group(1)} and later" in install
    minors = sorted(int(c.rsplit(".", 1)[1]) for c in project["classifiers"]
                    if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c))
    assert minors[0] == int(oldest.group(1)) and minors == list(range(minors[0], minors[-1] + 1))
    panda = next(dep for dep in project["dependencies"] if dep.startswith("panda3d>"))
    low, high = re.fullmatch(r"panda3d>=([\d.]+),<([\d.]+)", panda).groups()
    major, minor = high.split(".")
    assert f"Panda3D {low} to {major}.{int(minor) - 1}.x" in install   # below 1.11: 1.10.x
    pinned = dict(re.findall(r"^(panda3d|panda3d-gltf)==([\d.]+)", (ROOT / "requirements.txt").read_text(), re.M))
    assert f"Panda3D {pinned['panda3d']} and panda3d-gltf {pinned['panda3d-gltf']}" in install


def test_version_is_0_2_0_and_py_typed_ships():
    assert PYPROJECT["project"]["version"] == "0.2.0"
    assert (ROOT / "motionwarp" / "py.typed").is_file()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["motionwarp"]
    assert "Typing :: Typed" in PYPROJECT["project"]["classifiers"]


def test_requirements_split_the_demo_from_the_tests():
    runtime, included = requirement_names(ROOT / "requirements.txt")
    assert included == []
    assert runtime == {"panda3d", "panda3d-gltf", "panda3d-simplepbr", "numpy", "-e ."}
    dev, dev_included = requirement_names(ROOT / "requirements-dev.txt")
    assert dev_included == ["requirements.txt"]
    assert dev == DEV_ONLY
    assert not runtime & DEV_ONLY


def test_ci_runs_exactly_the_readme_test_command():
    commands = sh_blocks(readme_section("Run the tests"))
    assert commands == ["pip install -r requirements-dev.txt", "python -m pytest -n auto"]
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    at = ci.index(commands[0])
    assert ci[at + 1] == commands[1]
    later = ci[at + 2:]
    for step in ("MOTIONWARP_SLOW=1 python -m pytest -n auto -m slow", "tools/apidocs.sh", "python -m build"):
        assert any(step in line for line in later), step


def test_the_demo_install_line_is_requirements_txt():
    assert sh_blocks(readme_section("Install")) == ["pip install .", "pip install -r requirements.txt"]


def test_the_wheel_carries_the_demo_and_its_script():
    """Every folder of the demo with Python in it is a package the wheel's `include` finds, and the
    `motionwarp-demo` script names a function that exists: the README's `python -m motionwarp_demo`
    runs after a plain install (CI installs the wheel in a fresh environment and runs it)."""
    setuptools = pytest.importorskip("setuptools")
    include = PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"]
    found = set(setuptools.find_packages(where=str(ROOT), include=include))
    for package in ("motionwarp", "motionwarp_demo"):
        folders = {path.parent for path in (ROOT / package).rglob("*.py") if "samples" not in path.parts}
        expected = {".".join(folder.relative_to(ROOT).parts) for folder in folders}
        assert expected <= found, sorted(expected - found)
    assert (ROOT / "motionwarp_demo" / "__main__.py").is_file()
    module, function = PYPROJECT["project"]["scripts"]["motionwarp-demo"].split(":")
    import importlib
    assert callable(getattr(importlib.import_module(module), function))
    assert "python -m motionwarp_demo" in readme_section("Bring your own character")
