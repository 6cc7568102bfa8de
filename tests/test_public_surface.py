"""The package's public surface: what `__all__` names exists, and `__version__` is pyproject's."""
import pathlib
import re

import motionwarp


def test_all_names_exist():
    missing = [name for name in motionwarp.__all__ if not hasattr(motionwarp, name)]
    assert not missing, f"motionwarp.__all__ names what the package lacks: {missing}"


def test_version_matches_pyproject():
    pyproject = pathlib.Path(__file__).resolve().parents[1] / "pyproject.toml"
    # A regular expression, not tomllib: the package supports Pythons older than 3.11.
    declared = re.search(r'^version = "([^"]+)"', pyproject.read_text(), re.MULTILINE).group(1)
    assert motionwarp.__version__ == declared


def test_event_names_are_the_documented_strings():
    assert (motionwarp.PHASE_START, motionwarp.PHASE_END, motionwarp.FINISHED, motionwarp.CANCELLED,
            motionwarp.BLEND_OUT) == ("motionwarp-phase-start", "motionwarp-phase-end", "motionwarp-finished",
                                      "motionwarp-cancelled", "motionwarp-blend-out")
