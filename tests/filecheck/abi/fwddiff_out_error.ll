; __enzyme_fwddiff with enzyme_out: forward mode has no enzyme_out; the error names the parameter and says what to pass
; RUN: not enzyme-py opt %s -p 'lower-enzyme' 2>&1 | filecheck %s

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

declare double @__enzyme_fwddiff(ptr, ...)

define double @bad(double %x) {
entry:
  %out = load i32, ptr @enzyme_out, align 4
  %t = call double (ptr, ...) @__enzyme_fwddiff(ptr @square, i32 %out, double %x)
  ret double %t
}

; CHECK: error: in @bad, block %entry, the call to __enzyme_fwddiff: parameter 0 of @square is enzyme_out, which forward mode does not have
