; __enzyme_fwddiff with enzyme_dup pointers: the shadows hold the tangents of the memory read and receive those of the memory written
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

declare void @__enzyme_fwddiff(ptr, ...)

define void @tsumsq(ptr %x, ptr %dx, ptr %out, ptr %dout) {
entry:
  %dup = load i32, ptr @enzyme_dup, align 4
  %const = load i32, ptr @enzyme_const, align 4
  call void (ptr, ...) @__enzyme_fwddiff(ptr @sumsq, i32 %dup, ptr %x, ptr %dx, i32 %dup, ptr %out, ptr %dout, i32 %const, i32 2)
  ret void
}

; CHECK-LABEL: define void @tsumsq(ptr %x, ptr %dx, ptr %out, ptr %dout)
; CHECK: call void @fwddiffe_sumsq(ptr %x, ptr %dx, ptr %out, ptr %dout, i32 2)
; CHECK-LABEL: define void @fwddiffe_sumsq(
; CHECK: %a.t = load double, ptr %x.shadow
; CHECK: store double %s.t, ptr %out.shadow
