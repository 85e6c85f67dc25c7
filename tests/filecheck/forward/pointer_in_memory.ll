; forward mode: a pointer stored into memory carries its shadow into the shadow memory; a load of it loads the shadow too
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup,dup,const}' | filecheck %s

define double @f(ptr %x, ptr %tab, i64 %n) {
entry:
  %p = getelementptr double, ptr %x, i64 %n
  store ptr %p, ptr %tab
  %q = load ptr, ptr %tab
  %v = load double, ptr %q
  %y = fmul double %v, %v
  ret double %y
}

; CHECK-LABEL: define {{.*}} @fwddiffe_f(
; CHECK: %p.shadow = getelementptr double, ptr %x.shadow, i64 %n
; CHECK: store ptr %p, ptr %tab
; CHECK-NEXT: store ptr %p.shadow, ptr %tab.shadow
; CHECK: %q = load ptr, ptr %tab
; CHECK-NEXT: %q.shadow = load ptr, ptr %tab.shadow
; CHECK: %v.t = load double, ptr %q.shadow
