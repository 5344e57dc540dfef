"""One key table: the window's keys, the help overlay, --help and the README all come from game/keys.py."""
import arcade

from ropework import keys
from ropework.cli import parser
from ropework.controller import Controller
from tests.conftest import ROOT


def test_every_binding_names_real_keys_bound_once():
    codes = keys.codes()                    # raises on a key bound twice or a name arcade lacks
    chords = keys.chords()
    assert len(codes) + len(chords) == sum(len(b.keys) for b in keys.BINDINGS)
    assert codes[arcade.key.H] == codes[arcade.key.F1] == ("help", None)
    assert codes[arcade.key.KEY_1] == codes[arcade.key.NUM_1] == ("level", 0)
    assert codes[arcade.key.KEY_9] == ("level", 8)
    assert len({b.action for b in keys.BINDINGS}) == len(keys.BINDINGS)


def test_the_issue_keys_are_all_bound():
    k = arcade.key
    want = {k.H: "help", k.F1: "help", k.F: "stats", k.N: "next", k.P: "previous", k.SPACE: "pause",
            k.PERIOD: "step", k.R: "reset", k.T: "theme", k.M: "motion", k.S: "screenshot", k.G: "record",
            k.ESCAPE: "quit"}
    assert {code: keys.lookup(code)[0] for code in want} == want


def test_ctrl_chords_are_the_studio_keys_and_never_their_plain_key():
    k = arcade.key
    ctrl, shift = k.MOD_ACCEL, k.MOD_SHIFT
    assert keys.lookup(k.S, ctrl) == ("save", None)
    assert keys.lookup(k.S, ctrl | shift) == ("save_as", None)
    assert keys.lookup(k.Z, ctrl) == ("undo", None)
    assert keys.lookup(k.Z, ctrl | shift) == keys.lookup(k.Y, ctrl) == ("redo", None)
    assert keys.lookup(k.S) == ("screenshot", None) and keys.lookup(k.S, shift) == ("screenshot", None)
    assert keys.lookup(k.R, ctrl) is None           # Ctrl with an unbound key does nothing
    assert keys.lookup(k.E) == ("studio", None)


def test_readme_lists_exactly_the_key_table():
    readme = (ROOT / "README.md").read_text("utf-8")
    assert keys.markdown() in readme, "README key table is stale: paste `python -m ropework.keys` into 'Playing'"
    for b in keys.BINDINGS:
        assert f"| {b.label} | {b.doc} |" in readme


def test_help_text_lists_every_binding():
    text = " ".join(parser().format_help().split())        # argparse rewraps the epilog
    for b in keys.BINDINGS:
        assert f"{b.label}: {b.doc}" in text


def test_help_overlay_lists_every_bound_key(scenes):
    ctl = Controller(scenes("rope.toml", size=(320, 240)), out_dir=".")
    rows = ctl.help_rows()
    assert rows == [(b.label, b.doc) for b in keys.BINDINGS]
    labels = " ".join(label for label, _ in rows)
    for b in keys.BINDINGS:          # every bound key's label is on the overlay
        assert b.label in labels
