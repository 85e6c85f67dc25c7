"""Bad IR input: a clear error naming the user's file and line, never a silent rewrite, a
Python traceback, or a process stopped by LLVM.

The backend's checks (target attributes, modules for other targets, what LLVM would end the
process on) run their risky cases in a child process, so a regression fails a test instead of
killing the test run.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import warnings

import pytest

from enzyme_py.errors import BackendError
from enzyme_py.ir import ParseError, VerifyError, parse, verify
from enzyme_py.ir.source_map import locate_message, printed_lines, reparse
from enzyme_py.passes import Pipeline
from tests.conftest import ROOT

LLVM_AS = shutil.which("llvm-as-22") or shutil.which("llvm-as", path="/usr/lib/llvm-22/bin")


def _error(text: str, filename: str = "user.ll") -> ParseError:
    with pytest.raises(ParseError) as info:
        parse(text, filename)
    return info.value


# --------------------------------------------------------------------------- 1. literals


def test_integer_literal_for_a_double_is_rejected_where_llvm_does():
    text = "define void @f(ptr %p) {\n  store double 64, ptr %p\n  ret void\n}\n"
    err = _error(text)
    assert (err.line, err.col) == (2, 16)  # where llvm-as points
    assert "integer constant must have integer type" in err.message
    assert "'double 64'" in err.message and "64.0" in err.message
    assert str(err).startswith("user.ll:2:16: error: ")
    assert "store double 64, ptr %p" in str(err)  # the instruction is quoted


def test_hex_float_literal_for_an_integer_is_rejected_where_llvm_does():
    text = ("define i1 @f(i32 %x) {\n  %c = icmp eq i32 %x, 0x7FF8000000000000\n"
            "  ret i1 %c\n}\n")
    err = _error(text)
    assert (err.line, err.col) == (2, 24)
    assert "floating point constant invalid for type" in err.message
    assert "%c = icmp eq i32 %x, 0x7FF8000000000000" in str(err)


# (literal, what LLVM 22 makes of it: "= " and the printed constant, or the start of its error)
LITERALS = [
    ("double 64", "integer constant must have integer type"),
    ("ptr 0", "integer constant must have integer type"),
    ("double u0x10", "integer constant must have integer type"),
    ("i32 1.0", "floating point constant invalid for type"),
    ("i128 0x1", "floating point constant invalid for type"),
    ("<2 x double> 1.0", "floating point constant invalid for type"),
    ("float 1.1", "floating point constant invalid for type"),
    ("float 0x3FB999999999999A", "floating point constant invalid for type"),
    ("float 0x7FF0000000000001", "floating point constant invalid for type"),
    ("float 1.0e+39", "floating point constant invalid for type"),
    ("half 0.1", "floating point constant invalid for type"),
    ("half 65520.0", "floating point constant invalid for type"),
    ("bfloat 0x3FF0100000000000", "floating point constant invalid for type"),
    ("double 0xH3C00", "floating point constant does not have type 'double'"),
    ("half 0xR3F80", "floating point constant does not have type 'half'"),
    ("x86_fp80 1.0", "floating point constant does not have type 'x86_fp80'"),
    ("fp128 1.0", "floating point constant does not have type 'fp128'"),
    ("i32 true", "constant expression type mismatch"),
    ("i64 null", "null must be a pointer type"),
    ("i32 none", "invalid type for none constant"),
    ("float 0.5", "= float 5.000000e-01"),
    ("float 0x3FB99999A0000000", "= float 0x3FB99999A0000000"),
    ("float 0x7FF8000000000000", "= float 0x7FF8000000000000"),
    ("half 1.5", "= half 1.500000e+00"),
    ("half 0xH3C00", "= half 0xH3C00"),
    ("bfloat 0xR3F80", "= bfloat 0xR3F80"),
    ("x86_fp80 0xK3FFF8000000000000000", "= x86_fp80 0xK3FFF8000000000000000"),
    ("double 1.e3", "= double 1.000000e+03"),
    ("i1 true", "= i1 true"),
    ("i32 s0x10", "= i32 -16"),  # LLVM: the digits' active bits, signed (LangRef)
    ("i16 s0x7F", "= i16 -1"),
    ("i8 s0x80", "= i8 -128"),
    ("i8 u0x1FF", "= i8 -1"),
    ("i32 u0xFFFFFFFF", "= i32 -1"),
]


@pytest.mark.parametrize(("literal", "expected"), LITERALS)
def test_literal_forms_follow_llvm(literal, expected):
    text = f"@g = global {literal}\n"
    if expected.startswith("= "):
        assert str(parse(text)).rstrip().endswith(f"@g = global {expected[2:]}")
    else:
        err = _error(text)
        assert err.message.startswith(expected), err
        assert (err.line, err.col) == (1, 13 + len(literal.rsplit(" ", 1)[0]) + 1)


@pytest.mark.xfail(LLVM_AS is None, strict=True, raises=AssertionError,
                   reason="llvm-as (LLVM 22) is not installed: nothing to compare with")
@pytest.mark.parametrize(("literal", "expected"), LITERALS)
def test_literal_forms_agree_with_llvm_as(literal, expected):
    """LLVM's own parser accepts exactly the literals ours accepts."""
    assert LLVM_AS is not None, "llvm-as is not installed"
    text = f"@g = global {literal}\n"
    res = subprocess.run([LLVM_AS, "-o", "/dev/null", "-"], input=text, text=True,
                         capture_output=True, check=False)
    try:
        parse(text)
        ours = True
    except ParseError:
        ours = False
    assert (res.returncode == 0) == ours, res.stderr


