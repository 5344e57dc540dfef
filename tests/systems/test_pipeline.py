"""The frame order is declared once and esper runs exactly that order."""
import pytest

from ropework.systems import pipeline
from ropework.systems.pipeline import PipelineError, Registry, SystemSpec, order


@pytest.mark.parametrize("name", ["rope.toml", "moeru.toml", "tendrils.toml"])
def test_esper_runs_the_declared_order(scenes, name):
    scene = scenes(name)
    declared = [s.name for s in scene.systems() if s.stage != pipeline.RENDER]
    ran = []
    for proc in scene.processors:            # record each processor as esper calls it
        proc.process = (lambda real, n: lambda frame: (ran.append(n), real(frame)))(proc.process, proc.system_name)
    scene.step()
    assert ran == declared


def test_the_builtin_frame_is_the_table_in_order():
    """The built-in order is FRAME's rows: stages in order, the table's order inside each."""
    from ropework.systems import FRAME
    names = [name for _, name, _ in FRAME]
    assert [s.name for s in order(names)] == names
    assert [s.name for s in order(registry=pipeline.builtin_registry())] == names
    stages = [pipeline.STAGES.index(stage) for stage, _, _ in FRAME]
    assert stages == sorted(stages), "FRAME rows must be in stage order"
    assert names == ["autopilot", "orbit", "rehang", "pace", "input", "grab_card", "doze", "ripple",  # pinned:
                     "electrify", "blow", "breeze", "integrate", "drag_card", "repel",   # a reorder changes
                     "relax", "spring_card",                                              # physics and must
                     "emit_sparks", "fly_sparks",                                         # say so here
                     "draw_dots", "draw_lanyard", "draw_colliders", "draw_links", "draw_ropes",
                     "draw_tendrils", "draw_strain"]


def test_a_scene_runs_the_core_its_kinds_and_its_opt_ins(scenes):
    assert [s.name for s in scenes("rope.toml").systems()] == ["input", "integrate", "relax", "draw_colliders",
                                                                    "draw_ropes", "draw_strain"]
    assert [s.name for s in scenes("dotgrid.toml").systems()] == ["input", "ripple", "repel", "draw_dots"]
    moeru = [s.name for s in scenes("moeru.toml").systems()]
    assert "draw_ropes" not in moeru and "emit_sparks" not in moeru
    assert {"draw_dots", "draw_lanyard", "spring_card", "repel"} <= set(moeru)


def test_a_built_in_system_module_is_imported_only_by_a_scene_that_runs_it(tmp_path):
    import subprocess
    import sys
    code = ("import sys; from ropework.scene import Scene; s = Scene.load('rope', size=(320, 200)); s.step(); "
            "print(sorted(m for m in sys.modules if m.startswith('ropework.systems.') and "
            "m.count('.') == 2 and m.split('.')[2] not in ('pipeline', 'services')))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env={**__import__("os").environ, "ARCADE_HEADLESS": "1", "ROPEWORK_NO_PLUGINS": "1"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(["ropework.systems.draw_colliders", "ropework.systems.draw_ropes",
                                    "ropework.systems.draw_strain", "ropework.systems.input",
                                    "ropework.systems.integrate", "ropework.systems.relax"])


def test_opt_in_systems_run_only_where_named():
    r = _reg(("a", "relax", (), ()))
    r.add(SystemSpec("core", "input", type("C", (_P,), {}), default=True))
    assert pipeline.scene_systems(registry=r) == ["core"]
    assert pipeline.scene_systems(["a", "a"], registry=r) == ["core", "a"]


def test_a_plugin_system_goes_where_its_constraints_say_among_the_builtins():
    r = pipeline.builtin_registry()
    r.add(SystemSpec("wind", "integrate", _P, before=("integrate",)))
    r.add(SystemSpec("late", "integrate", type("L", (_P,), {})))
    names = [s.name for s in order(["input", "integrate", "blow", "electrify", "relax", "wind", "late"], registry=r)]
    assert names == ["input", "electrify", "blow", "wind", "integrate", "late", "relax"]


class _P:
    pass


def _reg(*specs):
    r = Registry()
    for name, stage, after, before in specs:
        r.add(SystemSpec(name, stage, type(name, (_P,), {}), tuple(after), tuple(before)))
    return r


def test_before_and_after_order_within_a_stage():
    r = _reg(("a", "relax", (), ()), ("b", "relax", (), ("a",)), ("c", "relax", ("a",), ()))
    assert [s.name for s in order(registry=r)] == ["b", "a", "c"]


def test_stage_order_beats_registration_order():
    r = _reg(("late", "emit", (), ()), ("early", "input", (), ()))
    assert [s.name for s in order(registry=r)] == ["early", "late"]


def test_cycle_unknown_duplicate_and_cross_stage_errors():
    with pytest.raises(PipelineError, match="cycle"):
        order(registry=_reg(("a", "relax", ("b",), ()), ("b", "relax", ("a",), ())))
    with pytest.raises(PipelineError, match="unknown system 'nope'"):
        order(registry=_reg(("a", "relax", ("nope",), ())))
    r = _reg(("a", "relax", (), ()))
    with pytest.raises(PipelineError, match="registered twice"):
        r.add(SystemSpec("a", "relax", type("Other", (), {})))
    with pytest.raises(PipelineError, match="cannot run after"):
        order(registry=_reg(("a", "emit", (), ()), ("b", "input", ("a",), ())))
    with pytest.raises(PipelineError, match="stage"):
        Registry().add(SystemSpec("x", "later", _P))
