; print-activity through a branch: the phi merging an active value is active; the other side's constant is not
; RUN: enzyme-py opt %s -p 'print-activity{fn=f,acts=out,const,ret=active}' --disable-output | filecheck %s

define double @f(double %x, i1 %c) {
entry:
  br i1 %c, label %a, label %b
a:
  %ax = fmul double %x, 2.0
  br label %join
b:
  br label %join
join:
  %p = phi double [ %ax, %a ], [ 1.0, %b ]
  ret double %p
}

; CHECK: ;   shadow memory: none
; CHECK-LABEL: {{^}}a:
; CHECK-NEXT: %ax = fmul double %x, 2.000000e+00  ; active
; CHECK-LABEL: {{^}}b:
; CHECK-NEXT: br label %join  ; const
; CHECK-LABEL: {{^}}join:
; CHECK-NEXT: %p = phi double [ %ax, %a ], [ 1.000000e+00, %b ]  ; active
; CHECK-NEXT: ret double %p  ; active
