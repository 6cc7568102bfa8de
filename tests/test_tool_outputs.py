"""The tools never destroy a user's file (issue 28, docs/design.md 12.2): `inspect` and `author` never
write onto the model they read (the same path, a symlink or a hard link), never write two outputs onto
one file, keep a read-only file and write `NAME.edited.EXT` beside it as the demo's editor does, create a
missing output folder, and check everything before writing anything. Every refusal is one line on stderr
and exit status 2, and every file that was there is byte for byte what it was."""
import json
import types
import os
import stat
import subprocess
import sys

import pytest

from motionwarp import WarpAsset
from motionwarp.base.atomicfile import edited_path, save_path
from motionwarp.tools import character_writer

from . import biped_samples as biped
from .conftest import ROOT
from .test_inspect import tool_in_process


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    return biped.write_biped(tmp_path_factory.mktemp("outputs") / "hero.glb")


@pytest.fixture
def game(tmp_path, model):
    """A game's folder as section 5.4 lays it out: the model, characters/hero.json, assets/ beside it."""
    (tmp_path / "characters").mkdir()
    (tmp_path / "assets").mkdir()
    glb = tmp_path / "hero.glb"
    glb.write_bytes(model.read_bytes())
    character = tmp_path / "characters" / "hero.json"
    data = {"format": "motionwarp.character/1", "model": "../hero.glb", "clips": {
        "idle": "Idle", "walk": "Walk", "run": "Walk", "fall": "Fall", "land": "Idle"}, "warp_assets": []}
    character.write_text(json.dumps(data))
    return tmp_path


def snapshot(folder):
    """{relative path: bytes} of every file under `folder` (links as where they point; a FIFO as its mode,
    never opened)."""
    found = {}
    for root, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(root, name)
            key = os.path.relpath(path, folder)
            if os.path.islink(path):
                found[key] = ("link", os.readlink(path))
            else:
                found[key] = open(path, "rb").read() if os.path.isfile(path) else ("mode", os.stat(path).st_mode)
    return found


def refused(capsys, folder, *args, words=()):
    """Run the tool in this process: exit 2, one line naming each of `words`, and no file changed."""
    before = snapshot(folder)
    status, stderr = tool_in_process(capsys, *args)
    assert status == 2 and stderr.count("\n") == 1 and stderr.startswith("motionwarp: "), stderr
    for word in words:
        assert word in stderr, stderr
    assert snapshot(folder) == before
    return stderr


def link(kind, source, path):
    (os.symlink if kind == "symlink" else os.link)(source, path)
    return path


@pytest.mark.parametrize("how", ["same path", "another spelling", "symlink", "hard link"])
@pytest.mark.parametrize("command", ["author --out", "inspect --write-character", "inspect --write-asset"])
def test_no_output_is_ever_written_onto_the_model(capsys, game, how, command):
    glb = game / "hero.glb"
    out = {"same path": glb, "another spelling": game / "assets" / ".." / "hero.glb",
           "symlink": game / "link.glb", "hard link": game / "hard.glb"}[how]
    if how in ("symlink", "hard link"):
        link(how, glb, out)
    args = {"author --out": ("author", glb, "Vault", "--kind", "vault", "--out", out),
            "inspect --write-character": ("inspect", glb, "--write-character", out),
            "inspect --write-asset": ("inspect", glb, "--write-asset", "Vault", out)}[command]
    option = command.split()[1]
    refused(capsys, game, *args, words=(f"{option} {out}", "the model this command reads", "never writes onto"))


@pytest.mark.parametrize("command", ["author --out", "inspect --write-character", "inspect --write-asset"])
def test_a_read_only_model_given_as_an_output_is_refused_not_written_beside(capsys, game, command):
    """A read-only model is still the tool's input: refused, never `hero.edited.glb` holding JSON."""
    glb = game / "hero.glb"
    glb.chmod(0o444)
    args = {"author --out": ("author", glb, "Vault", "--kind", "vault", "--out", glb),
            "inspect --write-character": ("inspect", glb, "--write-character", glb),
            "inspect --write-asset": ("inspect", glb, "--write-asset", "Vault", glb)}[command]
    refused(capsys, game, *args, words=(f"{command.split()[1]} {glb}", "the model this command reads"))
    assert not os.path.exists(edited_path(glb))


def test_author_never_writes_its_asset_onto_the_character_file(capsys, game):
    character = game / "characters" / "hero.json"
    refused(capsys, game, "author", game / "hero.glb", "Vault", "--kind", "vault", "--out", character,
            "--character", character, words=("--character", "--out writes that file already"))


def test_two_outputs_of_inspect_never_share_a_file(capsys, game):
    out = game / "both.json"
    refused(capsys, game, "inspect", game / "hero.glb", "--write-asset", "Vault", out, "--write-character",
            game / "assets" / ".." / "both.json", words=("--write-asset writes that file already",))
    assert not out.exists()


