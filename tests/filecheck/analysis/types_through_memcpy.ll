; print-types: memory only copied (memcpy) takes the kind of the memory at the other end
; RUN: enzyme-py opt %s -p 'print-types{fn=f}' --disable-output | filecheck %s

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define double @f(ptr %src, ptr %dst) {
entry:
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 16, i1 false)
  %v = load double, ptr %src, align 8
  ret double %v
}

; CHECK: ;   argument %src: double
; CHECK-NEXT: ;   argument %dst: double
