; reverse mode through a branch on fcmp: |x| by control flow; the came-from edge picks the sign (the branch's own test: `select %c`, no phi)
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out},sroa' | filecheck %s

define double @f(double %x) {
entry:
  %c = fcmp olt double %x, 0.000000e+00
  br i1 %c, label %neg, label %done

neg:
  %n = fneg double %x
  br label %done

done:
  %r = phi double [ %n, %neg ], [ %x, %entry ]
  ret double %r
}

; CHECK-LABEL: define double @diffe_f(double %x, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: br label %entry
; CHECK-EMPTY:
; CHECK-NEXT: entry:
; CHECK-NEXT: %c = fcmp olt double %x, 0.000000e+00
; CHECK-NEXT: br i1 %c, label %neg, label %done
; CHECK-EMPTY:
; CHECK-NEXT: neg:
; CHECK-NEXT: %n = fneg double %x
; CHECK-NEXT: br label %done
; CHECK-EMPTY:
; CHECK-NEXT: done:
; CHECK-NEXT: %r = phi double [ %n, %neg ], [ %x, %entry ]
; CHECK-NEXT: %came.from = select i1 %c, i32 1, i32 0
; CHECK-NEXT: br label %rev.done
; CHECK-EMPTY:
; CHECK-NEXT: rev.done:
; CHECK-NEXT: [[V0:%[0-9]+]] = fadd reassoc double -0.000000e+00, %dret
; CHECK-NEXT: switch i32 %came.from, label %rev.done.to.entry [
; CHECK-NEXT: i32 1, label %rev.done.to.neg
; CHECK-NEXT: ]
; CHECK-EMPTY:
; CHECK-NEXT: rev.neg:
; CHECK-NEXT: [[V1:%[0-9]+]] = fneg double %{{[0-9]+}}
; CHECK-NEXT: [[V2:%[0-9]+]] = fadd reassoc double -0.000000e+00, [[V1]]
; CHECK-NEXT: br label %rev.entry
; CHECK-EMPTY:
; CHECK-NEXT: rev.entry:
; CHECK-NEXT: %x.d.0 = phi double [ %{{[0-9]+}}, %rev.done.to.entry ], [ [[V2]], %rev.neg ]
; CHECK-NEXT: br label %rev.return
; CHECK-EMPTY:
; CHECK-NEXT: rev.return:
; CHECK-NEXT: ret double %x.d.0
; CHECK-EMPTY:
; CHECK-NEXT: rev.done.to.entry:
; CHECK-NEXT: [[V3:%[0-9]+]] = fadd reassoc double -0.000000e+00, [[V0]]
; CHECK-NEXT: br label %rev.entry
; CHECK-EMPTY:
; CHECK-NEXT: rev.done.to.neg:
; CHECK-NEXT: [[V4:%[0-9]+]] = fadd reassoc double -0.000000e+00, [[V0]]
; CHECK-NEXT: br label %rev.neg
; CHECK-NEXT: }
