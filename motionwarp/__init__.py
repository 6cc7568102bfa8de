"""motionwarp: motion warping for Panda3D Actors.

Root motion for glTF characters, warp assets with warping phases, a warper that bends a
clip's root motion toward targets found in the level, and scene-probing warp providers.
"""
from .config import MotionWarpSettings
from .driver import RootMotionDriver
from .errors import AssetError, LoadError, MotionWarpError, WarpRefused
from .loader import load_actor
from .rootmotion import RootMotionTrack

__all__ = [
    "AssetError", "LoadError", "MotionWarpError", "MotionWarpSettings", "RootMotionDriver",
    "RootMotionTrack", "WarpRefused", "load_actor",
]
