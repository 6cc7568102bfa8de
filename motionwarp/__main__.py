"""Command line: `python -m motionwarp inspect MODEL.glb [--write-asset CLIP OUT.warp.json] [--write-character OUT.json]`
and `python -m motionwarp author MODEL.glb CLIP --kind KIND --out OUT.warp.json [--character JSON]`."""
import argparse
import sys

from .base.errors import MotionWarpError


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
    author.add_argument("--kind", required=True, choices=("vault", "mantle", "jump_over", "jump_onto"),
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
    except OSError as exc:
        print(f"motionwarp: could not write {exc.filename}: {exc.strerror}", file=sys.stderr)
        return 2
    return 0


def _inspect(args):
    from .tools import character_writer, inspector
    model = inspector.Model(args.model)
    print(inspector.report(model))
    if args.write_asset:
        clip, out = args.write_asset
        asset = inspector.write_asset(model, clip, out, args.root_joint, args.root_mode)
        print(f"\nwrote {out}: clip {asset.clip!r}, root {asset.root_joint!r} ({asset.root_mode} mode), "
              f"one phase 0 .. {asset.phases[0].end:.3f} s")
    if args.write_character:
        data, notes = character_writer.write_character(model, args.write_character, args.write_anyway)
        roles = ", ".join(f"{role} {clip}" + (f" ({data['speeds'][role]:g} m/s)" if role in data["speeds"] else "")
                          for role, clip in data["clips"].items())
        print(f"\nwrote {args.write_character}: {roles}; turn {data['turn']:g}, scale {data['scale']:g}, "
              f"root {data['root_joint']!r} ({data['root_mode']} mode)")
        for note in notes:
            print(f"  note: {note}")


def _author(args):
    from .tools import author, character_writer, inspector
    model = inspector.Model(args.model)
    asset = author.write(model, args.clip, args.kind, args.out, height=args.height, depth=args.depth)
    print(f"wrote {args.out}: {asset.clip} as {asset.traversal.kind} (checked by loading it back)")
    for phase in asset.phases:
        print(f"  {phase.name:10s} {phase.start:6.3f} .. {phase.end:6.3f} s  t_offset "
              f"({', '.join(f'{v:.3f}' for v in phase.t_offset)})  rates {phase.min_rate:g} .. {phase.max_rate:g}")
    ranges = asset.traversal
    print(f"  traversal: height {ranges.height[0]:.2f} .. {ranges.height[1]:.2f} m, "
          f"depth {ranges.depth[0]:.2f} .. {ranges.depth[1]:.2f} m")
    print("  contacts: " + (", ".join(f"{c.joint} {c.start:.2f}-{c.end:.2f} on {c.phase or c.touches}"
                                      for c in asset.contacts) or "none"))
    if args.character:
        name = character_writer.add_asset(args.character, args.out)
        print(f"listed {name!r} in {args.character}: warp_assets")


if __name__ == "__main__":
    sys.exit(main())
