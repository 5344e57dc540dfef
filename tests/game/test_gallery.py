"""The README gallery: each GIF comes from a committed input script for a shipped level, and is small."""
from PIL import Image

from ropework import script
from tests.conftest import LEVELS, ROOT

SCRIPTS = ROOT / "docs" / "scripts"
GALLERY = ROOT / "docs" / "img" / "gallery"
MAX_BYTES = 1_200_000   # the busiest scene (cloth) is ~1.1 MB; the rest are a few hundred KB


def test_every_gallery_gif_has_its_level_script_and_is_in_the_readme():
    readme = (ROOT / "README.md").read_text("utf-8")
    gifs = sorted(GALLERY.glob("*.gif"))
    assert gifs
    for gif in gifs:
        assert (LEVELS / f"{gif.stem}.toml").is_file(), gif
        events = script.parse(SCRIPTS / f"{gif.stem}.txt")      # parses, or raises with file:line
        assert events.last < 120
        assert f"docs/img/gallery/{gif.name}" in readme
        im = Image.open(gif)
        assert im.size == (480, 270) and im.n_frames <= 120 and gif.stat().st_size <= MAX_BYTES
