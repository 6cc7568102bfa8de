"""What a path names, in words: inputs that must be regular files say what they are instead
(a FIFO would block a reader forever, a device would read without end), and outputs never
replace anything but a regular file."""
import os
import stat

_KINDS = ((stat.S_ISDIR, "is a directory"), (stat.S_ISFIFO, "is a FIFO (named pipe)"),
          (stat.S_ISCHR, "is a character device"), (stat.S_ISBLK, "is a block device"),
          (stat.S_ISSOCK, "is a socket"))


def not_regular(path):
    """None when `path` is a regular file (a symlink counts as its target), else what it is:
    'does not exist', 'is a directory', 'is a FIFO (named pipe)', a device, a socket."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "does not exist"
    except (OSError, ValueError) as exc:   # a loop of links, a name too long, a NUL in it
        return f"cannot be examined ({getattr(exc, 'strerror', None) or exc})"
    if stat.S_ISREG(mode):
        return None
    return next((words for test, words in _KINDS if test(mode)), "is not a regular file")
