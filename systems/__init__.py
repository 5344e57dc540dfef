"""Systems, one module each, named for the verb it performs — and the built-in frame.

The built-in frame is declared here, once, as a table: every built-in system, in
the order it runs. Stages run in `pipeline.STAGES` order; inside a stage the
table's order holds (as Bevy's ``.chain()``); a plugin's system places itself
with ``after=`` / ``before=`` (`pipeline.system`). A scene runs the `CORE`
systems, the systems its layers' kinds bring (`Kind.systems`), and the level's
opt-ins (``systems = [...]``): ``ropework frame LEVEL`` prints that list.

The table is data: nothing here imports a system module. A system's module is
imported when a scene that runs it is built, so loading a level for
``validate`` or ``--list`` touches neither OpenGL nor a kernel.
"""

# stage        system           module:class
FRAME = (
    ("input",     "autopilot",     "tendrils.autopilot:Steer"),           # tendrils: an idle pointer wanders
    ("input",     "orbit",         "tendrils.orbit:Orbit"),               # tendrils: the bundle circles the pointer
    ("input",     "rehang",        "lanyard.rehang:Rehang"),              # lanyard: a non-finite strap hangs again
    ("input",     "pace",          "lanyard.pace:Pace"),                  # lanyard: low-power cadence
    ("input",     "input",         "input:PointerInput"),                 # every scene: pointer events, grabs
    ("input",     "grab_card",     "lanyard.grab_card:GrabCard"),         # lanyard: press on the card
    ("input",     "doze",          "lanyard.doze:Doze"),                  # lanyard: a calm strap sleeps (sleep key)
    ("input",     "ripple",        "dotgrid.ripple:Ripple"),              # dot grid: an unclaimed click starts a ring
    ("integrate", "electrify",     "tendrils.electrify:Electrify"),       # tendrils: a held press shakes them
    ("integrate", "blow",          "tendrils.blow:Blow"),                 # tendrils: wind and the travelling wave
    ("integrate", "breeze",        "lanyard.breeze:BreezeSystem"),        # lanyard: a gentle wind (breeze key)
    ("integrate", "integrate",     "integrate:Integrate"),                # Verlet: gravity, damping, move
    ("integrate", "drag_card",     "lanyard.drag_card:DragCard"),         # lanyard: the held card follows the hand
    ("integrate", "repel",         "dotgrid.repel:Repel"),                # dot grid: pushes, rings and colours
    ("relax",     "relax",         "relax:Relax"),                        # Verlet: distance constraints, bounds
    ("relax",     "spring_card",   "lanyard.spring_card:SpringCard"),     # lanyard: the card's spring-back
    ("emit",      "emit_sparks",   "tendrils.emit_sparks:EmitSparks"),    # tendrils: fast tips throw sparks
    ("emit",      "fly_sparks",    "tendrils.fly_sparks:FlySparks"),      # tendrils: sparks fly and fade
    ("render",    "draw_dots",     "dotgrid.draw_dots:DrawDots"),
    ("render",    "draw_lanyard",  "lanyard.draw_lanyard:DrawLanyard"),
    ("render",    "draw_colliders", "draw_colliders:DrawColliders"),      # ropes, cloth: their [[layer.collider]]
    ("render",    "draw_links",    "draw_links:DrawLinks"),
    ("render",    "draw_ropes",    "draw_ropes:DrawRopes"),
    ("render",    "draw_tendrils", "tendrils.draw_tendrils:DrawTendrils"),
    ("render",    "draw_strain",   "draw_strain:DrawStrain"),             # ropes, cloth: links by stretch (B)
)

CORE = ("input",)   # systems every scene runs, whatever its kinds
