; reverse mode: storing an active value into memory without a shadow that is read back is an error, not a lost derivative
; RUN: not enzyme-py opt %s -p 'reverse{fn=f,acts=out,const}' 2>&1 | filecheck %s

define double @f(double %x, ptr %p) {
entry:
  store double %x, ptr %p, align 8
  %v = load double, ptr %p, align 8
  ret double %v
}

; CHECK: enzyme-py opt: error: in @f: `store double %x, ptr %p, align 8` stores an active value into memory without a shadow
; CHECK-SAME: Pass that pointer as dup (enzyme_dup)
