"""The interactive demo: walk the mannequin around a course and vault or mantle what the providers find."""
import math

from direct.showbase.DirectObject import DirectObject
from panda3d.core import ClockObject, Vec3

from motionwarp import (BLEND_OUT, CANCELLED, FINISHED, PHASE_START, ContactIK, InteractionChooser, JumpProvider, MarkerProvider,
                        MotionWarper, SceneProbe, TraversalProvider, UsageError, WarpAsset, WarpRefused, mirror_clip,
                        samples)
from motionwarp.animation.mirror import mirrored_name
from motionwarp.scene.jumps import KINDS as JUMP_KINDS
from motionwarp.scene.markers import MARKER_KINDS
from motionwarp.scene.providers import Refusal, authored_target

from ..character.autopilot import Autopilot
from ..character.character_file import Character
from ..character.camera import OrbitCamera, framed, model_height
from ..character.body import BodySettings
from ..character.controller import Controller
from ..character.locomotion import planted_steps
from ..editor.compare import Comparison, TimeControl, unwarped
from ..editor.curve_editor import KEYS as EDITOR_KEYS, CurveEditor
from ..editor.curves import CurvePanel
from ..views.debugview import DebugView
from ..views.hud import KEYS, Hud, offer_line, show_text
from ..character.input import KeyInput
from ..editor.standin import StandIn
from ..editor.tuner import KEYS as TUNER_KEYS, AssetTuner
from ..views.looks import Looks
from ..level.movers import Movers
from ..level.world import Lights

SKY_COLOR = (0.62, 0.74, 0.86, 1)
#: Heights, as fractions of the character's, at which the demo looks for what blocks it: the chest,
#: the hips, the shins (a crate below the chest blocks too; the Knight's 1 m crate was "something").
BLOCK_PROBE_HEIGHTS = (0.7, 0.4, 0.15)
#: Metres from a face within which the autopilot starts any clip (the capsule stops the chest 0.31 m from it).
UP_CLOSE = 0.5


