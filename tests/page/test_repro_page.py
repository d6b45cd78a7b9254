"""The "Reproduce" snippets: one template per column on the page, one call per failing row."""

from __future__ import annotations

import pytest
from page_support import soup, warnings

from sphinx_kexport.snapshot.repro import CALL_SLOT, TITLE_SLOT, fill_template, repro_code, repro_templates


@pytest.fixture(scope="module")
def html(build_once):
    return build_once("features", "html")


def _templates(page) -> dict[str, str]:
    holder = page.select_one("template.kx-repro-tpl")
    # strings inside <template> are not page text for BeautifulSoup's get_text()
    return {pre["data-k"]: str(pre.string) for pre in holder.select("pre[data-k]")}


def test_templates_filled_are_exactly_repro_code():
    call = "import torch\nfn = torch.relu\ninputs = (torch.rand(2),)"
    templates = repro_templates([("cpu", "onnx"), ("cuda", "compile")], {"cpu": 18, "cuda": 20})
    assert set(templates) == {"onnx-cpu", "compile-cuda", "compare", "compare-random"}
    assert all(CALL_SLOT in templates[k] and TITLE_SLOT in templates[k] for k in ("onnx-cpu", "compile-cuda"))
    assert fill_template(templates["onnx-cpu"], call, "relu") == repro_code(call, "onnx", "cpu", 18, "relu")
    assert fill_template(templates["onnx-cpu"], call, "relu", check=False) == \
        repro_code(call, "onnx", "cpu", 18, "relu", check=False)
    assert fill_template(templates["compile-cuda"], call + "\n\n", "relu") == \
        repro_code(call, "compile", "cuda", 20, "relu")


def test_the_snippet_imports_torch_once():
    probe_call = "import torch\nimport kornia\nfn = kornia.color.rgb_to_grayscale\ninputs = (torch.rand(1, 3, 4, 4),)"
    code = repro_code(probe_call, "export", "cpu")
    assert code.splitlines().count("import torch") == 1
    assert code.index("import torch") < code.index("import kornia") < code.index("torch.export.export")
    # a call that does not import torch itself still runs: the snippet's own import comes first
    bare = repro_code("fn = torch.relu\ninputs = (torch.rand(2),)", "export", "cpu")
    assert bare.splitlines().count("import torch") == 1 and "fn = torch.relu" in bare
    compile(code, "repro", "exec")


def test_the_page_carries_one_inert_template_per_column(html):
    assert warnings(html) == ""
    page = soup(html)
    templates = _templates(page)
    assert set(templates) == {"onnx-cpu", "onnx-cuda", "export-cpu", "export-cuda", "compile-cpu", "compile-cuda",
                              "compare", "compare-random"}  # the comparison a row's check flag picks
    assert "opset_version=18" in templates["onnx-cpu"] and "opset_version=20" in templates["onnx-cuda"]
    assert 'model = model.to("cuda")' in templates["export-cuda"]
    assert not page.select("div.body script[type='application/json']")


def test_failing_rows_with_a_call_offer_a_box_and_others_do_not(html):
    page = soup(html)
    boxes = {box.find_parent("tr")["id"]: box for box in page.select("table.kx-t details")}
    # failing and with a call: rgb_to_gray, hsv_to_rgb, warp_affine, warp_affine [fill]
    assert set(boxes) == {"kx-color-rgb-to-gray", "kx-color-hsv-to-rgb", "kx-geometry-warp-affine",
                          "kx-geometry-warp-affine-fill"}
    # solve fails but has no call; Affine and blur pass
    box = boxes["kx-color-rgb-to-gray"]
    assert box.select_one("summary").get_text() == "Reproduce"
    assert box.select_one("pre").get_text().startswith("import torch\nimport featurelib.color\nfn = ")
    assert box["data-n"] == "color.rgb_to_gray"


def test_the_call_stays_text(html):
    page = soup(html)
    box = page.select_one("tr#kx-geometry-warp-affine-fill details")
    assert "</script><script>alert(2)</script>" in box.select_one("pre").get_text()
    assert not box.select("script")


def test_no_call_no_template(build_once):
    page = soup(build_once("basic", "html"))
    assert page.select_one("template.kx-repro-tpl") is None
    assert not page.select("table.kx-t details")
