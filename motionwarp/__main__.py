"""Command line: `python -m motionwarp inspect MODEL.glb [--write-asset CLIP OUT.warp.json] [--write-character OUT.json]`
and `python -m motionwarp author MODEL.glb CLIP --kind KIND --out OUT.warp.json [--character JSON]`."""
import argparse
import os
import sys

from .base.errors import MotionWarpError, shown_text
from .tools.author import KINDS
from .warp.assetdata import TRAVERSAL_KINDS


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        """One line and exit status 2, instead of argparse's usage block."""
        self.exit(2, f"motionwarp: {message} (see python -m motionwarp --help)\n")


def main(argv=None):
    parser = _Parser(prog="python -m motionwarp", description="Tools for bringing a character to motionwarp.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    inspect = commands.add_parser("inspect", help="clips, joints and the root motion each candidate root would carry")
    inspect.add_argument("model", help="a glTF character (.glb or .gltf)")
    inspect.add_argument("--write-asset", nargs=2, metavar=("CLIP", "OUT"),
                         help="also write a starting warp asset for CLIP (one phase over the clip) to OUT")
    inspect.add_argument("--write-character", metavar="OUT",
                         help="also write a character file for the demo (python main.py --character OUT)")
    inspect.add_argument("--write-anyway", action="store_true",
                         help="write the character file even when it could not play (no walk, no feet)")
    inspect.add_argument("--root-joint", help="root joint for --write-asset (default: the recommended one)")
    inspect.add_argument("--root-mode", choices=("bone", "projected"), help="root mode for --write-asset")
    author = commands.add_parser("author", help="a warp asset for a clip, phases proposed from its contacts")
    author.add_argument("model", help="a glTF character (.glb or .gltf)")
    author.add_argument("clip", help="the clip to warp")
    author.add_argument("--kind", required=True, choices=KINDS,
                        help="what the clip does: its phases, targets and the provider that offers it")
    author.add_argument("--out", required=True, help="the *.warp.json to write")
    author.add_argument("--height", nargs=2, type=float, metavar=("LO", "HI"),
                        help="obstacle heights it takes, metres (default: from what the clip clears)")
    author.add_argument("--depth", nargs=2, type=float, metavar=("LO", "HI"), help="obstacle depths it takes, metres")
    author.add_argument("--character", metavar="JSON",
                        help="also list the asset in this character file's warp_assets (the demo's assets/ beside it)")
    args = parser.parse_args(argv)
    try:
        (_author if args.command == "author" else _inspect)(args)
    except MotionWarpError as exc:
        print(f"motionwarp: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # whoever read the output stopped reading (`| head`): say so once, and let the exit's flush find no pipe
        sys.stdout = open(os.devnull, "w")
        print("motionwarp: stopped: the standard output was closed before everything was printed", file=sys.stderr)
        return 2
    except OSError as exc:
        where = f" {shown_text(exc.filename)}" if exc.filename is not None else ""
        print(f"motionwarp: could not write{where}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    return 0


def _inspect(args):
    from .base.jsonfields import dumps
    from .tools import character_writer, inspector
    plan = _plan(args.model)
    asset_out = plan.add(args.write_asset[1], "--write-asset") if args.write_asset else None
    character_out = plan.add(args.write_character, "--write-character") if args.write_character else None
    model = inspector.Model(args.model)
    lines = [inspector.report(model)]
    if character_out:   # its refusals (no idle) come before the asset is written
        data, notes = character_writer.playable_data(model, character_out, args.write_anyway)
    if asset_out:
        asset = inspector.write_asset(model, args.write_asset[0], asset_out, args.root_joint, args.root_mode, plan)
        lines.append(f"\nwrote {asset_out}: clip {asset.clip!r}, root {asset.root_joint!r} ({asset.root_mode} mode), "
                     f"one phase 0 .. {asset.phases[0].end:.3f} s")
    if character_out:
        plan.write(character_out, dumps(data))
        roles = ", ".join(f"{role} {clip}" + (f" ({data['speeds'][role]:g} m/s)" if role in data["speeds"] else "")
                          for role, clip in data["clips"].items())
        lines.append(f"\nwrote {character_out}: {roles}; turn {data['turn']:g}, scale {data['scale']:g}, "
                     f"root {data['root_joint']!r} ({data['root_mode']} mode)")
        lines += [f"  note: {note}" for note in notes]
    print("\n".join(lines))   # printed once everything is written: a reader that stops early loses no file
    _print_kept(plan)


def _author(args):
    from .base.jsonfields import dumps
    from .tools import author, character_writer, inspector
    plan = _plan(args.model)
    out = plan.add(args.out, "--out")
    character = plan.add(args.character, "--character") if args.character else None
    model = inspector.Model(args.model)
    if character:   # the file and the layout are checked before the asset is written
        current = character if os.path.exists(character) else args.character
        name, listing = character_writer.listed_asset(args.character, out, current)
    asset = author.write(model, args.clip, args.kind, out, height=args.height, depth=args.depth, plan=plan)
    if character:
        plan.write(character, dumps(listing))
    print(f"wrote {out}: {asset.clip} as {asset.traversal.kind} (checked by loading it back)")
    for phase in asset.phases:
        print(f"  {phase.name:10s} {phase.start:6.3f} .. {phase.end:6.3f} s  t_offset "
              f"({', '.join(f'{v:.3f}' for v in phase.t_offset)})  rates {phase.min_rate:g} .. {phase.max_rate:g}")
    ranges = asset.traversal
    depth = "" if TRAVERSAL_KINDS[ranges.kind].found_by == "marker" else \
        f", depth {ranges.depth[0]:.2f} .. {ranges.depth[1]:.2f} m"
    print(f"  traversal: height {ranges.height[0]:.2f} .. {ranges.height[1]:.2f} m{depth}")
    print("  contacts: " + (", ".join(f"{c.joint} {c.start:.2f}-{c.end:.2f} on {c.phase or c.touches}"
                                      for c in asset.contacts) or "none"))
    if character:
        print(f"listed {name!r} in {character}: warp_assets")
    _print_kept(plan)


def _plan(model):
    """The command's OutputPlan: it reads the model and the files the model names (a .gltf's .bin, its
    textures), and every output is checked against them before anything is read or written."""
    from .animation.gltf_check import model_files
    from .tools.outputs import OutputPlan
    files = model_files(model) if os.path.isfile(model) else {}
    return OutputPlan({"model": model, **{f"model's {field}": path for field, path in files.items()}})


def _print_kept(plan):
    for note in plan.notes:
        print(f"note: {note}")


if __name__ == "__main__":
    sys.exit(main())
