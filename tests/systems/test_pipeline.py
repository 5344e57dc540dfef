"""The frame order is declared once and esper runs exactly that order."""
import esper
import pytest

from systems import pipeline
from systems.pipeline import PipelineError, Registry, SystemSpec, order


def test_esper_runs_the_declared_order(scenes):
    scene = scenes("rope.toml")
    declared = [s.cls for s in order(pipeline.scene_systems(scene.level.systems)) if s.stage != pipeline.RENDER]
    with scene.active():
        assert [type(p) for p in esper._processors] == declared


def test_opt_in_systems_run_only_where_named():
    r = _reg(("a", "relax", (), ()))
    r.add(SystemSpec("extra", "emit", type("E", (_P,), {}), default=False))
    assert pipeline.scene_systems(registry=r) == ["a"]
    assert pipeline.scene_systems(["extra"], registry=r) == ["a", "extra"]


def test_builtin_stages_run_input_integrate_relax():
    names = [s.name for s in order()]
    assert names.index("input") < names.index("integrate") < names.index("relax")
    stages = [pipeline.STAGES.index(s.stage) for s in order()]
    assert stages == sorted(stages)


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
