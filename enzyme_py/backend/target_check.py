"""Target attributes checked before LLVM reads them: nothing in them may stop the process.

LLVM ignores a `"target-cpu"` or `"tune-cpu"` it does not know for the target, and unknown
`"target-features"` entries, with a warning on stderr ("'nonsense' is not a recognized
processor for this target (ignoring processor)"); but on x86-64 an ignored processor leaves no
64-bit mode, and LLVM then aborts ("64-bit code requested on a subtarget that doesn't support
it!"), even while optimizing. Invariants of `checked_text`, which every text the backend
parses goes through:

- an unknown processor or feature is set aside (its key becomes `"ignored-target-cpu"`,
  `"ignored-target-features"`, which LLVM keeps and never reads), with a `TargetWarning` in
  LLVM's words (LLVM's own answer, asked once per name: see `_unknown`);
- an x86-64 function whose processor lacks 64-bit mode (`"target-cpu"="i686"` without
  `+64bit`) or whose features say `-64bit` is a `BackendError` naming it;
- which target is asked: the one whose machine will read the module (`target._machine`):
  the module's own for another platform that LLVM has a target for, else the host's.
"""

from __future__ import annotations

import functools
import os
import re
import sys
import tempfile
import threading
import warnings

import llvmlite.binding as llvm

from enzyme_py.backend.target import PRINTED_NAME, _host, foreign_triple
from enzyme_py.errors import BackendError


class TargetWarning(UserWarning):
    """LLVM would ignore a target attribute (an unknown processor or CPU feature): set aside."""


IGNORED = "ignored-"  # the prefix a set-aside attribute's key gets
_WHERE = re.compile(r"\s*(?:attributes #\d+|define[^@]*@(?:\"[^\"]*\"|[-\w$.]+)|)")
_LINE = re.compile(r'^[^\n]*"(?:target-cpu|tune-cpu|target-features)"="[^\n]*$', re.MULTILINE)
_TRIPLE = re.compile(r'^target triple = "([^"\n]*)"', re.MULTILINE)
_ATTR = re.compile(r'( ?)"(target-cpu|tune-cpu|target-features)"="([^"\n]*)"')
_NOT_CPU = re.compile(r"'([^'\n]*)' is not a recognized processor for this target")
_NOT_FEATURE = re.compile(r"'([^'\n]*)' is not a recognized feature for this target")
#: x86 processors without 64-bit mode, as LLVM 22 defines them (X86.td: no FeatureX86_64; the
#: ones `llc -mtriple=x86_64 -mcpu=NAME` aborts on).
X86_32BIT_CPUS = frozenset("""
    athlon athlon-4 athlon-mp athlon-tbird athlon-xp c3 c3-2 geode i386 i486 i586 i686 k6
    k6-2 k6-3 lakemont pentium pentium-m pentium-mmx pentium2 pentium3 pentium3m pentium4
    pentium4m pentium_4 pentium_4_sse3 pentium_ii pentium_iii pentium_iii_no_xmm_regs
    pentium_m pentium_mmx pentium_pro pentiumpro prescott winchip-c6 winchip2 yonah
""".split())

_probe_lock = threading.Lock()


def machine_triple(text: str) -> tuple[str, str]:
    """(the module's triple, the triple of the target machine that will read it)."""
    m = _TRIPLE.search(text)
    triple = m.group(1) if m else ""
    return triple, triple if foreign_triple(triple) else _host().triple


def checked_text(text: str, name: str) -> str:
    """`text` with the target attributes LLVM would ignore set aside; raises `BackendError`
    for those it would abort on (see the module's invariants)."""
    if '"t' not in text or _ATTR.search(text) is None:
        return text
    _triple, machine = machine_triple(text)
    x86_64 = llvm.get_triple_parts(machine).Arch == "x86_64"
    host = machine == _host().triple
    prefix = "" if name == PRINTED_NAME else f"{name}: "
    return _LINE.sub(lambda m: _check_line(m.group(0), machine, prefix, x86_64, host), text)


