; print-types: a struct holding a double and a pointer: both kinds, comma-separated
; RUN: enzyme-py opt %s -p 'print-types{fn=f}' --disable-output | filecheck %s

%struct.node = type { double, ptr }

define double @f(ptr %n) {
entry:
  %s = alloca %struct.node, align 8
  %v = load double, ptr %n, align 8
  store double %v, ptr %s, align 8
  %r = load double, ptr %s, align 8
  ret double %r
}

; CHECK: ;   argument %n: double
; CHECK-NEXT: ;   alloca %s: double, ptr
