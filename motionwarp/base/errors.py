"""Errors motionwarp raises for user mistakes: each names what was wrong and where."""
import os
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


#: How many characters of a path or name a message shows (the middle is cut with an ellipsis).
TEXT_LIMIT = 160


def shown_text(text, limit=TEXT_LIMIT):
    """`text` (a path, a key, a name from a file) fit for one line of a message: control and
    other unprintable characters escaped as in a Python literal, and a long one cut in the
    middle with an ellipsis, keeping both ends (a path's folder and its file name)."""
    text = str(text)
    if not text.isprintable():
        text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    if len(text) > limit:
        keep = (limit - 1) // 2
        text = f"{text[:keep]}\u2026{text[-keep:]}"
    return text


def os_reason(exc, path):
    """What went wrong in an OSError about `path`, without repeating that path (a message names a
    file once); another file it names (a model's .bin) is kept."""
    if not (isinstance(exc, OSError) and exc.strerror):
        return shown_text(exc) or type(exc).__name__
    other = exc.filename is not None and os.path.abspath(os.fsdecode(exc.filename)) != os.path.abspath(path)
    return f"{exc.strerror}: {shown_text(os.fsdecode(exc.filename))}" if other else exc.strerror


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
        where = f"{shown_text(self.path)}: {shown_text(field)}" if field else shown_text(self.path)
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