def test_alignment_must_be_a_power_of_two():
    err = _error("define void @f(ptr %p) {\n  store i32 0, ptr %p, align 3\n  ret void\n}\n")
    assert (err.line, err.col) == (2, 30)
    assert err.message.startswith("alignment is not a power of two")


# --------------------------------------------------------------------------- 2. dominance


def test_use_before_definition_in_one_block_names_the_line():
    text = ("define double @f(double %x) {\nentry:\n  %y = fadd double %z, 1.0\n"
            "  %z = fmul double %x, %x\n  ret double %y\n}\n")
    with pytest.raises(VerifyError) as info:
        verify(parse(text, "user.ll"))
    msg = str(info.value)
    assert "user.ll:3: in function @f, block %entry, instruction `%y = fadd" in msg
    assert "%z does not dominate this use: it is defined later in the same block " \
           "(at user.ll:4)" in msg


def test_use_in_a_block_the_definition_does_not_dominate():
    text = ("define double @f(double %x, i1 %c) {\nentry:\n  br i1 %c, label %a, label %b\n"
            "a:\n  %y = fadd double %z, 1.0\n  br label %b\nb:\n  %z = fmul double %x, %x\n"
            "  ret double %z\n}\n")
    with pytest.raises(VerifyError) as info:
        verify(parse(text, "user.ll"))
    msg = str(info.value)
    assert "user.ll:5: in function @f, block %a" in msg
    assert "it is defined in block %b (at user.ll:8), which does not dominate block %a" in msg


def test_phi_operand_must_dominate_the_end_of_its_incoming_block():
    text = ("define i32 @f(i1 %c) {\nentry:\n  br i1 %c, label %a, label %exit\na:\n"
            "  br label %exit\nexit:\n  %p = phi i32 [ %q, %a ], [ 0, %entry ]\n"
            "  %q = add i32 1, 2\n  ret i32 %p\n}\n")
    with pytest.raises(VerifyError) as info:
        verify(parse(text, "user.ll"))
    msg = str(info.value)
    assert "user.ll:7: in function @f, block %exit, instruction `%p = phi" in msg
    assert "which does not dominate the end of incoming block %a" in msg


def test_phi_operand_from_a_loop_latch_is_fine():
    text = ("define i32 @f(i32 %n) {\nentry:\n  br label %loop\nloop:\n"
            "  %i = phi i32 [ 0, %entry ], [ %k, %loop ]\n  %k = add i32 %i, 1\n"
            "  %c = icmp slt i32 %k, %n\n  br i1 %c, label %loop, label %exit\nexit:\n"
            "  ret i32 %k\n}\n")
    verify(parse(text))


# --------------------------------------------------------------------------- 4. locations

PADDED = """; a header the printer drops

; and more comments
define i32 @f(ptr %p, i32 %x) {
entry:
  ; the printer drops this too
  %y = fptosi i32 %x to double
  ret i32 %x
}
"""


def test_instructions_record_their_source_line():
    m = parse(PADDED, "user.ll")
    locs = [str(i.loc) for i in m.get_function("f").instructions()]
    assert locs == ["user.ll:7", "user.ll:8"]


def test_reparse_keeps_the_users_lines():
    m = parse(PADDED, "user.ll")
    copy = reparse(m)
    assert [str(i.loc) for i in copy.get_function("f").instructions()] == \
        ["user.ll:7", "user.ll:8"]
    assert printed_lines(m) == {5: m.get_function("f").blocks[0].instructions[0].loc,
                                6: m.get_function("f").blocks[0].instructions[1].loc}


