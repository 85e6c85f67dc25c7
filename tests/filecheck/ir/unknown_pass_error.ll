; an unknown pass name is one line listing the known passes
; RUN: not enzyme-py opt %s -p 'sroa,mem3reg' 2>&1 | filecheck %s

define void @f() {
entry:
  ret void
}

; CHECK: enzyme-py opt: error: unknown pass 'mem3reg'; known passes: {{.*}}reverse