class Demo(DirectObject):
    """A mannequin moved by its clips' root motion, on the ground and out of walls, warped over obstacles.

    Targets come from the warp providers probing the scene's geometry, never from the scene
    file. With `autopilot`, the character walks the scene's waypoints and takes whatever it
    meets (for screenshots and unattended runs), through the same controller as the keys.
    `blend_time` is the cross-fade between locomotion clips, and into and out of warps (seconds).
    `looks` (demo.looks.Looks, installed on the window by the caller) sets the lights, the sky and
    the materials for the window's pipeline; the default is fixed-function lighting.
    """

    #: Camera offsets from the point looked at, in the character's frame, for a character of the mannequin's
    #: height (scaled by the character's: motionwarp_demo.character.camera.framed). A player's "follow" camera is behind
    #: the character, raised (the keys walk away from it); the autopilot's turns with the character from
    #: behind and to its right, so that what the character is about to take is beside it on screen, not
    #: behind it (the pictures and headless screenshots).
    VIEWS = {"follow": Vec3(0, -5.6, 3.6), "side": Vec3(5.5, -2.5, 0.6)}
    AUTOPILOT_VIEWS = {"follow": Vec3(3.9, -5.0, 3.2), "side": Vec3(5.5, -2.5, 0.6)}

    def __init__(self, base, scene, autopilot=False, view="follow", asset_dir=None, blend_time=0.2, character=None,
                 looks=Looks()):
        super().__init__()
        #: What destroy() takes down, in the order it was put up (it runs them backwards). A constructor
        #: that fails midway (a bad asset, a character that does not load) takes down what it built.
        self._built = []
        try:
            self._build(base, scene, autopilot, view, asset_dir, blend_time, character, looks)
        except BaseException:
            self.destroy()
            raise

    def _build(self, base, scene, autopilot, view, asset_dir, blend_time, character, looks):
        self.base, self.scene = base, scene
        render = base.render
        self.looks, self.lights = looks, Lights(render, looks)
        self._built.append(self.lights.remove)
        #: The ground and the obstacles, under one node destroy() removes.
        self.level = render.attachNewNode("level")
        self._built.append(self.level.removeNode)
        self.obstacles = scene.build(self.level, base.loader)
        #: The obstacles with a `motion` (design 6), moved every frame by the game clock.
        self.movers = Movers(scene.obstacles, self.obstacles, base.taskMgr)
        self._built.append(self.movers.destroy)
        #: The scene obstacle each obstacle node is (obstacle_name looks a probed node's ancestors up in it).
        self._obstacle_names = {node: node.getName() for node in self.obstacles}
        #: The kill plane, under the level's lowest point: a fall past it left the world.
        self.kill_z = scene.kill_height(self.level)
        # Built before the character is added: the probe sees the level, not the mannequin.
        self.probe = SceneProbe.from_geometry(render)
        self.character = character or Character.load(samples.path("characters/mannequin.json"))
        self.assets = self.character.load_warp_assets(asset_dir)
        self.actor = self.character.load_actor()
        self._built.append(self._remove_actor)
        self.actor.reparentTo(render)
        self.actor.setPos(*scene.spawn_pos)
        self.actor.setH(scene.spawn_h)
        self.actor.setBlend(frameBlend=True)
        #: The traversal clips (vault, mantle, jump over) the actor also plays mirrored, left for right: the
        #: providers offer an asset's mirrored twin when the edge's nearer end lies to the right (design 7,
        #: "Mirrored assets offered"). Given to the actor before the warper's driver is made (design 3.4).
        self.mirrored_clips = _mirror_traversal_clips(self.actor, self.assets)
        #: How tall the character is as loaded (its bind pose, metres): the camera frames it by this.
        self.height = model_height(self.actor, render)
        self.lights.follow(self.actor)
        looks.adapt(render)   # the scene's and the character's materials
        # Warps cross-fade like locomotion. The capsule stops the chest 0.31 m from a face, short of
        # the clips' authored starts: the mantle's phase may warp back up to 0.1 m, and the vault's
        # approach may shrink to nothing (the hands are already at the edge).
        self.warper = MotionWarper(self.actor, self.character.root_joint, self.character.root_mode,
                                   taskmgr=base.taskMgr, render=render, clip_speeds=self.character.speeds,
                                   blend_in=blend_time, blend_out=blend_time, max_behind_m=0.1, min_stretch=0.0)
        self._built.append(self.warper.destroy)
        # The prompt offers only what this warper plays (its limits, not the defaults).
        self.traversal = _providers(self.probe, self.assets, render, self.warper.settings,
                                    mirrored=bool(self.mirrored_clips), moving=self.movers.nodes,
                                    character=self.character.path)
        self.contact_ik = ContactIK(self.actor, self.warper, self.probe, feet=self.character.feet, feet_on_ground=1,
                                    taskmgr=base.taskMgr, render=render, steps=planted_steps(self.actor)) \
            if self.character.contact_ik else None
        if self.contact_ik is not None:
            self._built.append(self.contact_ik.destroy)
        self.controller = Controller(self.actor, self.warper, self.probe, base.taskMgr, blend_time=blend_time,
                                     space=render, body_settings=BodySettings(kill_z=self.kill_z))
        self._built.append(self.controller.destroy)
        self.tuner = AssetTuner(self.assets, parent=base.a2dTopRight, say=self.say) if self.assets else None
        if self.tuner is not None:
            self._built.append(self.tuner.destroy)
        self.curves = CurvePanel(base.a2dBottomLeft)
        self._built.append(self.curves.destroy)
        self.editor = CurveEditor(self.curves, self.tuner, base.mouseWatcherNode, base.render2d, self.warper,
                                  StandIn(self.actor, render), lambda: self.time.paused, self.say)
        self._built.append(self.editor.destroy)
        #: How far from the near face (or marker) each clip was authored (its first target ahead of where it
        #: starts, read from the asset, within the `traversal.distance` range the asset accepts): where the
        #: autopilot starts it, by clip.
        self.authored_distance = {asset.clip: _start_distance(asset) for asset in self.assets.values()}
        self.authored_distance.update({mirrored_name(asset.clip): self.authored_distance[asset.clip]
                                       for asset in self.assets.values() if asset.clip in self.mirrored_clips})
        #: Where the autopilot gives up on an obstacle no clip can take.
        self.skip_distance = max(self.authored_distance.values(), default=0.0)
        #: Hooks for reports: on_start(obstacle name, interaction, warp) and on_skip(obstacle name, reason).
        self.on_start = self.on_skip = None
        #: The last refusal of each obstacle, by name.
        self.last_refusal = {}
        self._landings_said = 0
        #: The last warp played (its results are the arrival errors the HUD shows) and its interaction.
        self.last_warp = self.last_interaction = None
        #: The last clip the compare key (C) played unwarped, with the targets it did not aim at.
        self.comparison = None
        self._phase_said = None   # the status line of the phase in progress, until the warp ends
        self._offered = None      # (where the character was asked about, the assets, the answer): see offer()
        self.debug = DebugView(render)
        self._built.append(self.debug.destroy)
        self.autopilot = Autopilot(self, scene.autopilot) if autopilot and scene.autopilot else None
        self.keys = KeyInput(base.mouseWatcherNode, base.buttonThrowers or ())
        self.accept("space", self.interact)
        self.accept("e", self.dodge)
        self.accept("escape", self.base.userExit)
        self.hud = Hud(base, KEYS + (TUNER_KEYS + EDITOR_KEYS if self.tuner is not None else ()))
        self._built.append(self.hud.destroy)
        self.status, self.prompt = self.hud.status, self.hud.prompt
        if self.tuner is not None:
            self.hud.wrap(self.tuner.text, 0.5)
        self.accept("f1", self.hud.toggle_help)
        self.accept("f2", self.debug.toggle)
        self.accept("f3", self.toggle_panels)
        self.show_panels(False)   # the first view shows the character and what it meets: F3 opens the editor
        self.accept("c", self.compare)
        self.time = TimeControl()
        self.accept("t", self.time.next_speed)
        self.accept("p", self.time.toggle_pause)
        self.accept(".", self.time.step)
        base.disableMouse()
        base.setBackgroundColor(*looks.clear_color(SKY_COLOR))
        self.camera = None
        if base.camera is not None:  # there is none with window-type none
            views = self.AUTOPILOT_VIEWS if autopilot else self.VIEWS
            offset, look_height = framed(views[view], self.height)
            self.camera = OrbitCamera(base.camera, self.actor, self.probe, base.mouseWatcherNode, view=offset,
                                      follow=autopilot, look_height=look_height, lens=base.camLens)
            self.camera.mouse_taken = lambda: self.editor.holds_mouse
            self.accept("wheel_up", self.camera.zoom, [-0.5])
            self.accept("wheel_down", self.camera.zoom, [0.5])
            self._camera_time = base.clock.getRealTime()
            self.addTask(self._camera_task, "demo-camera", sort=47)
            self.camera.update(snap=True)
        self.addTask(self._input_task, "demo-input", sort=39)     # before the controller (40)
        self.addTask(self._hud_task, "demo-hud", sort=48)         # before render (50)
        self.accept(PHASE_START, self._phase_started)
        self.accept(FINISHED, self._warp_ended)
        self.accept(CANCELLED, self._warp_ended)
        self.accept(BLEND_OUT, self._warp_fading)

    @property
    def done(self):
        """True once the autopilot has reached its last waypoint (or was stopped) and nothing is playing."""
        return self.autopilot is not None and self.autopilot.done

    def say(self, text):
        show_text(self.status, text)

    def _phase_started(self, warper, name, index):
        warp = warper.current
        if self.comparison is not None and self.comparison.warp is warp:
            self._phase_said = f"{warp.asset.clip} unwarped: phase {name} on the clip's own root motion"
        else:
            self._phase_said = f"{warp.asset.clip}: phase {name} at play rate {warper.play_rate:.2f}"
        self.say(self._phase_said)

    def _warp_fading(self, warper, clip, seconds):
        """A switch-off rule ends the warp with a fade: said when the rule fires, not when the fade ends."""
        if self.last_warp is not None and self.last_warp.switched_off is not None:
            self.say(f"{clip} switched off: {self.last_warp.switched_off}")

    def _warp_ended(self, warper, clip, reason=None):
        """The warp ended: its phase line goes (a cancel says why, a switch-off rule that it switched off)."""
        if reason is not None:
            switched_off = self.last_warp is not None and self.last_warp.switched_off is not None
            self.say(f"{clip} {'switched off' if switched_off else 'cancelled'}: {reason}")
        elif self.status.getText() == self._phase_said:
            self.say("")
        self._phase_said = None

    def interact(self, within=None):
        """Vault or mantle what is in front of the character, or say why not.

        `within` (the autopilot's) maps a clip (None for a refusal) to the farthest distance
        from the face at which to act; nothing happens farther away.
        """
        if self.warper.is_warping or self.controller.airborne:
            return False
        found = self.offer()
        if found.node is None:
            if within is None:  # a player pressed Space
                self.say(found.reason)
            return False
        clip = found.asset.clip if found else None
        if within is not None and found.distance > within(clip):
            return False
        if within is not None and not found and found.too_far:
            return False   # farther than the clip stretches (design 7): the autopilot comes closer first
        name = self.obstacle_name(found.node)
        if not found:
            return self._skip(name, found.reason)
        try:
            warp = self._play(found.asset, found.targets)
        except WarpRefused as refusal:
            return self._skip(name, f"{clip} refused: {refusal.reason}")
        self.movers.interaction_started(found.node)
        self.last_interaction = found
        if self.on_start is not None:
            self.on_start(name, found, warp)
        return True

    def toggle_panels(self):
        """F3: show or hide the curve panel and the tuner's panel (hidden at start, for room to watch)."""
        self.show_panels(not self.curves.visible)

    def show_panels(self, visible):
        self.curves.set_visible(visible)
        if self.tuner is not None and self.tuner.text is not None:
            if visible:
                self.tuner.text.show()
            else:
                self.tuner.text.hide()

    def dodge(self):
        """Play the character's dodge with its own root motion (a warp aimed where the clip goes anyway)."""
        clip = self.character.clips.get("dodge")
        if clip is None:
            self.say(f"E dodges, but {self.character.path} names no dodge clip (clips.dodge)")
            return False
        if self.warper.is_warping or self.controller.airborne:
            return False
        asset = WarpAsset.from_dict(
            {"format": "motionwarp.asset/1", "model": self.character.model_path, "clip": clip,
             "root_joint": self.character.root_joint, "root_mode": self.character.root_mode,
             "phases": [{"name": "dodge", "start": 0.0, "end": self.warper.driver.track(clip).duration}]},
            self.character.path)
        self._play(*unwarped(asset, self.actor, self.base.render))
        self.last_interaction = None
        return True

    def compare(self):
        """Play what Space would play, with warping off: the clip's own root motion from here."""
        if self.warper.is_warping or self.controller.airborne:
            return False
        found = self.offer()
        if not found:
            self.say(found.reason)
            return False
        try:
            warp = self._play(*unwarped(found.asset, self.actor, self.base.render))
        except WarpRefused as refusal:
            self.say(f"{found.asset.clip} unwarped refused: {refusal.reason}")
            return False
        self.comparison = Comparison(warp, found.asset, found.targets, self.actor, self.base.render)
        self.last_interaction = found
        self.say(f"compare: {found.asset.clip} unwarped (its own root motion)")
        return True

    def _play(self, asset, targets):
        """Start a warp through the controller, and its trails in the debug view."""
        start = self.actor.getTransform(self.base.render)
        self.last_warp = self.controller.play(asset, targets)
        self.debug.warp_started(self.last_warp, start)
        return self.last_warp

    def asset_name(self, asset):
        """The character file's name of `asset`: the asset itself, one loaded from the same file, or its
        mirrored twin. Two assets on one clip, like jump_onto and jump_gap on running_jump, stay apart."""
        for name, known in self.assets.items():
            if known is asset or (known.path is not None and known.path == asset.path
                                  and asset.clip in (known.clip, mirrored_name(known.clip))):
                return name
        raise ValueError(f"{asset.clip!r} ({asset.path}) is none of the character's warp assets ({', '.join(self.assets)})")

    def obstacle_name(self, node):
        """The scene obstacle a probed node belongs to (its own name when it is not one of them): the
        nearest of its ancestors that is one, looked up (a scan of 5,000 obstacles cost 0.4 ms a frame)."""
        names, above = self._obstacle_names, node
        while not above.isEmpty():
            name = names.get(above)
            if name is not None:
                return name
            above = above.getParent()
        return node.getName()

    def obstacle_ahead(self, reach=1.0):
        """The scene node right in front of the character's chest, hips or shins, within `reach` metres (None
        when nothing is): what blocks it when the providers name nothing (a character without warp assets)."""
        render = self.base.render
        feet, ahead = self.actor.getPos(render), self.actor.getQuat(render).getForward() * reach
        for fraction in BLOCK_PROBE_HEIGHTS:
            start = feet + Vec3(0, 0, fraction * self.height)
            hit = self.probe.ray(start, start + ahead)
            if hit is not None:
                return hit.node
        return None

    def offer(self):
        """The providers' find in front of the character (an Interaction or a Refusal), None while warping.

        Asked once for where the character stands: the HUD asks after the frame's move, and the
        autopilot's and Space's questions before the next move get that answer again, until the
        character moves or turns, the probe changes, or the assets or the warper's settings do."""
        if self.warper.is_warping:
            return None
        render = self.base.render
        asked = (tuple(self.actor.getPos(render)), self.actor.getH(render), self.actor.getSx(render), self.probe.version,
                 tuple(vars(self.warper.settings).values()))
        assets = tuple(self.assets.values())
        kept = self._offered
        if kept is not None and kept[0] == asked and len(kept[1]) == len(assets) and all(
                a is b for a, b in zip(kept[1], assets)):
            return kept[2]
        found = self.traversal.find(self.actor)
        self._offered = (asked, assets, found)
        return found

    def prompt_text(self, found=None):
        """What Space would do now (`found`: the offer, when already asked), or why not."""
        found = found if found is not None else self.offer()
        if found is None:
            return ""
        if found.node is None:
            return f"Space: {found.reason}"
        name = self.obstacle_name(found.node)
        if not found:   # the providers ask the warper's own refusal rules (design 7): an offer plays
            return f"{name}: {found.reason}"
        return offer_line(found, name)

    def playing_clip(self):
        """The clip that moves the character: the warp's, else the heaviest locomotion clip."""
        if self.warper.current is not None:
            return self.warper.current.asset.clip
        weights = self.controller.locomotion.weights
        return max(weights, key=weights.get)

    def _skip(self, name, reason):
        self.say(f"{name}: {reason}")
        self.last_refusal[name] = reason
        if self.on_skip is not None:
            self.on_skip(name, reason)
        return False

    def _input_task(self, task):
        """The autopilot, or the keys read relative to the camera, set where the character goes."""
        if self.autopilot is not None:
            self.autopilot.update(self.base.clock.getDt())
            return task.cont
        right, forward = self.keys.stick()
        h = math.radians(self.camera.heading if self.camera is not None else 0.0)
        direction = Vec3(math.cos(h), math.sin(h), 0) * right + Vec3(-math.sin(h), math.cos(h), 0) * forward
        if direction.lengthSquared() > 0:
            direction.normalize()
        self.controller.direction, self.controller.running = direction, self.keys.down("run")
        return task.cont

    def _camera_task(self, task):
        """The camera follows in real time, in slow motion and paused too (the clock's dt is scaled then)."""
        clock = self.base.clock
        now = clock.getRealTime()
        self.camera.update(dt=now - self._camera_time if clock.getMode() == ClockObject.MDegrade else clock.getDt())
        self._camera_time = now
        return task.cont

    def _hud_task(self, task):
        """The prompt, falls and landings, and the curve panel (the warp in progress, else the edited asset)."""
        landings = self.controller.landings
        if self.controller.airborne:
            self.say("falling")
        elif landings and self._landings_said != len(landings):
            self._landings_said = len(landings)
            self.say(f"landed after falling {landings[-1][0]:.2f} m")
        found = self.offer()
        show_text(self.prompt, self.prompt_text(found))
        self.curves.keep_above(self.hud.stack())
        self.debug.update(self.actor, self.warper.is_warping, found if found is not None else self.last_interaction)
        self.time.frame_done()
        self.hud.show_info(self.playing_clip(), self.warper, self.last_warp, self.time.describe(), self.comparison)
        self.editor.update(self.warper.current, found)
        return task.cont

    def destroy(self):
        """Remove everything the demo added (tasks, handlers, HUD, the character, the level)."""
        self.ignoreAll()
        self.removeAllTasks()
        while self._built:
            self._built.pop()()

    def _remove_actor(self):
        self.actor.cleanup()
        self.actor.removeNode()


