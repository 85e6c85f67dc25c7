; reverse mode with a dupnoneed pointer and const scalars: the shadow follows the pointer, nothing is returned
; RUN: enzyme-py opt %s -p 'prepare{fn=g},reverse{fn=g,acts=dupnoneed,const,const,ret=const},dupnoneed{fn=g,acts=dupnoneed,const,const,ret=const}' | filecheck %s

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

; CHECK-LABEL: define void @diffe_g(ptr %x, ptr %x.shadow, double %s, i64 %n) {
; CHECK: ret void
