; reverse mode of a recursive function: the recursive call calls the gradient under construction (its augmented pair: the call stays a call)
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out,const}' | filecheck %s

define double @f(double %x, i32 %n) {
entry:
  %z = icmp eq i32 %n, 0
  br i1 %z, label %done, label %more

more:
  %m = sub i32 %n, 1
  %r = call double @f(double %x, i32 %m)
  %p = fmul double %r, %x
  br label %done

done:
  %v = phi double [ 1.000000e+00, %entry ], [ %p, %more ]
  ret double %v
}

; CHECK-LABEL: define internal double @augmented_f(double %x, i32 %n, ptr %frees, ptr %tape.out)
; CHECK: call double @augmented_f(double %x, i32 %m, ptr %frees, ptr %{{.*}})
; CHECK-LABEL: define internal double @diffe_f.1(double %x, i32 %n, double %dret, ptr %tape)
; CHECK: call double @diffe_f.1(double %x, i32 %m, double %{{.*}}, ptr %{{.*}})
; CHECK-LABEL: define double @diffe_f(double %x, i32 %n, double %dret)
; CHECK: %r = call double @augmented_f(double %x, i32 %m, ptr %frees, ptr %f.tape.slot)
; CHECK: call double @diffe_f.1(double %x, i32 %m{{[.0-9]*}}, double %r.d{{[.0-9]*}}, ptr %f.tape{{[.0-9]*}})