@pytest.mark.parametrize("option", ["--out", "--character"])
def test_a_read_only_file_is_kept_and_the_output_goes_beside_it(capsys, game, option):
    out = game / "assets" / "hop.warp.json"
    character = game / "characters" / "hero.json"
    if option == "--out":
        out.write_text('{"mine": true}')
    kept_path = out if option == "--out" else character
    kept = kept_path.read_bytes()
    kept_path.chmod(0o444)
    status, stderr = tool_in_process(capsys, "author", game / "hero.glb", "Jump", "--kind", "jump_over",
                                     "--out", out, "--character", character)
    assert status == 0, stderr
    assert kept_path.read_bytes() == kept and not kept_path.stat().st_mode & stat.S_IWUSR
    beside = game / ("assets/hop.edited.warp.json" if option == "--out" else "characters/hero.edited.json")
    assert beside.exists()
    if option == "--out":
        assert WarpAsset.load(beside).clip == "Jump"
        assert json.loads(character.read_text())["warp_assets"] == ["hop.edited"]
    else:
        assert WarpAsset.load(out).clip == "Jump"
        assert json.loads(beside.read_text())["warp_assets"] == ["hop"]


def test_the_note_says_where_a_read_only_output_went(game):
    out = game / "assets" / "hop.warp.json"
    out.write_text("{}")
    out.chmod(0o444)
    result = run(game, "author", game / "hero.glb", "Jump", "--kind", "jump_over", "--out", out)
    assert result.returncode == 0, result.stderr
    assert f"note: {out} is read-only: kept; --out went to {edited_path(out)} beside it\n" in result.stdout
    assert result.stdout.startswith(f"wrote {edited_path(out)}: Jump as jump_over")


def test_a_read_only_file_and_a_read_only_edited_copy_are_both_kept(capsys, game):
    out = game / "assets" / "hop.warp.json"
    for path in (out, game / "assets" / "hop.edited.warp.json"):
        path.write_text("{}")
        path.chmod(0o444)
    refused(capsys, game, "author", game / "hero.glb", "Jump", "--kind", "jump_over", "--out", out,
            words=("read-only, and so is", "hop.edited.warp.json"))


def test_the_edited_name_is_the_demo_editors_rule(tmp_path):
    """One rule for the tools and the editor's F5 (docs/demo.md): NAME.edited.EXT, a warp asset's EXT
    being `.warp.json`; a writable file is saved onto itself."""
    assert edited_path("a/vault.warp.json") == os.path.join("a", "vault.edited.warp.json")
    assert edited_path("hero.json") == "hero.edited.json"
    assert edited_path("x/model.v2.glb") == os.path.join("x", "model.v2.edited.glb")
    path = tmp_path / "vault.warp.json"
    path.write_text("{}")
    assert save_path(path) == str(path)
    path.chmod(0o400)
    assert save_path(path) == str(tmp_path / "vault.edited.warp.json")
    from motionwarp_demo.editor import tuner
    assert tuner.save_path is save_path


def test_a_missing_output_folder_is_created(capsys, game):
    out = game / "assets" / "new" / "deeper" / "hop.warp.json"
    status, stderr = tool_in_process(capsys, "author", game / "hero.glb", "Jump", "--kind", "jump_over",
                                     "--out", out, "--character", game / "characters" / "hero.json")
    assert status == 0, stderr
    assert WarpAsset.load(out).clip == "Jump"
    assert json.loads((game / "characters" / "hero.json").read_text())["warp_assets"] == ["new/deeper/hop"]


def test_a_folder_that_is_a_file_is_refused_before_anything_is_written(capsys, game):
    (game / "assets" / "taken").write_text("a file, not a folder")
    refused(capsys, game, "inspect", game / "hero.glb", "--write-asset", "Vault", game / "fine.warp.json",
            "--write-character", game / "assets" / "taken" / "hero.json", words=("is not a folder",))


@pytest.mark.parametrize("kind", ["directory", "FIFO"])
def test_a_path_that_is_not_a_regular_file_is_refused_before_anything_is_written(capsys, game, kind):
    target = game / "assets" / "odd.warp.json"
    (os.mkdir if kind == "directory" else os.mkfifo)(target)
    refused(capsys, game, "inspect", game / "hero.glb", "--write-character", game / "c.json",
            "--write-asset", "Vault", target, words=(f"it is a {kind}", "only a regular file is replaced"))


def test_a_character_outside_the_layout_is_refused_before_the_asset_is_written(capsys, game, tmp_path):
    elsewhere = game / "elsewhere.json"
    elsewhere.write_text((game / "characters" / "hero.json").read_text())
    refused(capsys, game, "author", game / "hero.glb", "Jump", "--kind", "jump_over", "--out",
            game / "assets" / "hop.warp.json", "--character", elsewhere,
            words=("elsewhere.json: warp_assets are *.warp.json under", "hop.warp.json is not"))