def _check_line(line: str, machine: str, prefix: str, x86_64: bool, host: bool) -> str:
    """One attribute set (a group, or a `define` line): set aside what LLVM ignores, refuse
    what it aborts on. What is set aside stays visible as `"ignored-<key>"`, which LLVM keeps
    and never reads (dropping it could leave a group empty, which LLVM rejects)."""
    where = prefix + _WHERE.match(line).group(0).strip()  # type: ignore[union-attr]
    cpu, features = "", None

    def check(m: re.Match[str]) -> str:
        nonlocal cpu, features
        space, key, value = m.groups()
        if key == "target-features":
            bad = _unknown(machine, "", value)[1]
            if not bad:
                features = value
                return m.group(0)
            for feature in bad:
                _warn(f"{where}: '{feature}' is not a recognized feature for target "
                      f"'{machine}'; LLVM would ignore it, so it is set aside "
                      f"(\"ignored-target-features\")")
            features = ",".join(f for f in value.split(",") if f and f not in bad)
            return (f'{space}"{key}"="{features}" "{IGNORED}target-features"='
                    f'"{",".join(bad)}"')
        if _unknown(machine, value, "")[0]:
            _warn(f"{where}: '{value}' is not a recognized processor for target "
                  f"'{machine}'; LLVM would ignore it, so \"{key}\" is set aside "
                  f"(\"ignored-{key}\")")
            return f'{space}"{IGNORED}{key}"="{value}"'
        if key == "target-cpu":
            cpu = value
        return m.group(0)

    line = _ATTR.sub(check, line)
    if x86_64:
        # Without "target-features" a function has the target machine's: the host's include
        # +64bit, a generic machine's (another x86-64 platform) have none.
        _check_64bit(where, cpu, features if features is not None or not host else "+64bit")
    return line


def _check_64bit(where: str, cpu: str, features: str | None) -> None:
    listed = (features or "").split(",")
    why = "LLVM would abort: 64-bit code requested on a subtarget that doesn't support it"
    if "-64bit" in listed:
        raise BackendError(f"{where}: \"target-features\" has '-64bit', which an x86-64 "
                           f"module cannot be compiled with ({why})")
    if cpu in X86_32BIT_CPUS and "+64bit" not in listed:
        raise BackendError(f"{where}: \"target-cpu\"=\"{cpu}\" is a 32-bit x86 processor, "
                           f"but the module's triple is x86-64 ({why}); use a 64-bit "
                           f"processor such as x86-64, or add +64bit to \"target-features\"")


def _warn(message: str) -> None:
    warnings.warn(message, TargetWarning, stacklevel=2)


@functools.lru_cache(maxsize=4096)
def _unknown(triple: str, cpu: str, features: str) -> tuple[bool, tuple[str, ...]]:
    """LLVM's answer for `triple`: (is `cpu` unknown, the unknown entries of `features`).

    Asked by creating a target machine with them and reading what LLVM writes to file
    descriptor 2 (it has no other way to say); `help`, which makes LLVM print its tables
    instead, counts as unknown."""
    if cpu == "help":
        return True, ()
    listed = [f for f in features.split(",") if f]
    helps = tuple(f for f in listed if f.lstrip("+-") == "help")
    features = ",".join(f for f in listed if f not in helps)
    target = llvm.Target.from_triple(triple)
    with _probe_lock:
        said = _stderr_of(lambda: target.create_target_machine(cpu=cpu, features=features))
    bad_cpu = bool(cpu) and cpu in _NOT_CPU.findall(said)
    return bad_cpu, helps + tuple(dict.fromkeys(_NOT_FEATURE.findall(said)))


def _stderr_of(make: object) -> str:
    """What LLVM writes to file descriptor 2 while `make()` runs (the result is closed)."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)
        try:
            made = make()  # type: ignore[operator]
            made.close()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        sink.seek(0)
        return sink.read().decode("utf-8", "replace")
