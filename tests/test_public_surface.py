"""The package's public surface: `__all__` is exactly what the documentation names, every name
exists, and `__version__` is pyproject's.

The oracle is the documentation, read as text: the names docs/design.md 11 lists as importable
from `motionwarp`, plus every name the README's and the design's code examples import from it.
"""
import pathlib
import re

import motionwarp

ROOT = pathlib.Path(__file__).resolve().parents[1]


def documented_names():
    """Names the README and docs/design.md say `motionwarp` exports."""
    design = (ROOT / "docs" / "design.md").read_text()
    listed = re.search(r"^## 11\. Public API.*?\nEverything below is importable from `motionwarp`:\n(.*?)\n\n",
                       design, re.MULTILINE | re.DOTALL)
    assert listed, "docs/design.md 11 no longer lists what is importable from motionwarp"
    names = set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", listed.group(1)))
    for text in (design, (ROOT / "README.md").read_text()):
        for imported in re.findall(r"^\s*from motionwarp import ([^\n(]+)$", text, re.MULTILINE):
            names.update(name.strip() for name in imported.split(","))
    return names


def test_all_is_what_the_documentation_names():
    documented, exported = documented_names(), set(motionwarp.__all__)
    assert len(motionwarp.__all__) == len(exported), "motionwarp.__all__ repeats a name"
    assert not documented - exported, f"documented but not in motionwarp.__all__: {sorted(documented - exported)}"
    assert not exported - documented, f"in motionwarp.__all__ but documented nowhere: {sorted(exported - documented)}"


def test_all_names_exist():
    missing = [name for name in motionwarp.__all__ if not hasattr(motionwarp, name)]
    assert not missing, f"motionwarp.__all__ names what the package lacks: {missing}"


def test_the_public_types_are_the_ones_the_modules_define():
    """The errors, the events' sender and its results are the plugin's own classes, not look-alikes."""
    from motionwarp.base import errors
    from motionwarp.warp import warper
    assert {name: getattr(motionwarp, name) for name in ("MotionWarpError", "LoadError", "AssetError", "WarpRefused",
                                                         "UsageError")} == {
        name: getattr(errors, name) for name in ("MotionWarpError", "LoadError", "AssetError", "WarpRefused",
                                                 "UsageError")}
    assert all(issubclass(getattr(errors, name), errors.MotionWarpError)
               for name in ("LoadError", "AssetError", "WarpRefused", "UsageError"))
    assert (motionwarp.MotionWarper, motionwarp.Warp, motionwarp.WarpState, motionwarp.PhaseResult) == (
        warper.MotionWarper, warper.Warp, warper.WarpState, warper.PhaseResult)


def test_version_matches_pyproject():
    pyproject = ROOT / "pyproject.toml"
    # A regular expression, not tomllib: the package supports Pythons older than 3.11.
    declared = re.search(r'^version = "([^"]+)"', pyproject.read_text(), re.MULTILINE).group(1)
    assert motionwarp.__version__ == declared


def test_event_names_are_the_documented_strings():
    assert (motionwarp.PHASE_START, motionwarp.PHASE_END, motionwarp.FINISHED, motionwarp.CANCELLED,
            motionwarp.BLEND_OUT) == ("motionwarp-phase-start", "motionwarp-phase-end", "motionwarp-finished",
                                      "motionwarp-cancelled", "motionwarp-blend-out")
