; forward mode: a global that holds active data gets shadow globals, one per direction, zeroed before anything else runs
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup,width=2}' | filecheck %s

@g = global [4 x double] zeroinitializer

define double @f(double %x) {
entry:
  %s = alloca double
  store double %x, ptr @g
  %v = load double, ptr @g
  %y = fmul double %v, %v
  ret double %y
}

; CHECK-LABEL: define {{.*}} @fwddiffe_f(
; zeroed before anything else runs, one shadow per direction
; CHECK: alloca:
; CHECK-NEXT: %s = alloca double
; CHECK-DAG: call void @llvm.memset.p0.i64(ptr @g.shadow, i8 0, i64 32, i1 false)
; CHECK-DAG: call void @llvm.memset.p0.i64(ptr @g.shadow.1, i8 0, i64 32, i1 false)
; CHECK: br label %entry
; CHECK: entry:
; CHECK: store double %x.t0, ptr @g.shadow
; CHECK: store double %x.t1, ptr @g.shadow.1
; CHECK: %v.t0 = load double, ptr @g.shadow
; CHECK: %v.t1 = load double, ptr @g.shadow.1
