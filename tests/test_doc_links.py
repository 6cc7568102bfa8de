"""Every relative link in the README and the guides under docs/ leads somewhere: the file exists,
and a `#anchor` names a heading of the Markdown file it points into.

The oracle is GitHub's own rule for heading anchors (github-slugger): the heading's text,
lower-cased, with punctuation dropped and each space turned into a hyphen; a repeated heading
gets `-1`, `-2`, ... Links to other sites (http, https, mailto) are not followed.
"""
import re

import pytest

from .conftest import ROOT

FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.DOTALL)
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^()\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


def documents():
    """The README and every guide: the Markdown files whose links are checked."""
    return [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))


def prose(text):
    """The text without fenced code blocks and code spans (a link in code is no link)."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def slug(heading):
    """GitHub's anchor for a heading's Markdown source."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)   # a link's text stays
    text = re.sub(r"[`*]|(?<!\w)_|_(?!\w)", "", text)              # code and emphasis marks go
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def anchors(path):
    """Every anchor the headings of `path` give, repeats numbered as GitHub numbers them."""
    seen, found = {}, set()
    for heading in HEADING.findall(FENCE.sub("", path.read_text(encoding="utf-8"))):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(path):
    """(target, line) of every link in `path` outside code."""
    text = path.read_text(encoding="utf-8")
    kept = prose(text)
    return [(match.group(1), kept[:match.start()].count("\n") + 1) for match in LINK.finditer(kept)]


def test_the_slug_rule_is_githubs():
    assert slug("A game without a window, and tests: step the clock yourself") == \
        "a-game-without-a-window-and-tests-step-the-clock-yourself"
    assert slug("Warp assets (`*.warp.json`)") == "warp-assets-warpjson"
    assert slug("11. Public API *(contract)*") == "11-public-api-contract"
    assert slug("`mantle_high` and `t_offset`") == "mantle_high-and-t_offset"


@pytest.mark.parametrize("path", documents(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(path):
    broken = []
    for target, line in links(path):
        if re.match(r"[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):   # http:, https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        if not linked.exists():
            broken.append(f"line {line}: {target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"line {line}: {target}: no heading #{anchor} in {linked.name}")
    assert not broken, f"{path.relative_to(ROOT)}:\n" + "\n".join(broken)


def test_the_guides_are_all_listed_in_the_index():
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    listed = {target.partition("#")[0] for target, _ in links(ROOT / "docs" / "index.md")}
    missing = [p.name for p in sorted((ROOT / "docs").glob("*.md")) if p.name != "index.md" and p.name not in listed]
    assert not missing, f"docs/index.md does not list {missing}"
    assert index.startswith("# "), "docs/index.md has no title"
