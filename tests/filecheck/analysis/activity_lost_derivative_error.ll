; print-activity: an active value stored where no shadow can follow it and loaded back on an active path is an error (the derivative would be lost)
; RUN: not enzyme-py opt %s -p 'print-activity{fn=f,acts=out,const}' 2>&1 | filecheck %s

define double @f(double %x, ptr %p) {
entry:
  store double %x, ptr %p, align 8
  %v = load double, ptr %p, align 8
  ret double %v
}

; CHECK: error: in @f: `store double %x, ptr %p, align 8` stores an active value into memory without a shadow (a const argument or a global)
