; print-types: memory only passed on to a call has no known float kind
; RUN: enzyme-py opt %s -p 'print-types{fn=f}' --disable-output | filecheck %s

declare void @use(ptr)

define void @f(ptr %p) {
entry:
  call void @use(ptr %p)
  ret void
}

; CHECK: ; memory types of @f
; CHECK-NEXT: ;   no typed memory accesses
; CHECK: ;   argument %p: unknown
