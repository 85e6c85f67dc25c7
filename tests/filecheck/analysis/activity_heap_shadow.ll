; print-activity: heap memory that receives active data and is read back on an active path gets a shadow
; RUN: enzyme-py opt %s -p 'print-activity{fn=f,acts=out}' --disable-output | filecheck %s

declare ptr @malloc(i64)

define double @f(double %x) {
entry:
  %buf = call ptr @malloc(i64 8)
  store double %x, ptr %buf, align 8
  %v = load double, ptr %buf, align 8
  %y = fmul double %v, %v
  ret double %y
}

; CHECK: ;   shadow memory: %buf
; CHECK: store double %x, ptr %buf, align 8  ; active
; CHECK-NEXT: %v = load double, ptr %buf, align 8  ; active