@pytest.mark.parametrize("value", ["vault", None, {"vault": 1}, [1], [""]])
def test_a_bad_warp_assets_field_names_the_file_and_the_field(capsys, game, value):
    character = game / "characters" / "hero.json"
    data = json.loads(character.read_text())
    data["warp_assets"] = value
    character.write_text(json.dumps(data))
    refused(capsys, game, "author", game / "hero.glb", "Jump", "--kind", "jump_over", "--out",
            game / "assets" / "hop.warp.json", "--character", character,
            words=(f"{character}: warp_assets: expected a list of warp asset names, got {value!r}",))


def test_a_character_file_of_another_format_is_refused(capsys, game):
    character = game / "characters" / "hero.json"
    character.write_text('{"format": "motionwarp.asset/1"}')
    refused(capsys, game, "author", game / "hero.glb", "Jump", "--kind", "jump_over", "--out",
            game / "assets" / "hop.warp.json", "--character", character,
            words=(f"{character}: format: expected a motionwarp.character/1 file",))


@pytest.mark.parametrize("option, values", [("--depth", ("-1", "-0.5")), ("--depth", ("0.8", "0.2")),
                                            ("--height", ("nan", "1")), ("--height", ("0.2", "inf")),
                                            ("--height", ("0.2", "1e6"))])
def test_bad_traversal_ranges_are_refused_not_clamped(capsys, game, option, values):
    shown = " ".join(f"{float(v):g}" for v in values)
    refused(capsys, game, "author", game / "hero.glb", "Jump", "--kind", "jump_over", "--out",
            game / "assets" / "hop.warp.json", option, *values,
            words=(f"{option} LO HI: expected two numbers of metres from 0 to 100000, LO at most HI; got {shown}",))


def test_given_ranges_are_written_as_given(capsys, game):
    out = game / "assets" / "hop.warp.json"
    status, stderr = tool_in_process(capsys, "author", game / "hero.glb", "Jump", "--kind", "jump_over", "--out",
                                     out, "--height", "0", "0.25", "--depth", "0.5", "0.5")
    assert status == 0, stderr
    traversal = json.loads(out.read_text())["traversal"]
    assert traversal["height"] == [0.0, 0.25] and traversal["depth"] == [0.5, 0.5]


def run(folder, *args, stdout=subprocess.PIPE):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "motionwarp", *map(str, args)], stdout=stdout,
                          stderr=subprocess.PIPE, text=True, cwd=folder, env=env, timeout=120)


def test_a_closed_output_pipe_is_one_clear_line_and_the_files_are_written(game):
    """The reader of the pipe is gone before the tool starts (as `| true` may leave it): deterministic."""
    read, write = os.pipe()
    os.close(read)
    try:
        result = run(game, "inspect", game / "hero.glb", "--write-character", game / "c.json", stdout=write)
    finally:
        os.close(write)
    assert result.returncode == 2
    assert result.stderr == "motionwarp: stopped: the standard output was closed before everything was printed\n"
    assert json.loads((game / "c.json").read_text())["clips"]["walk"] == "Walk"


class _Clips:
    """A model as choose_clips reads it: its clips, each one's guessed role, and a skeleton whose
    feet were found (no problem of its own)."""

    def __init__(self, roles):
        self.path, self.roles = "rig.glb", roles
        self.bundles = dict.fromkeys(roles)
        self.skeleton = types.SimpleNamespace(problem=None)

    def role(self, clip):
        return self.roles[clip]


def test_a_missing_idle_is_named_in_plain_words():
    """No idle and no walk are the problems that keep a character from playing, in plain words (an
    idle, a walk), with the roles the clips were guessed as; the first clip stands in for both."""
    clips, notes, problems = character_writer.choose_clips(_Clips({"Wave": "action"}))
    assert [str(p) for p in problems] == ["no clip looks like an idle (roles guessed: action)",
                        "no clip looks like a walk (roles guessed: action)"]
    assert clips["idle"] == clips["walk"] == "Wave"
    clips, notes, problems = character_writer.choose_clips(_Clips({"Stand": "idle", "Stroll": "walk"}))
    assert problems == []
    assert clips == {"idle": "Stand", "walk": "Stroll", "run": "Stroll", "fall": "Stand", "land": "Stand"}
    assert notes == ["no run clip found: Stroll plays as run", "no fall clip found: Stand plays as fall",
                     "no land clip found: Stand plays as land"]


def test_no_output_is_written_onto_a_file_the_model_reads(capsys, game):
    """A .gltf reads its buffer from a .bin beside it: that .bin is an input as much as the model."""
    from .glb import read_glb
    doc, binary = read_glb(game / "hero.glb")
    (game / "hero.bin").write_bytes(binary)
    doc["buffers"] = [{"uri": "hero.bin", "byteLength": len(binary)}]
    (game / "hero.gltf").write_text(json.dumps(doc))
    refused(capsys, game, "author", game / "hero.gltf", "Vault", "--kind", "vault", "--out", game / "hero.bin",
            words=("it is the model's buffers[0].uri this command reads", "never writes onto"))
    status, stderr = tool_in_process(capsys, "author", game / "hero.gltf", "Vault", "--kind", "vault", "--out",
                                     game / "assets" / "v.warp.json")
    assert status == 0, stderr
