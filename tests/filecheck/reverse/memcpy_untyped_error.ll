; reverse mode: a memcpy whose memory has no typed access cannot be differentiated (the element type is unknown); the error names the copy
; RUN: not enzyme-py opt %s -p 'reverse{fn=f,acts=dup,dup}' 2>&1 | filecheck %s

define void @f(ptr %dst, ptr %src) {
entry:
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 16, i1 false)
  ret void
}

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

; CHECK: enzyme-py opt: error: in @f, block %entry, instruction `call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 16, i1 false)`:
; CHECK-SAME: cannot tell which floating point type this copy moves
