"""Each key's effect, through the same Controller the window forwards its keys and frames to."""
import arcade
import esper
import numpy as np
import pytest
from PIL import Image

from ropework import level
from ropework.components import Pins, Points
from ropework.components.frame import STEP
from ropework.controller import BANNER_SECONDS, HINT, HINT_SECONDS, Controller
from ropework.render import Offscreen
from ropework.stats import count_draws, elements

K = arcade.key


@pytest.fixture
def ctl(scenes, tmp_path):
    c = Controller(scenes("rope.toml", size=(480, 270)), out_dir=tmp_path)
    yield c
    c.finish()
    c.scene.close()


def wait(ctl, seconds):
    """Let ``seconds`` of 60 fps frames pass (messages time out by frame time, a stalled frame counting little)."""
    for _ in range(round(seconds / STEP) + 1):
        ctl.update(STEP)


def drag_tip(scene):
    (_, pts), = scene.find(Points)
    x, y = pts.pos[-1]
    scene.pointer_down(x, y)
    for k in range(10):
        scene.pointer_move(x + 20 * k, y - 5 * k)
        scene.step(1)
    scene.pointer_up(x + 200, y - 50)


def test_first_start_shows_the_help_hint_and_the_title(ctl):
    assert ctl.status == HINT and ctl.banner == "Verlet rope"
    wait(ctl, BANNER_SECONDS)
    assert ctl.banner == ""


def test_h_and_f1_toggle_help_f_toggles_stats(ctl):
    assert not ctl.show_help
    ctl.press(K.H)
    assert ctl.show_help
    ctl.press(K.F1)
    assert not ctl.show_help
    ctl.press(K.F)
    assert ctl.show_stats
    lines = ctl.stats.splitlines()
    assert lines[0] == "Verlet rope"
    assert any("FPS" in s for s in lines) and any("ms per step" in s for s in lines)
    assert f"{ctl.scene.point_count} elements (points {ctl.scene.point_count})" in lines
    assert any(s.endswith(("draw calls", "draw call")) for s in lines)


def test_space_pauses_and_period_steps_once(ctl):
    ctl.update(STEP * 1.01)
    assert ctl.scene.frame.steps == 1
    ctl.press(K.SPACE)
    assert ctl.update(STEP * 3.01) == 0 and ctl.scene.frame.steps == 1
    wait(ctl, HINT_SECONDS)                   # the start hint has gone: the pause shows instead
    assert ctl.status.startswith("paused") and ctl.scene.frame.steps == 1
    ctl.press(K.PERIOD)
    assert ctl.scene.frame.steps == 2
    ctl.press(K.SPACE)
    ctl.press(K.PERIOD)                       # only while paused
    assert ctl.scene.frame.steps == 2
    assert ctl.update(STEP * 1.01) == 1 and ctl.scene.frame.steps == 3


def test_r_resets_to_the_start_state(ctl, scenes):
    fresh = scenes("rope.toml", size=(480, 270)).state_hash()
    drag_tip(ctl.scene)
    assert ctl.scene.state_hash() != fresh
    ctl.press(K.R)
    assert ctl.scene.state_hash() == fresh


def test_t_toggles_the_theme(ctl):
    assert ctl.scene.theme == "light"
    ctl.press(K.T)
    assert ctl.scene.theme == ctl.scene.frame.theme == "dark"
    ctl.press(K.T)
    assert ctl.scene.theme == "light"


def test_m_toggles_reduced_motion_through_resets_and_level_switches(ctl):
    assert not ctl.scene.frame.reduced_motion
    ctl.press(K.M)
    assert ctl.scene.reduced_motion and ctl.scene.frame.reduced_motion and "reduced motion on" in ctl.status
    ctl.press(K.R)
    assert ctl.scene.frame.reduced_motion
    ctl.press(K.N)
    assert ctl.scene.frame.reduced_motion
    ctl.press(K.M)
    assert not ctl.scene.frame.reduced_motion


def test_n_and_p_cycle_the_shipped_levels_in_one_window(ctl):
    shipped = [p.resolve() for p in level.shipped()]
    start = shipped.index(ctl.scene.level.path.resolve())
    seen = []
    for _ in shipped:
        old = ctl.scene.world
        ctl.press(K.N)
        assert old not in esper.list_worlds()            # the old scene is closed
        seen.append(ctl.scene.level.path.resolve())
        assert ctl.banner == ctl.scene.level.title       # the new title shows ...
        assert (ctl.scene.width, ctl.scene.height) == (480, 270)
    assert seen == shipped[start + 1:] + shipped[:start + 1]
    wait(ctl, BANNER_SECONDS)
    assert ctl.banner == ""                              # ... briefly
    ctl.press(K.P)
    assert ctl.scene.level.path.resolve() == shipped[start - 1]
    assert ctl.revision == len(shipped) + 1


