; print-activity: an 'out' pointer or a 'dup' float is refused with a message naming the argument
; RUN: not enzyme-py opt %s -p 'print-activity{fn=f,acts=out}' 2>&1 | filecheck %s

define double @f(ptr %p) {
entry:
  %v = load double, ptr %p, align 8
  ret double %v
}

; CHECK: error: argument 0 of @f is ptr: only floating point arguments can be 'out' (use 'dup' for pointers)
