"""Outputs never destroy what was there (issue 19): only a regular file is ever replaced, every
write is checked (a screenshot must read back as an image), a failed write keeps the old file,
and main.py refuses options that clash before running anything."""
import errno
import json
import os
import shutil
import stat
import subprocess

import pytest
from panda3d.core import Filename, PNMImage

from motionwarp_demo.app.cli import parse_args, save_screenshot
from motionwarp.base.atomicfile import write_atomic, write_text_atomic

from .conftest import SAMPLES
from .test_demo import run_main, without_display

HEADLESS = ("--headless", "--autopilot")
REAL_OPEN = open


def make_fifo(path):
    os.mkfifo(path)


def make_device(path):
    """A null device node of the test's own (never a link to /dev/null: code that replaced what
    it names would replace the system's /dev/null when run as root); needs mknod's rights."""
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("mknod needs root here")


def make_folder(path):
    os.mkdir(path)


NOT_FILES = {"a FIFO": (make_fifo, stat.S_ISFIFO, "it is a FIFO (named pipe)"),
             "a device": (make_device, stat.S_ISCHR, "it is a character device"),
             "a directory": (make_folder, stat.S_ISDIR, "it is a directory")}


@pytest.mark.parametrize("kind", sorted(NOT_FILES))
def test_a_path_that_is_not_a_regular_file_is_never_replaced(tmp_path, kind):
    make, is_kind, words = NOT_FILES[kind]
    out = tmp_path / "out.json"
    make(out)
    with pytest.raises(OSError) as caught:
        write_text_atomic(out, "{}")
    assert caught.value.filename == str(out)
    assert caught.value.strerror == f"{words}, and only a regular file is replaced"
    assert is_kind(os.stat(out).st_mode), "the thing at the path was replaced"
    assert sorted(os.listdir(tmp_path)) == ["out.json"], "a temporary file was left behind"