def test_number_keys_open_a_level_by_its_list_number(ctl):
    shipped = [p.resolve() for p in level.shipped()]
    ctl.press(K.KEY_2)
    assert ctl.scene.level.path.resolve() == shipped[1]
    ctl.press(K.NUM_1)
    assert ctl.scene.level.path.resolve() == shipped[0]
    if len(shipped) < 9:
        world = ctl.scene.world
        ctl.press(K.KEY_9)
        assert ctl.scene.world == world and "no level 9" in ctl.status


def test_s_saves_a_png_of_the_next_drawn_frame(ctl, gl_window, tmp_path, capsys):
    off = Offscreen(gl_window.ctx, (480, 270))
    off.render(ctl.scene)
    ctl.press(K.S)
    ctl.frame(STEP, off.image)
    (png,) = tmp_path.glob("ropework-rope-*.png")
    assert Image.open(png).size == (480, 270)
    assert f"saved {png}" in capsys.readouterr().out and ctl.status == f"saved {png}"
    ctl.press(K.S)
    ctl.frame(STEP, off.image)
    assert len(list(tmp_path.glob("*.png"))) == 2        # never overwrites


def test_g_records_the_screen_to_a_gif_that_plays_in_real_time(ctl, tmp_path):
    drawn = iter(range(1000))

    def grab():                                          # every frame differs, so none merge
        return Image.new("RGB", (64, 36), (next(drawn) * 3 % 256, 40, 90))
    ctl.press(K.G)
    assert "REC" in ctl.status
    for _ in range(60):                                  # 1 s of 60 fps drawing
        ctl.update(STEP)
        ctl.frame(STEP, grab)
    ctl.press(K.G)
    ctl.finish()
    (gif,) = tmp_path.glob("ropework-rope-*.gif")
    im = Image.open(gif)
    durations = []
    for i in range(im.n_frames):
        im.seek(i)
        durations.append(im.info["duration"])
    assert im.n_frames == 50                             # 50 fps at most: 60 drawn frames give 50
    assert all(d >= 20 for d in durations) and abs(sum(durations) - 1000) <= 20
    assert "saved" in ctl.status


def test_g_records_slow_frames_with_their_real_durations(ctl, tmp_path):
    ctl.press(K.G)
    for i in range(10):                                  # 10 fps drawing for 1 s
        ctl.frame(0.1, lambda: Image.new("RGB", (32, 18), (i * 20, 0, 0)))
    ctl.press(K.G)
    ctl.finish()
    (gif,) = tmp_path.glob("*.gif")
    im = Image.open(gif)
    assert im.n_frames == 10
    im.seek(3)
    assert im.info["duration"] == 100


def test_esc_asks_to_quit(ctl):
    assert not ctl.quit
    assert ctl.press(K.ESCAPE) and ctl.quit
    assert not ctl.press(K.Z)                            # unbound keys do nothing


def test_element_counts_and_draw_calls(scenes, gl_window):
    rope = scenes("rope.toml", size=(480, 270))
    assert elements(rope) == {"points": rope.point_count}
    dots = scenes("dotgrid.toml", size=(500, 300))
    assert elements(dots) == {"dots": 10 * 6}            # ceil(500/50) × ceil(300/50)
    with count_draws() as calls:
        Offscreen(gl_window.ctx, (480, 270)).render(rope)
    assert calls[0] >= 1


def test_a_splatted_dot_grid_counts_its_composite_as_a_draw_call(scenes, gl_window, tmp_path, monkeypatch):
    """A dense grid painted on the CPU reaches the framebuffer in one read-back composite, without a
    Geometry: the overlay says 1 draw call, not 0."""
    from ropework.systems.dotgrid import draw_dots
    from tests.dots import dot_level
    monkeypatch.setattr(draw_dots, "splat_pays", lambda *a: True)
    dots = scenes(dot_level(tmp_path, gap=12), size=(480, 270))
    dots.step(2)
    with count_draws() as calls:
        Offscreen(gl_window.ctx, (480, 270)).render(dots)
    assert calls[0] == 1


@pytest.mark.parametrize("path", level.shipped(), ids=lambda p: p.stem)
def test_resizing_relays_every_level_even_to_nothing(path, scenes, gl_window):
    scene = scenes(path, size=(640, 360))
    for w, h in ((1000, 500), (1, 1), (0, 0), (200, 700)):
        scene.resize(w, h)
        assert (scene.width, scene.height) == (max(1, w), max(1, h))
        scene.step(3)
        Offscreen(gl_window.ctx, (max(1, w), max(1, h))).render(scene)
        for _, pts in scene.find(Points):
            assert np.isfinite(pts.pos).all()


def test_rope_anchors_keep_their_fractions_across_resizes(scenes):
    scene = scenes("rope.toml", size=(640, 360))
    fractions = [r["anchor"] for r in scene.level.layers[0]["rope"]]
    for w, h in ((1000, 500), (300, 900)):
        scene.resize(w, h)
        (_, pins), = scene.find(Pins)
        assert np.allclose(pins.anchor[:, 0], np.array(fractions) * w)
