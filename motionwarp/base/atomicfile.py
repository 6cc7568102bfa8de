"""Replacing a file atomically, so a failed or killed save never loses the user's old file."""
import errno
import os
import re
import stat
import tempfile
import time

from .filekind import not_regular

#: A save writes `.motionwarp-XXXX.tmp[.ext]` next to the file, then renames it over the file.
TEMP_PREFIX = ".motionwarp-"
_TEMP_NAME = re.compile(r"\.motionwarp-\w+\.tmp(\.\w+)?")
#: A temporary file older than this was left by a killed save; the next save in its folder removes it.
STALE_SECONDS = 600


def write_atomic(path, write, suffix=""):
    """Create `path` by `write(temp_path)` on a temporary file in its folder, then a rename.

    The old file survives any failure. A symlink is followed, so its target gets the new
    content and the link stays. Only a regular file is ever replaced: a directory, FIFO,
    device or socket there is an OSError. OSErrors name `path`, never the temporary file.
    `suffix` ends the temporary name (an image writer picks the format by extension).
    """
    target = os.path.realpath(os.fspath(path))
    folder = os.path.dirname(target)
    temp = None
    try:
        _refuse_non_regular(target)
        remove_stale_temps(folder)
        handle, temp = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=".tmp" + suffix, dir=folder)
        os.close(handle)
        os.chmod(temp, _file_mode(target))  # mkstemp makes 0600 files; keep the usual permissions
        write(temp)
        os.replace(temp, target)
    except BaseException as exc:
        if temp is not None and os.path.exists(temp):
            os.unlink(temp)
        if isinstance(exc, OSError):
            raise OSError(exc.errno, exc.strerror or str(exc), os.fspath(path)) from None
        raise


def _refuse_non_regular(target):
    """An OSError when `target` exists and is not a regular file (a rename would replace it)."""
    try:
        mode = os.stat(target).st_mode
    except OSError:
        return   # nothing there (or nothing reachable): the write itself says what is wrong
    if not stat.S_ISREG(mode):
        raise OSError(errno.EISDIR if stat.S_ISDIR(mode) else errno.EINVAL,
                      f"it {not_regular(target)}, and only a regular file is replaced", target)


def write_text_atomic(path, text):
    """Write `text` (UTF-8) to `path` atomically, flushed to disk before the rename."""
    def write(temp):
        with open(temp, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
    write_atomic(path, write)


def edited_path(path):
    """`NAME.edited.EXT` beside `path` (`vault.warp.json` -> `vault.edited.warp.json`, `hero.json` ->
    `hero.edited.json`): where a save goes instead of a read-only file."""
    path = os.fspath(path)
    folder, name = os.path.split(path)
    stem, ext = (name[:-len(".warp.json")], ".warp.json") if name.endswith(".warp.json") else os.path.splitext(name)
    return os.path.join(folder, f"{stem}.edited{ext}")


def is_read_only(path):
    """True when `path` exists and its owner may not write it: a shipped file the user meant to keep
    (an atomic save would replace it all the same, since only its folder's permissions count)."""
    try:
        return not os.stat(path).st_mode & stat.S_IWUSR
    except OSError:
        return False


def save_path(path):
    """Where a save to `path` goes: `path` itself, or `edited_path(path)` when `path` is read-only."""
    return edited_path(path) if is_read_only(path) else os.fspath(path)


def remove_stale_temps(folder, now=None):
    """Delete this module's temporary files older than STALE_SECONDS in `folder` (left by killed saves)."""
    now = time.time() if now is None else now
    for name in os.listdir(folder):
        if _TEMP_NAME.fullmatch(name):
            temp = os.path.join(folder, name)
            try:
                if now - os.lstat(temp).st_mtime > STALE_SECONDS:
                    os.unlink(temp)
            except OSError:
                pass  # already gone, or not ours to remove: the save does not depend on it


def _file_mode(path):
    """The permissions the written file should have: the old file's, or the umask's default."""
    try:
        return os.stat(path).st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
