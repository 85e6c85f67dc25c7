; reverse mode of realloc: the working copy sees malloc + memcpy + free (expand-realloc), so the new block's shadow is a fresh allocation and the copy's adjoint goes back to the old block
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=dup}' | filecheck %s

define double @f(ptr %x) {
entry:
  %buf = call ptr @malloc(i64 8)
  %v = load double, ptr %x, align 8
  store double %v, ptr %buf, align 8
  %big = call ptr @realloc(ptr %buf, i64 16)
  %w = load double, ptr %big, align 8
  %m = fmul double %w, %w
  call void @free(ptr %big)
  ret double %m
}

declare ptr @malloc(i64)
declare ptr @realloc(ptr, i64)
declare void @free(ptr)

; CHECK-LABEL: define double @f(ptr %x)
; COM: the primal itself is left alone
; CHECK: %big = call ptr @realloc(ptr %buf, i64 16)
; CHECK-LABEL: define void @diffe_f(ptr %x, ptr %x.shadow, double %dret)
; CHECK-NOT: @realloc
; CHECK: %buf.shadow = call ptr @calloc(i64 1, i64 8)
; CHECK: %big = call ptr @malloc(i64 16)
; CHECK-NEXT: %big.shadow = call ptr @calloc(i64 1, i64 16)
; CHECK: call void @llvm.memcpy.p0.p0.i64(ptr %big, ptr %buf, i64 [[N:%[0-9]+]], i1 false)
; COM: the reverse of the copy: the new block's adjoints move back to the old block's shadow
; CHECK: call void @enzyme_py.copy_adjoint.f64(ptr %big.shadow, ptr %buf.shadow, i64 [[N]])
; CHECK-NEXT: call void @free(ptr %big.shadow)
; CHECK-NEXT: call void @free(ptr %big)
; CHECK: call void @free(ptr %buf.shadow)
; CHECK-NEXT: call void @free(ptr %buf)
