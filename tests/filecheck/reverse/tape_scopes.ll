; tape-scopes: the forward sweep's tape stores are in the tape's alias scope and every other load and store of the gradient is marked !noalias with it, so LLVM needs no run-time overlap checks between a tape row and the arrays a loop reads; the reverse sweep's tape loads are in a second scope that nothing is marked with (they keep LLVM's ordinary answers); without the pass the other accesses carry no mark
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=dup,const},tape-scopes' | filecheck %s
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=dup,const}' | filecheck %s --check-prefix=UNMARKED
define double @f(ptr noalias %x, i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %t = phi double [ 0.0, %entry ], [ %t.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %p, align 8
  %h = fmul double %t, 5.000000e-01
  %t.next = fadd double %h, %v
  %sq = fmul double %t.next, %t.next
  %s.next = fadd double %s, %sq
  %i.next = add nuw nsw i64 %i, 1
  %more = icmp slt i64 %i.next, %n
  br i1 %more, label %loop, label %done

done:
  ret double %s.next
}

; CHECK-LABEL: define void @diffe_f(
; CHECK: %v = load double, ptr %p, align 8, !noalias ![[STORES:[0-9]+]]
; CHECK: store double %t.next, ptr %{{.*}}, align 8, !alias.scope ![[STORES]]
; CHECK: load double, ptr %{{.*}}, align 8, !alias.scope ![[READS:[0-9]+]]
; CHECK-NOT: !noalias ![[READS]]
; CHECK-DAG: [[DOMAIN:![0-9]+]] = distinct !{[[DOMAIN]], !"enzyme_py.tape"}
; CHECK-DAG: [[S:![0-9]+]] = distinct !{[[S]], [[DOMAIN]], !"enzyme_py.tape array"}
; CHECK-DAG: ![[STORES]] = !{[[S]]}
; CHECK-DAG: [[R:![0-9]+]] = distinct !{[[R]], [[DOMAIN]], !"enzyme_py.tape array, read back"}
; CHECK-DAG: ![[READS]] = !{[[R]]}
; UNMARKED-LABEL: define void @diffe_f(
; UNMARKED: %v = load double, ptr %p, align 8{{$}}
; UNMARKED: store double %t.next, ptr %{{.*}}, align 8, !alias.scope
