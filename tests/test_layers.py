"""The layout is the architecture: each package imports only the layers below it.

The oracle is the layering docs/design.md 10 states (and each package's `__init__` repeats):
plugin packages from the bottom up are base, animation, warp, then scene and ik side by side,
then tools; the demo's are level, then character and views side by side, then editor, then app.
The plugin never imports the demo. Every import in every module is read from its source.
"""
import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: Package -> its layer; a module may import its own package and packages on lower layers only.
LAYERS = {
    "motionwarp": {"base": 0, "samples": 1, "animation": 1, "warp": 2, "scene": 3, "ik": 3, "tools": 4},
    "motionwarp_demo": {"level": 0, "character": 1, "views": 1, "editor": 2, "app": 3},
}


def imported_modules(path, package_parts):
    """Every absolute module name `path` imports, relative imports resolved against `package_parts`."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package_parts[:len(package_parts) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
                if node.module:
                    yield module
                else:
                    yield from (f"{module}.{alias.name}" for alias in node.names)
            else:
                yield node.module


def modules(top):
    for path in sorted((ROOT / top).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        package = parts[:-1]
        yield path, package


@pytest.mark.parametrize("top", sorted(LAYERS))
def test_every_module_sits_in_a_layered_package(top):
    """No module lies loose beside the packages (the top `__init__` and `__main__` excepted)."""
    loose = [str(path.relative_to(ROOT)) for path, package in modules(top)
             if len(package) == 1 and path.stem not in ("__init__", "__main__")]
    unknown = sorted({package[1] for path, package in modules(top) if len(package) > 1} - set(LAYERS[top]))
    assert not loose and not unknown, f"outside the layers: {loose} {unknown}"


@pytest.mark.parametrize("top", sorted(LAYERS))
def test_imports_only_go_down(top):
    wrong = []
    for path, package in modules(top):
        if len(package) < 2:
            continue  # the package's own __init__/__main__ gathers the public API from every layer
        own = LAYERS[top][package[1]]
        for module in imported_modules(path, package):
            parts = module.split(".")
            if top == "motionwarp" and parts[0] == "motionwarp_demo":
                wrong.append(f"{path.relative_to(ROOT)} imports the demo ({module})")
            if parts[0] != top or len(parts) < 2:
                continue
            layer = LAYERS[top].get(parts[1])
            if layer is None or (parts[1] != package[1] and layer >= own):
                wrong.append(f"{path.relative_to(ROOT)} ({package[1]}) imports {module}")
    assert not wrong, "imports that do not go down:\n" + "\n".join(wrong)


def test_the_checker_sees_an_upward_import(tmp_path):
    """The test above would notice: a relative import from warp up into scene is resolved and caught."""
    source = tmp_path / "m.py"
    source.write_text("from ..scene.probe import SceneProbe\nfrom . import placement\n")
    assert list(imported_modules(source, ["motionwarp", "warp"])) == ["motionwarp.scene.probe",
                                                                      "motionwarp.warp.placement"]
