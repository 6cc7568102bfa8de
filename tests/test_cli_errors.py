"""main.py's options and outputs as a user meets them: every mistake is one line on stderr and
exit status 2, a run prints nothing Panda3D-internal, and a failed output leaves no file behind."""
import os

import pytest

from motionwarp_demo.app.cli import parse_args

from .test_demo import run_main, without_display

HEADLESS = ("--headless", "--autopilot")


@pytest.mark.parametrize("option, value, expected", [
    ("--max-seconds", "nan", "a number above 0 and at most 3600"),
    ("--max-seconds", "inf", "a number above 0 and at most 3600"),
    ("--max-seconds", "1e308", "a number above 0 and at most 3600"),
    ("--max-seconds", "0", "a number above 0 and at most 3600"),
    ("--at", "nan", "a number from 0 to 3600"),
    ("--at", "inf", "a number from 0 to 3600"),
    ("--at", "1e308", "a number from 0 to 3600"),
    ("--at", "-1", "a number from 0 to 3600"),
    ("--fps", "1000000000", "a whole number from 1 to 1000"),
    ("--fps", "0", "a whole number from 1 to 1000"),
])
def test_numeric_options_out_of_range(tmp_path, capsys, option, value, expected):
    """In process: main.py hands its arguments to this parser before anything else (the subprocess
    tests below cover the entry point itself)."""
    extra = ("--screenshot", str(tmp_path / "x.png")) if option == "--at" else ()
    with pytest.raises(SystemExit) as exited:
        parse_args([*HEADLESS, *extra, option, value])
    assert exited.value.code == 2
    assert capsys.readouterr().err == f"python -m motionwarp_demo: argument {option}: expected {expected}, got {value} (see --help)\n"


def test_fps_must_be_a_whole_number():
    result = run_main(*HEADLESS, "--fps", "2.5", env=without_display())
    assert result.returncode == 2
    assert result.stderr == "main.py: argument --fps: expected a whole number, got '2.5' (see --help)\n"


def test_headless_without_autopilot_is_refused():
    result = run_main("--headless", env=without_display())
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == ("main.py: --headless needs --autopilot (without a window nothing else moves the "
                             "character) (see --help)\n")


@pytest.mark.skipif(bool(os.environ.get("DISPLAY")), reason="a display is available here")
def test_no_display_prints_exactly_one_line():
    result = run_main(env=without_display())
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == ("main.py: cannot open a window (Could not open window.); no display here: run it on "
                             "a desktop, or under a virtual display (xvfb-run python main.py), or without a window: "
                             "python main.py --headless --autopilot --report out/course.json\n")


def test_a_headless_run_prints_no_device_or_display_lines(tmp_path):
    result = run_main(*HEADLESS, "--max-seconds", "0.5", "--report", str(tmp_path / "r.json"), env=without_display())
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout.startswith("0.50 s simulated: ")


def test_an_unwritable_report_names_the_users_path(tmp_path):
    (tmp_path / "a-file").write_text("")
    report = tmp_path / "a-file" / "out.json"  # its folder cannot be made: a file is in the way
    result = run_main(*HEADLESS, "--max-seconds", "0.1", "--report", str(report), env=without_display())
    assert result.returncode == 2
    assert result.stderr == f"main.py: could not write {report}: Not a directory\n"


def test_a_failed_screenshot_leaves_no_file(tmp_path):
    shot = tmp_path / "shot.notanimage"
    result = run_main(*HEADLESS, "--max-seconds", "0.1", "--screenshot", str(shot), env=without_display())
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1] == (f"main.py: could not write {shot}: Panda3D could not save the image "
                                              "(is it a .png or .jpg name?)")
    assert os.listdir(tmp_path) == []  # neither an empty shot.notanimage nor a temporary file


class HalfWritingWindow:
    """A window whose screenshot writes part of a file and then fails (a full disk, say)."""

    def saveScreenshot(self, filename):
        with open(filename.toOsSpecific(), "wb") as stream:
            stream.write(b"\x89PNG half")
        return False


def test_a_failed_screenshot_keeps_the_old_image(tmp_path):
    from motionwarp_demo.app.cli import save_screenshot
    shot = tmp_path / "shot.png"
    shot.write_bytes(b"the old image")
    with pytest.raises(OSError) as caught:
        save_screenshot(HalfWritingWindow(), str(shot))
    assert caught.value.filename == str(shot) and "could not save the image" in caught.value.strerror
    assert shot.read_bytes() == b"the old image" and os.listdir(tmp_path) == ["shot.png"]
