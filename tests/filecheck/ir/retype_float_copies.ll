; retype-float-copies: a double copied as i64 (what instcombine makes of a small memcpy) gets its float type back, so its derivative is not lost
; RUN: enzyme-py opt %s -p 'retype-float-copies' | filecheck %s

define void @f(ptr %dst, ptr %src) {
entry:
  %bits = load i64, ptr %src, align 8
  store i64 %bits, ptr %dst, align 8
  %a = load double, ptr %src, align 8
  %b = load double, ptr %dst, align 8
  ret void
}

; CHECK: %bits = load double, ptr %src, align 8
; CHECK-NEXT: {{%[0-9]+}} = bitcast double %bits to i64
; CHECK-NEXT: store double %bits, ptr %dst, align 8
