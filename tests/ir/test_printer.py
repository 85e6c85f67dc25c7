"""Golden tests for the printer: LLVM's spelling, numbering and uniquing of names."""

from __future__ import annotations

from enzyme_py.ir import parse
from enzyme_py.ir.values import format_double
from tests.filecheck import filecheck

SOURCE = """%struct.P = type { double, ptr }
@tbl = internal constant [3 x double] [double 1.0, double 0x3FD5555555555555, double 0x7FF0000000000000], align 16
@s = private unnamed_addr constant [4 x i8] c"hi\\0A\\00"

declare double @llvm.sin.f64(double)
declare i32 @printf(ptr, ...)

define double @f(ptr noundef %p, i32 %n) #0 {
  %1 = getelementptr inbounds nuw %struct.P, ptr %p, i64 0, i32 0
  %2 = load double, ptr %1, align 8, !tbaa !3
  %3 = tail call fast double @llvm.sin.f64(double %2)
  %4 = icmp sgt i32 %n, 0
  br i1 %4, label %5, label %8

5:
  %6 = call i32 (ptr, ...) @printf(ptr @s, double %3)
  %7 = fmul contract double %3, 2.0
  br label %8

8:
  %9 = phi double [ %7, %5 ], [ %3, %0 ]
  switch i32 %n, label %11 [
    i32 1, label %10
    i32 7, label %10
  ]

10:
  ret double %9

11:
  %v = select i1 %4, <2 x double> splat (double 1.0), <2 x double> zeroinitializer
  %e = extractelement <2 x double> %v, i64 1
  ret double %e
}

attributes #0 = { nounwind }

!3 = !{!"double"}
"""


def test_renumbering_after_deletion():
    m = parse(SOURCE)
    fn = m.get_function("f")
    call = fn.blocks[1].instructions[0]
    fn.blocks[1].remove(call)  # an unused call result: later numbers shift down
    filecheck(str(m), """
; CHECK:      5:
; CHECK-NEXT:   %6 = fmul contract double %3, 2.000000e+00
; CHECK:      7:
; CHECK-NEXT:   %8 = phi double [ %6, %5 ], [ %3, %0 ]
""")


def test_double_spelling():
    assert format_double(1.0) == "1.000000e+00"
    assert format_double(0.1) == "1.000000e-01"
    assert format_double(1 / 3) == "0x3FD5555555555555"
    assert format_double(-2.5e-3) == "-2.500000e-03"
    assert format_double(float("inf")) == "0x7FF0000000000000"
    assert format_double(float("-0.0")) == "-0.000000e+00"