def test_llvm_errors_about_the_printed_text_name_the_users_line():
    """LLVM rejects `fptosi i32` (ours does not check casts): the error is on line 5 of the
    printed text, and must say line 7 of the user's file."""
    m = parse(PADDED, "user.ll")
    with pytest.raises(BackendError) as info:
        Pipeline.parse("sroa").run(m)
    msg = str(info.value)
    assert "user.ll:7: error: invalid cast opcode for cast from 'i32' to 'double'" in msg
    assert "module:" not in msg and "module 'user.ll'" in msg


def test_llvm_verifier_messages_get_the_users_lines():
    m = parse("define i32 @f(i32 %x) {\n\n  %y = add i32 %x, 1\n  ret i32 %y\n}\n", "user.ll")
    msg = locate_message("Instruction does not dominate all uses!\n  %y = add i32 %x, 1\n",
                         m, str(m), "module")
    assert "  %y = add i32 %x, 1  ; user.ll:3" in msg


def test_gradient_errors_name_the_users_line():
    from enzyme_py.ad.driver import gradient_module

    m = parse(PADDED.replace("i32 @f", "double @f").replace("ret i32 %x", "ret double %y"),
              "user.ll")
    with pytest.raises(BackendError, match=r"user\.ll:7: error: invalid cast opcode"):
        gradient_module(m, "f", ["dup", "const"], True)


# --------------------------------------------------------------------------- 5. strings


@pytest.mark.parametrize("text", [
    '@s = constant [3 x i8] c"ab\n\ndefine void @f() {\n  ret void\n}\n',
    'source_filename = "abc\ntarget triple = "x86_64-unknown-linux-gnu"\n'
    'define void @"g"() {\n  ret void\n}\n',
    'define void @f() {\n  call void @"g\n  ret void\n}\n',
])
def test_unterminated_string_quotes_one_line_only(text):
    err = _error(text)
    assert "no closing '\"' on its line" in err.message
    rendered = str(err)
    assert len(rendered.splitlines()) == 3  # head, the line, the caret
    assert "ret void" not in rendered and "target triple" not in rendered


def test_found_token_is_truncated():
    err = _error('@g = global i32 "' + "x" * 200 + '"\n')
    assert err.message.endswith("found '\"" + "x" * 39 + "...'"), err.message


# --------------------------------------------------------------------------- 3, 6. backend


def _isolated(code: str) -> subprocess.CompletedProcess[str]:
    """Run `code` in a child Python: LLVM ending the process fails the test, not the run."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, check=False, timeout=300)


def _compile_in_child(text: str, level: int = 2) -> str:
    code = ("import sys\nfrom enzyme_py.backend import compile_ir\nfrom enzyme_py.errors "
            "import BackendError\ntry:\n"
            f"    jm = compile_ir({text!r}, opt_level={level})\n"
            "    print('compiled', jm.functions)\n"
            "except BackendError as e:\n    print('BackendError:', e)\n")
    res = _isolated(code)
    assert res.returncode == 0, f"the process died (rc {res.returncode}):\n{res.stderr}"
    return res.stdout


SQUARE = ("define double @f(double %x) #0 {\n  %y = fmul double %x, %x\n  ret double %y\n}\n"
          "attributes #0 = { ATTRS }\n")


@pytest.mark.parametrize("attrs", [
    '"target-cpu"="nonsense"',
    '"target-cpu"="nonsense" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87"',
    '"target-cpu"="help"',
])
def test_unknown_target_cpu_is_set_aside_with_a_warning(attrs):
    """LLVM warns "'nonsense' is not a recognized processor for this target (ignoring
    processor)", then (with features lacking +64bit) aborts: 64-bit code requested..."""
    text = SQUARE.replace("ATTRS", attrs)
    out = _compile_in_child(text)
    assert "compiled ['f']" in out
    from enzyme_py.backend import TargetWarning, optimize

    with pytest.warns(TargetWarning, match="is not a recognized processor for target"):
        optimized = optimize(text, 2)
    assert '"ignored-target-cpu"=' in optimized and '"target-cpu"' not in optimized


def test_unknown_target_feature_is_set_aside_with_a_warning():
    from enzyme_py.backend import TargetWarning, optimize

    text = SQUARE.replace("ATTRS", '"target-features"="+sse2,+nonsense"')
    with pytest.warns(TargetWarning, match="'\\+nonsense' is not a recognized feature"):
        optimized = optimize(text, 2)
    assert '"target-features"="+sse2"' in optimized
    assert '"ignored-target-features"="+nonsense"' in optimized


