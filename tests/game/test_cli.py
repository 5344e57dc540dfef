"""The command line: --record, --list, --help, bad arguments, no display."""
import os
import subprocess
import sys

from PIL import Image

from tests.conftest import LEVELS, ROOT


def run(*args, env=None):
    e = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, "-m", "game", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=300, env=e)


def test_record_gif_has_n_frames_and_follows_the_script(tmp_path):
    script = tmp_path / "in.txt"
    script.write_text("# grab and swing\n0 move 400 300\n2 down 400 290\n2-12 move 400 290 600 350\n12 up 600 350\n")
    out = tmp_path / "rope.gif"
    r = run(str(LEVELS / "rope.toml"), "--record", str(out), "--frames", "24", "--input", str(script),
            "--size", "800x600")
    assert r.returncode == 0, r.stderr
    im = Image.open(out)
    assert im.n_frames == 24 and im.size == (800, 600)
    im.seek(12)
    a = im.convert("RGB")
    im.seek(0)
    assert list(a.getdata()) != list(im.convert("RGB").getdata())   # the drag changed the picture


def test_record_png(tmp_path):
    out = tmp_path / "rope.png"
    r = run(str(LEVELS / "rope.toml"), "--record", str(out), "--frames", "2", "--size", "320x240")
    assert r.returncode == 0, r.stderr
    assert Image.open(out).size == (320, 240)


def test_list_and_help():
    r = run("--list")
    assert r.returncode == 0 and "rope.toml" in r.stdout and "Verlet rope" in r.stdout
    r = run("--help")
    assert r.returncode == 0 and "--record" in r.stdout


def test_bad_arguments_are_one_line_and_exit_2(tmp_path):
    for args in (["--size", "big"], ["--frames", "-4"], ["--record", str(tmp_path / "x.bmp")], ["--bogus"]):
        r = run(*args)
        assert r.returncode == 2, args
        assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr, (args, r.stderr)


def test_bad_input_script_is_one_line(tmp_path):
    script = tmp_path / "in.txt"
    script.write_text("0 move 1 2\n5 jump 3 4\n")
    r = run(str(LEVELS / "rope.toml"), "--record", str(tmp_path / "o.gif"), "--frames", "3", "--input", str(script))
    assert r.returncode == 2
    assert r.stderr.strip() == f"ropework: {script}:2: expected an event among move, down, up, leave, found 'jump'"


def test_without_a_display_it_says_how_to_record():
    env = {k: "" for k in ("DISPLAY", "WAYLAND_DISPLAY", "ARCADE_HEADLESS")}
    r = run(str(LEVELS / "rope.toml"), env=env)
    assert r.returncode == 2
    assert "no display" in r.stderr and "--record" in r.stderr and len(r.stderr.strip().splitlines()) == 1