#: How far ahead the demo looks for a ledge to jump onto: the running jump takes off 1.7 m before it.
JUMP_REACH = 3.5


def _start_distance(asset):
    """Where the autopilot starts `asset`'s clip: as far from its first target as the clip was authored
    (a clip authored in place starts wherever the warp carries it: up close), moved into the asset's own
    `traversal.distance` range when it has one."""
    authored = max(authored_target(asset, 0).y, UP_CLOSE)
    accepted = asset.traversal.distance if asset.traversal is not None else None
    return authored if accepted is None else min(max(authored, accepted[0]), accepted[1])


#: The asset kinds TraversalProvider offers, and so may offer mirrored.
TRAVERSAL_PROVIDER_KINDS = frozenset(provider.kind for provider in TraversalProvider.KINDS)


def _mirror_traversal_clips(actor, assets):
    """Give `actor` each traversal asset's clip mirrored (`mirror_clip`, its joints paired by their names);
    returns the source clips mirrored. A skeleton whose sides the names do not pair (a joint without its
    partner) gets none: its providers offer the source assets only."""
    clips = sorted({asset.clip for asset in assets.values()
                    if asset.traversal is not None and asset.traversal.kind in TRAVERSAL_PROVIDER_KINDS})
    try:
        for clip in clips:
            mirror_clip(actor, clip)
    except UsageError:
        return frozenset()
    return frozenset(clips)


