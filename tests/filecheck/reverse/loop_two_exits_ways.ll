; reverse mode of a loop with two exits (the test in the header, a break in the body): each exit enters the reversed loop at a different block, so both, and the back edge, go through one block that switches on the way in (the exits through a shared `enter` block first, where what every way in does is done once, the back edge straight); the reversed loop stays a natural loop (reducible) that LLVM optimizes
; RUN: enzyme-py opt %s -p 'prepare{fn=f},reverse{fn=f,acts=dup,const,const,ret=active},dupnoneed{fn=f,acts=dup,const,const,ret=active}' | filecheck %s

define double @f(ptr noalias %x, i64 %n, double %lim) {
entry:
  br label %head
head:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %s = phi double [ 0.0, %entry ], [ %s2, %latch ]
  %c = icmp slt i64 %i, %n
  br i1 %c, label %body, label %exit
body:
  %px = getelementptr double, ptr %x, i64 %i
  %v = load double, ptr %px
  %big = fcmp ogt double %v, %lim
  br i1 %big, label %exit, label %latch
latch:
  %sq = fmul double %v, %v
  %s2 = fadd double %s, %sq
  %i.next = add nsw i64 %i, 1
  br label %head
exit:
  %r = phi double [ %s, %head ], [ %s, %body ]
  ret double %r
}

; CHECK-LABEL: define void @diffe_f(
; CHECK: %way = alloca i32
; CHECK: rev.exit:
; CHECK: switch i32 %came.from, label %rev.exit.to.head [
; CHECK-NEXT: i32 1, label %rev.exit.to.body
; CHECK: rev.head.ways:
; CHECK-NEXT: %way.1 = load i32, ptr %way
; CHECK-NEXT: switch i32 %way.1, label %rev.latch [
; CHECK-NEXT: i32 1, label %rev.head
; CHECK-NEXT: i32 2, label %rev.body
; CHECK-NEXT: ]
; CHECK: rev.head.enter:
; CHECK-NEXT: br label %rev.head.ways
; CHECK: rev.exit.to.head:
; CHECK: store i32 1, ptr %way
; CHECK-NEXT: store i64 %iv.last, ptr %riv, align 8
; CHECK-NEXT: br label %rev.head.enter
; CHECK: rev.exit.to.body:
; CHECK: store i32 2, ptr %way
; CHECK-NEXT: store i64 %iv.last, ptr %riv, align 8
; CHECK-NEXT: br label %rev.head.enter
; CHECK: rev.head.to.latch:
; CHECK: store i32 0, ptr %way
; CHECK-NEXT: br label %rev.head.ways
