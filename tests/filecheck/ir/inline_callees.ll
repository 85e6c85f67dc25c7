; inline-callees{fn=f}: the functions f calls, directly or not, are marked alwaysinline (noinline dropped); a function with a registered rule is not, so its calls stay calls
; RUN: enzyme-py opt %s -p 'inline-callees{fn=f}' | filecheck %s

@__enzyme_register_gradient_g = global [3 x ptr] [ptr @g, ptr null, ptr @g_rev]

define double @h(double %a) noinline {
entry:
  ret double %a
}

define double @k(double %a) noinline {
entry:
  %r = call double @h(double %a)
  ret double %r
}

define double @g(double %a) noinline {
entry:
  ret double %a
}

define double @g_rev(double %a, double %d) {
entry:
  ret double %d
}

define double @f(double %x) {
entry:
  %a = call double @k(double %x)
  %b = call double @g(double %a)
  ret double %b
}

; CHECK: define double @h(double %a) alwaysinline {
; CHECK: define double @k(double %a) alwaysinline {
; CHECK: define double @g(double %a) noinline {
; CHECK: define double @f(double %x) {
