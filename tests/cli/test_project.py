"""Projects: a directory of .baml files (or several files) is one program, through every command and
`ingot.load`. examples/refunds/baml_src is the realistic case: classes, enums, clients, functions and
tests in five files, LLM functions mocked for the tests, MCP tools marked with @@ingot(mcp.tool)."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from mcp import ClientSession, StdioServerParameters, stdio_client

import ingot
from ingot.cli import main

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ROOT / "examples" / "refunds"
SRC = PROJECT / "baml_src"
MOCK = f"ClassifyRequest=@{PROJECT / 'mocks' / 'classify.json'}"
FILES = ["clients.baml", "enums.baml", "functions.baml", "models.baml", "tests.baml"]

ANN = {"name": "Ann", "tier": "STANDARD"}
MUGS = [{"sku": "mug", "quantity": 2, "unit_price_cents": 1250}]


def order(**fields: Any) -> dict[str, Any]:
    return {"id": "A-1", "customer": ANN, "items": MUGS, "status": "DELIVERED", "days_since_delivery": 3} | fields


def request(**fields: Any) -> dict[str, Any]:
    return {"intent": "REFUND", "order_id": "A-1", "damaged": False, "summary": "refund"} | fields


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the example project to change."""
    return Path(shutil.copytree(PROJECT, tmp_path / "refunds"))


# -- ingot.load ---------------------------------------------------------------------------------------


def test_load_a_directory_compiles_every_file_as_one_program() -> None:
    program = ingot.load(SRC)
    assert [p.name for p in program.files] == FILES
    assert {"OrderTotal", "Decide", "Handle", "ClassifyRequest"} <= set(program.functions)
    assert program.call("OrderTotal", order=order()) == 2500
    assert program.call("Decide", order=order(), request=request()) == {
        "decision": "APPROVE", "refund_cents": 2500, "note": "refund approved"}
    assert ingot.load(str(SRC)).call("OrderTotal", order=order(items=[])) == 0  # a str path too


def test_load_several_files_is_one_program_and_a_file_alone_is_not_a_project() -> None:
    files = [SRC / name for name in FILES if name != "tests.baml"]
    assert ingot.load(files).call("Decide", order=order(status="CANCELLED"), request=request())["decision"] == "REJECT"
    with pytest.raises(ingot.CompileError) as info:
        ingot.load(SRC / "models.baml")
    assert {(d.code.value, d.span.file) for d in info.value.diagnostics} == {("E0002", "models.baml")}  # Tier


def test_diagnostics_and_traces_name_each_file(project: Path) -> None:
    models, functions = project / "baml_src" / "models.baml", project / "baml_src" / "functions.baml"
    models.write_text(models.read_text().replace("  tier Tier\n", "  tier Tiers\n"))
    functions.write_text(functions.read_text().replace("  let total = 0;\n", "  let total = \"0\";\n"))
    with pytest.raises(ingot.CompileError) as info:
        ingot.load(project / "baml_src")
    where = {(d.code.value, d.span.file, d.span.start.line, d.span.start.column) for d in info.value.diagnostics}
    assert {("E0002", "models.baml", 5, 8), ("E0004", "functions.baml", 30, 14)} <= where  # at the right-hand side, as the engine
    program = ingot.load(SRC)
    with pytest.raises(ingot.BamlError) as raised:
        program.call("Decide", order=order(items=[{"sku": "x", "quantity": 0, "unit_price_cents": 1}]),
                     request=request())
    assert raised.value.kind == "InvalidOrder"
    assert [str(f) for f in raised.value.trace] == ['File "functions.baml", line 52, in user.Decide',
                                                    'File "functions.baml", line 28, in user.OrderTotal']


