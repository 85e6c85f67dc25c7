; clang-22 -O0 output of a C loop (acc = acc*x + 1, n times): prepare makes SSA of the stack slots; the gradient tapes acc per iteration and walks the loop back
; RUN: enzyme-py opt %s -p 'prepare{fn=poly},reverse{fn=poly,acts=out,const},sroa,instcombine,simplifycfg' | filecheck %s

; ModuleID = 'poly.c'
source_filename = "poly.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: noinline nounwind optnone uwtable
define dso_local double @poly(double noundef %x, i32 noundef %n) #0 {
entry:
  %x.addr = alloca double, align 8
  %n.addr = alloca i32, align 4
  %acc = alloca double, align 8
  %i = alloca i32, align 4
  store double %x, ptr %x.addr, align 8
  store i32 %n, ptr %n.addr, align 4
  store double 0.000000e+00, ptr %acc, align 8
  store i32 0, ptr %i, align 4
  br label %for.cond

for.cond:                                         ; preds = %for.inc, %entry
  %0 = load i32, ptr %i, align 4
  %1 = load i32, ptr %n.addr, align 4
  %cmp = icmp slt i32 %0, %1
  br i1 %cmp, label %for.body, label %for.end

for.body:                                         ; preds = %for.cond
  %2 = load double, ptr %acc, align 8
  %3 = load double, ptr %x.addr, align 8
  %4 = call double @llvm.fmuladd.f64(double %2, double %3, double 1.000000e+00)
  store double %4, ptr %acc, align 8
  br label %for.inc

for.inc:                                          ; preds = %for.body
  %5 = load i32, ptr %i, align 4
  %inc = add nsw i32 %5, 1
  store i32 %inc, ptr %i, align 4
  br label %for.cond, !llvm.loop !6

for.end:                                          ; preds = %for.cond
  %6 = load double, ptr %acc, align 8
  ret double %6
}

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #1

attributes #0 = { noinline nounwind optnone uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0, !1, !2, !3, !4}
!llvm.ident = !{!5}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 8, !"PIC Level", i32 2}
!2 = !{i32 7, !"PIE Level", i32 2}
!3 = !{i32 7, !"uwtable", i32 2}
!4 = !{i32 7, !"frame-pointer", i32 2}
!5 = !{!"Debian clang version 22.1.8 (1~deb12u1)"}
!6 = distinct !{!6, !7}
!7 = !{!"llvm.loop.mustprogress"}

; CHECK-LABEL: define double @diffe_poly(double %x, i32 %n, double %dret)
; CHECK-NOT: %x.addr = alloca
; CHECK: %tape = call ptr @enzyme_py.tape_alloc(
; CHECK: for.cond:
; CHECK: %acc.0 = phi double [ 0.000000e+00, %alloca ], [ [[NEXT:%[0-9]+]], %for.inc ]
; CHECK: store double %acc.0, ptr
; CHECK: for.inc:
; CHECK-NEXT: [[NEXT]] = call double @llvm.fmuladd.f64(double %acc.0, double %x, double 1.000000e+00)
; CHECK: rev.for.cond.to.entry:
; CHECK-NEXT: call void @free(ptr %tape)
; CHECK-NEXT: ret double %x.d.0
; CHECK: rev.for.cond.to.for.inc:
; COM: d acc_prev = d acc * x;  d x += d acc * acc_prev (from the tape)
; CHECK: fmul double %acc.0.d.0, %x
; CHECK: %acc.0.1 = load double, ptr
; CHECK-NEXT: [[DX:%[0-9]+]] = fmul double %acc.0.d.0, %acc.0.1
; CHECK-NEXT: fadd reassoc double %x.d.0, [[DX]]
