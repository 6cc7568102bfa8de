"""Where a tool's outputs go, checked all together before any of them is written (docs/design.md 12.2).

A tool never writes onto a file it reads (the same path, a symlink to it or a hard link: the
same device and inode), never writes two outputs onto one file, keeps a read-only file as
the demo's editor does (the output goes beside it as `NAME.edited.EXT`), refuses anything but
a regular file, and creates a missing output folder. The writes themselves are atomic.
"""
import os

from ..base.atomicfile import edited_path, is_read_only, write_text_atomic
from ..base.errors import UsageError, shown_text
from ..base.filekind import not_regular


def _identity(path):
    """(device, inode) of the file `path` names (links followed), or None when nothing is there."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _same(path, identity, other, other_identity):
    """Whether two paths name one file: one inode, or (not there yet) one resolved path."""
    if identity is not None or other_identity is not None:
        return identity == other_identity
    return os.path.realpath(path) == os.path.realpath(other)


class OutputPlan:
    """The files one command reads (`inputs`, {what: path}, never written) and writes (`add`).

    `add` checks one output against the inputs and the outputs added before it and returns the
    path it will be written to; `notes` says where a read-only file made an output go elsewhere.
    Nothing is written or created until `write`.
    """

    def __init__(self, inputs):
        self.inputs = [(what, os.fspath(path), _identity(path)) for what, path in inputs.items() if path is not None]
        self.outputs = {}   # final path -> what it is
        self.targets = {}   # path asked for -> the path it is written to
        self.notes = []

    def add(self, path, what):
        """The path `what` (an option, `--out`) is written to: `path`, or `NAME.edited.EXT` beside a
        read-only `path`; a UsageError naming `what` when it cannot be written there."""
        path = os.fspath(path)
        self._not_an_input(path, _identity(path), what)   # a read-only model is refused, not written beside
        target = path
        if is_read_only(path):
            target = edited_path(path)
            if is_read_only(target):
                self._fail(what, path, f"it is read-only, and so is {shown_text(target)} beside it: both are kept")
            self.notes.append(f"{path} is read-only: kept; {what} went to {target} beside it")
        self._check(target, what)
        self.outputs[os.path.abspath(target)] = what
        self.targets[os.path.abspath(path)] = target
        return target

    def target(self, path, what):
        """Where `path` is written: as planned already (by `add`; `path` may be where it goes), else
        `add(path, what)`."""
        path = os.fspath(path)
        if os.path.abspath(path) in self.outputs:
            return path
        planned = self.targets.get(os.path.abspath(path))
        return self.add(path, what) if planned is None else planned

    def _check(self, target, what):
        folder = os.path.dirname(os.path.abspath(target))
        existing = folder
        while not os.path.lexists(existing):
            existing = os.path.dirname(existing)
        if not os.path.isdir(existing):
            self._fail(what, target, f"its folder cannot be made: {shown_text(existing)} is not a folder")
        if not os.access(existing, os.W_OK | os.X_OK):
            self._fail(what, target, f"{shown_text(existing)} is not writable")
        kind = not_regular(target)
        if kind not in (None, "does not exist"):
            self._fail(what, target, f"it {kind}, and only a regular file is replaced")
        identity = _identity(target)
        self._not_an_input(target, identity, what)
        for path, other in self.outputs.items():
            if _same(target, identity, path, _identity(path)):
                self._fail(what, target, f"{other} writes that file already: give each output its own path")

    def _not_an_input(self, target, identity, what):
        for name, path, input_identity in self.inputs:
            if _same(target, identity, path, input_identity):
                self._fail(what, target, f"it is the {name} this command reads ({shown_text(path)}); "
                                         "a tool never writes onto its input: choose another path")

    @staticmethod
    def _fail(what, path, reason):
        raise UsageError(f"{what} {shown_text(path)}: {reason}")

    def write(self, path, text):
        """Write `text` to the planned `path` atomically, making its missing folders first."""
        if os.path.abspath(path) not in self.outputs:
            raise UsageError(f"{shown_text(path)} was not planned as an output (OutputPlan.add first)")
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        write_text_atomic(path, text)
