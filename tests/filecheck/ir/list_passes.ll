; --list-passes: every pass with its arguments and their defaults
; RUN: enzyme-py opt --list-passes | filecheck %s

; (no input is read)

; CHECK: devirtualize{fn=,rounds=,inline=}
; CHECK: rounds=  at most this many rounds (default: 3)
; CHECK: forward{fn=,acts=,width=,name=,primal=}
; CHECK: print-activity{fn=,acts=,ret=}
; CHECK: reverse{fn=,acts=,ret=,name=,primal=,atomics=}
; CHECK: sroa