def test_nested_directories_hidden_ones_skipped(tmp_path: Path) -> None:
    (tmp_path / "types" / "deep").mkdir(parents=True)
    (tmp_path / ".cache").mkdir()
    (tmp_path / "types" / "deep" / "point.baml").write_text("class P {\n  x int\n}\n")
    (tmp_path / "main.baml").write_text("function F(p: P) -> int {\n  p.x + 1\n}\n")
    (tmp_path / ".cache" / "stale.baml").write_text("function F() -> int { 0 }\n")  # would be a duplicate
    (tmp_path / "notes.txt").write_text("not BAML")
    program = ingot.load(tmp_path)
    assert sorted(s.name for s in program.compiled.sources) == ["main.baml", "types/deep/point.baml"]
    assert program.call("F", p={"x": 1}) == 2


def test_the_same_definition_in_two_files_is_a_duplicate_naming_both(tmp_path: Path) -> None:
    (tmp_path / "a.baml").write_text("function F() -> int { 1 }\n")
    (tmp_path / "b.baml").write_text("function F() -> int { 2 }\n")
    with pytest.raises(ingot.CompileError) as info:
        ingot.load(tmp_path)
    (d,) = info.value.diagnostics
    assert d.engine_text() == ("b.baml:1:10-1:11 error[E0011]: duplicate function `F`\n"
                               "  primary: duplicate function definition\n"
                               "  secondary a.baml:1:10-1:11: first defined as function here")  # as the engine says


def test_source_text_only_when_asked_or_unambiguous(tmp_path: Path) -> None:
    assert ingot.load_source("function F() -> int { 1 }").call("F") == 1
    assert ingot.load(source="function F() -> int { 2 }").call("F") == 2
    assert ingot.load("function F() -> int {\n  3\n}\n").call("F") == 3  # a newline: never a path
    with pytest.raises(FileNotFoundError, match="ingot.load_source"):
        ingot.load("function F() -> int { 1 }")
    with pytest.raises(FileNotFoundError) as info:
        ingot.load("baml_src")
    assert info.value.filename == "baml_src"
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="no .baml files"):
        ingot.load(tmp_path / "empty")


def test_a_file_that_is_not_utf8_is_a_diagnostic(tmp_path: Path) -> None:
    (tmp_path / "ok.baml").write_text("function F() -> int { 1 }\n")
    (tmp_path / "latin1.baml").write_bytes("// café\nfunction G() -> int { 2 }\n".encode("latin-1"))
    with pytest.raises(ingot.CompileError) as info:
        ingot.load(tmp_path)
    (d,) = info.value.diagnostics
    assert (d.span.file, d.span.start.line, d.span.start.column) == ("latin1.baml", 1, 7)
    assert "not UTF-8" in d.message


# -- every command -------------------------------------------------------------------------------------


def test_check_a_directory_and_missing_paths() -> None:
    assert invoke("check", str(SRC)) == (0, "5 files checked, no errors\n", "")
    code, _, err = invoke("check", str(SRC / "models.baml"))
    assert code == 1 and "--> models.baml:" in err and "unresolved type" in err
    for command in (["check"], ["run"], ["explore"], ["mir"], ["dis"], ["meta"], ["mcp"], ["test"], ["prompt"]):
        args = [*command, "no/such/dir"] + (["F"] if command[0] in ("run", "explore", "prompt") else [])
        code, _, err = invoke(*args)
        assert code == 2 and "no/such/dir" in err and "Traceback" not in err, (command, err)
    code, _, err = invoke("call", "no/such/dir", "F")
    assert code == 2 and "no/such/dir: no such file or directory" in err


def test_a_function_read_as_a_path_says_which_word_was_taken_as_the_function(tmp_path: Path) -> None:
    # `--json` takes no value: the file after it is the last word, so the function reads as a path
    code, _, err = invoke("explore", str(SRC), "Summarize", "--json", str(tmp_path / "out.json"))
    assert code == 2 and "Summarize: no such file or directory" in err
    assert f"`{tmp_path / 'out.json'}`, the last, was taken as the function" in err


