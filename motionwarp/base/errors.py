"""Errors motionwarp raises for user mistakes: each names what was wrong and where."""
import reprlib

#: How much of a bad value an error message shows.
_SHOWN = reprlib.Repr()
_SHOWN.maxstring = _SHOWN.maxother = 60
_SHOWN.maxlist = _SHOWN.maxdict = 6
_SHOWN.maxlevel = 3


def shown(value):
    """`repr(value)` cut short: an error names a bad value without echoing megabytes of it."""
    try:
        return _SHOWN.repr(value)
    except ValueError:  # an int too long for Python to print
        return "an integer too long to show"


class MotionWarpError(Exception):
    """Base of every error motionwarp raises on purpose (bad files, refused warps)."""


class LoadError(MotionWarpError):
    """A model, clip or joint could not be loaded as asked."""


class FieldError(MotionWarpError):
    """A data file is invalid; the message names the file, the field path and what was expected."""

    def __init__(self, path, field, expected):
        self.path = str(path)
        self.field = field
        self.expected = expected
        where = f"{self.path}: {field}" if field else self.path
        super().__init__(f"{where}: {expected}")


class AssetError(FieldError):
    """A warp asset file (`*.warp.json`) is invalid."""


class UsageError(MotionWarpError, ValueError):
    """The game called motionwarp with something it cannot use: a bad target, a destroyed or second warper."""


class WarpRefused(MotionWarpError):
    """MotionWarper.play refused a warp; `reason` says why, so the game can pick another clip."""

    def __init__(self, reason):
        self.reason = reason
        super().__init__(reason)