def _providers(probe, assets, space, warp_settings, mirrored=False, moving=(), character=None):
    """One chooser over the providers the assets serve: vault and mantle, jumps, markers (issue 17),
    each answering as a warper with `warp_settings` would play. With `mirrored` (the actor has the
    traversal clips mirrored), vault, mantle and jump over offer the mirrored twin by the edge's side.
    The markers on the `moving` nodes (the scene's movers) are followed while their warps play."""
    kinds = {asset.traversal.kind for asset in assets.values() if asset.traversal is not None}
    providers = []
    if kinds & TRAVERSAL_PROVIDER_KINDS:
        providers.append(TraversalProvider(probe, assets.values(), space=space, warp_settings=warp_settings,
                                           mirrored=mirrored))
    if kinds & set(JUMP_KINDS):
        providers.append(JumpProvider(probe, assets.values(), space=space, reach=JUMP_REACH,
                                      warp_settings=warp_settings))
    if kinds & set(MARKER_KINDS):
        # as far as a jump reaches: a marker on a prop is seen (too far, until closer) before the
        # jump onto that prop is offered, so the chooser offers what the marker names
        providers.append(MarkerProvider(probe, space, assets.values(), space=space, reach=JUMP_REACH,
                                        warp_settings=warp_settings, moving=moving))
    return InteractionChooser(providers, space=space) if providers else _NoTraversal(character)


class _NoTraversal:
    """The traversal provider of a character without warp assets: it never finds anything, and says
    which file would list them."""

    def __init__(self, character):
        self.refusal = Refusal(f"this character has no warp assets to vault or mantle with ({character} lists none "
                               "in warp_assets; `python -m motionwarp author` writes them)")

    def find(self, actor):
        return self.refusal