class FailingStream:
    """What `open` returns on a full disk: writes seem to go through, the flush fails."""

    def __init__(self, path):
        self.stream = REAL_OPEN(path, "w", encoding="utf-8")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stream.close()

    def write(self, text):
        self.stream.write(text[: len(text) // 2])

    def flush(self):
        raise OSError(errno.ENOSPC, "No space left on device")

    def fileno(self):
        return self.stream.fileno()


def test_a_full_disk_keeps_the_old_report(tmp_path, monkeypatch):
    out = tmp_path / "report.json"
    out.write_text('{"old": true}')
    monkeypatch.setattr("builtins.open", lambda path, *args, **kwargs:
                        FailingStream(path) if ".motionwarp-" in os.fspath(path) else REAL_OPEN(path, *args, **kwargs))
    with pytest.raises(OSError) as caught:
        write_text_atomic(out, '{"new": true}')
    assert (caught.value.errno, caught.value.filename) == (errno.ENOSPC, str(out))
    monkeypatch.undo()
    assert out.read_text() == '{"old": true}' and os.listdir(tmp_path) == ["report.json"]


class Window:
    """A window whose saveScreenshot writes `content` and reports success, as Panda3D does on a full disk."""

    def __init__(self, content):
        self.content = content

    def saveScreenshot(self, filename):
        with open(filename.toOsSpecific(), "wb") as stream:
            stream.write(self.content)
        return True


@pytest.mark.parametrize("content", [b"", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR cut short"])
def test_a_screenshot_reported_saved_but_empty_or_cut_keeps_the_old_image(tmp_path, content):
    shot = tmp_path / "shot.png"
    shot.write_bytes(b"the old image")
    with pytest.raises(OSError) as caught:
        save_screenshot(Window(content), str(shot))
    assert caught.value.filename == str(shot) and "does not read back (is the disk full?)" in caught.value.strerror
    assert shot.read_bytes() == b"the old image" and os.listdir(tmp_path) == ["shot.png"]


@pytest.fixture
def full_disk(tmp_path):
    """A 64 KB tmpfs filled to the last byte, with `old.png` in it; skipped where mounting is not allowed."""
    mount = tmp_path / "disk"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here (not root?)")
    try:
        (mount / "old.png").write_bytes(b"the old image")
        with open(mount / "filler", "wb", buffering=0) as filler:
            with pytest.raises(OSError):
                while True:
                    filler.write(b"\0" * 4096)
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=True)


def test_a_real_screenshot_onto_a_full_disk_keeps_the_old_image(base, full_disk):
    before = sorted(os.listdir(full_disk))
    with pytest.raises(OSError):
        save_screenshot(base.win, str(full_disk / "old.png"))
    assert (full_disk / "old.png").read_bytes() == b"the old image"
    assert sorted(os.listdir(full_disk)) == before


def test_a_report_onto_a_full_disk_keeps_the_old_file(full_disk):
    with pytest.raises(OSError) as caught:
        write_text_atomic(full_disk / "old.png", "x" * 100_000)
    assert caught.value.errno == errno.ENOSPC
    assert (full_disk / "old.png").read_bytes() == b"the old image"


def test_write_atomic_checks_the_write_it_was_given(tmp_path):
    """A writer that raises keeps the old file: the check is the writer's (save_screenshot's check_image)."""
    out = tmp_path / "x.bin"
    out.write_bytes(b"old")

    def write(temp):
        with open(temp, "wb") as stream:
            stream.write(b"new, then a failure")
        raise OSError(errno.EIO, "simulated")
    with pytest.raises(OSError):
        write_atomic(out, write)
    assert out.read_bytes() == b"old"


# -- options that clash or would surprise ---------------------------------------------------------

def refused(capsys, *argv):
    with pytest.raises(SystemExit) as caught:
        parse_args(list(argv))
    assert caught.value.code == 2
    return capsys.readouterr().err


def test_report_and_screenshot_on_one_file_are_refused(capsys, tmp_path):
    shot = tmp_path / "x.png"
    assert refused(capsys, *HEADLESS, "--report", str(shot), "--screenshot", str(shot)) == (
        f"python -m motionwarp_demo: --report and --screenshot name the same file ({shot}); each needs its own (see --help)\n")
    os.symlink(shot, tmp_path / "link.png")   # the same file under another name
    assert "name the same file" in refused(capsys, *HEADLESS, "--report", str(tmp_path / "link.png"),
                                           "--screenshot", str(tmp_path / "." / "x.png"))


def test_at_without_a_screenshot_is_refused(capsys):
    assert refused(capsys, *HEADLESS, "--at", "2") == (
        "python -m motionwarp_demo: --at needs --screenshot (it is the screenshot's time) (see --help)\n")


def test_at_past_max_seconds_is_refused(capsys, tmp_path):
    assert refused(capsys, *HEADLESS, "--screenshot", str(tmp_path / "x.png"), "--at", "30", "--max-seconds", "5") == (
        "python -m motionwarp_demo: --at 30 is past the run's end (--max-seconds 5) (see --help)\n")


def test_a_report_onto_a_fifo_exits_2_and_leaves_the_fifo(tmp_path):
    fifo = tmp_path / "report.json"
    os.mkfifo(fifo)
    result = run_main(*HEADLESS, "--max-seconds", "0.1", "--report", str(fifo), env=without_display())
    assert result.returncode == 2
    assert result.stderr == (f"main.py: could not write {fifo}: it is a FIFO (named pipe), and only a regular "
                             "file is replaced\n")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and os.listdir(tmp_path) == ["report.json"]


def test_at_past_a_run_that_ended_sooner_saves_the_last_frame_and_says_so(tmp_path):
    scene = json.loads((SAMPLES / "scenes" / "course.json").read_text())
    spawn = scene["spawn"]["pos"]
    scene["autopilot"] = [spawn[:2], [spawn[0], spawn[1] + 0.3]]   # done within a second
    (tmp_path / "scene.json").write_text(json.dumps(scene))
    shutil.copytree(SAMPLES / "scenes" / "meshes", tmp_path / "meshes")
    shot = tmp_path / "shot.png"
    result = run_main(*HEADLESS, "--scene", str(tmp_path / "scene.json"), "--screenshot", str(shot), "--at", "3",
                      "--max-seconds", "5", env=without_display())
    assert result.returncode == 0, result.stderr
    ended = float(result.stdout.split(" s simulated")[0])
    assert ended < 3.0
    assert result.stderr == (f"main.py: the run ended at {ended:.2f} s, before --at 3: the screenshot shows its "
                             "last frame\n")
    assert PNMImage(Filename.fromOsSpecific(str(shot))).getXSize() > 0
