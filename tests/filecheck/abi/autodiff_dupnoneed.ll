; __enzyme_autodiff with enzyme_dupnoneed (and the dupnoneed pass it runs): the primal result is not stored into out; the shadow is still read
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
  %dnn = load i32, ptr @enzyme_dupnoneed, align 4
  %const = load i32, ptr @enzyme_const, align 4
  call void (ptr, ...) @__enzyme_autodiff(ptr @sumsq, i32 %dup, ptr %x, ptr %dx, i32 %dnn, ptr %out, ptr %dout, i32 %const, i32 2)
  ret void
}

; CHECK-LABEL: define void @diffe_sumsq(ptr %x, ptr %x.shadow, ptr %out, ptr %out.shadow, i32 %n)
; CHECK-NOT: store double %s, ptr %out
; CHECK: load double, ptr %out.shadow
; CHECK: ret void
