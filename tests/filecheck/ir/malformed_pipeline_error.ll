; a malformed pipeline text names the column of the problem
; RUN: not enzyme-py opt %s -p 'reverse{fn=f' 2>&1 | filecheck %s

define void @f() {
entry:
  ret void
}

; CHECK: enzyme-py opt: error: pipeline 'reverse{fn=f', column 13: missing '}'
