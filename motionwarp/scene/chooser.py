"""One question for every provider: what can the character do now? (docs/design.md 7)

    chooser = InteractionChooser([TraversalProvider(probe, assets), JumpProvider(probe, assets),
                                  MarkerProvider(probe, render, assets)])
    found = chooser.find(actor)      # the best Interaction, or the Refusal to show
    if found:
        warper.play(found.asset, found.targets)

The best Interaction is the nearest (what the character meets first); providers that found
things within TIE metres of each other, or the same thing, rank in the order given. With no Interaction, the
nearest Refusal that is only `too_far` (walking closer may offer it), else the Refusal of the nearest thing
refused, so the prompt names what is in front and why (every provider's reason when several refuse that
same thing: "too high to jump over (..) or jump onto (..)"); when none met anything, what each looked for.
"""
import re

from ..base.errors import UsageError
from .providers import Refusal, _join, _or_list

#: Answers this close (metres) count as equally near: the earlier provider in the list wins.
TIE = 0.05
NOTHING_AT_ALL = "nothing to do here"


class InteractionChooser:
    """Asks each provider (anything with `find_at(pos, h)`) and offers the best answer."""

    def __init__(self, providers, space=None):
        self.providers = list(providers)
        if not self.providers or not all(callable(getattr(p, "find_at", None)) for p in self.providers):
            raise UsageError(f"InteractionChooser providers: expected providers with find_at(pos, h), got {providers!r}")
        self.space = space
        #: Every provider's answer to the last question, in provider order (for a debug view).
        self.answers = []

    def find(self, actor):
        """The best answer for `actor` as it stands now (its position, heading and scale)."""
        space = self.space if self.space is not None else actor.getTop()
        return self.find_at(actor.getPos(space), actor.getH(space), actor.getSx(space))

    def find_at(self, pos, h, scale=1.0):
        """The best answer for a character whose feet are at `pos`, facing heading `h`; a scaled
        character's `scale` is passed on (a game's own provider need not take it at scale 1)."""
        self.answers = [provider.find_at(pos, h) if scale == 1.0 else provider.find_at(pos, h, scale)
                        for provider in self.providers]
        return best(self.answers)


def best(answers):
    """The nearest Interaction (earlier first within TIE or about the same node), else the nearest Refusal
    that is only too far (what comes next on the way), else the nearest Refusal that names a distance, else
    the first Refusal."""
    found = [answer for answer in answers if answer]
    if found:
        return _nearest(found)
    placed = [answer for answer in answers if answer.distance is not None]
    if placed:
        coming = [answer for answer in placed if answer.too_far]
        return _joined(_nearest(coming or placed), placed)
    return _nothing(answers) if answers else Refusal(NOTHING_AT_ALL)


def _nothing(refusals):
    """When no provider met anything: one "nothing to .. in front" naming everything they looked for
    ("nothing to vault, mantle, jump onto or interact with in front"), else the first refusal."""
    wanted = [re.fullmatch(r"nothing to (.+) in front", refusal.reason) for refusal in refusals]
    if len(refusals) < 2 or not all(wanted):
        return refusals[0]
    verbs = list(dict.fromkeys(verb for match in wanted for verb in re.split(r", | or ", match.group(1))))
    return Refusal(f"nothing to {_or_list(verbs)} in front")


def _joined(refusal, refusals):
    """`refusal`, with the reasons of the others that refuse the same node within TIE of it joined in."""
    same = [other for other in refusals if refusal.node is not None and other.node == refusal.node
            and abs(other.distance - refusal.distance) <= TIE]
    if len(same) < 2:
        return refusal
    numbers = {k: v for other in reversed(same) for k, v in other.numbers.items()}
    return Refusal(_join(other.reason for other in same), refusal.node, refusal.distance, refusal.kind, numbers,
                   refusal.too_far)


def _nearest(answers):
    """The earliest (in provider order) of the answers about the nearest thing: those within TIE of the
    nearest, and every other answer about the same node (providers measure their distance to different
    points of one obstacle: a vault to its face, a jump onto it to the take-off before it)."""
    closest = min(answer.distance for answer in answers)
    near = [answer for answer in answers if answer.distance <= closest + TIE]
    nodes = [answer.node for answer in near if answer.node is not None]
    return next(answer for answer in answers
                if any(answer is n for n in near) or (answer.node is not None and answer.node in nodes))
