"""Host bindings belong to the VM, not to the compiled program: one program serves VMs and
threads with different bindings, each with its own behaviour, and binding changes nothing
the emitter produced."""

from __future__ import annotations

import threading

import pytest

import ingot
from ingot.bex.compiled import CompiledVM
from ingot.bex.vm import VM

SOURCE = """
function Score(x: int) -> int {
  x * 2
}
function Total(xs: int[]) -> int {
  let t = 0;
  for (let x in xs) { t += Score(x); }
  let f = Score;
  t + f(1)
}
"""


def emitted(program: ingot.Program) -> list[tuple[str, str]]:
    return [(fn.name, fn.kind) for fn in program.bex.functions] + sorted(program.bex.host_targets.items())


def test_binding_leaves_the_compiled_program_as_emitted() -> None:
    program = ingot.load_source(SOURCE)
    before = emitted(program)
    program.bind("Score", lambda x: x + 100)
    assert emitted(program) == before
    assert program.call("Total", xs=[1, 2]) == 101 + 102 + 101
    assert program.hosts == {"Score": None}


@pytest.mark.parametrize("vm_class", [VM, CompiledVM], ids=["interp", "compiled"])
def test_two_vms_with_different_bindings_share_one_program(vm_class: type[VM]) -> None:
    program = ingot.load_source(SOURCE)
    fn = program.function("Total")
    plain = vm_class(program.bex)
    plus = vm_class(program.bex, hosts={"Score": lambda x: x + 100})
    minus = vm_class(program.bex, hosts={"Score": lambda x: -x})
    for _ in range(2):  # and again, each VM with its cached code
        assert plus.call(fn, [[1, 2]]) == 101 + 102 + 101  # direct calls and the call through a value
        assert minus.call(fn, [[1, 2]]) == -1 - 2 - 1
        assert plain.call(fn, [[1, 2]]) == 2 + 4 + 2


@pytest.mark.parametrize("tier", ["interp", "compiled"])
def test_threads_with_different_bindings_each_see_their_own(tier: str) -> None:
    program = ingot.load_source(SOURCE)
    program.bind("Score", lambda x: 0)  # the program's own binding; each thread's options replace it
    start = threading.Barrier(4)
    results: dict[int, set[int]] = {}

    def work(k: int) -> None:
        calls = program.options(tier=tier, hosts={"Score": lambda x, k=k: x * k})
        start.wait()
        results[k] = {calls.call("Total", xs=[1, 2, 3]) for _ in range(50)}

    threads = [threading.Thread(target=work, args=(k,)) for k in (1, 2, 3, 4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {k: {6 * k + k} for k in (1, 2, 3, 4)}
    assert program.options(tier=tier).call("Total", xs=[1, 2, 3]) == 0


def test_a_call_binding_is_checked_like_bind() -> None:
    program = ingot.load_source(SOURCE)
    with pytest.raises(ingot.HostError, match="not callable"):
        program.options(hosts={"Score": 3}).call("Total", xs=[1])
