; split-invoke-edges: an invoke whose normal destination has other predecessors gets an edge block of its own
; RUN: enzyme-py opt %s -p 'split-invoke-edges' | filecheck %s

declare double @g(double)
declare i32 @__gxx_personality_v0(...)

define double @f(double %x, i1 %c) personality ptr @__gxx_personality_v0 {
entry:
  br i1 %c, label %call, label %join

call:
  %r = invoke double @g(double %x)
          to label %join unwind label %lpad

join:
  %v = phi double [ %r, %call ], [ %x, %entry ]
  ret double %v

lpad:
  %lp = landingpad { ptr, i32 }
          cleanup
  resume { ptr, i32 } %lp
}

; CHECK: to label %join.from.invoke unwind label %lpad
; CHECK: join.from.invoke:
; CHECK-NEXT: br label %join
; CHECK: %v = phi double [ %r, %join.from.invoke ], [ %x, %entry ]
