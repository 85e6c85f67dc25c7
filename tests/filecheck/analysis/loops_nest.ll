; print-loops: a nest of two counted loops, their blocks, preheaders, exits, induction variables and trip counts
; RUN: enzyme-py opt %s -p 'print-loops{fn=f}' --disable-output | filecheck %s

define double @f(ptr %x, i64 %n, i64 %m) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %outer.latch ]
  %s = phi double [ 0.0, %entry ], [ %s.inner, %outer.latch ]
  %c = icmp slt i64 %i, %n
  br i1 %c, label %inner.pre, label %exit
inner.pre:
  br label %inner
inner:
  %j = phi i64 [ 0, %inner.pre ], [ %j.next, %inner ]
  %t = phi double [ %s, %inner.pre ], [ %t.next, %inner ]
  %p = getelementptr double, ptr %x, i64 %j
  %v = load double, ptr %p
  %t.next = fadd double %t, %v
  %j.next = add nsw i64 %j, 2
  %cj = icmp sle i64 %j.next, %m
  br i1 %cj, label %inner, label %outer.latch
outer.latch:
  %s.inner = phi double [ %t.next, %inner ]
  %i.next = add i64 %i, 1
  br label %outer
exit:
  ret double %s
}

; CHECK: loops of @f:
; CHECK-NEXT: {{^  }}loop at %outer depth 1: blocks %inner, %inner.pre, %outer, %outer.latch; preheader %entry; exits %exit
; CHECK-NEXT: {{^    }}induction variable %i: start 0, step 1
; CHECK-NEXT: {{^    }}trip count: 1 + leading true tests of %i slt %n
; CHECK-NEXT: {{^    }}loop at %inner depth 2: blocks %inner; preheader %inner.pre; exits %outer.latch
; CHECK-NEXT: {{^      }}induction variable %j: start 0, step 2
; CHECK-NEXT: {{^      }}trip count: 1 + leading true tests of %j.next sle %m
; CHECK-NOT: loop at
