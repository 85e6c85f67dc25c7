; print-activity with a dup pointer: the pointer's memory has a shadow and the store of varied data into it is active
; RUN: enzyme-py opt %s -p 'print-activity{fn=f,acts=out,const,dup,ret=active}' --disable-output | filecheck %s

define double @f(double %x, double %y, ptr %p) {
entry:
  %a = alloca [4 x double], align 8
  %q = getelementptr [4 x double], ptr %a, i64 0, i64 1
  %m = fmul double %x, %x
  store double %m, ptr %q, align 8
  %l = load double, ptr %q, align 8
  %u = fadd double %x, 1.0
  store double %u, ptr %p, align 8
  %r = fadd double %l, %y
  ret double %r
}

; CHECK: ;   arg %p: dup
; CHECK: ;   shadow memory: %p, %a
; CHECK: store double %u, ptr %p, align 8  ; active
