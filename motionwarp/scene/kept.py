"""A provider's kept answer as a named record, apart from the geometry that found it (design 7)."""
import dataclasses

from .measure import SAME_H, SAME_POS


@dataclasses.dataclass(frozen=True)
class KeptAnswer:
    """The answer a provider gave on a static probe, and what it was asked: returned again while a
    question `matches` it (the character within SAME_POS m and SAME_H degrees, all else the same)."""

    version: int
    x: float
    y: float
    z: float
    h: float
    scale: float
    assets: tuple
    settings: tuple
    answer: object

    def matches(self, version, pos, h, scale, assets, settings):
        """Whether a question is close enough to this one to get the same answer."""
        return (version == self.version and abs(pos[0] - self.x) <= SAME_POS and abs(pos[1] - self.y) <= SAME_POS
                and abs(pos[2] - self.z) <= SAME_POS and abs(h - self.h) <= SAME_H and scale == self.scale
                and same_objects(assets, self.assets) and settings == self.settings)


def same_objects(these, those):
    """Whether two sequences hold the very same objects (assets compare by identity: an edit replaces one)."""
    return len(these) == len(those) and all(a is b for a, b in zip(these, those))
