; vector forward mode, width=2: one shadow per direction after each dup argument, every tangent computed per lane
; RUN: enzyme-py opt %s -p 'prepare{fn=g},forward{fn=g,acts=dup,const,const,width=2}' | filecheck %s

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

; CHECK-LABEL: define void @fwddiffe_g(ptr %x, ptr %x.shadow0, ptr %x.shadow1, double %s, i64 %n) {
; CHECK: %v.t0 = load double, ptr %x.shadow0
; CHECK-NEXT: %v.t1 = load double, ptr %x.shadow1
; CHECK: %m.t0 = fmul double %v.t0, %s
; CHECK-NEXT: %m.t1 = fmul double %v.t1, %s
; an identity partial passes the operand's tangent through (no fadd 0.0)
; CHECK: %r.t0 = phi double [ %m.t0, %pos ], [ %w.t0, %neg ]
; CHECK: store double %r.t0, ptr %x.shadow0
; CHECK-NEXT: store double %r.t1, ptr %x.shadow1
