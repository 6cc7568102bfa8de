"""motionwarp: motion warping for Panda3D Actors.

Root motion for glTF characters, warp assets with warping phases, a warper that bends a
clip's root motion toward targets found in the level, scene-probing warp providers, and a
contact IK that keeps hands and feet on what they touch.
"""
from . import samples
from .warp.asset import WarpAsset, WarpPhase
from .base.config import ContactIKSettings, MotionWarpSettings, ProviderSettings
from .ik.contact_ik import ContactIK
from .animation.driver import RootMotionDriver
from .base.errors import AssetError, LoadError, MotionWarpError, UsageError, WarpRefused
from .animation.loader import load_actor
from .animation.mirror import mirror_clip
from .scene.pathcheck import PathCheck
from .scene.probe import SceneProbe
from .scene.chooser import InteractionChooser
from .scene.jumps import JumpProvider
from .scene.markers import MARKER_TAG, MarkerProvider
from .scene.providers import Interaction, MantleProvider, Refusal, TraversalProvider, VaultProvider
from .animation.rootmotion import RootMotionTrack
from .warp.batch import WarpBatch
from .warp.refusal import Cause
from .warp.target import WarpTarget
from .warp.warper import BLEND_OUT, CANCELLED, FINISHED, PHASE_END, PHASE_START, MotionWarper, PhaseResult, Warp, WarpState

#: The package version (pyproject.toml's `version`).
__version__ = "0.2.0"

__all__ = [
    "BLEND_OUT", "CANCELLED", "FINISHED", "PHASE_END", "PHASE_START", "PhaseResult", "__version__",
    "AssetError", "Cause", "ContactIK", "ContactIKSettings", "Interaction", "InteractionChooser", "JumpProvider",
    "LoadError", "MARKER_TAG", "MarkerProvider", "MantleProvider", "PathCheck", "MotionWarpError", "MotionWarpSettings",
    "MotionWarper",
    "ProviderSettings", "Refusal", "RootMotionDriver", "RootMotionTrack", "SceneProbe", "TraversalProvider",
    "UsageError", "VaultProvider", "Warp", "WarpAsset", "WarpBatch", "WarpPhase", "WarpRefused", "WarpState", "WarpTarget",
    "load_actor", "mirror_clip", "samples",
]
