; enzyme-py grad --print-pipeline: the passes grad runs, which enzyme-py opt -p runs the same; here without inlining and at -O0
; RUN: enzyme-py grad %s -f f --no-inline -O 0 --print-pipeline | filecheck %s

define double @f(double %x, i64 %n) {
entry:
  ret double %x
}

; CHECK: posix-memalign,strip-optnone,always-inline,sroa,instcombine,simplifycfg,mergereturn,loop-simplify,lcssa,hoist-allocations,devirtualize{fn=f,inline=0},reverse{fn=f,acts=out,const,ret=active},dupnoneed{fn=f,acts=out,const,ret=active}
; CHECK-NOT: O2
