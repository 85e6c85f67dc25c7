; reverse mode of a switch: the join's came-from index selects the reverse edge; each case's derivative flows only on its edge
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out,const},sroa' | filecheck %s

define double @f(double %x, i32 %k) {
entry:
  switch i32 %k, label %other [
    i32 0, label %zero
    i32 1, label %one
  ]

zero:
  %a = fmul double %x, %x
  br label %join

one:
  %b = fmul double %x, 3.000000e+00
  br label %join

other:
  br label %join

join:
  %r = phi double [ %a, %zero ], [ %b, %one ], [ %x, %other ]
  ret double %r
}

; CHECK-LABEL: define double @diffe_f(double %x, i32 %k, double %dret)
; CHECK: join:
; CHECK-NEXT: %came.from = phi i32 [ 0, %zero ], [ 1, %one ], [ 2, %other ]
; CHECK: rev.join:
; CHECK-NEXT: [[SEED:%[0-9]+]] = fadd reassoc double -0.000000e+00, %dret
; CHECK-NEXT: switch i32 %came.from, label %rev.join.to.zero [
; CHECK-NEXT: i32 1, label %rev.join.to.one
; CHECK-NEXT: i32 2, label %rev.join.to.other
; CHECK: rev.zero:
; CHECK-NEXT: fmul double %{{[0-9]+}}, %x
; CHECK: rev.one:
; CHECK-NEXT: fmul double %{{[0-9]+}}, 3.000000e+00
; CHECK: rev.entry:
; CHECK-NEXT: %x.d.0 = phi double [ %{{[0-9]+}}, %rev.zero ], [ %{{[0-9]+}}, %rev.one ], [ %{{[0-9]+}}, %rev.other ]
; CHECK: rev.join.to.zero:
; CHECK-NEXT: fadd reassoc double -0.000000e+00, [[SEED]]
; CHECK-NEXT: br label %rev.zero
