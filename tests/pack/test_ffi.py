"""Host (FFI) functions: BAML functions whose calls run Python callables."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import ingot
from ingot.cli import main

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

SOURCE = """
class Image {
  path string
}
function LoadImage(path: string) -> Image {
  @@ingot(host="hostlib:load_image")
  Image { path: path }
}
function Width(image: Image) -> int {
  @@ingot(host="hostlib:image_width")
  0
}
function Total(paths: string[]) -> int {
  let total = 0;
  for (let p in paths) {
    total += Width(LoadImage(p));
  }
  total
}
"""


def test_source_targets_are_imported_only_when_allowed() -> None:
    with pytest.raises(ingot.HostError, match="hostlib:load_image"):
        ingot.load(SOURCE)
    program = ingot.load(SOURCE, allow_hosts=True)
    # Opaque Python objects flow through BAML from one host function to the next.
    assert program.call("Total", paths=["a.png", "bb.png"]) == 50 + 60


@pytest.mark.parametrize("tier", ["interp", "compiled"])
def test_bind_from_python_and_unbound_calls(tier: str) -> None:
    src = 'function Scale(x: float) -> float {\n  @@ingot(host)\n  x\n}\nfunction Twice(x: float) -> float {\n  Scale(x) * 2.0\n}\n'
    program = ingot.load(src)
    with pytest.raises(ingot.BamlError) as e:
        program.options(tier=tier).call("Twice", x=1.5)
    assert e.value.kind == "HostUnavailable" and "Scale" in e.value.message
    program.bind("Scale", lambda x: x * 10)
    assert program.options(tier=tier).call("Twice", x=1.5) == 30.0


def test_any_function_can_be_bound_and_host_failures_are_panics() -> None:
    program = ingot.load("function F(x: int) -> int { x + 1 }\nfunction G(x: int) -> int { F(x) * 2 }\n")
    assert program.call("G", x=1) == 4
    program.bind("F", lambda x: 100)
    assert program.call("G", x=1) == 200

    def broken(x: int) -> int:
        raise ValueError("no such file")

    program.bind("F", broken)
    with pytest.raises(ingot.BamlError) as e:
        program.call("G", x=1)
    assert e.value.kind == "HostContractViolation" and "ValueError: no such file" in e.value.message


def test_cli_needs_allow_hosts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(HERE))
    path = tmp_path / "imgs.baml"
    path.write_text(SOURCE)
    refused = CliRunner().invoke(main, ["run", str(path), "Total", "--args", '{"paths": ["x"]}'])
    assert refused.exit_code == 1 and "--allow-hosts" in refused.stderr
    ran = CliRunner().invoke(main, ["run", str(path), "Total", "--args", '{"paths": ["x"]}', "--allow-hosts"])
    assert ran.exit_code == 0 and ran.stdout.strip() == "10"


def test_stripped_host_source_compiles_on_the_real_engine() -> None:
    bridge = pytest.importorskip("baml_bridge")
    from ingot.syntax.annotations import harvest
    from ingot.syntax.diagnostics import SourceFile

    bridge.BamlRuntime.initialize_runtime(".", {"main.baml": harvest(SourceFile("main.baml", SOURCE)).text})


def test_check_mir_and_explore_need_no_hosts(tmp_path: Path) -> None:
    path = tmp_path / "imgs.baml"
    path.write_text(SOURCE)
    for args in (["check", str(path)], ["mir", str(path)], ["explore", str(path), "Total", "--json"]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, (args, result.stderr)
