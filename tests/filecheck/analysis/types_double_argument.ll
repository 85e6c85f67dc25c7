; print-types: an argument read as double holds doubles; an index argument holds no memory
; RUN: enzyme-py opt %s -p 'print-types{fn=f}' --disable-output | filecheck %s

define double @f(ptr %x, i64 %i) {
entry:
  %q = getelementptr double, ptr %x, i64 %i
  %v = load double, ptr %q, align 8
  ret double %v
}

; COM: first the analysis: the types each memory object is accessed as
; CHECK: ; memory types of @f
; CHECK-NEXT: ;   %x: double  ; float*
; COM: then the float kind the transforms resolve for each pointer
; CHECK-NEXT: ; float kind of memory in @f
; CHECK-NEXT: ;   argument %x: double
; CHECK-NOT: argument %i