def test_check_reports_errors_in_every_file(project: Path) -> None:
    models = project / "baml_src" / "models.baml"
    models.write_text(models.read_text().replace("  tier Tier\n", "  tier Tiers\n"))
    (project / "baml_src" / "extra.baml").write_text("function Z() -> int {\n  \"z\"\n}\n")
    code, _, err = invoke("check", str(project / "baml_src"))
    assert code == 1
    assert "--> models.baml:5:8" in err and "--> extra.baml:1:21" in err and "2 errors" in err


def test_run_call_meta_mir_dis_and_prompt_on_a_directory() -> None:
    args = json.dumps({"order": order(), "request": request(intent="WHERE_IS_MY_ORDER")})
    code, out, _ = invoke("run", str(SRC), "Decide", "--args", args)
    assert code == 0 and json.loads(out)["note"] == "not a refund request"
    code, out, _ = invoke("run", str(SRC), "Handle", "--args", json.dumps({"message": "broken!", "order": order()}),
                          "--llm", MOCK, "--json")
    assert code == 0 and json.loads(out) == {"value": {"decision": "APPROVE", "refund_cents": 2500,
                                                        "note": "refund approved"}}
    code, out, _ = invoke("call", str(SRC), "OrderTotal", "--order", json.dumps(order()))
    assert code == 0 and out == "2500\n"
    code, out, _ = invoke("call", str(SRC), "--list")
    assert code == 0 and [line.split()[0] for line in out.splitlines()] == [
        "ClassifyRequest", "DraftReply", "OrderTotal", "ReturnWindowDays", "Decide", "Handle", "Answer"]
    assert "Decide a refund request about an order." in out
    code, out, _ = invoke("meta", str(SRC), "--json")
    assert code == 0 and {k for k, v in json.loads(out).items() if v.get("mcp", {}).get("tool")} == {
        "OrderTotal", "Decide", "Handle"}
    code, out, _ = invoke("mir", str(SRC), "ReturnWindowDays")
    assert code == 0 and out.startswith("fn ReturnWindowDays(")
    code, out, _ = invoke("dis", *(str(SRC / f) for f in FILES), "OrderTotal")  # files, then a function
    assert code == 0 and "RETURN" in out
    code, out, _ = invoke("prompt", str(SRC), "ClassifyRequest", "--args", '{"message": "my mug broke"}')
    assert code == 0 and json.loads(out)["body"]["messages"][0]["content"][0]["text"].endswith("Message: my mug broke")


def test_tests_run_per_file_with_the_llm_mocked() -> None:
    code, out, _ = invoke("test", str(SRC), "--llm", MOCK, "--json")
    assert code == 0
    report = json.loads(out)
    assert (report["passed"], report["failed"]) == (5, 0)
    assert {Path(t["file"]).name for t in report["tests"]} == {"tests.baml"}
    assert {t["testset"] for t in report["tests"]} == {None, "decisions", "messages"}


def test_explore_a_project_and_run_its_emitted_baml_tests_beside_it(project: Path) -> None:
    src = project / "baml_src"
    code, out, _ = invoke("explore", str(src), "OrderTotal", "--json", "--emit-tests", "baml", str(src))
    assert code == 0
    report = json.loads(out)
    assert report["coverage"]["edges_covered"] == report["coverage"]["edges_total"]
    # The planted InvalidOrder, and `quantity * unit_price_cents` overflowing for huge line items.
    assert {f["kind"] for f in report["findings"]} == {"InvalidOrder", "IntegerOverflow"}
    emitted = src / "baml_src_OrderTotal_tests.baml"
    assert emitted.is_file()
    code, out, _ = invoke("test", str(src), "--llm", f"ClassifyRequest=@{project / 'mocks' / 'classify.json'}",
                          "--json")
    report_tests = json.loads(out)
    assert code == 0 and report_tests["failed"] == 0
    assert sum(Path(t["file"]).name == emitted.name for t in report_tests["tests"]) == len(report["tests"]) > 0


