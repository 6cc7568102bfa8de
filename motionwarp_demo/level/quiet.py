"""Run Panda3D calls whose failure we report ourselves, keeping what they print for that one line."""
import contextlib
import io

from direct.directnotify.Notifier import Notifier
from panda3d.core import Notify, StreamWriter, StringStream


class Captured:
    """What Panda3D's notify system and Python's stderr received inside `captured_output()`."""

    def __init__(self):
        self.notify = StringStream()
        self.python = io.StringIO()

    def last_line(self):
        """The last non-empty line printed (Python's, which names the exception, else Panda3D's), cut short."""
        for text in (self.python.getvalue(), self.notify.getData().decode("utf-8", "replace")):
            lines = [line.strip() for line in text.splitlines() if line.strip()]
            if lines:
                return lines[-1][:160]
        return ""


@contextlib.contextmanager
def captured_output():
    """Hold back Panda3D's notify lines (C++ and Python categories) and Python tracebacks that
    loader plugins print (PyErr_Print)."""
    captured = Captured()
    notify = Notify.ptr()
    previous, previous_writer = notify.getOstreamPtr(), Notifier.streamWriter
    notify.setOstreamPtr(captured.notify, False)
    Notifier.streamWriter = StreamWriter(captured.notify, False)  # Python categories hold their own stream
    try:
        with contextlib.redirect_stderr(captured.python):
            yield captured
    finally:
        notify.setOstreamPtr(previous, False)
        Notifier.streamWriter = previous_writer
