; __enzyme_fwddiff with enzyme_width, 2: two tangents follow each dup value; the two result tangents fill the declared struct
; RUN: enzyme-py opt %s -p 'lower-enzyme' | filecheck %s

@enzyme_dup = external global i32
@enzyme_const = external global i32
@enzyme_out = external global i32
@enzyme_dupnoneed = external global i32
@enzyme_width = external global i32
define double @square(double %x) {
entry:
  %m = fmul double %x, %x
  ret double %m
}

declare { double, double } @__enzyme_fwddiff(ptr, ...)

define { double, double } @tsquare2(double %x, double %d0, double %d1) {
entry:
  %w = load i32, ptr @enzyme_width, align 4
  %t = call { double, double } (ptr, ...) @__enzyme_fwddiff(ptr @square, i32 %w, i32 2, double %x, double %d0, double %d1)
  ret { double, double } %t
}

; CHECK: @enzyme_width = global i32
; CHECK-LABEL: define { double, double } @tsquare2(double %x, double %d0, double %d1)
; CHECK: [[T:%[0-9]+]] = call [2 x double] @fwddiffe_square(double %x, double %d0, double %d1)
; CHECK: extractvalue [2 x double] [[T]], 0
; CHECK: extractvalue [2 x double] [[T]], 1
; CHECK-LABEL: define [2 x double] @fwddiffe_square(double %x, double %x.t0, double %x.t1)
