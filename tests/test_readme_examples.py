"""The README's headless example, as a newcomer would run it: copied out of README.md and run in a
fresh Python from a folder of its own (the samples come from the package). It must print what the README says it prints.

The oracle is the README's own text (the numbers it promises) and the example's own targets: the
landing target is at y = 3.6, so a character that walks on after the vault ends beyond it.
"""
import os
import re
import subprocess
import sys

from .conftest import ROOT

HEADING = "### A game without a window, and tests: step the clock yourself"


def readme_example():
    """The first Python block under HEADING in README.md."""
    readme = (ROOT / "README.md").read_text()
    assert HEADING in readme, "the README's headless example section is gone"
    block = re.search(r"```python\n(.*?)```", readme[readme.index(HEADING):], re.DOTALL)
    assert block, "no Python block under the README's headless example heading"
    return block.group(1)


def test_the_readme_headless_example_runs_and_prints_what_the_readme_says(tmp_path):
    script = tmp_path / "example.py"
    script.write_text(readme_example())
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("DISPLAY", None)
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                            env=env)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    errors = [re.fullmatch(r"(\w+): (\d+\.\d) mm off", line) for line in lines[:-1]]
    assert [m.group(1) for m in errors] == ["close_edge", "far_edge", "landing"], lines
    assert all(float(m.group(2)) < 1.0 for m in errors), lines
    walking = re.fullmatch(r"after the vault: walk at y = (\d+\.\d\d)", lines[-1])
    assert walking and float(walking.group(1)) > 3.6 + 0.5, lines[-1]   # walked on past the landing target
    promised = re.search(r"`after the vault:\s+walk at y = (\d+\.\d\d)`", (ROOT / "README.md").read_text())
    assert promised and promised.group(1) == walking.group(1), "the README quotes another number"
