; a function name with characters the pipeline text uses is written in double quotes: fn="a,b"
; RUN: enzyme-py opt %s -p 'reverse{fn="a,b",acts=out},sroa,instcombine' | filecheck %s

define double @"a,b"(double %x) {
entry:
  %m = fmul double %x, %x
  ret double %m
}

; CHECK: define double @"diffe_a,b"(double %x, double %dret)
