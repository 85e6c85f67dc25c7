; forward mode through a branch with memory: loads read the shadow, the store writes the tangent into it, the phi of tangents follows the phi of values
; RUN: enzyme-py opt %s -p 'prepare{fn=g},forward{fn=g,acts=dup,dup,const}' | filecheck %s

define void @g(ptr %x, double %s, i64 %n) {
entry:
  %c = icmp sgt i64 %n, 0
  br i1 %c, label %pos, label %neg
pos:
  %v = load double, ptr %x
  %m = fmul double %v, %s
  br label %join
neg:
  %w = load double, ptr %x
  %m2 = fadd double %w, %s
  br label %join
join:
  %r = phi double [ %m, %pos ], [ %m2, %neg ]
  store double %r, ptr %x
  ret void
}

; CHECK-LABEL: define void @fwddiffe_g(ptr %x, ptr %x.shadow, double %s, double %s.t, i64 %n) {
; CHECK: pos:
; CHECK-NEXT: %v = load double, ptr %x
; the tangent of a load from dup memory is loaded from the shadow
; CHECK-NEXT: %v.t = load double, ptr %x.shadow
; CHECK: %m.t = fadd double
; CHECK: neg:
; CHECK: %m2.t = fadd double %w.t, %s.t
; CHECK: join:
; CHECK-NEXT: %r = phi double [ %m, %pos ], [ %m2, %neg ]
; CHECK-NEXT: %r.t = phi double [ %m.t, %pos ], [ %m2.t, %neg ]
; the store into dup memory also stores the tangent
; CHECK-NEXT: store double %r, ptr %x
; CHECK-NEXT: store double %r.t, ptr %x.shadow
; CHECK-NEXT: ret void