def test_emitted_pytest_file_loads_the_project(project: Path, tmp_path: Path) -> None:
    out_dir = tmp_path / "generated"
    code, _, _ = invoke("explore", str(project / "baml_src"), "OrderTotal", "--json", "--emit-tests", "pytest",
                        str(out_dir))
    assert code == 0
    (generated,) = out_dir.glob("test_*.py")
    spec = importlib.util.spec_from_file_location("generated_refunds", generated)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert Path(module.PROGRAM).resolve() == (project / "baml_src").resolve()
    assert ingot.load(module.PROGRAM).call("OrderTotal", order=order()) == 2500


# -- MCP over stdio -------------------------------------------------------------------------------------

def server(*args: str) -> StdioServerParameters:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), *filter(None, [env.get("PYTHONPATH")])])
    return StdioServerParameters(command=sys.executable, args=["-m", "ingot.cli", "mcp", *args], cwd=str(ROOT),
                                 env=env)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_serves_the_marked_functions_of_the_project_over_stdio() -> None:
    async with stdio_client(server(str(SRC))) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.server_info.name == "refunds"  # a baml_src/ folder is named after its parent
            tools = {t.name: t for t in (await session.list_tools()).tools}
            assert list(tools) == ["OrderTotal", "Decide", "Handle"]
            assert tools["Decide"].title == "Decide a refund"
            assert set(tools["Decide"].input_schema["$defs"]) >= {"Order", "Request", "Customer", "LineItem"}
            r = await session.call_tool("Decide", {"order": order(days_since_delivery=40), "request": request()})
            assert not r.is_error and r.structured_content == {"result": {
                "decision": "REJECT", "refund_cents": 0, "note": "outside the refund rules"}}
            r = await session.call_tool("OrderTotal", {"order": order(items=[{"sku": "x", "quantity": 0,
                                                                               "unit_price_cents": 5}])})
            assert r.is_error and "InvalidOrder" in r.content[0].text


# -- the engine agrees -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_engine_compiles_the_project_and_agrees() -> None:
    pytest.importorskip("baml_bridge")
    from ingot.syntax.annotations import harvest
    from ingot.syntax.diagnostics import SourceFile

    spec = importlib.util.spec_from_file_location("_record", ROOT / "tests" / "conformance" / "record.py")
    assert spec is not None and spec.loader is not None
    record = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(record)
    files = {p.name: harvest(SourceFile(p.name, p.read_text(encoding="utf-8"))).text for p in sorted(SRC.glob("*.baml"))}
    cases = [{"order": order(), "request": request()},
             {"order": order(status="SHIPPED"), "request": request(damaged=True)},
             {"order": order(days_since_delivery=45, customer={"name": "Bo", "tier": "GOLD"}), "request": request()},
             {"order": order(status="PLACED", items=[{"sku": "sofa", "quantity": 1, "unit_price_cents": 90000}]),
              "request": request(order_id=None)},
             {"order": order(), "request": request(order_id="B-9")},
             {"order": order(items=[{"sku": "x", "quantity": -1, "unit_price_cents": 5}]), "request": request()}]
    def engine_args(case: dict[str, Any]) -> dict[str, Any]:  # enum fields as the engine's variants
        o, r = case["order"], case["request"]
        return {"order": o | {"status": record.enum_value("OrderStatus", o["status"]),
                              "customer": o["customer"] | {"tier": record.enum_value("Tier", o["customer"]["tier"])}},
                "request": r | {"intent": record.enum_value("Intent", r["intent"])}}

    program = ingot.load(SRC)
    results = record.run(files, "Decide", [engine_args(c) for c in cases])
    for case, engine in zip(cases, results):
        try:
            got: Any = {"expect": program.run("Decide", case)}
        except ingot.BamlError as e:
            got = {"error": e.kind}
        assert got == {k: v for k, v in engine.items() if k != "args"}, case
