"""Load a glTF character into a `direct.actor.Actor`, with its clips baked correctly."""
import dataclasses
import functools
import hashlib
import os
import struct

import gltf._converter
from direct.actor.Actor import Actor
from panda3d.core import BamCache, Filename, NodePath

from . import _gltf_fix
from .gltf_check import check_gltf, missing_character
from ..base.config import gltf_settings_from_prc
from ..base.errors import LoadError, os_reason, shown_text
from ..base.filekind import not_regular

# Converted models by (path, mtime, settings): Actors made from one entry share its
# animation bundles, exactly as Actors loaded by path share them through Panda3D's ModelPool.
_model_cache: dict = {}


def load_model_node(path, gltf_settings=None):
    """The converted ModelRoot of the glTF file at `path` (cached; never modify it in place)."""
    path = os.path.abspath(os.fspath(path))
    kind = not_regular(path)
    if kind == "does not exist":
        raise LoadError(f"{shown_text(path)}: file not found")
    if kind:
        raise LoadError(f"{shown_text(path)}: expected a glTF file, this {kind}")
    settings = gltf_settings or gltf_settings_from_prc()
    key = (path, os.path.getmtime(path), dataclasses.astuple(settings))
    if key not in _model_cache:
        _model_cache[key] = _cached_conversion(path, settings)
    return _model_cache[key]


def unshared_model_node(path, gltf_settings=None):
    """A ModelRoot of `path` no Actor shares (for reading clips as authored after a driver stripped
    the shared ones): the model cache's bake read afresh, converted only when there is none."""
    path = os.path.abspath(os.fspath(path))
    return _cached_conversion(path, gltf_settings or gltf_settings_from_prc())


def _convert(path, settings):
    """The fixed bake of `path`, checked first (a cached bake was checked when it was made)."""
    check_gltf(path)
    try:
        return _gltf_fix.convert(path, settings)
    except OSError as exc:  # the file itself, or a .bin or texture it refers to
        raise LoadError(f"{shown_text(path)}: cannot be read ({os_reason(exc, path)})") from exc
    except (ValueError, KeyError, IndexError, TypeError, AttributeError, UnicodeDecodeError, RuntimeError,
            RecursionError, struct.error) as exc:
        raise LoadError(f"{shown_text(path)}: not a readable glTF file ({type(exc).__name__}: {shown_text(exc)})") from exc


@functools.lru_cache(maxsize=None)
def bake_fingerprint():
    """What the baked clips depend on besides the file: the fix's code, panda3d-gltf's converter
    and which bugs were detected. Part of the on-disk cache key, so a change in any of them
    bakes afresh."""
    digest = hashlib.sha256()
    for module in (_gltf_fix, gltf._converter):
        with open(module.__file__, "rb") as source:
            digest.update(source.read())
    digest.update(repr((_gltf_fix.lerp_bug_present(), _gltf_fix.final_key_bug_present())).encode())
    return digest.hexdigest()


def cache_extension(settings):
    """The BamCache entry name for one bake: the fingerprint and the gltf settings, hashed."""
    key = hashlib.sha256(repr((bake_fingerprint(), dataclasses.astuple(settings))).encode()).hexdigest()
    return f"motionwarp-{key[:20]}.bam"


def _cached_conversion(path, settings):
    """The fixed bake of `path` from Panda3D's model cache (`model-cache-dir`), converting and
    storing it on a miss. BamCache checks the file's size and time; the entry's name carries
    `cache_extension`. With the cache off, this just converts."""
    cache = BamCache.getGlobalPtr()
    if not (cache.getActive() and cache.getCacheModels()):
        return _convert(path, settings)
    filename = Filename.fromOsSpecific(path)
    record = cache.lookup(filename, cache_extension(settings))
    if record is not None and record.hasData():
        return record.getData()
    node = _convert(path, settings)
    if record is not None:
        record.addDependentFile(filename)
        record.setData(node)
        cache.store(record)
    return node


def load_actor(path, gltf_settings=None):
    """An Actor for the skinned character in the glTF file at `path`, with every clip it holds.

    Clips are baked with the fixes of `_gltf_fix` (LINEAR keys interpolated, final key
    sampled). Actors loaded from the same file share animation bundles.
    """
    model = NodePath(load_model_node(path, gltf_settings))
    require_character(model, path)
    return Actor(model)


def require_character(model, path):
    """The Character node under `model` (converted from `path`), else a LoadError saying what the file lacks."""
    character = model.find("**/+Character")
    if character.isEmpty():
        raise LoadError(f"{shown_text(os.path.abspath(path))}: {missing_character(path)}")
    return character


__all__ = ["load_actor", "load_model_node"]
