"""The headless API: worlds per scene, determinism, reading state."""
import esper
import numpy as np

from ropework.components import Points


def drive(scene):
    (_, pts), = scene.find(Points)
    scene.pointer_move(300, 200)
    scene.pointer_down(*pts.pos[-1])
    for k in range(50):
        scene.pointer_move(500 + 7 * k, 300 - 3 * k)
        scene.step(1)
    scene.pointer_up(850, 150)
    scene.step(200)


def test_same_level_seed_and_input_give_bit_identical_state(scenes):
    a, b = scenes("rope.toml", seed=7), scenes("rope.toml", seed=7)
    drive(a)
    drive(b)
    sa, sb = a.arrays(), b.arrays()
    assert sa.keys() == sb.keys()
    for ent in sa:
        for comp in sa[ent]:
            for field in sa[ent][comp]:
                assert np.array_equal(sa[ent][comp][field], sb[ent][comp][field]), (comp, field)
    assert a.state_hash() == b.state_hash()


def test_each_scene_is_its_own_world_and_close_deletes_it(scenes):
    a = scenes("rope.toml")
    b = scenes("rope.toml")
    assert a.world != b.world and {a.world, b.world} <= set(esper.list_worlds())
    before = esper.current_world
    a.step(3)
    assert esper.current_world == before          # stepping leaves the caller's world current
    a.close()
    assert a.world not in esper.list_worlds()
    assert b.world in esper.list_worlds()


def test_reset_and_resize_rebuild_a_fresh_world(scenes):
    s = scenes("rope.toml", size=(800, 600))
    h0 = s.state_hash()
    drive(s)
    assert s.state_hash() != h0
    s.reset()
    assert s.state_hash() == h0
    s.resize(400, 300)
    (_, pts), = s.find(Points)
    assert pts.pos[:, 0].max() < 400
    assert s.width == 400 and s.height == 300


def test_arrays_names_components_and_fields(scenes):
    s = scenes("rope.toml")
    state = s.arrays()
    rope = next(c for c in state.values() if "Points" in c)
    assert set(rope["Points"]) == {"pos", "prev", "inv_mass"}
    assert rope["Points"]["pos"].dtype == np.float32 and rope["Points"]["pos"].shape == (69, 2)
    assert "Constraints" in rope and "Ropes" in rope
