; a required pass argument left out is an error saying what it is
; RUN: not enzyme-py opt %s -p 'forward{acts=dup}' 2>&1 | filecheck %s

define void @f() {
entry:
  ret void
}

; CHECK: enzyme-py opt: error: forward: needs fn= (the function to differentiate)
