"""A clip inline in a notebook (``from render import show``, issue 34): a real notebook run by
nbclient on a real kernel shows the clip as a <video> with controls and its captions, and the
scene's numbers as tables; bad arguments are one clear message."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.render
def test_a_notebook_shows_the_clip_inline_with_its_numbers(tmp_path):
    import nbformat
    from nbclient import NotebookClient

    out = tmp_path / "clips"
    code = (f"import sys; sys.path.insert(0, {str(ROOT)!r})\n"
            "from tests import render_scenes; render_scenes.register()\n"
            "from render import show\n"
            f"show('tiny', quality='low', numbers_table=True, out={str(out)!r})")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)])
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = nb.cells[0].outputs
    shown = [o for o in outputs if o.get("output_type") == "execute_result"]
    assert len(shown) == 1, outputs
    page = shown[0]["data"]["text/html"]
    video = re.search(r'<video controls[^>]*src="data:video/mp4;base64,([^"]+)"', page)
    assert video, page[:500]
    # The embedded video is the rendered file, byte for byte, and its captions ride along.
    assert base64.b64decode(video.group(1)) == (out / "tiny.mp4").read_bytes()
    assert '<track kind="captions"' in page and "data:text/vtt;base64," in page
    # The numbers the scene shows: h_T's values, as on screen, in a table.
    assert "<table>" in page and "encoder.context" in page


def test_bad_arguments_are_one_clear_message(tmp_path):
    from publish.targets.notebook import show

    with pytest.raises(ValueError, match=r"^unknown scene id 'nope' \(valid: "):
        show("nope", out=tmp_path)
    with pytest.raises(ValueError, match=r"^unknown quality 'ultra'"):
        show("encoder", quality="ultra", out=tmp_path)
    with pytest.raises(ValueError, match=r"^unknown theme 'sepia'"):
        show("encoder", theme="sepia", out=tmp_path)
    bad = tmp_path / "bad.toml"
    bad.write_text("[dot_product]\nmovie = [99, 0, 0]\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"^numbers file .*bad\.toml: dot_product\.movie\[0\]: expected a number from -10 to 10, got 99$"):
        show("dot_product", numbers=bad, out=tmp_path)
