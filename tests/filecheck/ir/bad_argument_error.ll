; a pass argument the pass does not take is an error naming the pass and its arguments
; RUN: not enzyme-py opt %s -p 'reverse{fn=f,mode=fast}' 2>&1 | filecheck %s

define void @f() {
entry:
  ret void
}

; CHECK: enzyme-py opt: error: reverse: unknown argument 'mode' (its arguments: fn, acts, ret, name, primal, atomics)
