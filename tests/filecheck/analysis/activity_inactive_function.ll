; print-activity reads the module's registrations: a call of a function declared inactive (__enzyme_inactivefn) is const, though its argument is active
; RUN: enzyme-py opt %s -p 'print-activity{fn=f,acts=out}' --disable-output | filecheck %s

@__enzyme_inactivefn = global [1 x ptr] [ptr @log_value]

declare double @log_value(double)

define double @f(double %x) {
entry:
  %l = call double @log_value(double %x)
  %y = fmul double %x, %l
  ret double %y
}

; CHECK: %l = call double @log_value(double %x)  ; const
; CHECK-NEXT: %y = fmul double %x, %l  ; active