@pytest.mark.parametrize(("attrs", "needle"), [
    ('"target-features"="-64bit"', "'-64bit'"),
    ('"target-cpu"="i686" "target-features"="+sse2"', "is a 32-bit x86 processor"),
])
def test_attributes_llvm_aborts_on_are_errors(attrs, needle):
    text = SQUARE.replace("ATTRS", attrs)
    out = _compile_in_child(text)
    assert "BackendError:" in out and needle in out
    from enzyme_py.backend import optimize

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(BackendError, match="64-bit code requested"):
            optimize(text, 2)


NVPTX = """target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define double @sq(double %x) #0 {
  %y = fmul double %x, %x
  ret double %y
}

attributes #0 = { "target-cpu"="sm_80" "target-features"="+ptx88,+sm_80" }
"""


@pytest.mark.parametrize("level", [0, 2])
def test_module_for_another_target_is_not_jit_compiled(level):
    out = _compile_in_child(NVPTX, level)
    assert "BackendError: the module is for target 'nvptx64-nvidia-cuda'" in out


def test_module_for_another_target_is_optimized_for_its_own_target():
    from enzyme_py.backend import optimize

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # sm_80 is known to NVPTX: no warning
        out = optimize(NVPTX, 2)
    assert 'target triple = "nvptx64-nvidia-cuda"' in out
    assert '"target-cpu"="sm_80"' in out


@pytest.mark.parametrize(("text", "needle"), [
    ("declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\ndefine i32 @f() {\n"
     "  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n  ret i32 %t\n}\n",
     "@llvm.nvvm.read.ptx.sreg.tid.x is an intrinsic of another target (nvvm)"),
    ('target datalayout = "e-p:32:32"\ndefine i32 @f() {\n  ret i32 0\n}\n',
     "target datalayout 'e-p:32:32' is not this host's"),
    ('define double @f(double %x) #0 {\n  ret double %x\n}\n'
     'attributes #0 = { "target-features"="-sse,-sse2" }\n', "without SSE"),
    ('define void @f() {\n  call void asm sideeffect "nonsense_instr %eax", ""()\n'
     '  ret void\n}\n', "invalid instruction mnemonic 'nonsense_instr'"),
    ("declare <16 x float> @llvm.x86.avx512.rsqrt14.ps.512(<16 x float>, <16 x float>, i16)"
     "\ndefine <16 x float> @f(<16 x float> %x) #0 {\n  %r = call <16 x float> "
     "@llvm.x86.avx512.rsqrt14.ps.512(<16 x float> %x, <16 x float> %x, i16 -1)\n"
     "  ret <16 x float> %r\n}\n"
     'attributes #0 = { "target-cpu"="x86-64" "target-features"="+sse2" }\n',
     "LLVM ends the process compiling this module"),
])
def test_what_llvm_would_end_the_process_on_is_a_backend_error(text, needle):
    out = _compile_in_child(text, 0)
    assert "BackendError:" in out and needle in out, out


def test_valid_inline_asm_compiles():
    """Inline asm needs LLVM's asm parser (without it LLVM aborts)."""
    out = _compile_in_child('define i32 @f() {\n  call void asm sideeffect "", "~{memory}"()\n'
                            '  %r = call i32 asm "mov $$7, $0", "=r"()\n  ret i32 %r\n}\n')
    assert "compiled ['f']" in out


@pytest.mark.parametrize(("text", "found"), [
    ('  call void asm sideeffect "nop", ""()', True),
    ('  %r = call i32 asm inteldialect "mov eax, 7", "={eax}"()', True),
    ('call void asm "x"', True),  # (at the very start)
    ('module asm "  .globl f"', True),
    ("  %asm = add i32 1, 2", False),
    ('  call void @f.asm(ptr @g.asm) "', False),  # names that end in asm
    ('@s = constant [9 x i8] c"x.asm \\"\\00"', False),
])
def test_inline_asm_is_found_as_a_word_only(text, found):
    """Modules with inline asm are compiled in a child process first; what is asm."""
    from enzyme_py.backend.jit_check import _has_inline_asm

    assert _has_inline_asm(text) is found


def test_triple_without_an_llvm_target_is_optimized_with_the_hosts_machine():
    from enzyme_py.backend import TargetWarning, optimize

    text = 'target triple = "spir64-unknown-unknown"\n' + SQUARE.replace(
        "ATTRS", '"target-cpu"="nonsense" "target-features"="+sse2"')
    with pytest.warns(TargetWarning, match="for target 'x86_64"):
        out = optimize(text, 2)
    assert 'target triple = "spir64-unknown-unknown"' in out
    assert "BackendError: the module is for target 'spir64" in _compile_in_child(text)
