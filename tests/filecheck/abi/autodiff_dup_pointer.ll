; __enzyme_autodiff with enzyme_dup: the pointer is followed by its shadow, which the gradient accumulates into; nothing is returned
; RUN: enzyme-py opt %s -p 'lower-enzyme' | filecheck %s

@enzyme_dup = external global i32
@enzyme_const = external global i32
@enzyme_out = external global i32
@enzyme_dupnoneed = external global i32
@enzyme_width = external global i32
define void @sumsq(ptr noalias %x, ptr noalias %out, i32 %n) {
entry:
  %a = load double, ptr %x, align 8
  %q = getelementptr inbounds double, ptr %x, i64 1
  %b = load double, ptr %q, align 8
  %aa = fmul double %a, %a
  %bb = fmul double %b, %b
  %s = fadd double %aa, %bb
  store double %s, ptr %out, align 8
  ret void
}

declare void @__enzyme_autodiff(ptr, ...)

define void @dsumsq(ptr %x, ptr %dx, ptr %out, ptr %dout) {
entry:
  %dup = load i32, ptr @enzyme_dup, align 4
  %const = load i32, ptr @enzyme_const, align 4
  call void (ptr, ...) @__enzyme_autodiff(ptr @sumsq, i32 %dup, ptr %x, ptr %dx, i32 %dup, ptr %out, ptr %dout, i32 %const, i32 2)
  ret void
}

; CHECK-LABEL: define void @dsumsq(ptr %x, ptr %dx, ptr %out, ptr %dout)
; CHECK: call void @diffe_sumsq(ptr %x, ptr %dx, ptr %out, ptr %dout, i32 2)
; CHECK-NOT: __enzyme_autodiff
; CHECK-LABEL: define void @diffe_sumsq(ptr %x, ptr %x.shadow, ptr %out, ptr %out.shadow, i32 %n)
; COM: the result written to out is stored, and its adjoint read from out's shadow
; CHECK: store double %s, ptr %out
; CHECK: load double, ptr %out.shadow
; CHECK-NEXT: store double 0.000000e+00, ptr %out.shadow
