; reverse mode, a value outside loops in a block that does not dominate the return (an early exit before it), computed by a chain of ten cheap instructions: past RECOMPUTE_LIMIT it is kept in one entry-block slot, stored where it is defined and loaded where the reverse sweep needs it, instead of the chain being recomputed in every reverse block that reads it
; RUN: enzyme-py opt %s -p 'prepare{fn=f},reverse{fn=f,acts=dup,const,const,const,const,ret=active},dupnoneed{fn=f,acts=dup,const,const,const,const,ret=active}' | filecheck %s

define double @f(ptr noalias %x, i64 %n, i64 %a, i64 %b, i64 %c) {
entry:
  %bad = icmp slt i64 %n, 0
  br i1 %bad, label %exit, label %ok
ok:
  %o1 = mul i64 %a, %b
  %o2 = add i64 %o1, %c
  %o3 = mul i64 %o2, %b
  %o4 = add i64 %o3, %c
  %o5 = mul i64 %o4, %b
  %o6 = add i64 %o5, %c
  %o7 = mul i64 %o6, %b
  %o8 = add i64 %o7, %c
  %o9 = mul i64 %o8, %b
  %s = add i64 %o9, %c
  br label %loop
loop:
  %i = phi i64 [ 0, %ok ], [ %i.next, %loop ]
  %acc = phi double [ 0.0, %ok ], [ %acc2, %loop ]
  %k = mul i64 %i, %s
  %p = getelementptr double, ptr %x, i64 %k
  %v = load double, ptr %p
  %sq = fmul double %v, %v
  %acc2 = fadd double %acc, %sq
  %i.next = add nsw i64 %i, 1
  %more = icmp slt i64 %i.next, %n
  br i1 %more, label %loop, label %exit
exit:
  %r = phi double [ 0.0, %entry ], [ %acc2, %loop ]
  ret double %r
}

; CHECK-LABEL: define void @diffe_f(
; CHECK: %s.cache = alloca i64
; CHECK: %s = add i64 %o9, %c
; CHECK-NEXT: store i64 %s, ptr %s.cache
; CHECK: %s.1 = load i64, ptr %s.cache
; CHECK-NEXT: %k.1 = mul i64 %{{[0-9]+}}, %s.1
; CHECK-NOT: %o1.1 =
; CHECK-NOT: %o9.1 =
