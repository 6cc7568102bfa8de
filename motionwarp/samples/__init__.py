"""The sample data shipped inside the package: the mannequin, its warp assets and character file,
and the demo's scenes, so programs run from any folder after a plain `pip install`.

    from motionwarp import samples
    actor = load_actor(samples.path("mannequin.glb"))
    asset = WarpAsset.load(samples.path("vault.warp.json"))

The files keep their layout (`assets/`, `characters/`, `scenes/` with `meshes/` and `props/`) and
name each other relative to themselves, so the folder copied anywhere (`samples.folder()`) still works.
"""

import importlib.resources
import pathlib

from ..base.errors import UsageError

__all__ = ["folder", "path", "names"]


def folder():
    """The samples folder, a real directory (the package is installed unzipped)."""
    return pathlib.Path(str(importlib.resources.files(__name__)))


def names():
    """Every sample file, as paths relative to the samples folder ('assets/mannequin.glb', ...)."""
    root = folder()
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*")
                  if p.is_file() and p.suffix in (".glb", ".json"))


def path(name):
    """The absolute path (a string, as Panda3D and `WarpAsset.load` take) of the sample `name`: a path
    relative to the samples folder ('scenes/meshes/log.glb') or a file name found in it ('vault.warp.json').
    An unknown or ambiguous name is a `UsageError` listing what there is."""
    if not isinstance(name, str) or not name:
        raise UsageError(f"samples.path: expected a sample's file name, got {name!r}")
    known = names()
    if name in known:
        return str(folder() / name)
    matches = [known_name for known_name in known if known_name.rsplit("/", 1)[-1] == name]
    if len(matches) == 1:
        return str(folder() / matches[0])
    if matches:
        raise UsageError(f"samples.path: {name!r} names {len(matches)} samples; give one of {', '.join(matches)}")
    raise UsageError(f"samples.path: no sample {name!r}; the samples are {', '.join(known)}")
